"""Morris boards as data: points, mills and edges, for the endgame databases.

A board is a set of points (indexed 0..n-1 in the standard order of ``mission.md`` for the
nine men's morris board), the mills (lines of three points) and the edges a man slides along.
The retrograde solver and its pure-Python twin take any such board, so the tests can also run
both on small boards where the obvious solver finishes in a moment.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Final

Points = int
"""A set of points as a bitmask: bit ``i`` is point ``i``."""

NINE_POINTS: Final = tuple(
    "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1".split()  # noqa: SIM905  # the order of mission.md, as written there
)
"""The nine men's morris points in the standard order (``mission.md``)."""


@dataclass(frozen=True)
class Board:
    """A morris board: named points, mills and the edges men slide along."""

    name: str
    points: tuple[str, ...]
    """Point names; a point's index is its bit in a :data:`Points` mask."""
    mills: tuple[tuple[int, int, int], ...]
    """Every line of three points that forms a mill."""
    edges: tuple[tuple[int, int], ...]
    """Every pair of adjacent points (a man slides along an edge)."""

    @property
    def size(self) -> int:
        return len(self.points)

    @cached_property
    def neighbours(self) -> tuple[Points, ...]:
        """For each point, the mask of the points adjacent to it."""
        masks = [0] * self.size
        for x, y in self.edges:
            masks[x] |= 1 << y
            masks[y] |= 1 << x
        return tuple(masks)

    @cached_property
    def mill_masks(self) -> tuple[Points, ...]:
        return tuple((1 << x) | (1 << y) | (1 << z) for x, y, z in self.mills)

    @cached_property
    def point_mills(self) -> tuple[tuple[Points, ...], ...]:
        """For each point, the masks of the mills through it."""
        return tuple(tuple(m for m in self.mill_masks if m >> p & 1) for p in range(self.size))

    def in_mills(self, men: Points) -> Points:
        """The men of ``men`` that stand in one of its mills."""
        found = 0
        for mill in self.mill_masks:
            if men & mill == mill:
                found |= mill
        return found

    def closes_mill(self, men: Points, point: int) -> bool:
        """Whether the man on ``point`` (one of ``men``) stands in a mill of ``men``."""
        return any(men & mill == mill for mill in self.point_mills[point])


def _lines_board(
    name: str, points: tuple[str, ...], lines: tuple[tuple[int, int, int], ...]
) -> Board:
    """A board whose edges join neighbouring points along each line."""
    edges = sorted({(min(a, b), max(a, b)) for x, y, z in lines for a, b in ((x, y), (y, z))})
    return Board(name, points, lines, tuple(edges))


NINE_MENS_MORRIS: Final = _lines_board(
    "nine men's morris",
    NINE_POINTS,
    (
        (0, 1, 2),
        (3, 4, 5),
        (6, 7, 8),
        (9, 10, 11),
        (12, 13, 14),
        (15, 16, 17),
        (18, 19, 20),
        (21, 22, 23),
        (0, 9, 21),
        (3, 10, 18),
        (6, 11, 15),
        (1, 4, 7),
        (16, 19, 22),
        (8, 12, 17),
        (5, 13, 20),
        (2, 14, 23),
    ),
)
"""The standard board: 24 points, 16 mills, 32 edges."""

SQUARE: Final = _lines_board(
    "one square",
    ("a3", "b3", "c3", "a2", "c2", "a1", "b1", "c1"),
    ((0, 1, 2), (5, 6, 7), (0, 3, 5), (2, 4, 7)),
)
"""A small test board: one square of 8 points, its four sides the mills."""

GRID: Final = _lines_board(
    "three by three",
    ("a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"),
    ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8)),
)
"""A small test board: a 3x3 grid, its rows and columns the mills."""
