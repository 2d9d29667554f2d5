"""Static exchange evaluation on the compiled board: the twin of
:mod:`zerosum.games.chess_exchange` (same values, same tolerance, the same attacker among
equals: the one on the lowest square), which the tests compare on random positions."""

from __future__ import annotations

from typing import Any

import numpy as np

from zerosum.compiled import chess_board as cb
from zerosum.games.chess_exchange import SEE_TOLERANCE
from zerosum.jit import cached_njit


@cached_njit(nogil=True)
def least_attacker(st: Any, square: int, white: int, removed: int) -> int:
    """``8 * from_square + piece type`` of the side ``white``'s least valuable piece attacking
    ``square`` once the pieces on the bitboard ``removed`` are gone (the lowest square among
    equals), or -1."""
    mine = 8 * white
    best = 64
    for i in range(cb.PAWN_FROM_COUNT[white, square]):
        source = cb.PAWN_FROM[white, square, i]
        if st[source] == cb.PAWN + mine and (removed & cb.BIT[source]) == 0 and source < best:
            best = source
    if best < 64:
        return best * 8 + cb.PAWN
    for i in range(cb.KNIGHT_COUNT[square]):
        source = cb.KNIGHT_TO[square, i]
        if st[source] == cb.KNIGHT + mine and (removed & cb.BIT[source]) == 0 and source < best:
            best = source
    if best < 64:
        return best * 8 + cb.KNIGHT
    # The first piece on each ray from the square, the removed ones seen through: straight
    # rays (0-3) for rooks and queens, diagonal ones (4-7) for bishops and queens.
    present = (st[cb.OCC] | st[cb.OCC + 1]) & ~removed
    for kind in (cb.BISHOP, cb.ROOK, cb.QUEEN):
        first = 4 if kind == cb.BISHOP else 0
        last = 4 if kind == cb.ROOK else 8
        for d in range(first, last):
            blockers = cb.RAY_MASK[square, d] & present
            if blockers != 0:
                source = cb.ray_blocker(blockers, d)
                if st[source] == kind + mine and source < best:
                    best = source
        if best < 64:
            return best * 8 + kind
    for i in range(cb.KING_COUNT[square]):
        source = cb.KING_TO[square, i]
        if st[source] == cb.KING + mine and (removed & cb.BIT[source]) == 0:
            return int(source * 8 + cb.KING)
    return -1


@cached_njit(nogil=True)
def exchange_value(st: Any, move: int) -> int:
    """``chess_exchange.exchange_value``: what the capture ``move`` (onto an occupied square)
    and the exchange on its square win for the side to move."""
    source, target, promotion = move & 63, (move >> 6) & 63, (move >> 12) & 7
    gains = np.zeros(40, np.int64)
    gains[0] = cb.VALUE[st[target] & 7]
    on_square = cb.VALUE[st[source] & 7]
    if promotion != 0:
        gains[0] += cb.VALUE[promotion] - cb.VALUE[cb.PAWN]
        on_square = cb.VALUE[promotion]
    removed = cb.BIT[source]
    white = 1 - st[cb.SIDE]
    depth = 0
    while True:
        found = least_attacker(st, target, white, removed)
        if found < 0:
            break
        square, kind = found >> 3, found & 7
        if kind == cb.KING and least_attacker(st, target, 1 - white, removed | cb.BIT[square]) >= 0:
            break  # the king may not take a defended piece
        depth += 1
        gains[depth] = on_square - gains[depth - 1]
        on_square = cb.VALUE[kind]
        removed |= cb.BIT[square]
        white = 1 - white
    while depth > 0:
        gains[depth - 1] = -max(-gains[depth - 1], gains[depth])
        depth -= 1
    return int(gains[0])


@cached_njit(nogil=True)
def exchange_at_least(st: Any, move: int, threshold: int) -> bool:
    """Whether ``exchange_value(st, move) >= threshold``, without its list of gains.

    The exchange's value is the first victim less what the opponent's recaptures win, where
    each later capture is optional: ``c0 - S1`` with ``S_d = max(0, c_d - S_(d+1))``, ``c_d``
    the value of the piece taken at step ``d`` and ``S`` 0 past the last capture. A bound on
    ``S_d`` is a bound the other way on ``S_(d+1)``, so one number, the bound, and its
    direction go down the exchange, and the answer is known as soon as a bound is met by
    every value (or the captures run out)."""
    source, target, promotion = move & 63, (move >> 6) & 63, (move >> 12) & 7
    bound = cb.VALUE[st[target] & 7] - threshold
    on_square = cb.VALUE[st[source] & 7]
    if promotion != 0:
        bound += cb.VALUE[promotion] - cb.VALUE[cb.PAWN]
        on_square = cb.VALUE[promotion]
    if bound < 0:
        return False
    at_most = True  # the condition on the next S: S <= bound, or (False) S >= bound
    removed = cb.BIT[source]
    white = 1 - st[cb.SIDE]
    while True:
        found = least_attacker(st, target, white, removed)
        if found < 0:
            return at_most  # S is 0
        square, kind = found >> 3, found & 7
        if kind == cb.KING and least_attacker(st, target, 1 - white, removed | cb.BIT[square]) >= 0:
            return at_most  # the king may not take a defended piece: S is 0
        bound = on_square - bound
        if at_most:
            if bound <= 0:
                return True
        elif bound < 0:
            return False
        at_most = not at_most
        on_square = cb.VALUE[kind]
        removed |= cb.BIT[square]
        white = 1 - white


@cached_njit(nogil=True)
def loses_material(st: Any, move: int) -> bool:
    """``chess_exchange.loses_material``: a capture whose exchange loses more than the
    tolerance (a capture by a piece worth at most the victim plus it never does)."""
    victim = st[(move >> 6) & 63] & 7
    if victim == 0:
        return False
    if cb.VALUE[st[move & 63] & 7] - cb.VALUE[victim] <= SEE_TOLERANCE:
        return False
    return not exchange_at_least(st, move, -SEE_TOLERANCE)
