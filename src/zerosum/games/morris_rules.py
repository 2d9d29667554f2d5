"""The rules of the morris games as data: boards (points, edges, mills), men and draw rules.

A board lists its points in ``mission.md``'s standard order (row by row from the top left), so a
point's index is its place in that order and its bit in a bitboard. Nine men's morris, six men's
morris (the two outer squares of the same board, 16 points) and twelve men's morris (nine's
board with the four diagonals, which add edges and mills) are three :class:`Rules` values; the
game code knows no variant.

Defaults (each one an option of the ``morris`` game, see :func:`parse_options`):

============  =====  ======  =======  ===========  ============  ==========
variant       men    points  flying   repetition   moves         full board
============  =====  ======  =======  ===========  ============  ==========
``nine``      9      24      on       3 (draw)     100 (draw)    -
``six``       6      16      off      3 (draw)     100 (draw)    -
``twelve``    12     24      on       3 (draw)     100 (draw)    draw
============  =====  ======  =======  ===========  ============  ==========

``repetition=N``: the N-th occurrence of a position (same men, men in hand and side to move) is a
draw. ``moves=N``: N moves in a row in the movement phase without a removal are a draw. Either
may be ``none``: then infinite play is a draw only in the game-theoretic sense (as in the solved
game) and the game itself goes on. ``flying=on|off``: a player with exactly three men moves any
man to any empty point. Twelve men's morris ends in a draw when the board fills up.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Final

from zerosum.game import ZerosumError

NINE_POINTS: Final = (
    *("a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4"),
    *("e4", "f4", "g4", "c3", "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1"),
)
NINE_MILLS: Final = (
    *("a7 d7 g7", "b6 d6 f6", "c5 d5 e5", "a4 b4 c4", "e4 f4 g4", "c3 d3 e3", "b2 d2 f2"),
    *("a1 d1 g1", "a7 a4 a1", "b6 b4 b2", "c5 c4 c3", "d7 d6 d5", "d3 d2 d1", "e5 e4 e3"),
    *("f6 f4 f2", "g7 g4 g1"),
)
NINE_SPOKES: Final = ("d7 d6 d5", "a4 b4 c4", "e4 f4 g4", "d3 d2 d1")
"""Lines that join the squares; on nine's board they are mills too."""
DIAGONALS: Final = ("a7 b6 c5", "g7 f6 e5", "a1 b2 c3", "g1 f2 e3")
"""Twelve men's morris adds these lines (edges and mills)."""
SIX_POINTS: Final = (
    *("a7", "d7", "g7", "b6", "d6", "f6", "a4", "b4"),
    *("f4", "g4", "b2", "d2", "f2", "a1", "d1", "g1"),
)
SIX_MILLS: Final = (
    *("a7 d7 g7", "b6 d6 f6", "b2 d2 f2", "a1 d1 g1", "a7 a4 a1", "b6 b4 b2", "f6 f4 f2"),
    "g7 g4 g1",
)
SIX_SPOKES: Final = ("d7 d6", "a4 b4", "f4 g4", "d2 d1")

NINE_BOARD: Final = r"""
a7-----------d7-----------g7
|            |            |
|   b6-------d6-------f6  |
|   |        |        |   |
|   |   c5---d5---e5  |   |
|   |   |         |   |   |
a4--b4--c4        e4--f4--g4
|   |   |         |   |   |
|   |   c3---d3---e3  |   |
|   |        |        |   |
|   b2-------d2-------f2  |
|            |            |
a1-----------d1-----------g1
"""
TWELVE_BOARD: Final = r"""
a7-----------d7-----------g7
| \          |          / |
|   b6-------d6-------f6  |
|   | \      |      / |   |
|   |   c5---d5---e5  |   |
|   |   |         |   |   |
a4--b4--c4        e4--f4--g4
|   |   |         |   |   |
|   |   c3---d3---e3  |   |
|   | /      |      \ |   |
|   b2-------d2-------f2  |
| /          |          \ |
a1-----------d1-----------g1
"""
SIX_BOARD: Final = r"""
a7-----------d7-----------g7
|            |            |
|   b6-------d6-------f6  |
|   |                 |   |
a4--b4                f4--g4
|   |                 |   |
|   b2-------d2-------f2  |
|            |            |
a1-----------d1-----------g1
"""


class OptionError(ZerosumError, ValueError):
    """A morris option that is malformed or unknown."""


@dataclass(frozen=True)
class Rules:
    """One morris game: its board and its rules. Points are indices into ``points``."""

    variant: str
    """``nine``, ``six`` or ``twelve``."""
    points: tuple[str, ...]
    """Point names in the standard order (the order of the position format)."""
    adjacent: tuple[int, ...]
    """Per point, the bitboard of the points joined to it by an edge."""
    mills: tuple[int, ...]
    """Every mill as a bitboard of its three points."""
    men: int
    """Men per side."""
    drawing: str
    """The board as text with the point names where the points are (for ``render``)."""
    flying: bool = True
    """A player with exactly three men (none in hand) moves any man to any empty point."""
    repetition: int | None = 3
    """The occurrence of a position that draws (``None``: never)."""
    move_limit: int | None = 100
    """Moves in a row in the movement phase without a removal that draw (``None``: never)."""
    full_board_draw: bool = False
    """A full board is a draw (twelve men's morris)."""

    @property
    def size(self) -> int:
        return len(self.points)

    @property
    def full(self) -> int:
        """The bitboard of every point."""
        return (1 << len(self.points)) - 1

    def mills_at(self, point: int) -> tuple[int, ...]:
        """The mills through ``point``."""
        return tuple(mill for mill in self.mills if mill >> point & 1)

    def name(self) -> str:
        """The registry name: ``morris`` with the options that differ from the defaults."""
        base = VARIANTS[self.variant]
        options = [] if self.variant == "nine" else [self.variant]
        if self.flying != base.flying:
            options.append(f"flying={'on' if self.flying else 'off'}")
        if self.repetition != base.repetition:
            options.append(f"repetition={self.repetition or 'none'}")
        if self.move_limit != base.move_limit:
            options.append(f"moves={self.move_limit or 'none'}")
        return ":".join(["morris", *options])


def _bits(points: tuple[str, ...], names: str) -> int:
    bits = 0
    for name in names.split():
        bits |= 1 << points.index(name)
    return bits


def _rules(
    variant: str,
    points: tuple[str, ...],
    lines: tuple[str, ...],
    mills: tuple[str, ...],
    men: int,
    drawing: str,
    **options: bool,
) -> Rules:
    names = tuple(points)
    adjacent = [0] * len(names)
    for line in lines:
        ends = line.split()
        for a, b in itertools.pairwise(ends):
            adjacent[names.index(a)] |= 1 << names.index(b)
            adjacent[names.index(b)] |= 1 << names.index(a)
    return Rules(
        variant=variant,
        points=names,
        adjacent=tuple(adjacent),
        mills=tuple(_bits(names, mill) for mill in mills),
        men=men,
        drawing=drawing.strip("\n"),
        **options,
    )


NINE: Final = _rules("nine", NINE_POINTS, NINE_MILLS, NINE_MILLS, 9, NINE_BOARD)
"""Standard nine men's morris (every line of the board is a mill)."""
SIX: Final = _rules(
    "six", SIX_POINTS, (*SIX_MILLS, *SIX_SPOKES), SIX_MILLS, 6, SIX_BOARD, flying=False
)
"""Six men's morris: the two outer squares joined at their midpoints, no flying."""
TWELVE: Final = _rules(
    "twelve",
    NINE_POINTS,
    (*NINE_MILLS, *DIAGONALS),
    (*NINE_MILLS, *DIAGONALS),
    12,
    TWELVE_BOARD,
    full_board_draw=True,
)
"""Twelve men's morris: nine's board with the diagonals; a full board is a draw."""
VARIANTS: Final = {"nine": NINE, "six": SIX, "twelve": TWELVE}
assert set(NINE_SPOKES) <= set(NINE_MILLS)


def _count(key: str, value: str, least: int) -> int | None:
    if value == "none":
        return None
    try:
        number = int(value)
    except ValueError:
        number = least - 1
    if number < least:
        raise OptionError(
            f"morris option {key}={value!r}: expected a whole number >= {least} or 'none'"
        )
    return number


def parse_options(text: str) -> Rules:
    """The rules named by an option string, the part of a game name after ``morris:``.

    Options are separated by ``:`` (or ``,``): a variant (``nine``, ``six``, ``twelve``),
    ``flying=on|off``, ``repetition=N|none``, ``moves=N|none``; e.g. ``six:flying=on`` or
    ``repetition=none:moves=none``. Raises :class:`OptionError` naming a bad option.
    """
    words = [word.strip().lower() for word in text.replace(",", ":").split(":") if word.strip()]
    variants = [word for word in words if word in VARIANTS]
    if len(variants) > 1:
        raise OptionError(
            f"morris options {text!r} name two variants: expected one of nine, six, twelve"
        )
    rules = VARIANTS[variants[0] if variants else "nine"]
    given: set[str] = set()
    for word in words:
        if word in VARIANTS:
            continue
        key, sep, value = word.partition("=")
        if key in given:
            raise OptionError(f"morris options {text!r} give {key} twice: expected it once")
        given.add(key)
        if key == "flying" and value in ("on", "off"):
            rules = replace(rules, flying=value == "on")
        elif key == "repetition" and sep:
            rules = replace(rules, repetition=_count(key, value, 2))
        elif key == "moves" and sep:
            rules = replace(rules, move_limit=_count(key, value, 1))
        else:
            raise OptionError(
                f"unknown morris option {word!r}: expected nine, six, twelve, flying=on|off, "
                "repetition=N|none or moves=N|none"
            )
    return rules
