"""Tic-tac-toe on two 9-bit bitboards, with an incremental Zobrist key.

Everything the search asks per node is a table lookup indexed by the bitboards: whether a
player has a line, the empty cells, and the evaluation (a sum of line values, tabulated for all
3^9 boards when the module loads; ``compute_evaluation`` recomputes it line by line).

Cells are numbered 0..8 from a1 (bottom left) along the ranks: a1=0, b1=1, c1=2, a2=3, ..., c3=8,
so cell ``c`` is written ``"abc"[c % 3] + str(c // 3 + 1)``. X moves first.

Position format: nine characters ``x``, ``o`` or ``.`` read row by row from the top left
(a3 b3 c3 a2 b2 c2 a1 b1 c1), optionally grouped by ``/`` (``"x.o/.x./..o"``). The side to move
follows from the counts (X when they are equal).
"""

from __future__ import annotations

import random
from typing import Final, Self

from zerosum.game import MoveError, Outcome, PositionError, Score
from zerosum.games.boards import BoardState, draw_board

Cell = int
"""A cell index 0..8 (a1=0, b1=1, ..., c3=8)."""

FILES: Final = "abc"
LINES: Final[tuple[int, ...]] = (
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
)
FULL: Final = 0b111_111_111
LINE_WEIGHT: Final[tuple[int, ...]] = (0, 1, 10, 100)
"""Heuristic worth of a line holding 0..3 stones of one player and none of the other."""

_rng = random.Random(0x7AC7AC)
ZOBRIST_CELL: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(_rng.getrandbits(64) for _ in range(9)) for _ in range(2)
)
ZOBRIST_O_TO_MOVE: Final = _rng.getrandbits(64)
del _rng


def cell_name(cell: Cell) -> str:
    return f"{FILES[cell % 3]}{cell // 3 + 1}"


def has_line(stones: int) -> bool:
    return any(stones & line == line for line in LINES)


def line_value(line: int, mine: int, theirs: int) -> Score:
    """The worth of one line for the owner of ``mine``: positive if only they hold it."""
    own = (mine & line).bit_count()
    other = (theirs & line).bit_count()
    if own and other:
        return 0
    return LINE_WEIGHT[own] - LINE_WEIGHT[other]


def board_value(x: int, o: int) -> Score:
    """The evaluation from X's point of view: the sum of the line values."""
    return sum(line_value(line, x, o) for line in LINES)


WON: Final[tuple[bool, ...]] = tuple(has_line(stones) for stones in range(512))
"""Whether a bitboard holds a line."""
MOVE_ORDER: Final[tuple[Cell, ...]] = (4, 0, 2, 6, 8, 1, 3, 5, 7)
"""The natural move order: the centre, the corners, then the edges (most lines first)."""
EMPTY_CELLS: Final[tuple[tuple[Cell, ...], ...]] = tuple(
    tuple(cell for cell in MOVE_ORDER if empty >> cell & 1) for empty in range(512)
)
"""The cells of a bitboard of empty cells, in ``MOVE_ORDER``."""
_EVAL_X: Final[list[Score]] = []
"""``board_value(x, o)`` at index ``x << 9 | o``, filled on first use (about 0.1 s)."""


def _fill_eval_table() -> None:
    _EVAL_X.extend([0] * (1 << 18))
    for x in range(512):
        free = o = FULL & ~x
        while True:  # every subset o of the free cells
            _EVAL_X[x << 9 | o] = board_value(x, o)
            if not o:
                break
            o = (o - 1) & free


class TicTacToe:
    """A tic-tac-toe position with its move history (implements :class:`zerosum.game.Game`)."""

    name = "tictactoe"

    __slots__ = ("_history", "_key", "_stones")

    def __init__(self) -> None:
        self._stones = [0, 0]
        """Bitboards of X's and O's stones."""
        self._history: list[Cell] = []
        self._key = 0

    # -- the search protocol --------------------------------------------------------------

    def side_to_move(self) -> int:
        return len(self._history) & 1

    def ply(self) -> int:
        return len(self._history)

    def outcome(self) -> Outcome | None:
        plies = len(self._history)
        if plies and WON[self._stones[(plies - 1) & 1]]:
            return Outcome.LOSS
        if plies == 9:
            return Outcome.DRAW
        return None

    def legal_moves(self) -> list[Cell]:
        if self.outcome() is not None:
            return []
        x, o = self._stones
        return list(EMPTY_CELLS[FULL & ~(x | o)])

    def make(self, move: Cell) -> None:
        side = len(self._history) & 1
        self._stones[side] |= 1 << move
        self._key ^= ZOBRIST_CELL[side][move] ^ ZOBRIST_O_TO_MOVE
        self._history.append(move)

    def undo(self) -> None:
        move = self._history.pop()
        side = len(self._history) & 1
        self._stones[side] &= ~(1 << move)
        self._key ^= ZOBRIST_CELL[side][move] ^ ZOBRIST_O_TO_MOVE

    def evaluate(self) -> Score:
        if not _EVAL_X:
            _fill_eval_table()
        x, o = self._stones
        value = _EVAL_X[x << 9 | o]
        return value if len(self._history) & 1 == 0 else -value

    def compute_evaluation(self) -> Score:
        value = board_value(*self._stones)
        return value if self.side_to_move() == 0 else -value

    def key(self) -> int:
        return self._key

    def compute_key(self) -> int:
        key = ZOBRIST_O_TO_MOVE if self.side_to_move() else 0
        for side in (0, 1):
            for cell in range(9):
                if self._stones[side] >> cell & 1:
                    key ^= ZOBRIST_CELL[side][cell]
        return key

    def copy(self) -> Self:
        other = type(self)()
        other._stones = list(self._stones)
        other._history = list(self._history)
        other._key = self._key
        return other

    # -- notation -------------------------------------------------------------------------

    def parse_move(self, text: str) -> Cell:
        word = text.strip().lower()
        if len(word) != 2 or word[0] not in FILES or word[1] not in "123":
            raise MoveError(f"{text!r} is not a tic-tac-toe cell: expected a1..c3")
        cell = FILES.index(word[0]) + 3 * (int(word[1]) - 1)
        if self.outcome() is not None:
            raise MoveError(f"{word} cannot be played: the game is over")
        if (self._stones[0] | self._stones[1]) >> cell & 1:
            raise MoveError(f"{word} is already taken: expected an empty cell")
        return cell

    def format_move(self, move: Cell) -> str:
        return cell_name(move)

    def position(self) -> str:
        rows = []
        for rank in (2, 1, 0):
            rows.append("".join(self._symbol(3 * rank + file) for file in range(3)))
        return "/".join(rows)

    def _symbol(self, cell: Cell) -> str:
        if self._stones[0] >> cell & 1:
            return "x"
        if self._stones[1] >> cell & 1:
            return "o"
        return "."

    @classmethod
    def from_position(cls, text: str) -> TicTacToe:
        """The position written in the format of the module docstring.

        The history is rebuilt in an arbitrary order consistent with the position (X's and O's
        stones alternating), so ``undo`` works; a position where both players have a line, or
        where the last mover could not have made the line, is rejected.
        """
        cells = text.strip().replace("/", "").lower()
        if len(cells) != 9 or set(cells) - set("xo."):
            raise PositionError(
                f"{text!r} is not a tic-tac-toe position: expected 9 of 'x', 'o' or '.' "
                "read row by row from the top left, e.g. 'x.o/.x./..o'"
            )
        stones = [0, 0]
        for index, symbol in enumerate(cells):
            cell = 3 * (2 - index // 3) + index % 3
            if symbol != ".":
                stones["xo".index(symbol)] |= 1 << cell
        xs, os = stones[0].bit_count(), stones[1].bit_count()
        if xs - os not in (0, 1):
            raise PositionError(
                f"{text!r} is impossible: X has {xs} stones and O {os}; "
                "X moves first, so X has as many stones as O or one more"
            )
        x_won, o_won = has_line(stones[0]), has_line(stones[1])
        if (x_won and o_won) or (x_won and xs == os) or (o_won and xs > os):
            raise PositionError(
                f"{text!r} is impossible: play would have stopped at the first line"
            )
        x_cells = [c for c in range(9) if stones[0] >> c & 1]
        o_cells = [c for c in range(9) if stones[1] >> c & 1]
        if x_won or o_won:
            # The winner's last stone must lie on every line it holds; play it last.
            winner = stones[0] if x_won else stones[1]
            common = FULL
            for line in LINES:
                if winner & line == line:
                    common &= line
            if not common:
                raise PositionError(f"{text!r} is impossible: no single move made all its lines")
            last = common.bit_length() - 1
            winner_cells = x_cells if x_won else o_cells
            winner_cells.remove(last)
            winner_cells.append(last)
        game = cls()
        for turn in range(xs + os):
            game.make((x_cells if turn % 2 == 0 else o_cells)[turn // 2])
        return game

    def render(self) -> str:
        rows = []
        for rank in (2, 1, 0):
            row = " | ".join(self._symbol(3 * rank + f).upper().replace(".", " ") for f in range(3))
            rows.append(f" {rank + 1}  {row}")
        separator = "\n    " + "-" * 9 + "\n"
        return separator.join(rows) + "\n\n    a   b   c"

    # -- display --------------------------------------------------------------------------

    def __repr__(self) -> str:
        """The expression that rebuilds the position, e.g. ``TicTacToe.from_position('x.o/...')``
        (the history is not kept: ``from_position`` rebuilds one)."""
        return f"TicTacToe.from_position({self.position()!r})"

    def _repr_svg_(self) -> str:
        """The board as SVG, drawn as the web app draws it (Jupyter shows it)."""
        last = cell_name(self._history[-1]) if self._history else None
        return draw_board("tictactoe", BoardState("tictactoe", self.position(), last_move=last))
