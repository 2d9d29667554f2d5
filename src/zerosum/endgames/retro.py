"""Retrograde analysis of morris endgames with nothing in hand, compiled with numba.

A position of the class ``x-y`` has the side to move with ``x`` men (the set ``S``) and its
opponent with ``y`` men (``O``), every man on the board; the colours do not matter, so one table
serves both. Its index is ``rank(S) * C(n - x, y) + rank(O squeezed onto the n - x points
not in S)``, where ``rank`` is the combinatorial number of a set (its place in colex order),
so a table has exactly ``C(n, x) * C(n - x, y)`` entries and no holes.

An entry is one byte: 0 for a draw, else ``1 + d`` where ``d`` is the number of moves (one
move = one turn, a removal included) to the end under optimal play, the winner hurrying and the
loser delaying; an odd ``d`` is a win for the side to move, an even one a loss (0: it has no
move). The game ends with the removal that leaves the loser two men, or with the loser blocked.

A move that closes a mill removes one opponent man: that child lies in the class
``(y - 1)-x``, solved before (or it is an immediate win when ``y - 1 < 3``). Every other move
keeps the men and lands in the class ``y-x``, so ``x-y`` and ``y-x`` are solved together.

The solve works level by level, ``d = 0, 1, 2, ...``, as in every retrograde solver:

1. Every position counts its moves that stay in the class and notes what its other moves (the
   removals) already guarantee: the soonest win, the slowest loss, or a draw.
2. At level ``d`` every position decided at ``d`` passes its value to its predecessors (found
   by taking a non-mill-closing move back): after a loss, each undecided predecessor wins in
   ``d + 1``; after a win, each predecessor has one move fewer that is not yet known to lose,
   and when none is left (and no removal wins or draws) it loses in the later of ``d + 1`` and
   its slowest removal.
3. What no level decided is a draw: neither side can force a win, so play can go on forever.
"""

from __future__ import annotations

from math import comb
from typing import Any, Final

import numpy as np

from zerosum.endgames.board import Board
from zerosum.jit import cached_njit

MIN_MEN: Final = 3
"""A side with fewer men has lost."""
FLYING_MEN: Final = 3
"""A side with exactly this many men flies."""
DRAW_BYTE: Final = 0
"""The entry of a draw (and of an undecided position while building)."""
_REMOVAL_DRAWS: Final = 255
"""``loss_by_removal`` of a position with a removal that draws."""
MAX_DISTANCE: Final = 250


# -- sets of points ------------------------------------------------------------------------


@cached_njit()
def popcount(x: int) -> int:
    """The number of set bits of a mask below ``2**32``."""
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@cached_njit()
def rank_among(men: int, taken: int, binom: Any) -> int:
    """The combinatorial rank (colex order) of ``men`` renumbered onto the points not in
    ``taken``; with ``taken == 0``, the rank of ``men`` itself."""
    rank = 0
    i = 1
    rest = men
    while rest:
        low = rest & -rest
        rank += binom[popcount((low - 1) & ~taken), i]
        i += 1
        rest ^= low
    return rank


@cached_njit()
def spread(squeezed: int, taken: int, n: int) -> int:
    """The set whose members are the ``squeezed`` bits renumbered back onto the points not in
    ``taken`` (bit ``c`` of ``squeezed`` is the ``c``-th free point)."""
    out = 0
    c = 0
    for p in range(n):
        if taken >> p & 1:
            continue
        if squeezed >> c & 1:
            out |= 1 << p
        c += 1
    return out


@cached_njit()
def index_of(mover: int, other: int, other_count: int, binom: Any) -> int:
    """The table index of the position with ``mover`` to move against ``other``.

    ``other_count`` is ``C(n - |mover|, |other|)``, the number of ways to place ``other``.
    """
    return rank_among(mover, 0, binom) * other_count + rank_among(other, mover, binom)


@cached_njit()
def closes_mill(men: int, point: int, point_mills: Any, mill_count: Any) -> bool:
    """Whether the man on ``point`` stands in a mill of ``men``."""
    for k in range(mill_count[point]):
        mill = point_mills[point, k]
        if men & mill == mill:
            return True
    return False


@cached_njit()
def removable(men: int, mills: Any) -> int:
    """The men an opponent may remove: those in no mill, or all if every man is in a mill."""
    held = 0
    for mill in mills:
        if men & mill == mill:
            held |= mill
    free = men & ~held
    return free if free else men


# -- the solve ------------------------------------------------------------------------------


@cached_njit()
def _count_moves(
    x: int,
    y: int,
    n: int,
    neighbours: Any,
    point_mills: Any,
    mill_count: Any,
    mills: Any,
    binom: Any,
    movers: Any,
    others: Any,
    removal_table: Any,
    removal_count: int,
    value: Any,
    moves_left: Any,
    win_by_removal: Any,
    loss_by_removal: Any,
) -> int:
    """Step 1 for the class ``x-y``; returns the largest level it scheduled."""
    full = (1 << n) - 1
    other_count = len(others)
    top = 0
    for ia in range(len(movers)):
        mover = movers[ia]
        for ib in range(other_count):
            at = ia * other_count + ib
            other = spread(others[ib], mover, n)
            empty = full & ~(mover | other)
            victims = removable(other, mills)
            inside = 0
            soonest = 0
            slowest = 0
            draws = False
            for q in range(n):
                if not mover >> q & 1:
                    continue
                targets = empty if x == FLYING_MEN else neighbours[q] & empty
                for p in range(n):
                    if not targets >> p & 1:
                        continue
                    after = mover ^ (1 << q) ^ (1 << p)
                    if not closes_mill(after, p, point_mills, mill_count):
                        inside += 1
                        continue
                    for r in range(n):
                        if not victims >> r & 1:
                            continue
                        if y - 1 < MIN_MEN:
                            soonest = 1
                            continue
                        child = removal_table[
                            index_of(other ^ (1 << r), after, removal_count, binom)
                        ]
                        if child == DRAW_BYTE:
                            draws = True
                        elif (child - 1) % 2 == 0:
                            if soonest == 0 or child < soonest:
                                soonest = child
                        else:
                            slowest = max(slowest, child)
            moves_left[at] = inside
            win_by_removal[at] = soonest
            loss_by_removal[at] = _REMOVAL_DRAWS if draws else slowest
            if inside == 0 and soonest == 0 and not draws:
                value[at] = slowest + 1
                top = max(top, slowest)
            top = max(top, soonest)
    return top


@cached_njit()
def _pass_level(
    level: int,
    x: int,
    y: int,
    n: int,
    neighbours: Any,
    point_mills: Any,
    mill_count: Any,
    binom: Any,
    movers: Any,
    others: Any,
    value: Any,
    win_by_removal: Any,
    back_count: int,
    back_value: Any,
    back_moves_left: Any,
    back_win_by_removal: Any,
    back_loss_by_removal: Any,
) -> int:
    """Step 2 at ``level`` for the class ``x-y``, whose predecessors lie in ``y-x`` (the
    ``back_`` arrays); returns the largest level it scheduled."""
    full = (1 << n) - 1
    other_count = len(others)
    code = level + 1
    top = 0
    for ia in range(len(movers)):
        mover = movers[ia]
        for ib in range(other_count):
            at = ia * other_count + ib
            if value[at] == DRAW_BYTE and level > 0 and win_by_removal[at] == level:
                value[at] = code
            if value[at] != code:
                continue
            other = spread(others[ib], mover, n)
            empty = full & ~(mover | other)
            # The opponent's last move went from q to p without closing a mill.
            for p in range(n):
                if not other >> p & 1 or closes_mill(other, p, point_mills, mill_count):
                    continue
                sources = empty if y == FLYING_MEN else neighbours[p] & empty
                for q in range(n):
                    if not sources >> q & 1:
                        continue
                    before = index_of(other ^ (1 << p) ^ (1 << q), mover, back_count, binom)
                    if back_value[before] != DRAW_BYTE:
                        continue
                    if level % 2 == 0:
                        back_value[before] = code + 1
                        top = max(top, level + 1)
                        continue
                    back_moves_left[before] -= 1
                    if (
                        back_moves_left[before] == 0
                        and back_win_by_removal[before] == 0
                        and back_loss_by_removal[before] != _REMOVAL_DRAWS
                    ):
                        end = max(level + 1, int(back_loss_by_removal[before]))
                        back_value[before] = end + 1
                        top = max(top, end)
    return top


# -- the Python side ------------------------------------------------------------------------


def binomials(n: int) -> np.ndarray[Any, Any]:
    """``C(i, j)`` for ``0 <= i, j <= n``."""
    table = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(n + 1):
        for j in range(i + 1):
            table[i, j] = comb(i, j)
    return table


def subsets(n: int, k: int) -> np.ndarray[Any, Any]:
    """Every ``k``-subset of ``n`` points as a mask, in rank (colex) order."""
    masks = []
    mask = (1 << k) - 1
    while mask < 1 << n:
        masks.append(mask)
        low = mask & -mask
        ripple = mask + low
        mask = ripple | (((mask ^ ripple) >> 2) // low)
    return np.array(masks, dtype=np.int64)


def class_size(board: Board, mover: int, other: int) -> int:
    """The number of positions of the class ``mover-other``."""
    return comb(board.size, mover) * comb(board.size - mover, other)


class Geometry:
    """A board's data as the arrays the compiled functions take."""

    def __init__(self, board: Board) -> None:
        n = board.size
        self.n = n
        self.neighbours = np.array(board.neighbours, dtype=np.int64)
        width = max(len(m) for m in board.point_mills)
        self.point_mills = np.zeros((n, width), dtype=np.int64)
        self.mill_count = np.zeros(n, dtype=np.int64)
        for p, through in enumerate(board.point_mills):
            self.mill_count[p] = len(through)
            self.point_mills[p, : len(through)] = through
        self.mills = np.array(board.mill_masks, dtype=np.int64)
        self.binom = binomials(n)

    def index(self, mover: int, other: int) -> int:
        """The table index of a position (see :func:`index_of`)."""
        count = comb(self.n - mover.bit_count(), other.bit_count())
        return int(index_of(mover, other, count, self.binom))


class _Work:
    """The arrays of one class while it is solved."""

    def __init__(self, board: Board, x: int, y: int) -> None:
        size = class_size(board, x, y)
        self.x, self.y = x, y
        self.movers = subsets(board.size, x)
        self.others = subsets(board.size - x, y)
        self.value = np.zeros(size, dtype=np.uint8)
        self.moves_left = np.zeros(size, dtype=np.uint8)
        self.win_by_removal = np.zeros(size, dtype=np.uint8)
        self.loss_by_removal = np.zeros(size, dtype=np.uint8)


def solve_pair(
    board: Board,
    x: int,
    y: int,
    removal_tables: dict[tuple[int, int], np.ndarray[Any, Any]],
) -> dict[tuple[int, int], np.ndarray[Any, Any]]:
    """The tables of the classes ``x-y`` and ``y-x`` (one table when ``x == y``).

    ``removal_tables`` must hold the classes that removals lead to: ``(y - 1)-x`` and
    ``(x - 1)-y`` whenever they have at least three men a side.
    """
    geo = Geometry(board)
    n = board.size
    works = [_Work(board, x, y)] if x == y else [_Work(board, x, y), _Work(board, y, x)]
    empty = np.zeros(1, dtype=np.uint8)
    top = 0
    for work in works:
        down = (work.y - 1, work.x)
        table = removal_tables[down] if work.y - 1 >= MIN_MEN else empty
        down_count = comb(n - down[0], down[1])
        top = max(
            top,
            _count_moves(
                work.x,
                work.y,
                n,
                geo.neighbours,
                geo.point_mills,
                geo.mill_count,
                geo.mills,
                geo.binom,
                work.movers,
                work.others,
                table,
                down_count,
                work.value,
                work.moves_left,
                work.win_by_removal,
                work.loss_by_removal,
            ),
        )
    level = 0
    while level <= top:
        for i, work in enumerate(works):
            back = works[(i + 1) % len(works)]
            top = max(
                top,
                _pass_level(
                    level,
                    work.x,
                    work.y,
                    n,
                    geo.neighbours,
                    geo.point_mills,
                    geo.mill_count,
                    geo.binom,
                    work.movers,
                    work.others,
                    work.value,
                    work.win_by_removal,
                    len(back.others),
                    back.value,
                    back.moves_left,
                    back.win_by_removal,
                    back.loss_by_removal,
                ),
            )
        if top > MAX_DISTANCE:
            raise OverflowError(f"distance {top} does not fit the one-byte entries")
        level += 1
    return {(work.x, work.y): work.value for work in works}


def class_pairs(max_men: int) -> list[tuple[int, int]]:
    """The pairs ``x <= y`` of classes up to ``max_men`` a side, in an order where every
    pair comes after the pairs its removals lead to."""
    pairs = [(x, y) for x in range(MIN_MEN, max_men + 1) for y in range(x, max_men + 1)]
    return sorted(pairs, key=lambda pair: (pair[0] + pair[1], pair))


def solve_all(board: Board, max_men: int) -> dict[tuple[int, int], np.ndarray[Any, Any]]:
    """Every class with 3..``max_men`` men a side."""
    tables: dict[tuple[int, int], np.ndarray[Any, Any]] = {}
    for x, y in class_pairs(max_men):
        tables.update(solve_pair(board, x, y, tables))
    return tables
