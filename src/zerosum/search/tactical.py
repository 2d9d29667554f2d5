"""The tactical engine: iterative deepening PVS for games with captures, checks and zugzwang.

It is the same negamax from the side to move as ``algorithms.pvs``, with the techniques a game
like chess needs to see far enough in a second of Python:

* quiescence search: at the horizon, the side to move may stand pat on the evaluation or try
  its tactical moves (captures and promotions, in the game's order: MVV-LVA for chess), so the
  evaluation is only read in quiet positions; in check there is no standing pat: every
  evasion is tried, so a mate at the end of a capture sequence is seen;
* check extension: a node whose side to move is in check searches one ply deeper;
* null-move pruning: away from the principal variation, if passing the move still fails high
  on a reduced search, the node fails high (not in check, and only where the game says a pass
  is a fair probe: zugzwang makes it unsound with only king and pawns in chess);
* late-move reductions: quiet moves late in the order, not in or giving check, are searched
  one or two plies shallower first (a ply less with a history score of
  :data:`HISTORY_REDUCTION` or more, a ply more with one of minus that or less), and again at
  full depth if they beat alpha;
* late-move pruning (with the reductions): within :data:`LATE_MOVE_DEPTH` plies of the
  horizon, away from the principal variation and out of check, the quiet moves that do not
  give check are skipped once :data:`LATE_MOVE_COUNT` quiet moves have been searched;
* futility pruning away from the principal variation and out of check: within
  :data:`REVERSE_FUTILITY_DEPTH` plies of the horizon a static evaluation a margin above beta
  fails high at once (reverse futility), within three plies one a margin below alpha skips
  the quiet moves that do not give check once one move has been searched;
* move ordering in stages, generated lazily: the table move, tactical moves, two killer moves,
  then the quiet moves by history score: a quiet move that fails high gains
  :func:`history_bonus` of the depth, the quiet moves searched before it at that node lose as
  much, and every score stays within :data:`HISTORY_MAX` (:func:`history_update`); last the
  tactical moves that lose material;
* correction history (an option, on since a match said it gains with four other changes):
  the static evaluation that reverse futility, futility and the null move read is moved by
  what it was off in earlier nodes with the same ``correction_key`` (the pawns, in chess),
  learnt from each node's result where its bound says something about the error
  (:func:`correction_update`);
* continuation history (an option, off until a match says it gains): a quiet move's order
  score adds, to its history, what it scored as the reply to the move one ply before and
  the follow-up to the move two plies before (by the game's ``move_key``: the piece and its
  square, in chess), learnt as the history is;
* mate-distance pruning and depth-adjusted mate scores (the shortest mate scores highest);
* repetitions and other rule draws through the game's ``drawn``, scored 0.

Search knows no game: everything game-specific comes from the game's optional capabilities,
typed protocols checked once per search (:mod:`zerosum.capabilities`: :class:`Tactical`,
:class:`QuiescenceMoves`, :class:`LosingCaptures`, :class:`Checks`, :class:`RuleDraws`,
:class:`NullMove`, :class:`CorrectionKey`, :class:`MoveKeys`; see
:class:`Capabilities`). A game without them is searched as by ``algorithms.pvs`` (no
quiescence, extension, null move or reductions: its values at a fixed depth are the reference
minimax's), and with every option of :class:`Options` off the same holds for a game with
them, which the tests check on chess.

The search never prints: :meth:`TacticalSearch.iterate` yields a :class:`Report` per finished
iteration (one per line with MultiPV) and the caller owns time through a
:class:`~zerosum.search.core.Limit` (``time`` is the hard limit, ``stop`` is polled every few
hundred nodes) plus an optional soft time after which no new iteration starts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Generic, TypeVar

from zerosum.capabilities import (
    Checks,
    CorrectionKey,
    LosingCaptures,
    MoveKeys,
    NullMove,
    QuiescenceMoves,
    RuleDraws,
    Tactical,
)
from zerosum.game import (
    HEURISTIC_LIMIT,
    INFINITY,
    WIN,
    Game,
    Score,
    no_moves_error,
    outcome_without_moves,
    terminal_score,
)
from zerosum.search.core import Limit, SearchResult, SearchStopped, Stats, from_table, to_table
from zerosum.search.table import Bound, TranspositionTable

M = TypeVar("M")

MAX_DEPTH: Final = 100
"""The deepest iteration."""
MAX_SEARCH_PLY: Final = 128
"""No line goes deeper than this (quiescence included); the evaluation is returned there."""
CHECK_EVERY: Final = 32
"""Nodes between two polls of the clock and the stop callback: about 3 ms at chess's 10k
nodes/s, and still a few hundredths of a second on a machine so busy that the search runs
seven times slower (a poll costs a microsecond or two, a node about a hundred)."""
ASPIRATION: Final = 20
"""Half-width of the first window around the previous iteration's score."""
ASPIRATION_GROWTH: Final = 2
"""A window that fails is widened this many times on that side."""
FUTILITY_DEPTH: Final = 3
FUTILITY_MARGIN: Final = (0, 150, 300, 450)
"""By remaining depth: how far the static evaluation may be from the window before the node is
judged on it (reverse futility) or its quiet moves are skipped (futility)."""
REVERSE_FUTILITY_DEPTH: Final = 6
REVERSE_FUTILITY_MARGIN: Final = (0, 90, 180, 270, 360, 450, 540)
"""By remaining depth up to :data:`REVERSE_FUTILITY_DEPTH`: how far above beta the static
evaluation must be for the node to fail high on it (reverse futility; a pawn is worth 63 in
the middlegame and 99 in the endgame)."""
NULL_MOVE_DEPTH: Final = 4
"""The shallowest node that tries a null move: its reduced search keeps at least one full ply
(a pass answered by quiescence alone misses quiet mate threats)."""
QUIESCENCE_EVASION_PLY: Final = MAX_SEARCH_PLY - 8
"""Quiescence answers a check with every evasion (no standing pat) below this ply."""
DELTA_MARGIN: Final = 150
"""Quiescence asks only for moves that may gain what it needs to reach alpha less this."""
LATE_MOVE_DEPTH: Final = 5
LATE_MOVE_COUNT: Final = (0, 4, 7, 12, 19, 28)
"""By remaining depth up to :data:`LATE_MOVE_DEPTH`: how many quiet moves a node searches
before it skips the rest of its quiet moves that do not give check (late-move pruning).
Only quiet moves count: captures come first in the order, good or bad, and would otherwise
use up the count before the best quiet moves (killers, history) are tried."""
SINGULAR_DEPTH: Final = 6
SINGULAR_TABLE_DEPTH: Final = 3
"""A non-PV node at least :data:`SINGULAR_DEPTH` deep whose table entry is a lower bound (or
exact) at most :data:`SINGULAR_TABLE_DEPTH` plies shallower asks whether its table move is
singular: whether every other move fails low, at half the depth, against the table's score
less twice the depth. If so, the table move is searched a ply deeper (singular extension);
if another move reaches that margin and the margin is at least beta, the node fails high
(multi-cut). Only at fewer than twice the root's depth plies, so that extensions cannot
chain without end."""
HISTORY_MAX: Final = 16384
"""History scores stay within plus or minus this (:func:`history_update`)."""
HISTORY_REDUCTION: Final = 128
"""A late quiet move with a history score of at least this is reduced a ply less, one with a
score of at most minus this a ply more (never below a one-ply search). History is aged by a
quarter at every search, so scores stay small: over six moves of three middlegames at 10,000
nodes a move, a tenth of the reduced moves scored at most -159 and a tenth 235 or more."""

MOVE_KEYS: Final = 1024
"""A game's ``move_key`` is below this; the continuation history has an entry for each pair of
keys (the earlier move's and the reply's)."""

CORRECTION_ENTRIES: Final = 1 << 15
"""Entries of the correction history (a game's ``correction_key`` is below this)."""
CORRECTION_GRAIN: Final = 256
"""A correction entry counts in 1/256 of a centipawn."""
CORRECTION_MAX: Final = 64 * CORRECTION_GRAIN
"""No correction goes beyond plus or minus 64 centipawns."""
CORRECTION_WEIGHT_MAX: Final = 16
"""A node's result moves its entry by ``min(depth + 1, 16)`` 256ths of the way to it."""


def correction_update(entry: int, error: Score, depth: int) -> int:
    """The correction ``entry`` moved towards ``error`` (a node's result less its static
    evaluation, centipawns), the more the deeper the node, within :data:`CORRECTION_MAX`."""
    weight = min(depth + 1, CORRECTION_WEIGHT_MAX)
    moved = (entry * (256 - weight) + error * CORRECTION_GRAIN * weight) // 256
    return max(-CORRECTION_MAX, min(moved, CORRECTION_MAX))


def history_bonus(depth: int) -> int:
    """What a quiet move's history score gains when it fails high at ``depth`` (and the quiet
    moves searched before it lose)."""
    return min(32 * depth * depth, 2048)


def history_update(score: int, bonus: int) -> int:
    """``score`` moved by ``bonus`` (negative: a malus), less the share of it that ``score``
    already has of :data:`HISTORY_MAX`: the result stays within plus or minus that bound, and
    a move that keeps failing high (or low) gains (or loses) less and less."""
    return score + bonus - score * abs(bonus) // HISTORY_MAX


@dataclass(frozen=True)
class Options:
    """Which of the engine's selective techniques are on (all by default)."""

    quiescence: bool = True
    """Search tactical moves past the horizon."""
    check_extension: bool = True
    """Search one ply deeper when the side to move is in check."""
    null_move: bool = True
    """Null-move pruning at non-PV nodes (where the game allows a pass)."""
    reductions: bool = True
    """Late-move reductions of quiet moves, and late-move pruning near the horizon."""
    aspiration: bool = True
    """Search each iteration first in a narrow window around the last score."""
    futility: bool = True
    """Futility and reverse futility pruning near the horizon (games with quiet moves)."""
    singular_extension: bool = False
    """Search a table move a ply deeper when every other move fails low well below its score
    (:data:`SINGULAR_DEPTH`), and fail high when two moves reach that score above beta. Off:
    its match against the search without it was undecided (docs/benchmarks.md)."""
    correction_history: bool = True
    """Correct the static evaluation that pruning reads (reverse futility, futility, the null
    move's condition) by how far it was off in earlier nodes with the same
    ``correction_key`` (games with :class:`~zerosum.capabilities.CorrectionKey`)."""
    continuation_history: bool = False
    """Order quiet moves by their history plus what they scored as replies to the move one
    ply before and as follow-ups to the move two plies before, by ``move_key`` (games with
    :class:`~zerosum.capabilities.MoveKeys`)."""
    contempt: Score = 0
    """What a rule draw (``drawn``: a repetition, say) is worth less than 0 to the side to
    move at the root, and more to its opponent: above 0 the search avoids such draws when it
    has a move not worse by this much, below 0 it seeks them (:func:`draw_score`). Not a
    selective technique: 0 in every search where values are compared."""


def draw_score(contempt: Score, ply: int) -> Score:
    """The score of a rule draw ``ply`` plies below the root, from the side to move there."""
    return -contempt if ply % 2 == 0 else contempt


EXACT_OPTIONS: Final = Options(
    quiescence=False,
    check_extension=False,
    null_move=False,
    reductions=False,
    aspiration=False,
    futility=False,
    singular_extension=False,
)
"""Nothing selective: the value at a fixed depth is the minimax value (the tests' setting)."""


@dataclass(frozen=True)
class Report(Generic[M]):
    """One finished iteration (or one line of it, with MultiPV)."""

    depth: int
    """The nominal depth of the iteration, in plies."""
    seldepth: int
    """The deepest ply any line reached, quiescence included."""
    value: Score
    """The score from the side to move (mate scores: ``WIN - plies``)."""
    pv: tuple[M, ...]
    """The principal variation."""
    nodes: int
    """Nodes searched so far in this search."""
    time_s: float
    """Seconds since the search started."""
    line: int = 1
    """Which line, 1 = best (MultiPV)."""
    complete: bool = True
    """False for the last report of a search stopped in the middle of an iteration."""


class Capabilities(Generic[M]):
    """The capabilities of a game (:mod:`zerosum.capabilities`) the engine uses, with plain
    fallbacks for a game that lacks them: resolved once per search by type, so each node calls
    a bound method directly."""

    def __init__(self, game: Game[M]) -> None:
        self.game = game
        # Tactical: two kinds of moves. Without it every move is quiet and none is tactical.
        self.tactical_moves: Callable[[], list[M]] = _no_moves
        self.quiet_moves: Callable[[], list[M]] = game.legal_moves
        self.is_legal: Callable[[M], bool] = self._listed
        self.is_quiet: Callable[[M], bool] = _always
        self.knows_quiet = isinstance(game, Tactical)
        """Only a game that tells quiet moves from tactical ones gets late-move reductions
        and futility pruning."""
        if isinstance(game, Tactical):
            self.tactical_moves = game.tactical_moves
            self.quiet_moves = game.quiet_moves
            self.is_legal = game.is_legal
            self.is_quiet = game.is_quiet
        self.quiescence_moves: Callable[[int], list[M]] = self._all_tactical
        if isinstance(game, Tactical) and isinstance(game, QuiescenceMoves):
            self.quiescence_moves = game.quiescence_moves
        self.loses_material: Callable[[M], bool] = _never
        if isinstance(game, Tactical) and isinstance(game, LosingCaptures):
            self.loses_material = game.loses_material
        self.in_check: Callable[[], bool] = _false
        self.gives_check: Callable[[M], bool] = _never
        if isinstance(game, Checks):
            self.in_check = game.in_check
            self.gives_check = game.gives_check
        self.drawn: Callable[[], bool] = game.drawn if isinstance(game, RuleDraws) else _false
        self.outcome_each_node = not isinstance(game, RuleDraws)
        """A game without rule draws may end in other ways than by running out of moves: ask
        its ``outcome`` at every node, as the reference search does."""
        self.correction_key: Callable[[], int] | None = None
        if isinstance(game, CorrectionKey):
            self.correction_key = game.correction_key
        self.move_key: Callable[[M], int] | None = None
        if isinstance(game, MoveKeys):
            self.move_key = game.move_key
        self.null_move_allowed: Callable[[], bool] = _false
        self.make_null: Callable[[], None] | None = None
        self.undo_null: Callable[[], None] | None = None
        if isinstance(game, NullMove):
            self.null_move_allowed = game.null_move_allowed
            self.make_null = game.make_null
            self.undo_null = game.undo_null

    def _all_tactical(self, margin: int) -> list[M]:
        return self.tactical_moves()

    def _listed(self, move: M) -> bool:
        return move in self.game.legal_moves()

    @property
    def has_null_move(self) -> bool:
        return self.make_null is not None and self.undo_null is not None


def _false() -> bool:
    return False


def _always(move: Any) -> bool:
    return True


def _never(move: Any) -> bool:
    return False


def _no_moves() -> list[Any]:
    return []


class SearchDriver(Generic[M]):
    """What the serial and the parallel tactical searches share: :meth:`search` runs
    ``iterate`` to its end, and the statistics and the clock of the current search."""

    nodes: int
    seldepth: int
    cutoffs: int
    tt_probes: int
    tt_hits: int
    tt_stores: int
    evaluations: int
    _limit: Limit
    _started: float

    def iterate(
        self,
        limit: Limit | None = None,
        *,
        multipv: int = 1,
        soft_time: float | None = None,
        root_moves: Sequence[M] = (),
    ) -> Iterator[Report[M]]:
        raise NotImplementedError

    def inherit(self, other: SearchDriver[M]) -> None:
        """Take the move-ordering history of ``other``, the searcher of an earlier position of
        the same game (a UCI engine's last move); it is aged at the next search as a kept
        searcher's is. Searchers with no history of their own ignore it."""

    def search(
        self,
        limit: Limit | None = None,
        *,
        soft_time: float | None = None,
        on_report: Callable[[Report[M]], None] | None = None,
        root_moves: Sequence[M] = (),
    ) -> SearchResult[M]:
        """Run :meth:`iterate` to the end and return its last report as a ``SearchResult``."""
        last: Report[M] | None = None
        for report in self.iterate(limit, soft_time=soft_time, root_moves=root_moves):
            if on_report is not None:
                on_report(report)
            if report.line == 1:
                last = report
        assert last is not None  # iterate always yields at least once
        return self.result(last)

    def result(self, report: Report[M]) -> SearchResult[M]:
        """A report as the ``SearchResult`` every front end shows (statistics so far)."""
        return SearchResult(
            value=report.value,
            best_move=report.pv[0],
            best_moves=(report.pv[0],),
            pv=report.pv,
            depth=report.depth,
            stats=self.stats(),
            complete=report.complete,
            solved=False,
        )

    def stats(self) -> Stats:
        return Stats(
            nodes=self.nodes,
            cutoffs=self.cutoffs,
            tt_probes=self.tt_probes,
            tt_hits=self.tt_hits,
            tt_stores=self.tt_stores,
            evaluations=self.evaluations,
            time_s=self._elapsed(),
        )

    def _elapsed(self) -> float:
        return time.perf_counter() - self._started

    def _reset(self, limit: Limit) -> None:
        """Start the clock of a new search under ``limit`` and zero its statistics."""
        self._limit = limit
        self._started = time.perf_counter()
        self.nodes = self.seldepth = self.cutoffs = 0
        self.tt_probes = self.tt_hits = self.tt_stores = self.evaluations = 0

    def _deepening_ends(
        self, moves: list[M], best: Report[M], depth: int, lines: int, soft_time: float | None
    ) -> bool:
        """After an iteration: put its best move first in ``moves`` for the next one, and say
        whether deepening stops (a mate found within the depth, or half the soft time spent)."""
        moves.remove(best.pv[0])
        moves.insert(0, best.pv[0])
        if abs(best.value) >= HEURISTIC_LIMIT and lines == 1 and WIN - abs(best.value) <= depth:
            return True
        return soft_time is not None and self._elapsed() > 0.55 * soft_time


class TacticalSearch(SearchDriver[M]):
    """A search of one game position; keep it (and its table) between moves of a game.

    ``table`` is shared across searches (a player's table); history scores and killers are
    kept too and aged at each new search.
    """

    def __init__(
        self,
        game: Game[M],
        *,
        table: TranspositionTable[M] | None = None,
        options: Options | None = None,
    ) -> None:
        self.game = game
        self.table: TranspositionTable[M] = table if table is not None else TranspositionTable()
        self.options = options or Options()
        self.history: dict[M, int] = {}
        self.correction: dict[int, int] = {}
        """The correction history: by ``correction_key``, 1/256 centipawns (not aged)."""
        self.continuation: dict[int, int] = {}
        """The continuation history: by ``earlier * MOVE_KEYS + reply`` of ``move_key``s."""
        self._played: list[int] = [-1] * (MAX_SEARCH_PLY + 2)
        """The ``move_key`` of the move made at each ply of the current line (-1: a pass, or
        the option off)."""
        self.killers: list[list[M | None]] = [[None, None] for _ in range(MAX_SEARCH_PLY + 2)]
        self._caps = Capabilities(game)
        self._move_key: Callable[[M], int] | None = None
        """The game's ``move_key`` while a search with continuation history runs."""
        self._pv: list[tuple[M, ...]] = [()] * (MAX_SEARCH_PLY + 2)
        self.nodes = 0
        self.seldepth = 0
        self.cutoffs = 0
        self.tt_probes = 0
        self.tt_hits = 0
        self.tt_stores = 0
        self.evaluations = 0
        self._limit = Limit()
        self._started = 0.0
        self._next_check = CHECK_EVERY
        self._root_depth = MAX_DEPTH

    def inherit(self, other: SearchDriver[M]) -> None:
        if isinstance(other, TacticalSearch):
            self.history = dict(other.history)
            self.correction = dict(other.correction)
            self.continuation = dict(other.continuation)

    # -- driver -------------------------------------------------------------------------

    def iterate(
        self,
        limit: Limit | None = None,
        *,
        multipv: int = 1,
        soft_time: float | None = None,
        root_moves: Sequence[M] = (),
    ) -> Iterator[Report[M]]:
        """Deepen iteratively and yield a report per finished iteration and line.

        Stops at ``limit`` (the last report then has ``complete=False`` and carries the best
        move found so far: the previous iteration's, or a move of the interrupted iteration
        that was proven better), when an iteration proves a mate or a draw, at ``MAX_DEPTH``,
        or before starting an iteration when more than about half of ``soft_time`` is spent.
        ``root_moves``, if given, restricts the moves searched at the root. Raises
        ``ValueError`` when the game is over, and :class:`~zerosum.game.ProtocolError` when
        it has no legal move but is not over. The game is left as it was.
        """
        game, caps = self.game, self._caps
        moves = caps.tactical_moves() + caps.quiet_moves()
        if root_moves:
            moves = [move for move in moves if move in root_moves] or moves
        if not moves:
            if game.outcome() is None:
                raise no_moves_error(game)
            raise ValueError("the game is over: there is no move to search")
        self._start(limit or Limit())
        table_entry = self.table.probe(game.key())
        if table_entry is not None and table_entry.move in moves:
            moves.remove(table_entry.move)
            moves.insert(0, table_entry.move)
        lines = max(1, min(multipv, len(moves)))
        last: list[Report[M]] = []
        ply_at_start = game.ply()
        max_depth = min(self._limit.max_depth, MAX_DEPTH)
        for depth in range(1, max_depth + 1):
            reports: list[Report[M]] = []
            excluded: list[M] = []
            try:
                for line in range(1, lines + 1):
                    candidates = [move for move in moves if move not in excluded]
                    previous = last[line - 1].value if len(last) >= line else None
                    value, pv = self._root(depth, candidates, previous, use_window=lines == 1)
                    excluded.append(pv[0])
                    reports.append(self._report(depth, value, pv, line))
            except SearchStopped:
                while game.ply() > ply_at_start:
                    game.undo()
                if reports or self._partial is not None:
                    yield from self._stopped_reports(depth, reports, last)
                elif last:
                    yield _incomplete(last[0], self.nodes, self._elapsed())
                else:
                    yield Report(
                        0,
                        self.seldepth,
                        game.evaluate(),
                        (moves[0],),
                        self.nodes,
                        self._elapsed(),
                        complete=False,
                    )
                return
            except BaseException:  # a broken game, a stop callback or a Ctrl-C that raised:
                while game.ply() > ply_at_start:  # leave the game as it was all the same
                    game.undo()
                raise
            reports = best_first(reports)
            yield from reports
            last = reports
            if self._deepening_ends(moves, reports[0], depth, lines, soft_time):
                return

    def _start(self, limit: Limit) -> None:
        self._reset(limit)
        self._next_check = CHECK_EVERY if limit.nodes is None else min(CHECK_EVERY, limit.nodes)
        self._partial: tuple[Score, tuple[M, ...]] | None = None
        self.table.new_search()
        for move in self.history:
            self.history[move] >>= 2
        for key in self.continuation:
            self.continuation[key] >>= 2
        self._move_key = self._caps.move_key if self.options.continuation_history else None
        for pair in self.killers:
            pair[0] = pair[1] = None

    def _check(self) -> None:
        limit = self._limit
        if limit.nodes is not None and self.nodes >= limit.nodes:
            raise SearchStopped
        if limit.time is not None and self._elapsed() >= limit.time:
            raise SearchStopped
        if limit.stop is not None and limit.stop():
            raise SearchStopped
        self._next_check = self.nodes + CHECK_EVERY
        if limit.nodes is not None:
            self._next_check = min(self._next_check, limit.nodes)

    def _report(self, depth: int, value: Score, pv: tuple[M, ...], line: int) -> Report[M]:
        return Report(
            depth, self.seldepth, value, self._extend(pv), self.nodes, self._elapsed(), line
        )

    def _stopped_reports(
        self, depth: int, reports: list[Report[M]], last: list[Report[M]]
    ) -> Iterator[Report[M]]:
        """The final report of an interrupted iteration: finished lines of it first, else the
        move the interrupted iteration proved better than the last iteration's best."""
        if reports:
            best = reports[0]
        elif self._partial is not None and (not last or self._partial[1][:1] != last[0].pv[:1]):
            value, pv = self._partial
            best = Report(depth, self.seldepth, value, pv, self.nodes, self._elapsed())
        else:
            best = last[0]
        yield _incomplete(best, self.nodes, self._elapsed())

    def _extend(self, pv: tuple[M, ...]) -> tuple[M, ...]:
        """Follow table moves past the end of ``pv`` (cut short by table hits), legally."""
        game, caps = self.game, self._caps
        line = list(pv)
        for move in line:
            game.make(move)
        while len(line) < MAX_DEPTH and not caps.drawn():
            entry = self.table.probe(game.key())
            if entry is None or entry.move is None or not caps.is_legal(entry.move):
                break
            game.make(entry.move)
            line.append(entry.move)
        for _ in line:
            game.undo()
        return tuple(line)

    # -- the root -----------------------------------------------------------------------

    def _root(
        self, depth: int, moves: list[M], previous: Score | None, *, use_window: bool
    ) -> tuple[Score, tuple[M, ...]]:
        """Search ``moves`` at the root to ``depth``; returns the value and the PV.

        With a previous score and ``use_window``, first in an aspiration window around it,
        widened on failure until the value lies inside.
        """
        self._partial = None
        if (
            use_window
            and self.options.aspiration
            and previous is not None
            and depth >= 4
            and abs(previous) < HEURISTIC_LIMIT
        ):
            delta = ASPIRATION
            alpha, beta = previous - delta, previous + delta
            while True:
                value, pv = self._root_window(depth, moves, alpha, beta)
                if alpha < value < beta:
                    return value, pv
                delta *= ASPIRATION_GROWTH
                if value <= alpha:
                    alpha = max(value - delta, -INFINITY) if delta < 1000 else -INFINITY
                else:
                    beta = min(value + delta, INFINITY) if delta < 1000 else INFINITY
        return self._root_window(depth, moves, -INFINITY, INFINITY)

    def _root_window(
        self, depth: int, moves: list[M], alpha: Score, beta: Score
    ) -> tuple[Score, tuple[M, ...]]:
        game, pv = self.game, self._pv
        self.nodes += 1
        self._root_depth = depth
        best: Score = -INFINITY
        best_pv: tuple[M, ...] = (moves[0],)
        for index, move in enumerate(moves):
            self._played_at(0, move)
            game.make(move)
            if index == 0:
                value = -self._node(depth - 1, -beta, -alpha, 1, True)
            else:
                value = -self._node(depth - 1, -alpha - 1, -alpha, 1, True)
                if alpha < value < beta:
                    value = -self._node(depth - 1, -beta, -alpha, 1, True)
            game.undo()
            if value > best:
                best, best_pv = value, (move, *pv[1])
                if value > alpha:
                    alpha = value
                    self._partial = (value, best_pv)
                    if value >= beta:
                        break
        bound = Bound.LOWER if best >= beta else Bound.EXACT
        if self.table.store(game.key(), depth, best, bound, best_pv[0]):
            self.tt_stores += 1
        return best, best_pv

    # -- the tree -----------------------------------------------------------------------

    def _node(
        self,
        depth: int,
        alpha: Score,
        beta: Score,
        ply: int,
        allow_null: bool,
        excluded: M | None = None,
    ) -> Score:
        """Fail-soft PVS below the root: the value of the position from the side to move,
        with the contract of ``algorithms.alphabeta`` for the window ``(alpha, beta)`` (up to
        the selective techniques that are on); with ``excluded``, the value of the other
        moves (the singular test)."""
        # Step 1. Count, poll the limit, rule draws and the mate-distance window.
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._check()
        caps, game, pv = self._caps, self.game, self._pv
        pv[ply] = ()
        if ply > self.seldepth:
            self.seldepth = ply
        if caps.drawn():
            return draw_score(self.options.contempt, ply)
        if caps.outcome_each_node:
            outcome = game.outcome()
            if outcome is not None:
                return terminal_score(outcome, ply)
        if ply >= MAX_SEARCH_PLY:
            self.evaluations += 1
            return game.evaluate()
        if alpha < -(WIN - ply):
            alpha = -(WIN - ply)
            if alpha >= beta:
                return alpha
        if beta > WIN - ply - 1:
            beta = WIN - ply - 1
            if alpha >= beta:
                return beta
        options = self.options
        in_check = caps.in_check()
        if in_check and options.check_extension:
            depth += 1
        # Step 2. The horizon: quiescence search (or the evaluation).
        if depth <= 0:
            if options.quiescence:
                self.nodes -= 1
                return self._quiesce(alpha, beta, ply)
            outcome = game.outcome()  # as the reference does at its horizon
            if outcome is not None:
                return terminal_score(outcome, ply)
            self.evaluations += 1
            return game.evaluate()
        # Step 3. Transposition table lookup (no cutoffs on the principal variation).
        pv_node = beta - alpha > 1
        key = game.key()
        excluding = excluded is not None
        entry = None
        if not excluding:
            self.tt_probes += 1
            entry = self.table.probe(key)
        table_move = None
        if entry is not None:
            self.tt_hits += 1
            table_move = entry.move
            if entry.depth >= depth and not pv_node:
                score = from_table(entry.score, ply)
                bound = entry.bound
                if (
                    bound == Bound.EXACT
                    or (bound == Bound.LOWER and score >= beta)
                    or (bound == Bound.UPPER and score <= alpha)
                ):
                    return score
        # Step 4. Near the horizon, a static evaluation far above beta fails high (reverse
        # futility), and one far below alpha lets quiet moves go unsearched (futility).
        selective = (
            options.futility and caps.knows_quiet and not pv_node and not in_check and not excluding
        )
        # The static evaluation (``raw``) and what pruning reads: with correction history,
        # ``raw`` moved by what the evaluation was off in earlier nodes of the same key.
        correction_slot = -1
        if (
            options.correction_history
            and caps.correction_key is not None
            and not in_check
            and not excluding
        ):
            correction_slot = caps.correction_key()
        raw: Score | None = None
        futile = False
        if (
            selective
            and depth <= REVERSE_FUTILITY_DEPTH
            and -HEURISTIC_LIMIT < alpha < HEURISTIC_LIMIT
        ):
            raw = game.evaluate()
            static = self._corrected(raw, correction_slot)
            if static - REVERSE_FUTILITY_MARGIN[depth] >= beta:
                return static
            futile = depth <= FUTILITY_DEPTH and static + FUTILITY_MARGIN[depth] <= alpha
        # Step 5. Null move: if passing still fails high on a shallower search, so does this.
        if (
            allow_null
            and not excluding
            and options.null_move
            and not pv_node
            and not in_check
            and depth >= NULL_MOVE_DEPTH
            and -HEURISTIC_LIMIT < beta < HEURISTIC_LIMIT
            and caps.make_null is not None
            and caps.undo_null is not None
            and caps.null_move_allowed()
            and self._corrected(raw if raw is not None else game.evaluate(), correction_slot)
            >= beta
        ):
            reduction = 3 if depth >= 6 else 2
            self._played[ply] = -1
            caps.make_null()
            value = -self._node(depth - 1 - reduction, -beta, -beta + 1, ply + 1, False)
            caps.undo_null()
            if value >= beta:
                return beta if value >= HEURISTIC_LIMIT else value
        # Step 5b. Singular extension: when every other move fails low against a margin below
        # the table's lower bound, the table move alone holds the value and is searched a ply
        # deeper; when another move reaches the margin and the margin is at least beta, two
        # moves fail high and so does this node (multi-cut).
        extend_table_move = False
        if (
            options.singular_extension
            and not pv_node
            and not in_check
            and not excluding
            and depth >= SINGULAR_DEPTH
            and ply < 2 * self._root_depth
            and entry is not None
            and entry.move is not None
            and entry.bound != Bound.UPPER
            and entry.depth >= depth - SINGULAR_TABLE_DEPTH
        ):
            table_score = from_table(entry.score, ply)
            if -HEURISTIC_LIMIT < table_score < HEURISTIC_LIMIT:
                singular_beta = table_score - 2 * depth
                value = self._node(
                    (depth - 1) // 2, singular_beta - 1, singular_beta, ply, True, entry.move
                )
                if value < singular_beta:
                    extend_table_move = True
                elif singular_beta >= beta:
                    return singular_beta
        # Step 6. The moves, best first; later moves get a null window, late quiet ones less depth.
        alpha_on_entry = alpha
        best, best_move = -INFINITY, None
        searched = 0
        reduce = options.reductions and caps.knows_quiet and not in_check and depth >= 3
        late = (
            options.reductions
            and caps.knows_quiet
            and not pv_node
            and not in_check
            and depth <= LATE_MOVE_DEPTH
        )
        quiets = 0
        tried: list[M] = []  # the quiet moves searched, for the history's malus
        history = self.history
        for move, quiet in self._ordered(table_move, ply):
            if move == excluded:
                continue
            if (
                quiet
                and searched
                and (
                    futile
                    or (late and quiets >= LATE_MOVE_COUNT[depth] and best > -HEURISTIC_LIMIT)
                )
                and not caps.gives_check(move)
            ):
                continue
            quiets += quiet
            self._played_at(ply, move)
            game.make(move)
            new_depth = depth - 1 + (1 if extend_table_move and move == table_move else 0)
            if searched == 0:
                value = -self._node(new_depth, -beta, -alpha, ply + 1, True)
            else:
                reduction = 0
                if reduce and quiet and searched >= 3 and not caps.in_check():
                    reduction = 1 if searched < 8 or depth < 5 else 2
                    score = history.get(move, 0)
                    if score >= HISTORY_REDUCTION:
                        reduction -= 1
                    elif score <= -HISTORY_REDUCTION:
                        reduction = min(reduction + 1, depth - 2)
                value = -self._node(new_depth - reduction, -alpha - 1, -alpha, ply + 1, True)
                if reduction and value > alpha:
                    value = -self._node(new_depth, -alpha - 1, -alpha, ply + 1, True)
                if alpha < value < beta:
                    value = -self._node(new_depth, -beta, -alpha, ply + 1, True)
            game.undo()
            searched += 1
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if pv_node:
                        pv[ply] = (move, *pv[ply + 1])
                    if value >= beta:
                        # Step 7. A cutoff: remember a quiet refutation for move ordering.
                        self.cutoffs += 1
                        if quiet:
                            self._reward(move, depth, ply, tried)
                        break
            if quiet:
                tried.append(move)
        # Step 8. No legal move: the game says whether this is a loss or a draw.
        if searched == 0:
            if excluding:
                return alpha  # the excluded move was the only one: it is singular
            return terminal_score(outcome_without_moves(game), ply)
        # Step 9. Store the result with its bound (not the singular test's: one move was left
        # out).
        if excluding:
            return best
        bound = Bound.of(best, alpha_on_entry, beta)
        if correction_slot >= 0 and -HEURISTIC_LIMIT < best < HEURISTIC_LIMIT:
            # Learn how far the evaluation was off, from what the node's bound says of it: a
            # quiet best move, and not a fail high at or below the evaluation nor a fail low
            # at or above it (bounds that say nothing about its error).
            if raw is None:
                raw = game.evaluate()
            if (
                best_move is not None
                and caps.is_quiet(best_move)
                and not (
                    (bound == Bound.LOWER and best <= raw) or (bound == Bound.UPPER and best >= raw)
                )
            ):
                was = self.correction.get(correction_slot, 0)
                self.correction[correction_slot] = correction_update(was, best - raw, depth)
        if self.table.store(key, depth, to_table(best, ply), bound, best_move):
            self.tt_stores += 1
        return best

    def _corrected(self, raw: Score, slot: int) -> Score:
        """The static evaluation ``raw`` with the correction of ``slot`` (-1: none)."""
        if slot < 0:
            return raw
        return raw + self.correction.get(slot, 0) // CORRECTION_GRAIN

    def _ordered(self, table_move: M | None, ply: int) -> Iterator[tuple[M, bool]]:
        """The moves in stages, each generated only when the earlier ones did not cut off:
        ``(move, quiet)`` for the table move, the tactical moves, the killers, the rest, and
        last the tactical moves that lose material (``LosingCaptures``)."""
        caps = self._caps
        if table_move is not None and caps.is_legal(table_move):
            yield table_move, caps.is_quiet(table_move)
        else:
            table_move = None
        losing: list[M] = []
        loses_material = caps.loses_material
        for move in caps.tactical_moves():
            if move != table_move:
                if loses_material(move):
                    losing.append(move)
                else:
                    yield move, False
        killers = self.killers[ply]
        first, second = killers
        for killer in (first, second):
            if (
                killer is not None
                and killer != table_move
                and caps.is_legal(killer)
                and caps.is_quiet(killer)
            ):
                yield killer, True
        quiets = caps.quiet_moves()
        if self.history and len(quiets) > 1:
            quiets.sort(key=self._quiet_scorer(ply), reverse=True)
        for move in quiets:
            if move != table_move and move != first and move != second:
                yield move, True
        for move in losing:
            yield move, False

    def _played_at(self, ply: int, move: M) -> None:
        """Note ``move``, about to be made at ``ply``, for the continuation history of the
        nodes below it (every search that makes moves and then calls :meth:`_node` does)."""
        if self._move_key is not None:
            self._played[ply] = self._move_key(move)

    def _earlier(self, ply: int) -> tuple[int, ...]:
        """The continuation history's offsets of the node at ``ply``: ``move_key``s of the
        moves one and two plies before it, times :data:`MOVE_KEYS` (none at the root, none
        when the option is off, none for a pass or before the root)."""
        if self._move_key is None:
            return ()
        played = self._played
        return tuple(
            played[ply - back] * MOVE_KEYS
            for back in (1, 2)
            if ply - back >= 0 and played[ply - back] >= 0
        )

    def _quiet_scorer(self, ply: int) -> Callable[[M], int]:
        """A quiet move's order score at ``ply``: its history, plus its continuation history
        after the moves one and two plies before when the option is on."""
        history = self.history
        earlier, move_key = self._earlier(ply), self._move_key
        if not earlier or move_key is None:
            return lambda move: history.get(move, 0)
        continuation = self.continuation

        def score(move: M) -> int:
            key = move_key(move)
            return history.get(move, 0) + sum(continuation.get(e + key, 0) for e in earlier)

        return score

    def _reward(self, move: M, depth: int, ply: int, tried: list[M]) -> None:
        """A quiet ``move`` failed high at ``depth``: it becomes the first killer of ``ply``
        and gains history (and continuation history); the quiet moves ``tried`` before it at
        this node lose as much."""
        killers = self.killers[ply]
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        bonus = history_bonus(depth)
        _reinforce(self.history, move, tried, bonus)
        move_key = self._move_key
        if move_key is not None:
            for offset in self._earlier(ply):
                keys = [offset + move_key(other) for other in tried]
                _reinforce(self.continuation, offset + move_key(move), keys, bonus)

    def _quiesce(self, alpha: Score, beta: Score, ply: int) -> Score:
        """Fail-soft quiescence: the side to move stands pat on the evaluation or plays a
        tactical move; the value of the position once no capture is worth making."""
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._check()
        self._pv[ply] = ()
        if ply > self.seldepth:
            self.seldepth = ply
        game, caps = self.game, self._caps
        if ply < QUIESCENCE_EVASION_PLY and caps.in_check():
            return self._evade(alpha, beta, ply)
        self.evaluations += 1
        best = game.evaluate()
        if best >= beta or ply >= MAX_SEARCH_PLY:
            return best
        if best > alpha:
            alpha = best
        return self._quiesce_moves(
            caps.quiescence_moves(alpha - best - DELTA_MARGIN), best, alpha, beta, ply
        )

    def _quiesce_moves(
        self, moves: list[M], best: Score, alpha: Score, beta: Score, ply: int
    ) -> Score:
        """Quiescence over ``moves`` from the value ``best`` found so far (fail-soft)."""
        game = self.game
        for move in moves:
            game.make(move)
            value = -self._quiesce(-beta, -alpha, ply + 1)
            game.undo()
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        self.cutoffs += 1
                        break
        return best

    def _evade(self, alpha: Score, beta: Score, ply: int) -> Score:
        """Quiescence in check: no standing pat, every legal move is tried (a mate scores)."""
        game, caps = self.game, self._caps
        moves = caps.tactical_moves() + caps.quiet_moves()
        best = self._quiesce_moves(moves, -INFINITY, alpha, beta, ply)
        if best == -INFINITY:
            return terminal_score(outcome_without_moves(game), ply)
        return best


K = TypeVar("K")


def _reinforce(scores: dict[K, int], winner: K, losers: list[K], bonus: int) -> None:
    """``winner``'s score gains ``bonus`` and each of ``losers`` loses as much
    (:func:`history_update`)."""
    scores[winner] = history_update(scores.get(winner, 0), bonus)
    for loser in losers:
        scores[loser] = history_update(scores.get(loser, 0), -bonus)


def best_first(reports: list[Report[M]]) -> list[Report[M]]:
    """The lines of one finished MultiPV iteration, best value first and numbered again.

    Each line is searched with the moves of the lines before it left out, each in its own tree
    over one table: with reductions and pruning, a later line can come back with a better value
    than an earlier one (its tree met entries the earlier one had not). Line 1 is always the
    best, as a reader of the lines (and a UCI GUI) takes it to be; equal values keep their
    order (a stable sort)."""
    ordered = sorted(reports, key=lambda report: -report.value)
    return [replace(report, line=line) for line, report in enumerate(ordered, start=1)]


def _incomplete(report: Report[M], nodes: int, seconds: float) -> Report[M]:
    return Report(
        report.depth,
        report.seldepth,
        report.value,
        report.pv,
        nodes,
        seconds,
        report.line,
        complete=False,
    )
