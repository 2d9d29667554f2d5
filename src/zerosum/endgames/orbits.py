"""The symmetric layout of an endgame table: one entry per position up to the board's symmetries.

A board's symmetries (:func:`automorphisms`: the permutations of its points that keep every
edge and every mill; the 16 of :data:`zerosum.endgames.symmetry.SYMMETRIES` on the morris board)
map every position to positions of the same value. A table of the class ``x-y`` (``x`` men to
move in the set ``S``, ``y`` men of the opponent in ``O``) therefore keeps one entry per
*orbit* of ``S``: the sets ``S`` fall into orbits under the symmetries, each with a
representative ``rep`` (its least mask), and every ``S`` has a symmetry ``g`` with
``g(S) = rep`` (:class:`Orbits`). The position ``(S, O)`` is stored at

    ``orbit(S) * C(n - x, y) + rank(g(O) squeezed onto the points not in rep)``

so a table has ``orbits(x) * C(n - x, y)`` entries: 162.9 M for 6-6 instead of 2.5 G.

Trade-off: when ``rep`` has a nontrivial stabiliser (a symmetry ``h`` with ``h(rep) = rep``),
the positions ``(rep, O)`` and ``(rep, h(O))`` are the same up to symmetry but have two entries.
The retrograde solve (:mod:`.reduced`) decides only the *canonical* one (the least ``O`` over
the stabiliser, :func:`.reduced.canonical_other`) and then copies its value into the others,
so a lookup needs only ``orbit(S)`` and ``g``. The cost is the duplicate entries: 6.2% more
entries than symmetry classes over the classes up to 6-6 (24% for 3-y, where few sets of three
are asymmetric; 4.3% at 6-6).
"""

from __future__ import annotations

from functools import cache
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from zerosum.endgames.board import NINE_MENS_MORRIS, Board
from zerosum.endgames.symmetry import SYMMETRIES

Permutation = tuple[int, ...]


def automorphisms(board: Board) -> tuple[Permutation, ...]:
    """Every permutation of ``board``'s points that maps edges onto edges and mills onto mills
    (the identity first), found by backtracking over the images of the points in order."""
    n = board.size
    adjacent: list[set[int]] = [set() for _ in range(n)]
    for a, b in board.edges:
        adjacent[a].add(b)
        adjacent[b].add(a)
    mills = {frozenset(m) for m in board.mills}
    through = [[m for m in board.mills if p in m] for p in range(n)]
    found: list[Permutation] = []
    image = [-1] * n

    def extend(point: int, used: set[int]) -> None:
        if point == n:
            found.append(tuple(image))
            return
        for target in range(n):
            if target in used or len(adjacent[target]) != len(adjacent[point]):
                continue
            if len(through[target]) != len(through[point]):
                continue
            image[point] = target
            ok = all(
                (image[q] in adjacent[target]) == (q in adjacent[point]) for q in range(point)
            ) and all(
                frozenset(image[q] for q in mill) in mills
                for mill in through[point]
                if max(mill) == point
            )
            if ok:
                used.add(target)
                extend(point + 1, used)
                used.discard(target)
        image[point] = -1

    extend(0, set())
    found.sort(key=lambda p: p != tuple(range(n)))
    return tuple(found)


@cache
def group(board: Board) -> tuple[Permutation, ...]:
    """The board's symmetries (:func:`automorphisms`, computed once per board; the morris
    board's are :data:`~zerosum.endgames.symmetry.SYMMETRIES`, a test checks they agree)."""
    if board == NINE_MENS_MORRIS:
        return SYMMETRIES
    return automorphisms(board)


@cache
def permutation_bytes(board: Board) -> np.ndarray[Any, Any]:
    """``table[g, k, b]``: the image under symmetry ``g`` of the byte ``b`` of a mask placed at
    bits ``8k..8k+7``; the image of a mask is the OR over its three bytes."""
    perms = group(board)
    table = np.zeros((len(perms), 3, 256), dtype=np.int64)
    for g, perm in enumerate(perms):
        for k in range(3):
            for b in range(256):
                image = 0
                for bit in range(8):
                    point = 8 * k + bit
                    if b >> bit & 1 and point < board.size:
                        image |= 1 << perm[point]
                table[g, k, b] = image
    return table


def image_of(table: np.ndarray[Any, Any], g: int, mask: int) -> int:
    """The image of ``mask`` under symmetry ``g`` (plain Python)."""
    return int(
        table[g, 0, mask & 255] | table[g, 1, mask >> 8 & 255] | table[g, 2, mask >> 16 & 255]
    )


def _images(table: np.ndarray[Any, Any], masks: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``images[g, i]``: the image of ``masks[i]`` under each symmetry ``g``."""
    images: np.ndarray[Any, Any] = (
        table[:, 0, masks & 255] | table[:, 1, masks >> 8 & 255] | table[:, 2, masks >> 16 & 255]
    )
    return images


class Orbits:
    """The orbits of the ``k``-sets of points under the board's symmetries, as arrays.

    * ``orbit[r]``, ``sym[r]``: the orbit of the set of colex rank ``r`` and a symmetry that
      maps it to the orbit's representative;
    * ``rep[o]``: the representative (least mask) of orbit ``o``; orbits are numbered in the
      order of their representatives;
    * ``stab[o]``: the symmetries other than the identity that keep ``rep[o]``, as a bitmask.
    """

    def __init__(self, board: Board, k: int) -> None:
        table = permutation_bytes(board)
        # every k-set, in rank order (colex order is the masks' numeric order)
        masks = np.sort(
            np.array([sum(1 << p for p in c) for c in combinations(range(board.size), k)], np.int64)
        )
        images = _images(table, masks)
        least = images.min(axis=0)
        self.sym = images.argmin(axis=0).astype(np.int64)
        self.rep, self.orbit = np.unique(least, return_inverse=True)
        self.orbit = self.orbit.astype(np.int64).reshape(-1)
        self.rep = self.rep.astype(np.int64)
        keeps = _images(table, self.rep) == self.rep[None, :]
        weights = (1 << np.arange(len(table), dtype=np.int64))[:, None]
        self.stab = ((keeps * weights).sum(axis=0) & ~1).astype(np.int64)
        self.k = k
        self.count = len(self.rep)

    def arrays(self) -> tuple[np.ndarray[Any, Any], ...]:
        """``(orbit, sym, rep, stab)``, as the compiled functions take them."""
        return self.orbit, self.sym, self.rep, self.stab


@cache
def orbits(board: Board, k: int) -> Orbits:
    """The :class:`Orbits` of the ``k``-sets of ``board`` (computed once)."""
    return Orbits(board, k)


def table_size(board: Board, x: int, y: int) -> int:
    """The entries of the class ``x-y`` in the symmetric layout."""
    return orbits(board, x).count * comb(board.size - x, y)
