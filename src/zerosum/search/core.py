"""Values shared by every search: limits, statistics, results and the per-search context.

The context carries the game, the counters and the stopping rule through the recursion, so
each algorithm is a plain function of ``(context, depth, alpha, beta, ply)``. Stopping is the
caller's: a :class:`Limit` says when, and the context raises :class:`SearchStopped` inside the
recursion, which the driver catches to fall back on the last completed iteration.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Final, Generic, TypeVar

from zerosum.game import MAX_PLY, WIN, Game, Outcome, Score, ZerosumError
from zerosum.search.display import result_html, stats_html
from zerosum.search.table import TranspositionTable

M = TypeVar("M")

CHECK_EVERY: Final = 256
"""How many nodes pass between two looks at the clock and the stop callback: a hundredth
of a second or less at the pure-Python searches' speeds (20k-150k nodes/s), so a time limit
is overrun by at most that; a look costs less than a microsecond."""
MAX_NODES: Final = (1 << 63) - 1
"""The largest node budget: the compiled engines count nodes in 64-bit integers."""
MAX_TIME_S: Final = 1e9
"""The longest time limit in seconds (about 31 years): the clocks and waits need a finite
number, and anything longer is a typo."""


class LimitError(ZerosumError, ValueError):
    """A search limit with an impossible value."""


class SearchStopped(Exception):
    """Raised inside the recursion when the limit is reached (never escapes the driver)."""


def number_text(number: int) -> str:
    """``number`` for a message: its digits, or for a huge one its size (``a number of 5,000
    digits``; Python refuses to print ints of more than 4,300 digits)."""
    if number.bit_length() <= 200:  # up to 60 digits
        return str(number)
    digits = int(number.bit_length() * 0.30103) + 1  # about log10
    return f"a {'negative ' if number < 0 else ''}number of about {digits:,} digits"


@dataclass(frozen=True)
class Limit:
    """When a search stops. ``None`` means no limit of that kind; with none at all, the search
    runs to ``MAX_PLY`` plies (a full solve of a finite game)."""

    depth: int | None = None
    """The deepest iteration, in plies."""
    nodes: int | None = None
    """Stop after visiting this many nodes."""
    time: float | None = None
    """Stop after this many seconds of wall-clock time."""
    stop: Callable[[], bool] | None = None
    """Polled every ``CHECK_EVERY`` nodes; the search stops when it returns true."""

    def __post_init__(self) -> None:
        if self.depth is not None and not 1 <= self.depth <= MAX_PLY:
            raise LimitError(
                f"depth {number_text(self.depth)} is out of range: expected 1..{MAX_PLY}"
            )
        if self.nodes is not None and not 1 <= self.nodes <= MAX_NODES:
            raise LimitError(
                f"node limit {number_text(self.nodes)} is out of range: "
                f"expected 1..{MAX_NODES} (2^63 - 1)"
            )
        if self.time is not None and not 0 < self.time <= MAX_TIME_S:
            raise LimitError(
                f"time limit {self.time} is out of range: expected seconds > 0 and at most "
                f"{MAX_TIME_S:.0e}"
            )

    @property
    def max_depth(self) -> int:
        return self.depth if self.depth is not None else MAX_PLY

    def since(self, started: float) -> Limit:
        """This limit once the time since ``started`` (a ``time.perf_counter()`` reading) is
        spent: its time shortened by it, to a millisecond at least, so that what runs next
        still makes a move; the other bounds as they are."""
        if self.time is None:
            return self
        left = max(self.time - (time.perf_counter() - started), 1e-3)
        return Limit(depth=self.depth, nodes=self.nodes, time=left, stop=self.stop)

    @property
    def only_depth(self) -> bool:
        """True when no node or time budget bounds the search (a stop callback is an
        interruption, not a budget: it does not make the search deepen iteratively)."""
        return self.nodes is None and self.time is None


@dataclass(frozen=True)
class Stats:
    """What a search did."""

    nodes: int = 0
    """Positions visited, the root included."""
    cutoffs: int = 0
    """Beta cutoffs: move loops left early because a move refuted the window."""
    tt_probes: int = 0
    """Lookups in the transposition table or memo."""
    tt_hits: int = 0
    """Lookups that found the position."""
    tt_stores: int = 0
    """Entries written to the table or memo."""
    evaluations: int = 0
    """Heuristic evaluations at the horizon."""
    time_s: float = 0.0
    """Wall-clock seconds."""

    @property
    def nps(self) -> float:
        """Nodes per second."""
        return self.nodes / self.time_s if self.time_s > 0 else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "nodes": self.nodes,
            "cutoffs": self.cutoffs,
            "tt_probes": self.tt_probes,
            "tt_hits": self.tt_hits,
            "tt_stores": self.tt_stores,
            "evaluations": self.evaluations,
            "time_s": round(self.time_s, 6),
            "nps": round(self.nps),
        }

    def _repr_html_(self) -> str:
        """The counters as an HTML table (Jupyter shows it)."""
        return stats_html(self)


@dataclass(frozen=True)
class SearchResult(Generic[M]):
    """The outcome of a search from the side to move's point of view."""

    value: Score
    """The score of the position at ``depth`` (``mission.md``'s convention)."""
    best_move: M | None
    """The move to play: the first best move, or a seeded random choice among all of them."""
    best_moves: tuple[M, ...]
    """Every best move found (just one unless all best moves were asked for)."""
    pv: tuple[M, ...]
    """The principal variation, starting with ``best_move``'s line when known."""
    depth: int
    """The depth of the last completed iteration (0 if none completed), or the deepest ply the
    search reached when every line ended before that depth."""
    stats: Stats
    """Counters over the whole search, every iteration included."""
    move_values: tuple[tuple[M, Score], ...] = ()
    """Every root move with its exact value, when asked for (``solve``)."""
    complete: bool = True
    """False when a limit stopped the search before the requested depth."""
    solved: bool = False
    """True when the value is the exact game value: no heuristic evaluation decided it. Which
    iteration first sees this depends on the windows its moves were searched in, so a parallel
    search may prove a value one iteration earlier or later than a serial one."""
    proof_stats: Stats | None = None
    """With a solve, once its value is proven: the counters at that moment, what a deepening
    ``search`` to a proof spends (``stats`` adds what proving the moves' values cost)."""
    notation: tuple[tuple[M, str], ...] = field(default=(), compare=False, repr=False)
    """The moves above written in the game's notation, as (move, text) pairs, when the caller
    knew the game (:meth:`named`); only the displays read it."""
    pv_notation: tuple[str, ...] = field(default=(), compare=False, repr=False)
    """The principal variation in the game's notation, each move named at the position where
    it is played (names may depend on the position), when the caller knew the game."""

    def named(self, game: Game[M]) -> SearchResult[M]:
        """This result with its moves written in ``game``'s notation (``game`` at the searched
        position), for its display."""
        moves = {*self.best_moves, *self.pv, *(move for move, _ in self.move_values)}
        if self.best_move is not None:
            moves.add(self.best_move)
        line: list[str] = []
        board = game.copy()
        for move in self.pv:
            if move not in board.legal_moves():
                break
            line.append(board.format_move(move))
            board.make(move)
        return replace(
            self,
            notation=tuple((move, game.format_move(move)) for move in moves),
            pv_notation=tuple(line),
        )

    def _repr_html_(self) -> str:
        """The value, best moves, principal variation and statistics as HTML (Jupyter shows
        it)."""
        return result_html(self)


@dataclass
class Context(Generic[M]):
    """The mutable state of one search, threaded through the recursion."""

    game: Game[M]
    limit: Limit = field(default_factory=Limit)
    table: TranspositionTable[M] | None = None
    memo: dict[tuple[int, int], tuple[Score, tuple[Any, ...], bool]] | None = None
    """The reference forms' memo: (key, depth) -> (score, principal variation, whether no
    heuristic evaluation decided the score)."""
    nodes: int = 0
    cutoffs: int = 0
    tt_probes: int = 0
    tt_hits: int = 0
    tt_stores: int = 0
    evaluations: int = 0
    seldepth: int = 0
    """The deepest ply visited."""
    stale_cutoffs: int = 0
    """Table cutoffs on entries of an earlier iteration (their subtree may hold evaluations)."""
    started: float = field(default_factory=time.perf_counter)
    next_check: int = CHECK_EVERY
    pv: list[tuple[M, ...]] = field(default_factory=lambda: [()] * (MAX_PLY + 2))
    killers: list[list[M]] = field(default_factory=lambda: [[] for _ in range(MAX_PLY + 2)])
    history: dict[M, int] = field(default_factory=dict)
    probe: Callable[[], tuple[Outcome, int] | None] | None = None
    """The game's optional ``probe`` (see :func:`zerosum.game.probe_of`): an exact result and
    the plies to the end, or ``None`` when it does not know the position."""

    def __post_init__(self) -> None:
        if self.limit.nodes is not None:
            self.next_check = min(self.next_check, self.limit.nodes)

    def check(self) -> None:
        """Called when ``nodes`` reaches ``next_check``: raise SearchStopped if a limit is hit."""
        limit = self.limit
        if limit.nodes is not None and self.nodes >= limit.nodes:
            raise SearchStopped
        if limit.time is not None and time.perf_counter() - self.started >= limit.time:
            raise SearchStopped
        if limit.stop is not None and limit.stop():
            raise SearchStopped
        self.next_check = self.nodes + CHECK_EVERY
        if limit.nodes is not None:
            self.next_check = min(self.next_check, limit.nodes)

    def stats(self) -> Stats:
        return Stats(
            nodes=self.nodes,
            cutoffs=self.cutoffs,
            tt_probes=self.tt_probes,
            tt_hits=self.tt_hits,
            tt_stores=self.tt_stores,
            evaluations=self.evaluations,
            time_s=time.perf_counter() - self.started,
        )


def probed_score(outcome: Outcome, plies: int, ply: int) -> Score:
    """The score of a position ``ply`` plies below the root that ends ``plies`` plies later
    with ``outcome`` for its side to move (a probed exact result)."""
    return int(outcome) * (WIN - ply - plies)


def to_table(score: Score, ply: int) -> Score:
    """A root-relative score made relative to the node ``ply`` plies down, for storing."""
    if score >= WIN - MAX_PLY:
        return score + ply
    if score <= -(WIN - MAX_PLY):
        return score - ply
    return score


def from_table(score: Score, ply: int) -> Score:
    """A stored node-relative score made relative to a root ``ply`` plies above the node."""
    if score >= WIN - MAX_PLY:
        return score - ply
    if score <= -(WIN - MAX_PLY):
        return score + ply
    return score
