"""Nine men's morris (and its variants) on bitboards, with incremental Zobrist key and mill counts.

The rules come from a :class:`~zerosum.games.morris_rules.Rules` value (board graph, mills, men
per side, flying, draw rules), so six and twelve men's morris run through the same code.

* White places first; a player with men in hand places one on an empty point, otherwise slides a
  man along an edge to an adjacent empty point, or, with exactly three men and flying on, moves
  it to any empty point.
* A placement or move that leaves the man in a mill removes exactly one opponent man (one even if
  two mills close at once). A man in a mill may be removed only if every opponent man is in a
  mill. If the opponent has no man on the board there is nothing to remove.
* The side to move loses with fewer than three men (men in hand count) or with no legal move.
  Draws: the ``rules.repetition``-th occurrence of a position, ``rules.move_limit`` moves in a row
  in the movement phase without a removal, and (twelve men's morris) a full board. The checks
  run in that order: fewer than three men, repetition, move limit, full board, no legal move.

A move is one turn, its removal included: an ``int`` packing ``to | (from + 1) << 5 |
(removed + 1) << 10`` (``from`` and ``removed`` are -1 when absent), so every move code fits in
15 bits (the compiled kernel uses the same codes). Notation: a placement ``d2``, a slide or fly
``a1-a4``, a removal appended: ``d2xg7``, ``f2-f4xd5``.

Position format: ``<one of W, B, . per point in the standard order> <w|b> <white men in hand>
<black men in hand> [<moves without removal>]``, e.g. ``WB.....W...............B b 7 7``. The
optional counter is the number of moves in a row made in the movement phase without a removal
(0 if absent; ``position`` writes it only when it is not 0). A position has no history, so
repetitions count from it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final, Self

from zerosum.endgames import MAX_MEN
from zerosum.endgames.probe import probe_men
from zerosum.game import MoveError, Outcome, PositionError, Score
from zerosum.games.boards import BoardState, draw_board
from zerosum.games.morris_rules import NINE, Rules

if TYPE_CHECKING:
    from zerosum.endgames.database import Endgames
    from zerosum.game import Game, Probing

Move = int
"""A move code: ``to | (from + 1) << 5 | (removed + 1) << 10``."""
NONE: Final = -1
WHITE: Final = 0
BLACK: Final = 1
SIDE_NAMES: Final = ("White", "Black")
SYMBOLS: Final = "WB"
MAX_COUNTER: Final = 100_000
"""The largest counter a position may give (men in hand, moves without removal): the compiled
kernel holds them in 64-bit integers, and no game lasts that long."""

_rng = random.Random(0x3E11)
ZOBRIST_MAN: Final = tuple(tuple(_rng.getrandbits(64) for _ in range(32)) for _ in range(2))
ZOBRIST_HAND: Final = tuple(tuple(_rng.getrandbits(64) for _ in range(16)) for _ in range(2))
ZOBRIST_BLACK: Final = _rng.getrandbits(64)
del _rng

# Evaluation weights, per side: (men, mills, open mills, double mills, mobility, blocked men).
# A side's phase picks its row: placing (men in hand), moving, flying (three men, flying on).
PLACING: Final = 0
MOVING: Final = 1
FLYING: Final = 2
WEIGHTS: Final = (
    (100, 24, 12, 0, 2, -3),
    (100, 18, 14, 30, 5, -6),
    (100, 10, 40, 0, 0, 0),
)
STUCK: Final = -250
"""Added for a side that cannot move in the movement phase (a loss when it is to move)."""


def encode(to: int, frm: int = NONE, removed: int = NONE) -> Move:
    return to | (frm + 1) << 5 | (removed + 1) << 10


def move_to(move: Move) -> int:
    return move & 31


def move_from(move: Move) -> int:
    return (move >> 5 & 31) - 1


def move_removed(move: Move) -> int:
    return (move >> 10 & 31) - 1


def bits(board: int) -> Iterator[int]:
    """The indices of the set bits of ``board``, lowest first."""
    while board:
        low = board & -board
        yield low.bit_length() - 1
        board ^= low


def line_counts(rules: Rules, mine: int, theirs: int) -> tuple[int, int]:
    """``mine``'s closed mills and open mills (two men and an empty point), from scratch."""
    closed = open_ = 0
    for mill in rules.mills:
        own = (mine & mill).bit_count()
        if own == 3:
            closed += 1
        elif own == 2 and not theirs & mill:
            open_ += 1
    return closed, open_


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, ..., 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class Morris:
    """A morris position with its move history (implements :class:`zerosum.game.Game`)."""

    __slots__ = (
        "_cache",
        "_hand",
        "_history",
        "_key",
        "_keys",
        "_lines",
        "_men",
        "_mills_at",
        "_side",
        "_since_removal",
        "name",
        "rules",
    )

    def __init__(self, rules: Rules = NINE) -> None:
        self.rules = rules
        self.name = rules.name()
        self._mills_at = tuple(rules.mills_at(point) for point in range(rules.size))
        self._men = [0, 0]
        """Bitboards of White's and Black's men."""
        self._hand = [rules.men, rules.men]
        self._side = WHITE
        self._since_removal = 0
        """Moves in a row in the movement phase without a removal."""
        self._lines = [0, 0, 0, 0]
        """Closed and open mills of White, then of Black (kept by make/undo)."""
        self._history: list[tuple[Move, int, tuple[int, int, int, int]]] = []
        """Per move made: the move, the moves without removal and the mill counts before it."""
        self._key = self.compute_key()
        self._keys = [self._key]
        """The key of every position since the start (or the given position)."""
        self._cache: list[Move] | None = None
        """The legal moves, until the next make or undo (``parse_move`` asks often)."""

    # -- the search protocol --------------------------------------------------------------

    def side_to_move(self) -> int:
        return self._side

    def ply(self) -> int:
        return len(self._history)

    def men(self, side: int) -> int:
        """The bitboard of ``side``'s men."""
        return self._men[side]

    def in_hand(self, side: int) -> int:
        return self._hand[side]

    def recent_keys(self, count: int) -> list[int]:
        """The keys of the last ``count`` positions (at most), the current one last."""
        return self._keys[-count:]

    def moves_without_removal(self) -> int:
        """Moves in a row in the movement phase without a removal (the move limit's count)."""
        return self._since_removal

    def probe(self, endgames: Endgames | None = None) -> tuple[Outcome, int] | None:
        """The endgame databases' exact result for the side to move and the moves to the end,
        if they decide the position (the :class:`~zerosum.game.Probing` capability: see
        :mod:`zerosum.endgames.probe`); from ``endgames``, else from the default store."""
        men = self._men[0] | self._men[1]
        if self._hand[0] or self._hand[1] or men.bit_count() > 2 * MAX_MEN:
            return None  # the usual case, answered at once
        side = self._side
        mine, theirs = self._men[side], self._men[side ^ 1]
        return probe_men(self.rules, mine, theirs, self._since_removal, endgames)

    def _drawn(self) -> bool:
        rules = self.rules
        if rules.repetition is not None and self._since_removal >= 2 * (rules.repetition - 1):
            key = self._key
            window = self._keys[-1 - self._since_removal : -1]
            if window.count(key) >= rules.repetition - 1:
                return True
        if rules.move_limit is not None and self._since_removal >= rules.move_limit:
            return True
        return rules.full_board_draw and (self._men[0] | self._men[1]) == rules.full

    def outcome(self) -> Outcome | None:
        side = self._side
        if self._men[side].bit_count() + self._hand[side] < 3:
            return Outcome.LOSS
        if self._drawn():
            return Outcome.DRAW
        if not self._can_move():
            return Outcome.LOSS
        return None

    def _can_move(self) -> bool:
        side = self._side
        empty = self.rules.full & ~(self._men[0] | self._men[1])
        if not empty:
            return False
        if self._hand[side] or self._flies(side):
            return True
        adjacent = self.rules.adjacent
        return any(adjacent[point] & empty for point in bits(self._men[side]))

    def _flies(self, side: int) -> bool:
        return self.rules.flying and self._hand[side] == 0 and self._men[side].bit_count() == 3

    def legal_moves(self) -> list[Move]:
        if self._cache is not None:
            return list(self._cache)
        side = self._side
        moves: list[Move] = []
        if self._men[side].bit_count() + self._hand[side] >= 3 and not self._drawn():
            for to, frm in self._steps(side):
                moves.extend(self._with_removals(side, to, frm))
        self._cache = moves
        return list(moves)

    def _steps(self, side: int) -> Iterator[tuple[int, int]]:
        """Every (to, from) of ``side``'s placements or moves, before removals."""
        rules = self.rules
        empty = rules.full & ~(self._men[0] | self._men[1])
        if self._hand[side]:
            for to in bits(empty):
                yield to, NONE
        elif self._flies(side):
            for frm in bits(self._men[side]):
                for to in bits(empty):
                    yield to, frm
        else:
            adjacent = rules.adjacent
            for frm in bits(self._men[side]):
                for to in bits(adjacent[frm] & empty):
                    yield to, frm

    def _with_removals(self, side: int, to: int, frm: int) -> list[Move]:
        mine = self._men[side] | 1 << to
        if frm != NONE:
            mine &= ~(1 << frm)
        theirs = self._men[side ^ 1]
        if not theirs or not any(mine & mill == mill for mill in self._mills_at[to]):
            return [encode(to, frm)]
        return [encode(to, frm, point) for point in bits(self.removable(side ^ 1))]

    def removable(self, side: int) -> int:
        """The bitboard of ``side``'s men that an opponent's mill may remove."""
        men = self._men[side]
        in_mills = 0
        for mill in self.rules.mills:
            if men & mill == mill:
                in_mills |= mill
        free = men & ~in_mills
        return free if free else men

    def make(self, move: Move) -> None:
        side = self._side
        to, frm, removed = move & 31, (move >> 5 & 31) - 1, (move >> 10 & 31) - 1
        lines = self._lines
        self._history.append((move, self._since_removal, (lines[0], lines[1], lines[2], lines[3])))
        affected = self._affected(to, frm, removed)
        self._count(affected, -1)
        key = self._key ^ ZOBRIST_BLACK ^ ZOBRIST_MAN[side][to]
        if frm == NONE:
            hand = self._hand[side]
            key ^= ZOBRIST_HAND[side][hand] ^ ZOBRIST_HAND[side][hand - 1]
            self._hand[side] = hand - 1
            self._men[side] |= 1 << to
            self._since_removal = 0
        else:
            key ^= ZOBRIST_MAN[side][frm]
            self._men[side] ^= 1 << frm | 1 << to
            self._since_removal += 1
        if removed != NONE:
            key ^= ZOBRIST_MAN[side ^ 1][removed]
            self._men[side ^ 1] ^= 1 << removed
            self._since_removal = 0
        self._count(affected, 1)
        self._key = key
        self._keys.append(key)
        self._side = side ^ 1
        self._cache = None

    def _affected(self, to: int, frm: int, removed: int) -> set[int]:
        """The mills through the points a move changes."""
        affected = set(self._mills_at[to])
        if frm != NONE:
            affected.update(self._mills_at[frm])
        if removed != NONE:
            affected.update(self._mills_at[removed])
        return affected

    def _count(self, mills: set[int], sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) the contribution of ``mills`` to the counts."""
        white, black = self._men
        lines = self._lines
        for mill in mills:
            w, b = (white & mill).bit_count(), (black & mill).bit_count()
            if w == 3:
                lines[0] += sign
            elif w == 2 and b == 0:
                lines[1] += sign
            elif b == 3:
                lines[2] += sign
            elif b == 2 and w == 0:
                lines[3] += sign

    def undo(self) -> None:
        move, since_removal, lines = self._history.pop()
        self._keys.pop()
        side = self._side ^ 1
        self._side = side
        to, frm, removed = move & 31, (move >> 5 & 31) - 1, (move >> 10 & 31) - 1
        if removed != NONE:
            self._men[side ^ 1] |= 1 << removed
        if frm == NONE:
            self._hand[side] += 1
            self._men[side] ^= 1 << to
        else:
            self._men[side] ^= 1 << frm | 1 << to
        self._since_removal = since_removal
        self._lines = list(lines)
        self._key = self._keys[-1]
        self._cache = None

    def key(self) -> int:
        return self._key

    def compute_key(self) -> int:
        key = ZOBRIST_BLACK if self._side else 0
        for side in (WHITE, BLACK):
            key ^= ZOBRIST_HAND[side][self._hand[side]]
            for point in range(self.rules.size):
                if self._men[side] >> point & 1:
                    key ^= ZOBRIST_MAN[side][point]
        return key

    def copy(self) -> Self:
        other = type(self)(self.rules)
        other._men = list(self._men)
        other._hand = list(self._hand)
        other._side = self._side
        other._since_removal = self._since_removal
        other._lines = list(self._lines)
        other._history = list(self._history)
        other._key = self._key
        other._keys = list(self._keys)
        return other

    # -- evaluation -----------------------------------------------------------------------

    def phase(self, side: int) -> int:
        """``PLACING`` with men in hand, ``FLYING`` with three men that fly, else ``MOVING``."""
        if self._hand[side]:
            return PLACING
        return FLYING if self._flies(side) else MOVING

    def evaluate(self) -> Score:
        """The phase-aware evaluation of the module's ``WEIGHTS``, from the side to move.

        Men (on the board and in hand), closed mills and open mills (two men and an empty
        point) come from counts kept by make/undo; mobility, blocked men and double mills (a man
        of a closed mill that can step to a point where it closes another) are counted from the
        bitboards.
        """
        side = self._side
        lines = self._lines
        return self._side_value(side, lines[2 * side], lines[2 * side + 1]) - self._side_value(
            side ^ 1, lines[2 * (side ^ 1)], lines[2 * (side ^ 1) + 1]
        )

    def _side_value(self, side: int, closed: int, open_: int) -> Score:
        rules = self.rules
        mine = self._men[side]
        phase = self.phase(side)
        mobility = blocked = doubles = 0
        if phase != FLYING:
            empty = rules.full & ~(mine | self._men[side ^ 1])
            adjacent = rules.adjacent
            mills_at = self._mills_at
            for point in bits(mine):
                free = adjacent[point] & empty
                if not free:
                    blocked += 1
                    continue
                mobility += free.bit_count()
                if phase == MOVING and any(mine & mill == mill for mill in mills_at[point]):
                    rest = mine ^ 1 << point
                    for target in bits(free):
                        others = [mill ^ 1 << target for mill in mills_at[target]]
                        if any(rest & other == other for other in others if not other >> point & 1):
                            doubles += 1
        return side_value(
            phase, mine.bit_count() + self._hand[side], closed, open_, doubles, mobility, blocked
        )

    def compute_evaluation(self) -> Score:
        """:meth:`evaluate` computed from scratch, point by point and mill by mill."""
        values = []
        for side in (self._side, self._side ^ 1):
            rules = self.rules
            mine, theirs = self._men[side], self._men[side ^ 1]
            closed, open_ = line_counts(rules, mine, theirs)
            phase = self.phase(side)
            mobility = blocked = doubles = 0
            for point in range(rules.size):
                if not mine >> point & 1 or phase == FLYING:
                    continue
                steps = [
                    q
                    for q in range(rules.size)
                    if rules.adjacent[point] >> q & 1 and not (mine | theirs) >> q & 1
                ]
                mobility += len(steps)
                blocked += not steps
                in_mill = any(mill >> point & 1 and mine & mill == mill for mill in rules.mills)
                for q in steps if phase == MOVING and in_mill else []:
                    after = (mine & ~(1 << point)) | 1 << q
                    doubles += any(
                        mill >> q & 1 and not mill >> point & 1 and after & mill == mill
                        for mill in rules.mills
                    )
            men = mine.bit_count() + self._hand[side]
            values.append(side_value(phase, men, closed, open_, doubles, mobility, blocked))
        return values[0] - values[1]

    # -- notation -------------------------------------------------------------------------

    def point(self, name: str) -> int:
        """The index of the point called ``name``; raises :class:`MoveError` if there is none."""
        try:
            return self.rules.points.index(name)
        except ValueError:
            raise MoveError(
                f"{name!r} is not a point of the {self.rules.variant} men's morris board: "
                f"expected one of {' '.join(sorted(self.rules.points))}"
            ) from None

    def parse_move(self, text: str) -> Move:
        word = text.strip().lower()
        match = MOVE_PATTERN.fullmatch(word)
        if match is None:
            raise MoveError(
                f"{text!r} is not a morris move: expected a placement like d2, a slide or fly "
                "like a1-a4, with a removal appended like d2xg7 or f2-f4xd5"
            )
        first, second, taken = match.groups()
        to = self.point(second or first)
        frm = self.point(first) if second else NONE
        removed = self.point(taken) if taken else NONE
        moves = self.legal_moves()
        move = encode(to, frm, removed)
        if move in moves:
            return move
        side = SIDE_NAMES[self._side]
        if self.outcome() is not None:
            raise MoveError(f"{word} cannot be played: the game is over (expected no move)")
        if self._hand[self._side] and frm != NONE:
            raise MoveError(f"{side} still has men in hand: expected a placement like d2")
        if not self._hand[self._side] and frm == NONE:
            raise MoveError(f"{side} has no men in hand: expected a move like a1-a4")
        step = [m for m in moves if m & 1023 == move & 1023]
        if not step:
            shown = sorted({self.format_move(m & 1023) for m in moves})
            raise MoveError(
                f"{word} is not a legal move for {side}: expected one of {' '.join(shown)}"
            )
        removals = " ".join(self.rules.points[move_removed(m)] for m in step)
        example = self.format_move(step[0])
        if move_removed(step[0]) == NONE:
            raise MoveError(f"{word} closes no mill: expected no removal ({example})")
        if removed == NONE:
            raise MoveError(
                f"{word} closes a mill: expected a removal appended, e.g. {example} "
                f"(removable: {removals})"
            )
        raise MoveError(
            f"{taken} cannot be removed by {word}: expected one of {removals} "
            "(men in mills are protected while others are not)"
        )

    def format_move(self, move: Move) -> str:
        points = self.rules.points
        to, frm, removed = move_to(move), move_from(move), move_removed(move)
        text = points[to] if frm == NONE else f"{points[frm]}-{points[to]}"
        return text if removed == NONE else f"{text}x{points[removed]}"

    def position(self) -> str:
        text = "".join(self._symbol(point) for point in range(self.rules.size))
        fields = [text, "wb"[self._side], str(self._hand[0]), str(self._hand[1])]
        if self._since_removal:
            fields.append(str(self._since_removal))
        return " ".join(fields)

    def _symbol(self, point: int) -> str:
        for side in (WHITE, BLACK):
            if self._men[side] >> point & 1:
                return SYMBOLS[side]
        return "."

    @classmethod
    def from_position(cls, text: str, rules: Rules = NINE) -> Morris:
        """The position written in the format of the module docstring, without history.

        Rejects malformed text and impossible positions: more men than the rules give a side,
        or a last mover that has fewer than three men (the game would have ended before).
        """
        size = rules.size
        expected = (
            f"expected '<{size} of W, B or . in the standard point order> <w|b> "
            "<white men in hand> <black men in hand> [<moves without removal>]', "
            f"e.g. '{'WB' + '.' * (size - 3) + 'B'} b 7 7'"
            if size == 24
            else f"expected '<{size} of W, B or .> <w|b> <white in hand> <black in hand>'"
        )
        words = text.split()
        shown = text if len(text) <= 80 else f"{text[:80]}..."  # what the messages quote
        if not 4 <= len(words) <= 5:
            raise PositionError(f"{shown!r} is not a morris position: {expected}")
        board, side, *counts = words
        board = board.upper()
        bad = next((i for i, symbol in enumerate(board[:size]) if symbol not in "WB."), None)
        if bad is not None:
            raise PositionError(
                f"{shown!r} is not a morris position: {board[bad]!r} at point "
                f"{rules.points[bad]} ({_ordinal(bad + 1)}) is not W, B or .; {expected}"
            )
        if len(board) != size:
            raise PositionError(
                f"{shown!r} is not a morris position: the board has {len(board)} characters, "
                f"{expected}"
            )
        if side.lower() not in ("w", "b"):
            raise PositionError(f"{shown!r}: side to move {side!r}: expected w or b")
        if not all(count.isascii() and count.isdigit() for count in counts):
            raise PositionError(f"{shown!r}: the counters must be whole numbers >= 0: {expected}")
        if any(len(count) > len(str(MAX_COUNTER)) or int(count) > MAX_COUNTER for count in counts):
            raise PositionError(
                f"{shown!r}: a counter is out of range: expected 0..{MAX_COUNTER:,}"
            )
        game = cls(rules)
        game._side = "wb".index(side.lower())
        game._hand = [int(counts[0]), int(counts[1])]
        game._since_removal = int(counts[2]) if len(counts) == 3 else 0
        for point, symbol in enumerate(board):
            if symbol != ".":
                game._men[SYMBOLS.index(symbol)] |= 1 << point
        for who in (WHITE, BLACK):
            total = game._men[who].bit_count() + game._hand[who]
            if total > rules.men:
                raise PositionError(
                    f"{shown!r} is impossible: {SIDE_NAMES[who]} has {total} men on the board "
                    f"and in hand; expected at most {rules.men}"
                )
        last = game._side ^ 1
        if game._men[last].bit_count() + game._hand[last] < 3:
            raise PositionError(
                f"{shown!r} is impossible: {SIDE_NAMES[last]}, who moved last, has fewer than 3 "
                "men (the game ended before)"
            )
        if game._since_removal and (game._hand[0] or game._hand[1]):
            raise PositionError(
                f"{shown!r}: moves without removal are counted in the movement phase only: "
                "expected no counter while men are in hand"
            )
        white, black = game._men
        game._lines = [*line_counts(rules, white, black), *line_counts(rules, black, white)]
        game._key = game.compute_key()
        game._keys = [game._key]
        return game

    def render(self) -> str:
        """The board of ``mission.md`` with W and B on the occupied points, then the state."""

        def symbol(match: re.Match[str]) -> str:
            point = self.rules.points.index(match.group())
            mark = self._symbol(point)
            if mark == ".":
                return match.group()
            follows = match.string[match.end() : match.end() + 1]
            return mark + ("-" if follows == "-" else " ")

        board = re.sub(r"[a-g][1-7]", symbol, self.rules.drawing)
        men = [self._men[side].bit_count() for side in (WHITE, BLACK)]
        state = (
            f"{SIDE_NAMES[self._side]} to move. On the board: W {men[0]}, B {men[1]}; "
            f"in hand: W {self._hand[0]}, B {self._hand[1]}"
        )
        if self._since_removal:
            state += f"; {self._since_removal} moves without removal"
        return f"{board}\n{state}"

    # -- display --------------------------------------------------------------------------

    def __repr__(self) -> str:
        """The expression that rebuilds the position, e.g. ``Morris.from_position('W... b 8 9')``,
        with its rules when they are not nine men's morris'
        (``Morris.from_position('...', parse_options('six'))``; the history is not kept)."""
        options = self.name.partition(":")[2]
        rules = f", parse_options({options!r})" if options else ""
        return f"Morris.from_position({self.position()!r}{rules})"

    def _repr_svg_(self) -> str:
        """The board as SVG, drawn as the web app draws it (Jupyter shows it)."""
        last = self.format_move(self._history[-1][0]) if self._history else None
        return draw_board("morris", BoardState(self.name, self.position(), last_move=last))


MOVE_PATTERN: Final = re.compile(r"([a-g][1-7])(?:-([a-g][1-7]))?(?:x([a-g][1-7]))?")


def side_value(
    phase: int, men: int, closed: int, open_: int, doubles: int, mobility: int, blocked: int
) -> Score:
    """One side's share of the evaluation: the ``WEIGHTS`` row of its phase."""
    w = WEIGHTS[phase]
    value = (
        w[0] * men
        + w[1] * closed
        + w[2] * open_
        + w[3] * doubles
        + w[4] * mobility
        + w[5] * blocked
    )
    if phase == MOVING and mobility == 0:
        value += STUCK
    return value


# -- perft ------------------------------------------------------------------------------------


def perft(game: Morris, depth: int) -> int:
    """The number of move sequences of ``depth`` turns (a removal is part of its turn)."""
    moves = game.legal_moves()
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    total = 0
    for move in moves:
        game.make(move)
        total += perft(game, depth - 1)
        game.undo()
    return total


def perft_steps(game: Morris, depth: int, *, pending: Move | None = None) -> int:
    """Perft counting a removal as a step of its own, as Sanmill and OpenSpiel do.

    ``pending``: the placement or move (a code without removal) whose removal is still to be
    chosen; the first step is then that removal.
    """
    if depth == 0:
        return 1
    moves = game.legal_moves()
    if pending is not None:
        group = [move for move in moves if move & 1023 == pending and move_removed(move) != NONE]
        return sum(_after(game, move, depth - 1) for move in group)
    total = 0
    steps: dict[int, int] = {}
    for move in moves:
        steps[move & 1023] = steps.get(move & 1023, 0) + 1
        if move_removed(move) == NONE:
            total += _after(game, move, depth - 1)
        elif depth > 1:
            total += _after(game, move, depth - 2)
    if depth == 1:  # each step with removals counts once, before the removal is chosen
        total += sum(1 for move in {m & 1023 for m in moves if move_removed(m) != NONE})
    return total


def _after(game: Morris, move: Move, depth: int) -> int:
    if depth == 0:
        return 1
    game.make(move)
    try:
        return perft_steps(game, depth)
    finally:
        game.undo()


if TYPE_CHECKING:  # mypy checks that Morris implements the protocol and its probe

    def _protocols(game: Morris) -> tuple[Game[Move], Probing]:
        return game, game
