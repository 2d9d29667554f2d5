"""Static exchange evaluation (SEE): what a capture wins or loses once every recapture on its
square is played out, least valuable attacker first, each side free to stop when recapturing
would lose.

Both twins use it the same way (the compiled one is :mod:`zerosum.compiled.chess_exchange`,
tested equal on random positions): a capture that loses more than :data:`SEE_TOLERANCE`
(:func:`loses_material`) is left out of quiescence and searched after the quiet moves. Piece
values are the middlegame material (``chess_tables.MATERIAL_MG``); pins, promotions on a
recapture and checks are not seen. Among attackers of the same kind the one on the lowest
square goes first (it decides which line an x-ray opens), in both twins.
"""

from __future__ import annotations

from typing import Final

import chess

from zerosum.games.chess_tables import MATERIAL_MG

SEE_TOLERANCE: Final = 50
"""A capture is losing when its exchange loses more than this (centipawns): a knight for a
bishop, nearly equal, is not."""
_KINDS: Final = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)


def _least_attacker(
    board: chess.Board, square: int, color: bool, removed: int
) -> tuple[int, int] | None:
    """``(square, piece type)`` of ``color``'s least valuable piece attacking ``square`` once
    the pieces on ``removed`` are gone (the lowest square among equals), or None."""
    attackers = board.attackers_mask(color, square, board.occupied & ~removed) & ~removed
    if not attackers:
        return None
    for kind in _KINDS:
        found = attackers & board.pieces_mask(kind, color)
        if found:
            return chess.lsb(found), kind
    return None  # pragma: no cover  # every attacker is of one of the kinds


def exchange_value(board: chess.Board, move: chess.Move) -> int:
    """The material the side to move wins (negative: loses) by the capture ``move`` (legal,
    onto an occupied square) and the exchange on its square that follows."""
    target = move.to_square
    victim = board.piece_type_at(target)
    attacker = board.piece_type_at(move.from_square)
    assert victim is not None and attacker is not None, "a capture onto an occupied square"
    gains = [MATERIAL_MG[victim]]
    on_square = MATERIAL_MG[attacker]
    if move.promotion:
        gains[0] += MATERIAL_MG[move.promotion] - MATERIAL_MG[chess.PAWN]
        on_square = MATERIAL_MG[move.promotion]
    removed = chess.BB_SQUARES[move.from_square]
    color = not board.turn
    while (found := _least_attacker(board, target, color, removed)) is not None:
        square, kind = found
        if (
            kind == chess.KING
            and _least_attacker(board, target, not color, removed | chess.BB_SQUARES[square])
            is not None
        ):
            break  # the king may not take a defended piece
        gains.append(on_square - gains[-1])
        on_square = MATERIAL_MG[kind]
        removed |= chess.BB_SQUARES[square]
        color = not color
    for depth in range(len(gains) - 1, 0, -1):
        gains[depth - 1] = -max(-gains[depth - 1], gains[depth])
    return gains[0]


def loses_material(board: chess.Board, move: chess.Move) -> bool:
    """Whether ``move`` (legal) captures a piece and its exchange loses more than
    :data:`SEE_TOLERANCE`. A capture by a piece worth at most the victim plus the tolerance
    never does (the exchange is not looked at), nor en passant or a push."""
    victim = board.piece_type_at(move.to_square)
    if victim is None:
        return False
    attacker = board.piece_type_at(move.from_square)
    assert attacker is not None, "a move from an occupied square"
    if MATERIAL_MG[attacker] - MATERIAL_MG[victim] <= SEE_TOLERANCE:
        return False
    return exchange_value(board, move) < -SEE_TOLERANCE
