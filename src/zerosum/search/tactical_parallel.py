"""Root splitting for the tactical engine over the worker processes of a :class:`SearchPool`.

:class:`ParallelTacticalSearch` is :class:`~zerosum.search.tactical.TacticalSearch` with its
root moves spread over the pool's workers (started once, reused by every search). It reuses
the pool's machinery (stop flags in shared memory, idle pool after a stop, no process left
behind, Ctrl-C handled by the parent) and brings only its own task, worker state and root.

How one iteration runs (once per line with MultiPV):

1. The root moves are in the serial engine's order: the last iteration's best move first.
2. Young brothers wait: the first move is searched alone with the full window; its value is
   the bound the others are searched against.
3. The remaining moves go to the workers as they come free, each with a null window at the
   best value found so far, and again with the window ``(best, +inf)`` when that fails high,
   as the serial root does. A move that raises the best value tightens the window of every
   move sent after it; a move sent earlier with a lower bound that comes back below the new
   best is discarded, as the serial root would have discarded it.
   A free worker takes first the waiting move it searched in the last iteration, if any, so
   that its own table orders that subtree again.
4. The best value and its principal variation (extended through the worker's table) make the
   iteration's report.

There is no aspiration window at the root: the split already gives every later move a null
window. Each worker keeps one engine (its own table, killers and history) for a whole search,
across iterations and root moves; a new search starts it afresh, so values at a fixed depth do
not depend on earlier searches. With :data:`~zerosum.search.tactical.EXACT_OPTIONS` (nothing
selective) the value at a fixed depth is the serial engine's; with null move and reductions on,
values depend on the order in which the tree is searched and may differ by a few centipawns.

Stopping: the parent watches the limit (clock, nodes, stop callback) while it waits, raises
every busy worker's flag, waits for their answers and reports as the serial engine does: the
last finished iteration, or a move of the interrupted one proven better.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any, TypeVar

from zerosum.game import INFINITY, Game, Score
from zerosum.search.core import Limit, SearchStopped
from zerosum.search.parallel import SearchPool, _Answer, shared_pool
from zerosum.search.table import TranspositionTable
from zerosum.search.tactical import (
    CHECK_EVERY,
    MAX_DEPTH,
    Capabilities,
    Options,
    Report,
    SearchDriver,
    TacticalSearch,
)

M = TypeVar("M")

_POLL_S = 0.01
DEFAULT_ENTRIES = 1 << 18
"""Table entries per worker."""


@dataclass(frozen=True)
class TacticalTask:
    """One root move for a worker: its value with the window ``(alpha, beta)``, first with a
    null window at ``alpha`` when ``null_window``."""

    search_id: int
    game: Any
    """The root position (a pickled copy; the worker keeps it for the whole search)."""
    options: Options
    table_entries: int
    move: Any
    depth: int
    alpha: Score
    beta: Score
    null_window: bool
    time_s: float | None
    nodes: int | None

    def start(self) -> _TacticalWorker:
        return _TacticalWorker(self)


class _TacticalWorker:
    """A worker's engine for one search: the root position, its table, killers and history."""

    def __init__(self, task: TacticalTask) -> None:
        self.search_id = task.search_id
        self.game: Game[Any] = task.game
        table: TranspositionTable[Any] = TranspositionTable(task.table_entries)
        self.engine: TacticalSearch[Any] = TacticalSearch(
            self.game, table=table, options=task.options
        )
        self.engine._start(Limit())
        self.depth = 0

    def run(self, task: TacticalTask, stop: Any, index: int) -> _Answer:
        engine, game = self.engine, self.game
        if task.depth != self.depth:
            engine.table.new_search()  # a new iteration, as the serial engine ages its table
            self.depth = task.depth
        before = (engine.nodes, engine.cutoffs, engine.tt_probes, engine.tt_hits)
        stored, evaluated = engine.tt_stores, engine.evaluations
        nodes = None if task.nodes is None else engine.nodes + task.nodes
        engine._limit = Limit(time=task.time_s, nodes=nodes, stop=lambda: stop[index] != 0)
        engine._started = time.perf_counter()
        engine._next_check = engine.nodes + min(CHECK_EVERY, task.nodes or CHECK_EVERY)
        engine.seldepth = 0
        ply, depth, alpha, beta = game.ply(), task.depth, task.alpha, task.beta
        value, pv, stopped = -INFINITY, (task.move,), False
        game.make(task.move)
        try:
            if task.null_window:
                value = -engine._node(depth - 1, -alpha - 1, -alpha, 1, True)
                if alpha < value < beta:
                    value = -engine._node(depth - 1, -beta, -alpha, 1, True)
            else:
                value = -engine._node(depth - 1, -beta, -alpha, 1, True)
            pv = (task.move, *engine._pv[1])
        except SearchStopped:
            stopped = True
        while game.ply() > ply:
            game.undo()
        if not stopped:
            pv = engine._extend(pv)
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
    """The tactical engine with its root split over ``pool`` (see the module docstring); the
    interface of :class:`~zerosum.search.tactical.TacticalSearch` (``iterate``, ``search``,
    ``result``, ``stats``)."""

    def __init__(
        self,
        game: Game[M],
        pool: SearchPool,
        *,
        options: Options | None = None,
        table_entries: int = DEFAULT_ENTRIES,
    ) -> None:
        self.game = game
        self.pool = pool
        self.options = options or Options()
        self.table_entries = table_entries
        self._caps = Capabilities(game)
        self.nodes = self.seldepth = self.cutoffs = 0
        self.tt_probes = self.tt_hits = self.tt_stores = self.evaluations = 0
        self._limit = Limit()
        self._started = 0.0
        self._search_id = 0
        self._partial: tuple[Score, tuple[M, ...]] | None = None
        self._owner: dict[M, int] = {}
        """Which worker searched each root move last: its table knows that subtree best."""

    def iterate(
        self,
        limit: Limit | None = None,
        *,
        multipv: int = 1,
        soft_time: float | None = None,
        root_moves: Sequence[M] = (),
    ) -> Iterator[Report[M]]:
        """As :meth:`TacticalSearch.iterate`, with the root split over the workers."""
        caps = self._caps
        moves = caps.tactical_moves() + caps.quiet_moves()
        if root_moves:
            moves = [move for move in moves if move in root_moves] or moves
        if not moves:
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
        self._search_id = self.pool.new_search()
        self._owner = {}
        self.pool.activity.reset()

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
        pool, limit = self.pool, self._limit
        self._partial = None
        self.nodes += 1
        root = self.game.copy()
        best: Score = -INFINITY
        best_pv: tuple[M, ...] = (moves[0],)
        queue = list(range(len(moves)))
        busy: dict[int, int] = {}  # worker -> move index
        done_first = False
        stopping = False

        def send(worker: int, index: int) -> None:
            remaining = None
            if limit.time is not None:
                remaining = max(limit.time - self._elapsed(), 1e-3)
            budget = None
            if limit.nodes is not None:
                budget = max((limit.nodes - self.nodes) // pool.workers, 1)
            busy[worker] = index
            self._owner[moves[index]] = worker
            pool.activity.begin(worker)
            task = TacticalTask(
                self._search_id,
                root,
                self.options,
                self.table_entries,
                moves[index],
                depth,
                best,
                INFINITY,
                index > 0,
                remaining,
                budget,
            )
            pool.submit(worker, task)

        def fill() -> None:
            for worker in range(pool.workers):
                if stopping or not queue or worker in busy:
                    continue
                if not done_first and (busy or queue[0] != 0):
                    return  # young brothers wait for the first move
                # After the first move, a worker takes the first waiting move it searched in
                # the last iteration, if any: its own table then orders that subtree.
                mine = (
                    [i for i in queue if self._owner.get(moves[i]) == worker] if done_first else []
                )
                send(worker, queue.pop(queue.index(mine[0]) if mine else 0))

        try:
            if self._stopping():
                raise SearchStopped
            fill()
            while busy:
                connections = [pool.connection(worker) for worker in busy]
                for ready in wait(connections, timeout=_POLL_S):
                    worker = next(w for w in busy if pool.connection(w) is ready)
                    answer: _Answer | str = pool.connection(worker).recv()
                    index = busy.pop(worker)
                    if isinstance(answer, str):
                        raise RuntimeError(f"a search worker failed: {answer}")
                    self._count(answer)
                    pool.activity.end(worker, answer.counts[0])
                    if answer.stopped:
                        stopping = True
                        pool.halt(busy)
                    elif not stopping:
                        done_first = done_first or index == 0
                        if answer.value > best:
                            best, best_pv = answer.value, answer.pv
                            self._partial = (best, best_pv)
                if not stopping and self._stopping():
                    stopping = True
                    pool.halt(busy)
                fill()
        except BaseException:
            pool.halt(busy)
            pool.drain(busy)
            raise
        if stopping:
            raise SearchStopped
        return best, best_pv

    def _count(self, answer: _Answer) -> None:
        nodes, cutoffs, probes, hits, stores, evaluations = answer.counts
        self.nodes += nodes
        self.cutoffs += cutoffs
        self.tt_probes += probes
        self.tt_hits += hits
        self.tt_stores += stores
        self.evaluations += evaluations
        self.seldepth = max(self.seldepth, answer.seldepth)


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
    entries = DEFAULT_ENTRIES if table is None else max(1024, table.capacity // pool.workers)
    return ParallelTacticalSearch(game, pool, options=options, table_entries=entries)


def resize_pool(pool: SearchPool | None, workers: int) -> SearchPool | None:
    """A front end's pool for ``workers`` search processes (``None`` for one: the serial
    engine), reusing ``pool`` when it already has that many and closing it otherwise."""
    if pool is not None and not pool.closed and pool.workers == workers:
        return pool
    if pool is not None:
        pool.close()
    return SearchPool(workers) if workers > 1 else None
