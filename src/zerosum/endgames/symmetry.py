"""The 16 symmetries of the nine men's morris board, and how many positions they leave.

The board is three concentric squares of eight points. Its symmetries are the eight of the
square (four rotations, each with or without a mirror) times the exchange of the outer and the
inner square (the spokes join the squares at their midpoints, so the exchange keeps every mill
and every edge): 16 permutations of the 24 points, :data:`SYMMETRIES`.

A database that keeps one position per symmetry class needs :func:`class_count` entries for
the class ``x-y`` instead of ``C(24, x) * C(24 - x, y)``. The count is exact (Burnside's
lemma: the average over the 16 permutations of the placements each one leaves unchanged; a
placement is unchanged when every cycle of the permutation is all white, all black or all
empty), so a projection need not assume the factor of 16.
"""

from __future__ import annotations

from functools import cache
from math import comb
from typing import Final

from zerosum.endgames.board import NINE_MENS_MORRIS

Permutation = tuple[int, ...]
"""Where each point goes: ``permutation[i]`` is the image of point ``i``."""


def _symmetries() -> tuple[Permutation, ...]:
    points = NINE_MENS_MORRIS.points
    # centred coordinates: a point's square is max(|x|, |y|), 3 outer .. 1 inner
    coords = [("abcdefg".index(name[0]) - 3, int(name[1]) - 4) for name in points]
    index = {xy: i for i, xy in enumerate(coords)}
    found = []
    for exchange in (False, True):
        for turns in range(4):
            for mirror in (False, True):
                image = []
                for x, y in coords:
                    if exchange:  # the same direction on the square 4 - k
                        k = max(abs(x), abs(y))
                        x, y = x // k * (4 - k), y // k * (4 - k)
                    if mirror:
                        x = -x
                    for _ in range(turns):
                        x, y = -y, x
                    image.append(index[(x, y)])
                found.append(tuple(image))
    return tuple(found)


SYMMETRIES: Final = _symmetries()
"""The 16 symmetries of the board (the identity first), as permutations of its points."""


def cycles(permutation: Permutation) -> list[int]:
    """The lengths of the cycles of ``permutation``."""
    seen = [False] * len(permutation)
    lengths = []
    for start in range(len(permutation)):
        length, point = 0, start
        while not seen[point]:
            seen[point] = True
            point = permutation[point]
            length += 1
        if length:
            lengths.append(length)
    return lengths


@cache
def class_count(mover: int, other: int) -> int:
    """Positions of the class ``mover-other`` (men on the board, side to move known) up to
    the board's symmetries: the number of symmetry classes."""
    total = 0
    for permutation in SYMMETRIES:
        # ways[(w, b)]: placements of w white and b black men fixed by the permutation
        ways = {(0, 0): 1}
        for length in cycles(permutation):
            grown: dict[tuple[int, int], int] = {}
            for (w, b), count in ways.items():
                for dw, db in ((0, 0), (length, 0), (0, length)):
                    if w + dw <= mover and b + db <= other:
                        key = (w + dw, b + db)
                        grown[key] = grown.get(key, 0) + count
            ways = grown
        total += ways.get((mover, other), 0)
    assert total % len(SYMMETRIES) == 0
    return total // len(SYMMETRIES)


def position_count(mover: int, other: int) -> int:
    """Positions of the class ``mover-other`` without symmetries (the index range of
    :mod:`.retro`)."""
    points = NINE_MENS_MORRIS.size
    return comb(points, mover) * comb(points - mover, other)
