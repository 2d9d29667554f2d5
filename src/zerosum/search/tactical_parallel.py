"""The tactical engine split over the worker processes of a :class:`SearchPool`.

:class:`ParallelTacticalSearch` is :class:`~zerosum.search.tactical.TacticalSearch` with its
tree split over the pool's workers (started once, reused by every search). It reuses the
pool's machinery (stop flags in shared memory, idle pool after a stop, no process left behind,
Ctrl-C handled by the parent) and brings its own tasks, worker state and split.

One transposition table for all. The workers and the parent share one
:class:`~zerosum.search.shared_table.SharedTable` in shared memory (the pool's block, cleared
at the start of each search, so values at a fixed depth never depend on earlier searches):
what one worker proves, the others find. Its module header explains why its lock-free writes
are safe: a torn entry reads as a miss. Each worker keeps its own killers and history.

Splitting along the principal variation (young brothers wait at every PV node). Root splitting
alone leaves a worker idle while the first root move, most of an iteration's nodes, is
searched; here the parent walks the principal variation instead. At each PV node (the root,
its first move's node, that node's first move's node, ...) with at least ``split_depth``
plies left, the parent:

1. orders the moves as the serial engine does (the table move, tactical moves, the rest; the
   root keeps the last iteration's best move first) and applies its node rules (rule draws,
   mate distance, check extension);
2. searches the first move itself, recursively: it is the next PV node (a PV node with fewer
   plies left is one task, searched whole by one worker with the serial engine);
3. hands the other moves to the workers as they come free, each as the serial engine searches
   a later move: a null window at the best value so far (late quiet moves reduced as in the
   serial engine), then the full window if that lands inside. A better value raises the
   window of the moves sent after it; a value at least beta stops the node's other moves;
4. stores the node's value in the shared table, as the serial engine does.

The tree searched is the serial engine's, node for node up to the order in which the workers
finish: with :data:`~zerosum.search.tactical.EXACT_OPTIONS` (nothing selective) the value at a
fixed depth is the serial engine's (the tests check it; as in the serial engine, a table entry
of a position reached at another depth may be taken, so that holds exactly where a position's
depth left is fixed by its ply, as in the tests' searches); with null move and reductions on,
values depend on the order in which the tree is searched and may differ by a few centipawns.
There is no aspiration window at the root: the split already gives every later move a null
window.

A cutoff does not wait: when a value at least beta stops a node's other moves, the parent
raises the flags of the workers still on them and goes on at once; those workers are orphans
until their (dropped) answers come, and get no task meanwhile. Every iteration ends with
every worker idle.

What was measured, on 2 cores with another program taking about one (``cpu est`` of
``benchmarks/parallel.py``, which counts the workers' CPU time, over its five positions):

* Splitting PV nodes down to 4 plies left rather than 3: a quarter fewer tasks (260-420 per
  search rather than 350-550) for about as many nodes. ``--sections 04``, this version and
  the one splitting down to 3 run back to back, twice: total ``cpu est`` 1.86x and 1.91x
  against 1.53x and 1.58x. Most of the difference is the Italian position at depth 7, whose
  depth-6 iteration now mostly ends on d2d4 (so depth 7 needs no re-search of it): in 16
  searches it took 55,000-76,000 nodes (15 of them at most 68,000; serial 67,987), against
  53,000-95,000 and often 74,000-95,000 before. The other positions moved within the noise
  (in A/B runs of both in one pool, three rounds each: 1.64-1.87x against 1.61-1.66x).
* Lazy SMP in the tails (an idle worker, once every item of a node is sent, searching a copy
  of a running task with the moves of a node near its root rotated; the first copy to answer
  answers): workers busy 97-99% of the time instead of 85-97%, but 10-15% more nodes;
  ``cpu est`` 1.59-1.75x against 1.66-1.76x without, and with the copies at the root only
  1.85x against 1.84x. Not kept.
* Splitting the re-search of a later move whose null window failed high along its own PV
  (the parent waits for the moves in flight, then searches the move as a first move): more
  tasks and nodes, 1.38-1.66x. Not kept.
* An aspiration window at the root around the last iteration's value, as the serial engine
  has: 1.73x against 1.79x without. Not kept: the split already gives every later root move
  a null window.

Stopping: the parent watches the limit (clock, nodes, stop callback) while it waits, raises
every busy worker's flag, waits for their answers and reports as the serial engine does: the
last finished iteration, or a root move of the interrupted one proven better.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from zerosum.game import (
    INFINITY,
    WIN,
    Game,
    Score,
    no_moves_error,
    outcome_without_moves,
    terminal_score,
)
from zerosum.runtime.scheduler import Split, Verdict
from zerosum.search.core import Limit, SearchStopped, to_table
from zerosum.search.parallel import SearchPool, SplitItems, _Answer, attach_block, shared_pool
from zerosum.search.shared_table import MoveCodes, SharedTable, slots_for
from zerosum.search.table import Bound, TranspositionTable
from zerosum.search.tactical import (
    CHECK_EVERY,
    MAX_DEPTH,
    Capabilities,
    Options,
    Report,
    SearchDriver,
    TacticalSearch,
    draw_score,
)

M = TypeVar("M")

DEFAULT_ENTRIES = 1 << 18
"""Entries of the shared table (the serial engine's default size)."""
SPLIT_DEPTH = 4
"""Nodes of the principal variation with at least this many plies left are split; a
shallower one is searched whole by one worker (3 made a quarter more tasks and was slower)."""


@dataclass(frozen=True)
class TacticalTask:
    """One piece of a split search for a worker. With ``move`` ``None``: the value of the node
    reached by ``path`` from the root, with the window ``(alpha, beta)`` and ``depth`` plies
    left. Otherwise the value of ``move`` at that node as the serial engine searches a later
    move: a null window at ``alpha`` (``reduction`` plies shallower if the move is quiet and
    gives no check), then the window ``(alpha, beta)`` if it lands inside."""

    search_id: int
    game: Any | None
    """The root position (a pickled copy), sent with a worker's first task of a search; the
    worker keeps it for the whole search."""
    options: Options
    table: str
    """The name of the shared table's block."""
    table_entries: int
    path: tuple[Any, ...]
    move: Any | None
    depth: int
    alpha: Score
    beta: Score
    reduction: int
    time_s: float | None
    nodes: int | None

    def start(self) -> _TacticalWorker:
        return _TacticalWorker(self)


class _TacticalWorker:
    """A worker's engine for one search: the root position, the shared table, its own killers
    and history."""

    def __init__(self, task: TacticalTask) -> None:
        if task.game is None:
            raise RuntimeError("a search's first task came without its position")
        self.search_id = task.search_id
        # A copy of the unpickled position: an object rebuilt by pickle can be slower to use
        # (python-chess's board searched about 20% slower), a copy is made as usual.
        self.game: Game[Any] = task.game.copy()
        codes: MoveCodes[Any] = MoveCodes(self.game.legal_moves)
        self.table = SharedTable(attach_block(task.table), task.table_entries, codes)
        self.engine: TacticalSearch[Any] = TacticalSearch(
            self.game, table=self.table, options=task.options
        )
        self.engine._start(Limit())

    def run(self, task: TacticalTask, stop: Any, index: int) -> _Answer:
        engine, game = self.engine, self.game
        before = (engine.nodes, engine.cutoffs, engine.tt_probes, engine.tt_hits)
        stored, evaluated = engine.tt_stores, engine.evaluations
        nodes = None if task.nodes is None else engine.nodes + task.nodes
        engine._limit = Limit(time=task.time_s, nodes=nodes, stop=lambda: stop[index] != 0)
        engine._started = time.perf_counter()
        engine._next_check = engine.nodes + min(CHECK_EVERY, task.nodes or CHECK_EVERY)
        engine.seldepth = 0
        root_ply = game.ply()
        ply, depth, alpha, beta = len(task.path), task.depth, task.alpha, task.beta
        value: Score = -INFINITY
        pv: tuple[Any, ...] = ()
        stopped = False
        try:
            for path_ply, move in enumerate(task.path):
                engine._played_at(path_ply, move)
                game.make(move)
            if task.move is None:
                value = engine._node(depth, alpha, beta, ply, True)
                pv = engine._pv[ply]
            else:
                engine._played_at(ply, task.move)
                game.make(task.move)
                reduction = 0 if engine._caps.in_check() else task.reduction
                value = -engine._node(depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, True)
                if reduction and value > alpha:
                    value = -engine._node(depth - 1, -alpha - 1, -alpha, ply + 1, True)
                if alpha < value < beta:
                    value = -engine._node(depth - 1, -beta, -alpha, ply + 1, True)
                pv = (task.move, *engine._pv[ply + 1])
        except SearchStopped:
            stopped = True
        finally:
            while game.ply() > root_ply:
                game.undo()
        counts = (
            engine.nodes - before[0],
            engine.cutoffs - before[1],
            engine.tt_probes - before[2],
            engine.tt_hits - before[3],
            engine.tt_stores - stored,
            engine.evaluations - evaluated,
        )
        return _Answer(value, pv, counts, engine.seldepth, 0, stopped)


class ParallelTacticalSearch(SearchDriver[M]):
    """The tactical engine split over ``pool`` (see the module docstring); the interface of
    :class:`~zerosum.search.tactical.TacticalSearch` (``iterate``, ``search``, ``result``,
    ``stats``)."""

    def __init__(
        self,
        game: Game[M],
        pool: SearchPool,
        *,
        options: Options | None = None,
        table_entries: int = DEFAULT_ENTRIES,
        split_depth: int = SPLIT_DEPTH,
    ) -> None:
        self.game = game
        self.pool = pool
        self.options = options or Options()
        self.table_entries = slots_for(table_entries)
        self.split_depth = max(1, split_depth)
        self._scheduler: Split[Any] = Split(pool, activity=pool.activity, wait_on_cutoff=False)
        """The split of the workers' tasks: a cutoff does not wait (see :meth:`_run`)."""
        self._caps = Capabilities(game)
        self.nodes = self.seldepth = self.cutoffs = 0
        self.tt_probes = self.tt_hits = self.tt_stores = self.evaluations = 0
        self._limit = Limit()
        self._started = 0.0
        self._search_id = 0
        self._partial: tuple[Score, tuple[M, ...]] | None = None
        self._board: Game[M] = game.copy()
        """The parent's copy of the position: it walks the principal variation on it."""
        self._path: list[M] = []
        self._table: SharedTable[M] | None = None
        self._engine: TacticalSearch[M] = TacticalSearch(
            self._board, table=TranspositionTable(1), options=self.options
        )
        """The parent's engine on ``_board``: it orders the moves of the split nodes."""
        self._informed: set[int] = set()
        """The workers that have the root position of the current search."""

    @property
    def _orphans(self) -> dict[int, Any]:
        """Workers told to stop whose answers have not come yet (see :meth:`_run`)."""
        return self._scheduler.orphans

    def iterate(
        self,
        limit: Limit | None = None,
        *,
        multipv: int = 1,
        soft_time: float | None = None,
        root_moves: Sequence[M] = (),
    ) -> Iterator[Report[M]]:
        """As :meth:`TacticalSearch.iterate`, with the search split over the workers."""
        caps = self._caps
        moves = caps.tactical_moves() + caps.quiet_moves()
        if root_moves:
            moves = [move for move in moves if move in root_moves] or moves
        if not moves:
            if self.game.outcome() is None:
                raise no_moves_error(self.game)
            raise ValueError("the game is over: there is no move to search")
        self._start(limit or Limit())
        lines = max(1, min(multipv, len(moves)))
        last: list[Report[M]] = []
        for depth in range(1, min(self._limit.max_depth, MAX_DEPTH) + 1):
            reports: list[Report[M]] = []
            excluded: list[M] = []
            try:
                for line in range(1, lines + 1):
                    candidates = [move for move in moves if move not in excluded]
                    value, pv = self._root(depth, candidates)
                    excluded.append(pv[0])
                    reports.append(self._report(depth, value, pv, line))
            except SearchStopped:
                yield self._stopped_report(depth, reports, last, moves[0])
                return
            yield from reports
            last = reports
            if self._deepening_ends(moves, reports[0], depth, lines, soft_time):
                return

    def _start(self, limit: Limit) -> None:
        self._reset(limit)
        pool = self.pool
        if pool.closed:
            raise RuntimeError("the search pool is closed")
        self._search_id = pool.new_search()
        self._informed = set()
        self._board = self.game.copy()
        self._path = []
        self._table = pool.shared_table(self._board, self.table_entries)
        self._table.clear()  # a new search starts afresh: its values do not depend on earlier ones
        self._engine = TacticalSearch(self._board, table=self._table, options=self.options)
        self._engine._start(Limit())  # the generation the workers' engines start with too
        pool.activity.reset()

    def _report(self, depth: int, value: Score, pv: tuple[M, ...], line: int) -> Report[M]:
        return Report(depth, self.seldepth, value, pv, self.nodes, self._elapsed(), line)

    def _stopped_report(
        self, depth: int, reports: list[Report[M]], last: list[Report[M]], first: M
    ) -> Report[M]:
        """The final report of an interrupted iteration, chosen as the serial engine does."""
        if reports:
            best = reports[0]
        elif self._partial is not None and (not last or self._partial[1][:1] != last[0].pv[:1]):
            value, pv = self._partial
            best = self._report(depth, value, pv, 1)
        elif last:
            best = last[0]
        else:
            best = Report(0, self.seldepth, self.game.evaluate(), (first,), 0, 0.0)
        return Report(
            best.depth,
            best.seldepth,
            best.value,
            best.pv,
            self.nodes,
            self._elapsed(),
            best.line,
            complete=False,
        )

    def _stopping(self) -> bool:
        limit = self._limit
        return (
            (limit.time is not None and self._elapsed() >= limit.time)
            or (limit.nodes is not None and self.nodes >= limit.nodes)
            or (limit.stop is not None and limit.stop())
        )

    def _root(self, depth: int, moves: list[M]) -> tuple[Score, tuple[M, ...]]:
        """The value and PV of ``moves`` at ``depth``, split over the workers; raises
        ``SearchStopped`` (with every worker idle) when the limit stops it."""
        self._partial = None
        if self._stopping():
            raise SearchStopped
        try:
            value, pv = self._split(
                depth, -INFINITY, INFINITY, 0, [(move, False) for move in moves]
            )
        finally:
            self._halt_all()  # the iteration ends with every worker idle
        return value, self._engine._extend(pv)

    def _split(
        self, depth: int, alpha: Score, beta: Score, ply: int, root: list[tuple[M, bool]]
    ) -> tuple[Score, tuple[M, ...]]:
        """A node of the principal variation (``root``: the root's moves, at ply 0), as the
        serial engine's ``_node`` searches it: the first move here (recursively), then the
        others over the workers. Returns the value and the PV from this node."""
        board, caps, options = self._board, self._caps_of_board, self.options
        if ply > 0 and depth < self.split_depth:
            return self._delegate(depth, alpha, beta, ply)
        self.nodes += 1
        reduce = False
        if ply == 0:
            moves = root
        else:
            # As the serial engine's node: rule draws, mate distance, check extension.
            if caps.drawn():
                return draw_score(options.contempt, ply), ()
            if caps.outcome_each_node:
                outcome = board.outcome()
                if outcome is not None:
                    return terminal_score(outcome, ply), ()
            if alpha < -(WIN - ply):
                alpha = -(WIN - ply)
                if alpha >= beta:
                    return alpha, ()
            if beta > WIN - ply - 1:
                beta = WIN - ply - 1
                if alpha >= beta:
                    return beta, ()
            in_check = caps.in_check()
            if in_check and options.check_extension:
                depth += 1
            assert self._table is not None
            self.tt_probes += 1
            entry = self._table.probe(board.key())
            if entry is not None:
                self.tt_hits += 1
            moves = list(self._engine._ordered(None if entry is None else entry.move, ply))
            if not moves:
                return terminal_score(outcome_without_moves(board), ply), ()
            reduce = options.reductions and caps.knows_quiet and not in_check and depth >= 3
        alpha_on_entry = alpha
        first = moves[0][0]
        self._engine._played_at(ply, first)  # as the serial node does (its engine learns none)
        board.make(first)
        self._path.append(first)
        try:
            value, line = self._split(depth - 1, -beta, -alpha, ply + 1, [])
        finally:
            self._path.pop()
            board.undo()
        best, best_pv = -value, (first, *line)
        if best > alpha:
            alpha = best
            if ply == 0:
                self._partial = (best, best_pv)
        if best < beta and len(moves) > 1:
            later: list[tuple[M | None, int]] = []
            for searched, (move, quiet) in enumerate(moves[1:], 1):
                reduction = 0
                if reduce and quiet and searched >= 3:
                    reduction = 1 if searched < 8 or depth < 5 else 2
                later.append((move, reduction))
            found = self._run(depth, alpha, beta, ply, later, best)
            if found is not None:
                best, best_pv = found
        if ply > 0:
            bound = Bound.of(best, alpha_on_entry, beta)
            assert self._table is not None
            if self._table.store(board.key(), depth, to_table(best, ply), bound, best_pv[0]):
                self.tt_stores += 1
        return best, best_pv

    @property
    def _caps_of_board(self) -> Capabilities[M]:
        return self._engine._caps

    def _delegate(
        self, depth: int, alpha: Score, beta: Score, ply: int
    ) -> tuple[Score, tuple[M, ...]]:
        """A node searched whole by one worker."""
        found = self._run(depth, alpha, beta, ply, [(None, 0)], -INFINITY - 1)
        assert found is not None
        return found

    def _run(
        self,
        depth: int,
        alpha: Score,
        beta: Score,
        ply: int,
        items: list[tuple[M | None, int]],
        best: Score,
    ) -> tuple[Score, tuple[M, ...]] | None:
        """Search ``items`` (moves at the current node, or ``None`` for the node itself) over
        the workers as they come free, each with the best value so far as its alpha; returns
        the best value above ``best`` and its PV (``None`` if none is above), stopping the
        others at a cutoff (a value at least ``beta``). The workers stopped by a cutoff may
        still be finishing when this returns: they join ``_orphans``, and get no task until
        they answer (the answer is counted, its value dropped). Raises ``SearchStopped``
        (with every worker idle) when the limit stops the search."""
        pool, limit = self.pool, self._limit
        path = tuple(self._path)

        def task(item: tuple[M | None, int], best: Score) -> TacticalTask:
            move, reduction = item
            remaining = None
            if limit.time is not None:
                remaining = max(limit.time - self._elapsed(), 1e-3)
            budget = None
            if limit.nodes is not None:
                budget = max((limit.nodes - self.nodes) // pool.workers, 1)
            return TacticalTask(
                self._search_id,
                None,  # the root position, for a worker that lacks it: see ``assign``
                self.options,
                self._table_name,
                self.table_entries,
                path,
                move,
                depth,
                max(alpha, best) if move is not None else alpha,
                beta,
                reduction,
                remaining,
                budget,
            )

        def on_better(found: tuple[Score, tuple[Any, ...]]) -> None:
            if ply == 0:
                self._partial = found

        plan = _TacticalItems(
            self,
            items,
            best,
            beta,
            task=task,
            count=self._count,
            stopping=self._stopping,
            on_better=on_better,
        )
        if self._scheduler.run(plan) is Verdict.STOP:
            self._halt_all()
            raise SearchStopped
        return plan.found

    def _halt_all(self) -> None:
        """Stop the busy workers and the orphans, and wait for their answers (a few
        milliseconds), so that the pool is idle; closes the pool if one cannot answer (or on
        Ctrl-C meanwhile)."""
        pool = self.pool

        def late(worker: int, answer: Any) -> None:
            if isinstance(answer, _Answer):
                self._count(answer)
                pool.activity.end(worker, answer.counts[0])

        self._scheduler.drain(late)

    @property
    def _table_name(self) -> str:
        assert self._table is not None
        return self._table.name

    def _count(self, answer: _Answer | str) -> None:
        """Add a worker's answer to this search's counts; raises if the worker failed."""
        if isinstance(answer, str):
            raise RuntimeError(f"a search worker failed: {answer}")
        answer.add_to(self)


class _TacticalItems(SplitItems):
    """:class:`~zerosum.search.parallel.SplitItems` for the tactical split: a worker's first
    task of a search carries the root position."""

    def __init__(self, search: ParallelTacticalSearch[Any], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._search = search

    def assign(self, worker: int) -> tuple[Any, Any] | None:
        piece = super().assign(worker)
        informed = self._search._informed
        if piece is None or worker in informed:
            return piece
        informed.add(worker)
        tag, task = piece
        return tag, dataclasses.replace(task, game=self._search.game)


def tactical_search(
    game: Game[M],
    *,
    table: TranspositionTable[M] | None = None,
    options: Options | None = None,
    pool: SearchPool | None = None,
    workers: int = 1,
) -> TacticalSearch[M] | ParallelTacticalSearch[M]:
    """The tactical engine for ``game``: serial with one worker and no pool, else split over
    ``pool`` (or a process-wide pool of ``workers``, see :func:`shared_pool`)."""
    if pool is None and workers != 1:
        pool = shared_pool(workers)
    if pool is None:
        return TacticalSearch(game, table=table, options=options)
    entries = DEFAULT_ENTRIES if table is None else max(1024, table.capacity)
    return ParallelTacticalSearch(game, pool, options=options, table_entries=entries)


def resize_pool(pool: SearchPool | None, workers: int) -> SearchPool | None:
    """A front end's pool for ``workers`` search processes (``None`` for one: the serial
    engine), reusing ``pool`` when it already has that many and closing it otherwise."""
    if pool is not None and not pool.closed and pool.workers == workers:
        return pool
    if pool is not None:
        pool.close()
    return SearchPool(workers) if workers > 1 else None
