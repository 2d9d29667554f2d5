"""Compiled perfts: the fast twins of :func:`zerosum.search.perft.perft` for the built-in games.

Each function takes a position of its game and a depth and counts the same move sequences as
the protocol's perft (a game over has no moves), on the game's compiled kernel: tic-tac-toe and
connect four on their bitboards (their search kernels prune moves, so perft walks the boards
itself), morris on its kernel's full move list and its draw rules, chess on
:mod:`zerosum.compiled.chess_board` with the draws by rule of :class:`~zerosum.games.chess.Chess`.
A game's :class:`~zerosum.games.GameSpec` names its function in ``perft``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zerosum.compiled import chess_board as board
from zerosum.compiled import connect4 as c4
from zerosum.compiled import morris as mm
from zerosum.compiled import tictactoe as ttt
from zerosum.compiled.engine import NO_SCORE
from zerosum.game import Game
from zerosum.games.chess import Chess
from zerosum.games.morris import Morris
from zerosum.jit import cached_njit


def _checked(depth: int) -> None:
    if depth < 0:
        raise ValueError(f"perft depth {depth} is out of range: expected 0 or more")


# -- tic-tac-toe -------------------------------------------------------------------------------


@cached_njit(nogil=True)
def _tictactoe(st: Any, depth: int) -> int:
    mover = (st[ttt.STONES] + 1) & 1  # the side that made the last move
    if st[ttt.STONES] > 0 and ttt.has_line(st[mover]):
        return 0
    if depth == 0:
        return 1
    taken = st[ttt.X_STONES] | st[ttt.O_STONES]
    total = 0
    for cell in range(9):
        if not (taken >> cell) & 1:
            if depth == 1:
                total += 1
            else:
                ttt.play(st, cell)
                total += _tictactoe(st, depth - 1)
                ttt.undo(st, cell)
    return total


def tictactoe(game: Game[Any], depth: int) -> int:
    """Tic-tac-toe perft on the compiled kernel's bitboards."""
    _checked(depth)
    st = np.array(ttt.state_of(game), np.int64)
    if depth == 0:
        return 1
    return int(_tictactoe(st, depth))


# -- connect four ------------------------------------------------------------------------------


@cached_njit(nogil=True)
def _connect4(st: Any, depth: int) -> int:
    if st[c4.STONES] > 0 and c4.has_four(st[c4.CURRENT] ^ st[c4.MASK]):
        return 0
    if depth == 0:
        return 1
    total = 0
    for col in range(c4.WIDTH):
        if c4.playable(st[c4.MASK]) & c4.column_mask(col):
            if depth == 1:
                total += 1
            else:
                c4.play(st, col)
                total += _connect4(st, depth - 1)
                c4.undo(st, col)
    return total


def connect4(game: Game[Any], depth: int) -> int:
    """Connect four perft on the compiled kernel's bitboards."""
    _checked(depth)
    if depth == 0:
        return 1
    return int(_connect4(np.array(c4.state_of(game), np.int64), depth))


# -- nine men's morris -------------------------------------------------------------------------


@cached_njit(nogil=True)
def _morris(st: Any, depth: int, buf: Any) -> int:
    if mm.decided(st) != NO_SCORE:
        return 0
    if depth == 0:
        return 1
    out = buf[depth - 1]
    count = mm.moves(st, out)
    if depth == 1:
        return count
    total = 0
    for i in range(count):
        move = out[i]
        mm.play(st, move)
        total += _morris(st, depth - 1, buf)
        mm.undo(st, move)
    return total


def morris(game: Game[Any], depth: int) -> int:
    """Morris perft (a move is a whole turn, its removal included) on the compiled kernel."""
    _checked(depth)
    assert isinstance(game, Morris)
    if depth == 0:
        return 1
    st = np.array(mm.state_of(game), np.int64)
    buf = np.zeros((depth, mm.KERNEL.max_moves), np.int64)
    return int(_morris(st, depth, buf))


# -- chess -------------------------------------------------------------------------------------


@cached_njit(nogil=True)
def _chess(st: Any, depth: int, buf: Any) -> int:
    out = buf[depth - 1]
    n = board.legal_moves(st, out, 0)
    if n > 0 and board.draw_by_rule(st, 3):
        return 0
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        board.make(st, out[i])
        total += _chess(st, depth - 1, buf)
        board.unmake(st)
    return total


def chess(game: Game[Any], depth: int) -> int:
    """Chess perft on the compiled board, a line ending at a draw by rule as
    :meth:`Chess.legal_moves` ends it (:func:`zerosum.compiled.chess_board.perft` is standard
    perft, which never stops at a draw)."""
    _checked(depth)
    assert isinstance(game, Chess)
    if depth == 0:
        return 1
    deepest = board.MAX_STACK - board.HISTORY_SIZE // 4  # the undo stack's room
    if depth > deepest:
        raise ValueError(
            f"perft depth {depth} is out of range for chess: expected at most {deepest}"
        )
    buf = np.zeros((depth, board.MAX_MOVES), np.int64)
    return int(_chess(board.state_of_game(game), depth, buf))
