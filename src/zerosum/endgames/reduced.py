"""Retrograde analysis on the symmetric layout: one entry per position up to the board's symmetries.

The same solve as :mod:`.retro` (its slow twin, which stores every position: the tests check
that both give every position the same value), on the tables of :mod:`.orbits`. What changes:

* A position's successors and predecessors are found on its entry's concrete position
  ``(rep, O)`` and mapped to their *canonical* entries (:func:`canonical_index`: the least
  image over the representative's stabiliser), so two equivalent positions meet in one entry.
* A position counts its *distinct* canonical successors (not its moves: two moves may lead to
  equivalent positions), and a decided entry passes its value to each distinct canonical
  predecessor once. The two relations are mirror images ("``E`` is a successor entry of ``P``"
  exactly when "``P`` is a predecessor entry of ``E``", since the moves commute with the
  symmetries), so the counters reach zero exactly when every successor is decided.
* Non-canonical entries are skipped by the solve and then given their canonical entry's value
  (:func:`fill`), so any entry answers a lookup (:func:`lookup_index`, no stabiliser needed).

Step 1 (counting the moves and the removals) works on any range of entries, so a large class
is split by index range into parts, each an executor unit (:mod:`.tiers`); the level passes
then run over the whole tier in one process.
"""

from __future__ import annotations

from math import comb
from typing import Any, Final

import numpy as np

from zerosum.endgames.board import Board
from zerosum.endgames.orbits import orbits, permutation_bytes
from zerosum.endgames.retro import (
    _REMOVAL_DRAWS,
    DRAW_BYTE,
    FLYING_MEN,
    MAX_DISTANCE,
    MIN_MEN,
    Geometry,
    closes_mill,
    rank_among,
    removable,
    spread,
    subsets,
)
from zerosum.jit import cached_njit

_MAX_LINKS: Final = 512
"""Room for one position's successors or predecessors (at most 3 * 21 flying moves)."""


@cached_njit()
def apply(g: int, mask: int, perm: Any) -> int:
    """The image of ``mask`` under symmetry ``g`` (see :func:`~.orbits.permutation_bytes`)."""
    return int(
        perm[g, 0, mask & 255] | perm[g, 1, (mask >> 8) & 255] | perm[g, 2, (mask >> 16) & 255]
    )


@cached_njit()
def canonical_other(image: int, stab: int, perm: Any) -> int:
    """The least image of ``image`` over the symmetries of the bitmask ``stab``."""
    best: int = image
    h = 1
    while stab >> h:
        if stab >> h & 1:
            other = apply(h, image, perm)
            if other < best:
                best = other
        h += 1
    return best


@cached_njit()
def lookup_index(
    mover: int, other: int, other_count: int, orbit: Any, sym: Any, rep: Any, perm: Any, binom: Any
) -> int:
    """The entry of the position (any entry of its class answers: see :func:`fill`)."""
    r = rank_among(mover, 0, binom)
    o = orbit[r]
    return int(o * other_count + rank_among(apply(sym[r], other, perm), rep[o], binom))


@cached_njit()
def canonical_index(
    mover: int,
    other: int,
    other_count: int,
    orbit: Any,
    sym: Any,
    rep: Any,
    stab: Any,
    perm: Any,
    binom: Any,
) -> int:
    """The canonical entry of the position: one per symmetry class."""
    r = rank_among(mover, 0, binom)
    o = orbit[r]
    image = apply(sym[r], other, perm)
    if stab[o]:
        image = canonical_other(image, stab[o], perm)
    return int(o * other_count + rank_among(image, rep[o], binom))


@cached_njit()
def _add(buf: Any, count: int, value: int) -> int:
    """Adds ``value`` to the distinct values ``buf[:count]``; returns their new count."""
    for i in range(count):
        if buf[i] == value:
            return count
    buf[count] = value
    return count + 1


@cached_njit()
def count_moves(
    lo: int,
    hi: int,
    x: int,
    y: int,
    n: int,
    neighbours: Any,
    point_mills: Any,
    mill_count: Any,
    mills: Any,
    binom: Any,
    perm: Any,
    others: Any,
    rep_x: Any,
    stab_x: Any,
    orbit_y: Any,
    sym_y: Any,
    rep_y: Any,
    stab_y: Any,
    orbit_down: Any,
    sym_down: Any,
    rep_down: Any,
    removal_table: Any,
    removal_count: int,
    value: Any,
    moves_left: Any,
    win_by_removal: Any,
    loss_by_removal: Any,
) -> int:
    """Step 1 of :mod:`.retro` for the entries ``lo..hi-1`` of the class ``x-y`` (written at
    ``0..hi-lo-1`` of the four arrays); returns the largest level it scheduled."""
    full = (1 << n) - 1
    other_count = len(others)
    top = 0
    buf = np.empty(_MAX_LINKS, dtype=np.int64)
    child_count = binom[n - y, x]
    for at in range(lo, hi):
        ia = at // other_count
        mover = rep_x[ia]
        other = spread(others[at % other_count], mover, n)
        if stab_x[ia] and canonical_other(other, stab_x[ia], perm) != other:
            continue  # a duplicate entry: filled in at the end
        # every successor without a removal has the mover `other`: its orbit is fixed here
        r = rank_among(other, 0, binom)
        child_orbit, child_sym = orbit_y[r], sym_y[r]
        child_rep, child_stab = rep_y[child_orbit], stab_y[child_orbit]
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
                    image = apply(child_sym, after, perm)
                    if child_stab:
                        image = canonical_other(image, child_stab, perm)
                    child = child_orbit * child_count + rank_among(image, child_rep, binom)
                    inside = _add(buf, inside, child)
                    continue
                for r in range(n):
                    if not victims >> r & 1:
                        continue
                    if y - 1 < MIN_MEN:
                        soonest = 1
                        continue
                    child = removal_table[
                        lookup_index(
                            other ^ (1 << r),
                            after,
                            removal_count,
                            orbit_down,
                            sym_down,
                            rep_down,
                            perm,
                            binom,
                        )
                    ]
                    if child == DRAW_BYTE:
                        draws = True
                    elif (child - 1) % 2 == 0:
                        if soonest == 0 or child < soonest:
                            soonest = child
                    else:
                        slowest = max(slowest, child)
        i = at - lo
        moves_left[i] = inside
        win_by_removal[i] = soonest
        loss_by_removal[i] = _REMOVAL_DRAWS if draws else slowest
        if inside == 0 and soonest == 0 and not draws:
            value[i] = slowest + 1
            top = max(top, slowest)
        top = max(top, soonest)
    return top


@cached_njit()
def pass_level(
    level: int,
    x: int,
    y: int,
    n: int,
    neighbours: Any,
    point_mills: Any,
    mill_count: Any,
    binom: Any,
    perm: Any,
    others: Any,
    rep_x: Any,
    orbit_y: Any,
    sym_y: Any,
    rep_y: Any,
    stab_y: Any,
    value: Any,
    win_by_removal: Any,
    back_count: int,
    back_value: Any,
    back_moves_left: Any,
    back_win_by_removal: Any,
    back_loss_by_removal: Any,
) -> int:
    """Step 2 of :mod:`.retro` at ``level`` for the class ``x-y``, whose predecessors lie in
    ``y-x`` (the ``back_`` arrays); returns the largest level it scheduled."""
    full = (1 << n) - 1
    other_count = len(others)
    code = level + 1
    top = 0
    buf = np.empty(_MAX_LINKS, dtype=np.int64)
    for at in range(len(value)):
        if value[at] == DRAW_BYTE and level > 0 and win_by_removal[at] == level:
            value[at] = code
        if value[at] != code:
            continue
        mover = rep_x[at // other_count]
        other = spread(others[at % other_count], mover, n)
        empty = full & ~(mover | other)
        # The opponent's last move went from q to p without closing a mill.
        found = 0
        for p in range(n):
            if not other >> p & 1 or closes_mill(other, p, point_mills, mill_count):
                continue
            sources = empty if y == FLYING_MEN else neighbours[p] & empty
            for q in range(n):
                if sources >> q & 1:
                    before = canonical_index(
                        other ^ (1 << p) ^ (1 << q),
                        mover,
                        back_count,
                        orbit_y,
                        sym_y,
                        rep_y,
                        stab_y,
                        perm,
                        binom,
                    )
                    found = _add(buf, found, before)
        for i in range(found):
            before = buf[i]
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


@cached_njit()
def fill(n: int, binom: Any, perm: Any, others: Any, rep_x: Any, stab_x: Any, value: Any) -> None:
    """Step 4: every duplicate entry takes its canonical entry's value."""
    other_count = len(others)
    for ia in range(len(rep_x)):
        if not stab_x[ia]:
            continue
        mover = rep_x[ia]
        for ib in range(other_count):
            other = spread(others[ib], mover, n)
            least = canonical_other(other, stab_x[ia], perm)
            if least != other:
                value[ia * other_count + ib] = value[
                    ia * other_count + rank_among(least, mover, binom)
                ]


@cached_njit()
def tally(
    n: int, binom: Any, perm: Any, others: Any, rep_x: Any, stab_x: Any, value: Any, out: Any
) -> None:
    """``out[0, code]``: the positions of each code (every position, as a full table counts
    them); ``out[1, code]``: the canonical entries (one per symmetry class)."""
    other_count = len(others)
    symmetries = perm.shape[0]
    for ia in range(len(rep_x)):
        mover = rep_x[ia]
        stab = stab_x[ia]
        for ib in range(other_count):
            code = value[ia * other_count + ib]
            if not stab:
                out[0, code] += symmetries
                out[1, code] += 1
                continue
            other = spread(others[ib], mover, n)
            if canonical_other(other, stab, perm) != other:
                continue
            keeping = 1
            h = 1
            while stab >> h:
                if stab >> h & 1 and apply(h, other, perm) == other:
                    keeping += 1
                h += 1
            out[0, code] += symmetries // keeping
            out[1, code] += 1


# -- the Python side ------------------------------------------------------------------------


class Layout:
    """What the compiled functions need for the class ``x-y`` of a board."""

    def __init__(self, board: Board, x: int, y: int) -> None:
        self.x, self.y = x, y
        self.n = board.size
        self.perm = permutation_bytes(board)
        self.mine = orbits(board, x)
        self.others = subsets(board.size - x, y)
        self.size = self.mine.count * len(self.others)


def tier_classes(x: int, y: int) -> list[tuple[int, int]]:
    """The classes of the tier ``x-y``: one when ``x == y``, else ``x-y`` and ``y-x``."""
    return [(x, y)] if x == y else [(x, y), (y, x)]


def count_part(
    board: Board,
    x: int,
    y: int,
    lo: int,
    hi: int,
    removal_table: np.ndarray[Any, Any] | None,
) -> tuple[np.ndarray[Any, Any], int]:
    """Step 1 for the entries ``lo..hi-1`` of the class ``x-y``: a ``(4, hi - lo)`` array of
    value, moves left, soonest removal win and slowest removal loss, and the top level.

    ``removal_table`` is the class ``(y - 1)-x`` (``None`` when ``y - 1 < 3``: a won game)."""
    geo = Geometry(board)
    layout = Layout(board, x, y)
    n = board.size
    mine, theirs = layout.mine, orbits(board, y)
    down = orbits(board, max(y - 1, 1))
    table = removal_table if removal_table is not None else np.zeros(1, dtype=np.uint8)
    out = np.zeros((4, hi - lo), dtype=np.uint8)
    top = count_moves(
        lo,
        hi,
        x,
        y,
        n,
        geo.neighbours,
        geo.point_mills,
        geo.mill_count,
        geo.mills,
        geo.binom,
        layout.perm,
        layout.others,
        mine.rep,
        mine.stab,
        theirs.orbit,
        theirs.sym,
        theirs.rep,
        theirs.stab,
        down.orbit,
        down.sym,
        down.rep,
        table,
        comb(n - (y - 1), x),
        out[0],
        out[1],
        out[2],
        out[3],
    )
    return out, int(top)


def solve_levels(
    board: Board,
    x: int,
    y: int,
    counted: dict[tuple[int, int], np.ndarray[Any, Any]],
    top: int,
) -> dict[tuple[int, int], np.ndarray[Any, Any]]:
    """Steps 2-4 for the tier ``x-y`` from step 1's arrays (``counted[class]``, the whole
    class, shape ``(4, size)``; changed in place): the finished tables."""
    geo = Geometry(board)
    n = board.size
    keys = tier_classes(x, y)
    level = 0
    while level <= top:
        for i, (a, b) in enumerate(keys):
            back = keys[(i + 1) % len(keys)]
            mine, theirs = orbits(board, a), orbits(board, b)
            here, there = counted[(a, b)], counted[back]
            top = max(
                top,
                pass_level(
                    level,
                    a,
                    b,
                    n,
                    geo.neighbours,
                    geo.point_mills,
                    geo.mill_count,
                    geo.binom,
                    permutation_bytes(board),
                    subsets(n - a, b),
                    mine.rep,
                    theirs.orbit,
                    theirs.sym,
                    theirs.rep,
                    theirs.stab,
                    here[0],
                    here[2],
                    comb(n - b, a),
                    there[0],
                    there[1],
                    there[2],
                    there[3],
                ),
            )
        if top > MAX_DISTANCE:
            raise OverflowError(f"distance {top} does not fit the one-byte entries")
        level += 1
    tables = {}
    for a, b in keys:
        mine = orbits(board, a)
        value = np.ascontiguousarray(counted[(a, b)][0])
        fill(n, geo.binom, permutation_bytes(board), subsets(n - a, b), mine.rep, mine.stab, value)
        tables[(a, b)] = value
    return tables


def solve_pair(
    board: Board,
    x: int,
    y: int,
    removal_tables: dict[tuple[int, int], np.ndarray[Any, Any]],
) -> dict[tuple[int, int], np.ndarray[Any, Any]]:
    """The symmetric tables of the classes ``x-y`` and ``y-x`` in one process (the one-unit
    build; :func:`zerosum.endgames.retro.solve_pair` is its full-table twin)."""
    counted = {}
    top = 0
    for a, b in tier_classes(x, y):
        size = Layout(board, a, b).size
        down = removal_tables.get((b - 1, a)) if b - 1 >= MIN_MEN else None
        counted[(a, b)], part_top = count_part(board, a, b, 0, size, down)
        top = max(top, part_top)
    return solve_levels(board, x, y, counted, top)


def counts(board: Board, x: int, y: int, table: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``(2, 256)``: per code, the positions (every one) and the symmetry classes."""
    mine = orbits(board, x)
    out = np.zeros((2, 256), dtype=np.int64)
    tally(
        board.size,
        Geometry(board).binom,
        permutation_bytes(board),
        subsets(board.size - x, y),
        mine.rep,
        mine.stab,
        table,
        out,
    )
    return out


def expand(board: Board, x: int, y: int, table: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The full table of :mod:`.retro`'s layout (every position) from a symmetric one."""
    full = np.zeros(comb(board.size, x) * comb(board.size - x, y), dtype=np.uint8)
    mine = orbits(board, x)
    _expand(
        board.size,
        Geometry(board).binom,
        permutation_bytes(board),
        subsets(board.size, x),
        subsets(board.size - x, y),
        mine.orbit,
        mine.sym,
        mine.rep,
        table,
        full,
    )
    return full


@cached_njit()
def _expand(
    n: int,
    binom: Any,
    perm: Any,
    movers: Any,
    others: Any,
    orbit: Any,
    sym: Any,
    rep: Any,
    table: Any,
    full: Any,
) -> None:
    other_count = len(others)
    for ia in range(len(movers)):
        mover = movers[ia]
        for ib in range(other_count):
            other = spread(others[ib], mover, n)
            full[ia * other_count + ib] = table[
                lookup_index(mover, other, other_count, orbit, sym, rep, perm, binom)
            ]
