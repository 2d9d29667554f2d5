"""Othello on two bitboards, with an incremental Zobrist key.

The board is ``size`` x ``size`` cells, ``size`` one of 4, 6 (the default) and 8. Cell
``(file, rank)``, both counted from 0 at the bottom left, is bit ``rank * size + file`` of a
bitboard and is written ``"abcdefgh"[file] + str(rank + 1)``: a1 is the bottom-left corner.

Rules. The game starts from the four centre discs, White on the top-left and bottom-right ones,
and Black moves first. A placement must flip: the new disc and another disc of the mover enclose
an unbroken line of the opponent's discs (in any of the 8 directions), and every such line turns
over. A side with no placement but whose opponent has one must pass: **a pass is a move**
(:data:`PASS`, written ``pass``), so a position with no legal move is always over. The game ends
when neither side can place, and the side with more discs wins (equal counts draw).

Move generation is bit-parallel: for each direction, the opponent's discs adjacent to a run that
starts at one of the mover's discs are collected by shifting (at most ``size - 2`` steps), and the
empty cells one step beyond are placements. A shift by a file step masks out the file it would
wrap onto, so no run leaks from one rank into the next. ``compute_evaluation`` and
``compute_key`` instead walk the cells one by one with coordinates: they are the slow, obvious
twins that the tests hold the fast paths to.

Position format: the ranks from the top, ``/``-separated, each a row of ``x`` (Black), ``o``
(White) or ``.``, then a space and the side to move; the 4x4 start is ``..../.ox./.xo./.... x``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Final, Self

from zerosum.game import MoveError, Outcome, PositionError, Score
from zerosum.markup import MUTED, element, svg

Cell = int
"""A cell index ``rank * size + file`` (a1 = 0), or :data:`PASS`."""

PASS: Final[Cell] = 64
"""The move of a side that has no placement while its opponent has one: 64, past every cell of
the largest board, and the compiled kernel's code for a pass (a kernel's move codes are the
game's moves)."""
SIZES: Final[tuple[int, ...]] = (4, 6, 8)
"""The board sizes on offer."""
FILES: Final = "abcdefgh"
SYMBOLS: Final = "xo"
"""The position format's letter for Black and for White."""

DISC_WEIGHT: Final[Score] = 1
"""Heuristic worth of each disc more than the opponent."""
CORNER_WEIGHT: Final[Score] = 20
"""Heuristic worth of each corner more than the opponent (a corner never flips back)."""
MOBILITY_WEIGHT: Final[Score] = 4
"""Heuristic worth of each placement more than the opponent could make."""

DIRECTIONS: Final[tuple[tuple[int, int], ...]] = (
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (-1, -1),
    (1, -1),
    (-1, 1),
)
"""The 8 directions as (file step, rank step)."""


@dataclass(frozen=True, slots=True)
class Geometry:
    """Every table that depends on the board size (built once per size by :func:`geometry`)."""

    size: int
    full: int
    """The bitboard of every cell."""
    shifts: tuple[tuple[int, int], ...]
    """Per direction: the bit shift (left if positive, right if negative) and the mask of the
    cells a shifted disc may land on (every cell less the file it would wrap onto)."""
    corners: int
    """The bitboard of the four corners."""
    order: tuple[int, ...]
    """Per cell, its rank in the natural move order: corners first, then edges, inner cells, and
    the cells next to a corner last (they tend to give the corner away)."""
    start: tuple[int, int]
    """Black's and White's discs at the start."""
    zobrist: tuple[tuple[int, ...], tuple[int, ...]]
    """One random 64-bit key per colour (Black, White) and cell."""
    zobrist_flip: tuple[int, ...]
    """Per cell, Black's key XOR White's: what turning the disc there over changes."""
    zobrist_white: int
    """XORed into the key when White is to move."""


@cache
def geometry(size: int) -> Geometry:
    """The tables of the ``size`` x ``size`` board; ``size`` must be one of :data:`SIZES`."""
    if size not in SIZES:
        raise ValueError(f"board size {size} is not on offer: expected one of {SIZES}")
    full = (1 << size * size) - 1
    first_file = sum(1 << rank * size for rank in range(size))
    last_file = first_file << size - 1
    shifts = []
    for file_step, rank_step in DIRECTIONS:
        mask = full
        if file_step == 1:
            mask &= ~first_file
        elif file_step == -1:
            mask &= ~last_file
        shifts.append((rank_step * size + file_step, mask))
    last = size - 1
    corner_cells = (0, last, last * size, last * size + last)
    corners = sum(1 << cell for cell in corner_cells)

    def order(cell: int) -> int:
        file, rank = cell % size, cell // size
        near_corner = any(
            max(abs(file - c % size), abs(rank - c // size)) == 1 for c in corner_cells
        )
        if cell in corner_cells:
            return 0
        if near_corner:
            return 3
        if file in (0, last) or rank in (0, last):
            return 1
        return 2

    half = size // 2
    black = 1 << (half - 1) * size + half - 1 | 1 << half * size + half
    white = 1 << (half - 1) * size + half | 1 << half * size + half - 1
    rng = random.Random(0x07E110 + size)
    zobrist = (
        tuple(rng.getrandbits(64) for _ in range(size * size)),
        tuple(rng.getrandbits(64) for _ in range(size * size)),
    )
    return Geometry(
        size=size,
        full=full,
        shifts=tuple(shifts),
        corners=corners,
        order=tuple(order(cell) for cell in range(size * size)),
        start=(black, white),
        zobrist=zobrist,
        zobrist_flip=tuple(b ^ w for b, w in zip(*zobrist, strict=True)),
        zobrist_white=rng.getrandbits(64),
    )


def placements(geo: Geometry, own: int, opp: int) -> int:
    """The bitboard of the cells where the owner of ``own`` may place a disc."""
    empty = geo.full & ~(own | opp)
    steps = geo.size - 3
    found = 0
    for shift, mask in geo.shifts:
        mask_opp = mask & opp
        if shift > 0:
            run = own << shift & mask_opp
            for _ in range(steps):
                run |= run << shift & mask_opp
            found |= run << shift & mask & empty
        else:
            back = -shift
            run = own >> back & mask_opp
            for _ in range(steps):
                run |= run >> back & mask_opp
            found |= run >> back & mask & empty
    return found


def flips(geo: Geometry, own: int, opp: int, cell: Cell) -> int:
    """The bitboard of the discs that a disc of ``own``'s owner placed on ``cell`` turns over."""
    turned = 0
    for shift, mask in geo.shifts:
        line = 0
        probe = 1 << cell
        while True:
            probe = (probe << shift if shift > 0 else probe >> -shift) & mask
            if not probe & opp:
                break
            line |= probe
        if probe & own:
            turned |= line
    return turned


def cell_name(size: int, cell: Cell) -> str:
    """``cell`` in the notation: ``a1``.., or ``pass``."""
    return "pass" if cell == PASS else f"{FILES[cell % size]}{cell // size + 1}"


def _cells(bits: int) -> list[Cell]:
    """The cells of a bitboard, lowest first."""
    cells = []
    while bits:
        low = bits & -bits
        cells.append(low.bit_length() - 1)
        bits ^= low
    return cells


class Othello:
    """An Othello position with its move history (implements :class:`zerosum.game.Game`).

    Invariants: the discs of Black and White never overlap; the four centre cells are never
    empty; ``key()`` equals ``compute_key()`` and ``evaluate()`` ``compute_evaluation()``.
    """

    __slots__ = ("_discs", "_geo", "_history", "_key", "_side", "name")

    def __init__(self, size: int = 6) -> None:
        """The start position on a ``size`` x ``size`` board (4, 6 or 8)."""
        self._geo = geometry(size)
        self.name = "othello" if size == 6 else f"othello:{size}"
        """The registry name of this board size."""
        self._discs = list(self._geo.start)
        """Black's and White's bitboards."""
        self._side = 0
        """0 when Black is to move, 1 for White."""
        self._history: list[tuple[Cell, int, int]] = []
        """Per move made: the move, the discs it turned over, and the key before it."""
        self._key = self.compute_key()

    @property
    def size(self) -> int:
        """The board's width and height."""
        return self._geo.size

    # -- the search protocol --------------------------------------------------------------

    def side_to_move(self) -> int:
        return self._side

    def ply(self) -> int:
        return len(self._history)

    def _sides(self) -> tuple[int, int]:
        """The discs of the side to move and of its opponent."""
        side = self._side
        return self._discs[side], self._discs[side ^ 1]

    def outcome(self) -> Outcome | None:
        mine, theirs = self._sides()
        geo = self._geo
        if placements(geo, mine, theirs) or placements(geo, theirs, mine):
            return None
        return _by_count(mine, theirs)

    def legal_moves(self) -> list[Cell]:
        """The placements in the natural move order, else ``[PASS]`` if the opponent can
        place, else ``[]`` (the game is over)."""
        mine, theirs = self._sides()
        geo = self._geo
        found = placements(geo, mine, theirs)
        if found:
            return sorted(_cells(found), key=geo.order.__getitem__)
        return [PASS] if placements(geo, theirs, mine) else []

    def make(self, move: Cell) -> None:
        geo = self._geo
        side = self._side
        key = self._key
        turned = 0
        if move != PASS:
            mine, theirs = self._discs[side], self._discs[side ^ 1]
            turned = flips(geo, mine, theirs, move)
            self._discs[side] = mine | turned | 1 << move
            self._discs[side ^ 1] = theirs ^ turned
            new_key = key ^ geo.zobrist[side][move]
            for cell in _cells(turned):
                new_key ^= geo.zobrist_flip[cell]
            self._key = new_key
        self._key ^= geo.zobrist_white
        self._history.append((move, turned, key))
        self._side = side ^ 1

    def undo(self) -> None:
        move, turned, key = self._history.pop()
        side = self._side ^ 1
        self._side = side
        self._key = key
        if move != PASS:
            self._discs[side] &= ~(turned | 1 << move)
            self._discs[side ^ 1] |= turned

    def evaluate(self) -> Score:
        mine, theirs = self._sides()
        geo = self._geo
        corners = geo.corners
        mobility = placements(geo, mine, theirs).bit_count()
        mobility -= placements(geo, theirs, mine).bit_count()
        return (
            DISC_WEIGHT * (mine.bit_count() - theirs.bit_count())
            + CORNER_WEIGHT * ((mine & corners).bit_count() - (theirs & corners).bit_count())
            + MOBILITY_WEIGHT * mobility
        )

    def compute_evaluation(self) -> Score:
        """:meth:`evaluate` cell by cell, with placements found by walking the 8 directions."""
        grid = self._grid()
        size = self.size
        me, them = SYMBOLS[self._side], SYMBOLS[self._side ^ 1]
        last = size - 1
        value = 0
        for (file, rank), symbol in grid.items():
            sign = 1 if symbol == me else -1 if symbol == them else 0
            corner = file in (0, last) and rank in (0, last)
            value += sign * (DISC_WEIGHT + (CORNER_WEIGHT if corner else 0))
            mobility = _walk_places(grid, size, file, rank, me)
            mobility -= _walk_places(grid, size, file, rank, them)
            value += MOBILITY_WEIGHT * mobility
        return value

    def key(self) -> int:
        return self._key

    def compute_key(self) -> int:
        geo = self._geo
        key = geo.zobrist_white if self._side else 0
        for (file, rank), symbol in self._grid().items():
            if symbol != ".":
                key ^= geo.zobrist[SYMBOLS.index(symbol)][rank * geo.size + file]
        return key

    def copy(self) -> Self:
        other = type(self)(self.size)
        other._discs = list(self._discs)
        other._side = self._side
        other._history = list(self._history)
        other._key = self._key
        return other

    # -- othello helpers ------------------------------------------------------------------

    def discs(self) -> tuple[int, int]:
        """The bitboards of Black's and White's discs."""
        return self._discs[0], self._discs[1]

    def _grid(self) -> dict[tuple[int, int], str]:
        """Every cell ``(file, rank)`` with its symbol ``x``, ``o`` or ``.``."""
        size = self.size
        black, white = self._discs
        grid = {}
        for rank in range(size):
            for file in range(size):
                bit = 1 << rank * size + file
                grid[file, rank] = "x" if black & bit else "o" if white & bit else "."
        return grid

    # -- notation -------------------------------------------------------------------------

    def parse_move(self, text: str) -> Cell:
        size = self.size
        word = text.strip().lower()
        if word == "pass":
            move = PASS
        elif (
            len(word) == 2
            and word[0] in FILES[:size]
            and word[1].isdigit()
            and 1 <= int(word[1]) <= size
        ):
            move = FILES.index(word[0]) + size * (int(word[1]) - 1)
        else:
            last = cell_name(size, size * size - 1)
            raise MoveError(f"{text!r} is not an Othello move: expected a cell a1..{last} or pass")
        legal = self.legal_moves()
        if move in legal:
            return move
        if not legal:
            raise MoveError(f"{word} cannot be played: the game is over")
        options = " ".join(cell_name(size, cell) for cell in sorted(legal))
        if move == PASS:
            reason = "pass is only legal when no placement is"
        elif (self._discs[0] | self._discs[1]) >> move & 1:
            reason = f"{word} is taken"
        elif legal == [PASS]:
            reason = f"{word} flips nothing and no placement does"
        else:
            reason = f"{word} flips no disc"
        raise MoveError(f"{reason}: expected one of {options}")

    def format_move(self, move: Cell) -> str:
        return cell_name(self.size, move)

    def position(self) -> str:
        grid = self._grid()
        size = self.size
        rows = ("".join(grid[file, rank] for file in range(size)) for rank in reversed(range(size)))
        return "/".join(rows) + " " + SYMBOLS[self._side]

    @classmethod
    def from_position(cls, text: str, size: int = 6) -> Othello:
        """The position written in the format of the module docstring, with no history.

        Raises :class:`PositionError` if ``text`` is not ``size`` rows of ``size`` symbols
        ``x``, ``o`` or ``.`` and a side to move ``x`` or ``o``, or if a centre cell is empty
        (play never empties one).
        """
        example = cls(size).position()
        words = text.split()
        rows = words[0].lower().split("/") if words else []
        if (
            len(words) != 2
            or words[1].lower() not in ("x", "o")
            or len(rows) != size
            or any(len(row) != size or set(row) - set("xo.") for row in rows)
        ):
            raise PositionError(
                f"{text!r} is not a {size}x{size} Othello position: expected {size} rows from "
                f"the top of {size} 'x', 'o' or '.' separated by '/', a space and the side to "
                f"move 'x' or 'o', e.g. {example!r}"
            )
        game = cls(size)
        discs = [0, 0]
        for index, row in enumerate(rows):
            rank = size - 1 - index
            for file, symbol in enumerate(row):
                if symbol != ".":
                    discs[SYMBOLS.index(symbol)] |= 1 << rank * size + file
        centre = game._geo.start[0] | game._geo.start[1]
        if centre & ~(discs[0] | discs[1]):
            raise PositionError(
                f"{text!r} is impossible: a centre cell is empty, and the four centre cells "
                "hold discs from the start on"
            )
        game._discs = discs
        game._side = SYMBOLS.index(words[1].lower())
        game._key = game.compute_key()
        return game

    def __repr__(self) -> str:
        """The expression that rebuilds the position (without its history), e.g.
        ``Othello.from_position('..../.ox./.xo./.... x', size=4)``."""
        return f"Othello.from_position({self.position()!r}, size={self.size})"

    def _repr_svg_(self) -> str:
        """The board as SVG (Jupyter shows it): green cells, the discs, the moves of the side
        to move as small dots, the files and ranks around."""
        return draw_board(self)

    def render(self) -> str:
        grid = self._grid()
        size = self.size
        rows = []
        for rank in reversed(range(size)):
            cells = " ".join(grid[file, rank].upper() for file in range(size))
            rows.append(f"{rank + 1} {cells}")
        rows.append("  " + " ".join(FILES[:size]))
        return "\n".join(rows)


CELL: Final = 44
"""The side of a cell in the SVG board, in pixels."""
MARGIN: Final = 22
"""The room for the file and rank names around the board."""


def draw_board(game: Othello) -> str:
    """``game``'s board as an SVG document, built with :mod:`zerosum.markup` (escaped, no
    dependency): what a plugin needs to look at home in a notebook."""
    size, grid = game.size, game._grid()
    width = size * CELL + 2 * MARGIN
    hints = set() if game.outcome() is not None else set(game.legal_moves())
    parts = [
        element(
            "rect",
            {
                "x": MARGIN,
                "y": MARGIN,
                "width": size * CELL,
                "height": size * CELL,
                "rx": 4,
                "fill": "#1f7a3d",
            },
        )
    ]
    for index in range(size):
        middle = MARGIN + index * CELL + CELL / 2
        label = {"font-size": 12, "fill": MUTED, "text-anchor": "middle"}
        parts.append(element("text", {**label, "x": middle, "y": 15}, text=FILES[index]))
        rank_y = MARGIN + (size - 1 - index) * CELL + CELL / 2 + 4
        parts.append(element("text", {**label, "x": 11, "y": rank_y}, text=str(index + 1)))
    for (file, rank), symbol in grid.items():
        x, y = MARGIN + file * CELL, MARGIN + (size - 1 - rank) * CELL
        cell = {"x": x, "y": y, "width": CELL, "height": CELL}
        parts.append(element("rect", {**cell, "fill": "none", "stroke": "#0f4d24"}))
        centre = {"cx": x + CELL / 2, "cy": y + CELL / 2}
        if symbol != ".":
            fill = "#111" if symbol == "x" else "#f8f8f8"
            kind = "disc-x" if symbol == "x" else "disc-o"
            disc = {**centre, "r": CELL * 0.4, "fill": fill, "stroke": "#333", "class": kind}
            parts.append(element("circle", disc))
        elif rank * size + file in hints:
            parts.append(element("circle", {**centre, "r": 4, "fill": "#0f4d24", "class": "hint"}))
    black, white = (bits.bit_count() for bits in game.discs())
    title = f"{size}x{size} Othello board: Black {black}, White {white}"
    return svg(width, width, title, *parts)


def _by_count(mine: int, theirs: int) -> Outcome:
    """The outcome for the owner of ``mine`` of a finished game."""
    difference = mine.bit_count() - theirs.bit_count()
    return Outcome.WIN if difference > 0 else Outcome.LOSS if difference < 0 else Outcome.DRAW


def _walk_places(grid: dict[tuple[int, int], str], size: int, file: int, rank: int, me: str) -> int:
    """1 if ``me`` may place a disc on the cell ``(file, rank)`` of ``grid``, else 0, found by
    walking each direction cell by cell (the obvious twin of :func:`placements`)."""
    if grid[file, rank] != ".":
        return 0
    for file_step, rank_step in DIRECTIONS:
        f, r = file + file_step, rank + rank_step
        enclosed = 0
        while 0 <= f < size and 0 <= r < size and grid[f, r] not in (".", me):
            f, r = f + file_step, r + rank_step
            enclosed += 1
        if enclosed and 0 <= f < size and 0 <= r < size and grid[f, r] == me:
            return 1
    return 0
