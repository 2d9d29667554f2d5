"""Connect four (7 columns, 6 rows) on Pascal Pons's bitboards, with an incremental Zobrist key
and an incremental evaluation.

Layout: cell ``(column, row)``, row 0 at the bottom, is bit ``7 * column + row``. Each column
has 6 cells and one spare bit on top that always stays empty, so a run of bits shifted by 1
(vertical), 7 (horizontal), 6 or 8 (the two diagonals) never wraps from one column into the
next: four in a row is ``pairs = b & b >> s`` then ``pairs & pairs >> 2s`` for each shift ``s``.

The position is two bitboards: ``current``, the stones of the side to move, and ``mask``, every
stone; the opponent's stones are ``current ^ mask``. Making a move swaps the point of view with
``current ^= mask`` before the new stone joins ``mask``, so one code path serves both players.

The evaluation counts the 69 windows of four cells that hold stones of one player only,
weighted by how many (``WINDOW_WEIGHT``), plus a bonus per stone in the centre column. It is
kept incrementally: each of the 25 lines of four cells or more (7 columns, 6 rows, 12
diagonals) keeps its contents as a base-3 number (a digit per cell: 0 empty, 1 X, 2 O), and a
table per kind of line gives the line's worth, so a move changes the evaluation by at most four
table differences. ``compute_evaluation`` walks the 69 windows over the bitboards instead.
Trade-off: make and undo pay about 1 µs more, and ``evaluate`` costs nothing, where a
bit-parallel count over the bitboards costs some 15 µs per call in CPython.

Columns are numbered 0..6 from the left and written ``"1"``..``"7"``. X moves first. The
position format is the string of columns played from the empty board (``"4453"``), the
convention of the public connect four solvers; the empty string is the start.
"""

from __future__ import annotations

import random
from typing import Final, Self

from zerosum.game import WIN, MoveError, Outcome, PositionError, Score, is_proven
from zerosum.games.boards import BoardState, draw_board

Column = int
"""A column index 0..6 from the left (written ``"1"``..``"7"``)."""
Cell = int
"""A bit index ``7 * column + row``."""

WIDTH: Final = 7
HEIGHT: Final = 6
CELLS: Final = WIDTH * HEIGHT
STRIDE: Final = HEIGHT + 1
"""Bits per column: the cells and one spare bit."""
CENTRE_COLUMN: Final[Column] = WIDTH // 2

TOP: Final = sum(1 << STRIDE * column + HEIGHT - 1 for column in range(WIDTH))
"""The top cell of every column: a column is full when its top cell is taken."""
MOVE_ORDER: Final[tuple[Column, ...]] = (3, 2, 4, 1, 5, 0, 6)
"""The natural move order: the centre first (more windows), the edges last."""
WINDOW_WEIGHT: Final[tuple[Score, ...]] = (0, 1, 4, 16)
"""Heuristic worth of a window holding 0..3 stones of one player and none of the other."""
CENTRE_WEIGHT: Final = 2
"""Heuristic worth of each stone in the centre column."""

_rng = random.Random(0xC4C4C4)
ZOBRIST_CELL: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(_rng.getrandbits(64) for _ in range(WIDTH * STRIDE)) for _ in range(2)
)
"""One random key per player (X, O) and cell; the side to move follows from the stone count."""
del _rng

LEGAL: Final[dict[int, tuple[Column, ...]]] = {
    taken: tuple(c for c in MOVE_ORDER if not taken >> STRIDE * c + HEIGHT - 1 & 1)
    for taken in (
        sum(1 << STRIDE * c + HEIGHT - 1 for c in range(WIDTH) if subset >> c & 1)
        for subset in range(1 << WIDTH)
    )
}
"""The open columns in ``MOVE_ORDER``, indexed by ``mask & TOP`` (the full columns)."""


def cell_of(column: Column, row: int) -> Cell:
    return STRIDE * column + row


def _windows() -> tuple[int, ...]:
    """Every window of four cells in a line, as a bitboard (the obvious way: by coordinates)."""
    windows = []
    for column in range(WIDTH):
        for row in range(HEIGHT):
            for step_column, step_row in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(column + i * step_column, row + i * step_row) for i in range(4)]
                if all(0 <= c < WIDTH and 0 <= r < HEIGHT for c, r in cells):
                    windows.append(sum(1 << cell_of(c, r) for c, r in cells))
    return tuple(windows)


WINDOWS: Final = _windows()
"""The 69 windows of four: 21 vertical, 24 horizontal, 12 on each diagonal."""


def _lines() -> tuple[tuple[Cell, ...], ...]:
    """The columns, rows and diagonals of at least four cells, each from one end."""
    lines = [tuple(cell_of(c, r) for r in range(HEIGHT)) for c in range(WIDTH)]
    lines += [tuple(cell_of(c, r) for c in range(WIDTH)) for r in range(HEIGHT)]
    for step in (1, -1):
        for column in range(WIDTH):
            for row in range(HEIGHT):
                if 0 <= column - 1 < WIDTH and 0 <= row - step < HEIGHT:
                    continue  # not the first cell of its diagonal
                cells = []
                c, r = column, row
                while 0 <= c < WIDTH and 0 <= r < HEIGHT:
                    cells.append(cell_of(c, r))
                    c, r = c + 1, r + step
                if len(cells) >= 4:
                    lines.append(tuple(cells))
    return tuple(lines)


LINES: Final = _lines()
"""The 25 lines that hold windows: 7 columns, 6 rows, 6 diagonals each way."""


def _line_table(length: int, centre: bool) -> tuple[Score, ...]:
    """The worth for X of every content of a line, indexed by its base-3 number."""
    table = []
    for number in range(3**length):
        digits = [number // 3**i % 3 for i in range(length)]
        value = 0
        for start in range(length - 3):
            window = digits[start : start + 4]
            x, o = window.count(1), window.count(2)
            if x < 4 and not o:
                value += WINDOW_WEIGHT[x]
            elif o < 4 and not x:
                value -= WINDOW_WEIGHT[o]
        if centre:
            value += CENTRE_WEIGHT * (digits.count(1) - digits.count(2))
        table.append(value)
    return tuple(table)


def _updates() -> tuple[tuple[tuple[tuple[int, int, tuple[Score, ...]], ...], ...], ...]:
    """Per player and cell: (line index, change of the line's number, the line's table)."""
    tables: dict[tuple[int, bool], tuple[Score, ...]] = {}
    line_tables = []
    for index, line in enumerate(LINES):
        kind = (len(line), index == CENTRE_COLUMN)  # LINES starts with the columns
        if kind not in tables:
            tables[kind] = _line_table(*kind)
        line_tables.append(tables[kind])
    return tuple(
        tuple(
            tuple(
                (index, (1 + side) * 3 ** line.index(cell), line_tables[index])
                for index, line in enumerate(LINES)
                if cell in line
            )
            for cell in range(WIDTH * STRIDE)
        )
        for side in (0, 1)
    )


UPDATES: Final = _updates()
"""What a stone of player ``side`` on ``cell`` changes: ``UPDATES[side][cell]``."""


def column_name(column: Column) -> str:
    return str(column + 1)


def aligned(stones: int) -> bool:
    """Whether ``stones`` hold four in a row (vertical, horizontal or diagonal)."""
    pairs = stones & stones >> 1
    if pairs & pairs >> 2:
        return True
    pairs = stones & stones >> 7
    if pairs & pairs >> 14:
        return True
    pairs = stones & stones >> 6
    if pairs & pairs >> 12:
        return True
    pairs = stones & stones >> 8
    return bool(pairs & pairs >> 16)


def split_moves(text: str) -> list[str]:
    """The moves of a word of column digits: ``"4453"`` and ``"4 4 5 3"`` are four moves."""
    return [char for char in text if not char.isspace()]


def pons_score(value: Score, ply: int) -> int:
    """A proven search value converted to Pascal Pons's score convention.

    ``value`` is an exact value from the side to move at a root with ``ply`` stones on the
    board: ``WIN - d`` for a win whose winning stone is played ``d`` plies below the root,
    ``-(WIN - d)`` for a loss, 0 for a draw. Pons scores a win as 22 minus the number of stones
    the winner has on the board once it has played its winning stone, that is
    ``(44 - n) // 2`` when the winning stone is the ``n``-th of the game (``n = ply + d``; the
    earlier the win, the larger the score), and a loss as the negation of the winner's score.
    (``(43 - n) // 2`` is one short when the second player wins, ``n`` being even.) Every
    division is done on the positive magnitude, so Python's floor and C++'s truncation agree.

    >>> pons_score(WIN - 1, 41), pons_score(-(WIN - 2), 40), pons_score(0, 12)
    (1, -1, 0)
    """
    if not 0 <= ply < CELLS:
        raise ValueError(f"ply {ply} is out of range: expected 0..{CELLS - 1}")
    if value == 0:
        return 0
    if not is_proven(value):
        raise ValueError(f"{value} is a heuristic score: expected a proven win, loss or 0")
    stones = ply + WIN - abs(value)
    if not ply < stones <= CELLS:
        raise ValueError(
            f"{value} ends the game with stone {stones}: expected stone {ply + 1}..{CELLS}"
        )
    magnitude = (CELLS + 2 - stones) // 2
    return magnitude if value > 0 else -magnitude


def value_from_pons(score: int, ply: int) -> Score:
    """The search value of a Pons ``score`` at a root with ``ply`` stones (the inverse of
    :func:`pons_score`): the winning stone is the one of the right parity that gives it."""
    if not 0 <= ply < CELLS:
        raise ValueError(f"ply {ply} is out of range: expected 0..{CELLS - 1}")
    if score == 0:
        return 0
    stones = CELLS + 2 - 2 * abs(score)
    # The side to move plays the stones ply + 1, ply + 3, ...; its opponent the others.
    if (stones - ply) % 2 != (1 if score > 0 else 0):
        stones -= 1
    if not ply < stones <= CELLS:
        raise ValueError(
            f"Pons score {score} is impossible after {ply} stones: expected a "
            f"win or loss by stone {ply + 1}..{CELLS}"
        )
    return (WIN - (stones - ply)) * (1 if score > 0 else -1)


class Connect4:
    """A connect four position with its move history (implements :class:`zerosum.game.Game`)."""

    name = "connect4"

    __slots__ = ("_current", "_history", "_key", "_lines", "_mask", "_next", "_values", "_won")

    def __init__(self) -> None:
        self._current = 0
        """The stones of the side to move."""
        self._mask = 0
        """Every stone on the board."""
        self._next = [cell_of(column, 0) for column in range(WIDTH)]
        """The lowest empty cell of each column."""
        self._won = False
        """Whether the last move made four in a row."""
        self._lines = [0] * len(LINES)
        """The base-3 number of each line's contents (see the module docstring)."""
        self._values: list[Score] = [0]
        """The evaluation for X after each move of the history (the last one is current)."""
        self._history: list[Column] = []
        self._key = 0

    # -- the search protocol --------------------------------------------------------------

    def side_to_move(self) -> int:
        return len(self._history) & 1

    def ply(self) -> int:
        return len(self._history)

    def outcome(self) -> Outcome | None:
        if self._won:
            return Outcome.LOSS
        if len(self._history) == CELLS:
            return Outcome.DRAW
        return None

    def legal_moves(self) -> list[Column]:
        if self._won:
            return []
        return list(LEGAL[self._mask & TOP])

    def make(self, move: Column) -> None:
        cell = self._next[move]
        self._next[move] = cell + 1
        side = len(self._history) & 1
        self._history.append(move)
        self._key ^= ZOBRIST_CELL[side][cell]
        mover = self._current | 1 << cell
        self._current ^= self._mask
        self._mask |= 1 << cell
        self._won = aligned(mover)
        lines = self._lines
        value = self._values[-1]
        for line, change, table in UPDATES[side][cell]:
            old = lines[line]
            lines[line] = new = old + change
            value += table[new] - table[old]
        self._values.append(value)

    def undo(self) -> None:
        move = self._history.pop()
        cell = self._next[move] - 1
        self._next[move] = cell
        side = len(self._history) & 1
        self._key ^= ZOBRIST_CELL[side][cell]
        self._mask ^= 1 << cell
        self._current ^= self._mask
        self._won = False  # play never goes on after a win
        lines = self._lines
        for line, change, _ in UPDATES[side][cell]:
            lines[line] -= change
        self._values.pop()

    def evaluate(self) -> Score:
        value = self._values[-1]
        return -value if len(self._history) & 1 else value

    def compute_evaluation(self) -> Score:
        mine, theirs = self._current, self._current ^ self._mask
        value = 0
        for window in WINDOWS:
            own, other = (mine & window).bit_count(), (theirs & window).bit_count()
            if own < 4 and not other:
                value += WINDOW_WEIGHT[own]
            elif other < 4 and not own:
                value -= WINDOW_WEIGHT[other]
        for row in range(HEIGHT):
            cell = cell_of(CENTRE_COLUMN, row)
            value += CENTRE_WEIGHT * ((mine >> cell & 1) - (theirs >> cell & 1))
        return value

    def key(self) -> int:
        return self._key

    def compute_key(self) -> int:
        key = 0
        stones = self.stones()
        for side in (0, 1):
            for cell in range(WIDTH * STRIDE):
                if stones[side] >> cell & 1:
                    key ^= ZOBRIST_CELL[side][cell]
        return key

    def copy(self) -> Self:
        other = type(self)()
        other._current = self._current
        other._mask = self._mask
        other._next = list(self._next)
        other._won = self._won
        other._lines = list(self._lines)
        other._values = list(self._values)
        other._history = list(self._history)
        other._key = self._key
        return other

    # -- connect four helpers -------------------------------------------------------------

    def is_winning_move(self, move: Column) -> bool:
        """Whether playing the open column ``move`` makes four in a row at once."""
        return aligned(self._current | 1 << self._next[move])

    def stones(self) -> tuple[int, int]:
        """The bitboards of X's and O's stones (bit ``7 * column + row``)."""
        mine, theirs = self._current, self._current ^ self._mask
        return (mine, theirs) if self.side_to_move() == 0 else (theirs, mine)

    def _is_full(self, column: Column) -> bool:
        return self._next[column] == cell_of(column, HEIGHT)

    # -- notation -------------------------------------------------------------------------

    def parse_move(self, text: str) -> Column:
        word = text.strip()
        if len(word) != 1 or word not in "1234567":
            raise MoveError(f"{text!r} is not a column: expected a digit 1-7")
        column = int(word) - 1
        if self.outcome() is not None:
            raise MoveError(f"{word} cannot be played: the game is over")
        if self._is_full(column):
            open_columns = " ".join(column_name(c) for c in sorted(self.legal_moves()))
            raise MoveError(f"column {word} is full: expected one of {open_columns}")
        return column

    def format_move(self, move: Column) -> str:
        return column_name(move)

    def position(self) -> str:
        return "".join(column_name(move) for move in self._history)

    @classmethod
    def from_position(cls, text: str) -> Connect4:
        """The position reached by the columns ``text`` (digits 1-7) from the empty board.

        Raises :class:`PositionError` naming the first bad move and its index (from 1): a
        character that is not a column, a full column, or a move after the game was won.
        """
        game = cls()
        for index, char in enumerate(text.strip(), start=1):
            if char not in "1234567":
                raise PositionError(
                    f"{text!r}: move {index} ({char!r}) is not a column: "
                    "expected the columns played from the empty board, digits 1-7, e.g. '4453'"
                )
            column = int(char) - 1
            if game._won:
                raise PositionError(
                    f"{text!r}: move {index} ({char}) comes after the game was won: "
                    f"expected at most {index - 1} moves"
                )
            if game._is_full(column):
                raise PositionError(
                    f"{text!r}: move {index} ({char}) is in a full column: "
                    "expected a column with room"
                )
            game.make(column)
        return game

    def render(self) -> str:
        x, o = self.stones()
        rows = []
        for row in reversed(range(HEIGHT)):
            cells = []
            for column in range(WIDTH):
                bit = 1 << cell_of(column, row)
                cells.append("X" if x & bit else "O" if o & bit else ".")
            rows.append("| " + " ".join(cells) + " |")
        rows.append("+" + "-" * (2 * WIDTH + 1) + "+")
        rows.append("  " + " ".join(column_name(c) for c in range(WIDTH)))
        return "\n".join(rows)

    # -- display --------------------------------------------------------------------------

    def __repr__(self) -> str:
        """The expression that rebuilds the game, e.g. ``Connect4.from_position('4453')``."""
        return f"Connect4.from_position({self.position()!r})"

    def _repr_svg_(self) -> str:
        """The board as SVG, drawn as the web app draws it (Jupyter shows it)."""
        return draw_board("connect4", BoardState("connect4", self.position()))
