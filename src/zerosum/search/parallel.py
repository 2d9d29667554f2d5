"""Splitting the pure-Python search over worker processes: the search on every core.

Python threads cannot run the search side by side, so a :class:`SearchPool` keeps ``workers``
processes (``spawn``) that start once and serve every search until :meth:`SearchPool.close`:
a player or an analysis session pays the start-up (a fraction of a second) once, not per move.

How one iteration runs (the driver calls :meth:`SearchPool.search_root` once per depth):

1. The root moves are ordered by the previous iteration's values, best first.
2. Young brothers wait: unless every move is wanted with a full window (``Mode.EXACT``), the
   first move is searched before the others; its value is the bound they are searched
   against. For PVS (the ``engine`` algorithm) the first move is itself split along its
   principal variation (:meth:`SearchPool._split`), so that no worker idles meanwhile: at
   each node of its PV with at least ``split_depth`` plies left (4 by default), the parent
   searches the first move the same way (the next PV node), then hands the other moves to
   the workers as they come free, each with a null window at the best value so far and the
   full window if that lands inside, as PVS does; a node with fewer plies left is one task.
   Other algorithms search the first move as one task.
3. The remaining moves go to the workers as they come free, each with the best value found so
   far as the lower end of its window (PVS algorithms try a null window first, as the serial
   root does). A move that raises the best value tightens the window of every move sent after.
4. The answers are combined as the serial root combines them: the best value, the best moves
   in the root order, the principal variation of the first best move.

Tables. Algorithms with a bounded table (``alphabeta``, ``engine``) share one
:class:`~zerosum.search.shared_table.SharedTable` in shared memory between the workers and the
parent (its module header explains why its lock-free writes are safe: a torn entry reads as a
miss); the memo algorithms (``minimax``, ``negamax``) keep a memo per worker. Killer and
history tables are each worker's own. Tables live for the whole search, across iterations and
tasks; a new search starts with empty ones, so a depth-limited value never depends on what
earlier searches left behind. In games where a position is always reached at the same ply
(tic-tac-toe, connect four) the values are then exactly the serial search's at the same depth:
every move's value is exact or a bound that the serial root would also have discarded, and
every table entry holds for every search that reads it.

Stopping. Every worker has a stop flag in shared memory, polled by its search every 1,024
nodes (``Limit.stop``). The parent watches the clock, the node budget and the caller's stop
callback while it waits, raises every flag when one of them says stop, waits for every worker
to answer (so the pool is idle and reusable), and raises ``SearchStopped``. Workers ignore
SIGINT: Ctrl-C reaches the parent, which stops them the same way. A worker whose parent dies
sees its pipe close and exits. The workers themselves are a
:class:`~zerosum.runtime.workers.WorkerGroup`, and the send/collect/stop loop of steps 2-3 and of
the PV split is :class:`~zerosum.runtime.scheduler.Split`'s: this module brings the plans (which
move goes out next, with which window, and what an answer means).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from typing import Any, Final, TypeVar

from zerosum.game import INFINITY, MAX_PLY, Game, Score, no_moves_error, probe_of
from zerosum.runtime.scheduler import Split, Verdict
from zerosum.runtime.workers import Activity, WorkerGroup, resolve_workers
from zerosum.search.core import Context, Limit, SearchStopped, to_table
from zerosum.search.root import Iteration, Mode, extend_pv, get_algorithm, root_alpha, search_move
from zerosum.search.shared_table import MoveCodes, SharedTable, slots_for, table_bytes
from zerosum.search.table import Bound, TranspositionTable

__all__ = [
    "SPLIT_DEPTH",
    "Activity",
    "SearchPool",
    "SplitItems",
    "attach_block",
    "resolve_workers",
    "shared_pool",
]

M = TypeVar("M")

SPLIT_DEPTH: Final = 4
_attached: dict[str, SharedMemory] = {}
"""In a worker: the pool's shared blocks it opened, kept across searches."""


def attach_block(name: str) -> SharedMemory:
    """In a worker: the block ``name`` that the parent's pool owns and unlinks (a spawned
    worker shares the parent's resource tracker, so opening it registers nothing new)."""
    block = _attached.get(name)
    if block is None:
        for old in _attached.values():  # another table size: let the old block go
            with contextlib.suppress(BufferError):  # a table of an old search may hold it
                old.close()
        _attached.clear()
        block = _attached[name] = SharedMemory(name=name)
    return block


@dataclass(frozen=True)
class _Task:
    """One root move to search, sent to a worker."""

    search_id: int
    game: Any
    """The root position (a pickled copy: the worker makes ``move`` on it)."""
    algorithm: str
    table: bool
    table_entries: int
    move: Any
    depth: int
    alpha: Score
    null_window: bool
    time_s: float | None
    nodes: int | None
    path: tuple[Any, ...] = ()
    """Moves from the root to the node whose move ``move`` is (empty: a root move)."""
    beta: Score = INFINITY
    whole: bool = False
    """Search the node at the end of ``path`` itself with the window ``(alpha, beta)``."""
    shared: str = ""
    """The name of the shared table's block (empty: the worker keeps its own table)."""
    generation: int = 0

    def start(self) -> _WorkerSearch:
        """What the worker keeps for this task's search (another kind of task, such as the
        tactical engine's, brings its own)."""
        return _WorkerSearch(self)


@dataclass(frozen=True)
class _Answer:
    """A worker's answer to a :class:`_Task`."""

    value: Score
    pv: tuple[Any, ...]
    counts: tuple[int, int, int, int, int, int]
    """nodes, cutoffs, table probes, hits, stores, evaluations."""
    seldepth: int
    stale_cutoffs: int
    stopped: bool

    def add_to(self, counters: Any) -> None:
        """Add this answer's counts to ``counters`` (a search context or engine with the
        attributes of the same names)."""
        nodes, cutoffs, probes, hits, stores, evaluations = self.counts
        counters.nodes += nodes
        counters.cutoffs += cutoffs
        counters.tt_probes += probes
        counters.tt_hits += hits
        counters.tt_stores += stores
        counters.evaluations += evaluations
        counters.seldepth = max(counters.seldepth, self.seldepth)


class _WorkerSearch:
    """What a worker keeps for the whole of one search: tables, killers and history."""

    def __init__(self, task: _Task) -> None:
        self.search_id = task.search_id
        self.algorithm = get_algorithm(task.algorithm)
        self.memo: dict[tuple[int, int], tuple[Score, tuple[Any, ...], bool]] | None = None
        self.table: TranspositionTable[Any] | None = None
        if task.table and self.algorithm.table_kind == "memo":
            self.memo = {}
        elif task.table and task.shared:
            self.game: Game[Any] = task.game
            codes: MoveCodes[Any] = MoveCodes(lambda: self.game.legal_moves())
            self.table = SharedTable(attach_block(task.shared), task.table_entries, codes)
        elif task.table:
            self.table = TranspositionTable(task.table_entries)
        self.killers: list[list[Any]] = [[] for _ in range(MAX_PLY + 2)]
        self.history: dict[Any, int] = {}
        self.depth = 0

    def run(self, task: _Task, stop: Any, index: int) -> _Answer:
        if isinstance(self.table, SharedTable):
            self.table.generation = task.generation  # the parent's count of iterations
        elif task.depth != self.depth and self.table is not None:
            self.table.new_search()  # a new iteration, as the serial driver ages its table
        self.depth = task.depth
        limit = Limit(time=task.time_s, nodes=task.nodes, stop=lambda: stop[index] != 0)
        game: Game[Any] = task.game
        self.game = game
        ctx: Context[Any] = Context(
            game=game,
            limit=limit,
            table=self.table,
            memo=self.memo,
            killers=self.killers,
            history=self.history,
            probe=probe_of(game),
        )
        stopped = False
        value, pv = -INFINITY, (task.move,)
        try:
            if task.path or task.whole:
                value, pv = self._split_part(ctx, task)
            else:
                value = search_move(
                    ctx,
                    self.algorithm,
                    task.move,
                    task.depth,
                    task.alpha,
                    null_window=task.null_window,
                )
                pv = extend_pv(ctx, (task.move, *ctx.pv[1]), task.depth)
        except SearchStopped:
            stopped = True
        counts = (
            ctx.nodes,
            ctx.cutoffs,
            ctx.tt_probes,
            ctx.tt_hits,
            ctx.tt_stores,
            ctx.evaluations,
        )
        return _Answer(value, pv, counts, ctx.seldepth, ctx.stale_cutoffs, stopped)

    def _split_part(self, ctx: Context[Any], task: _Task) -> tuple[Score, tuple[Any, ...]]:
        """A task of a split below the root (see :meth:`SearchPool._split`): the node at the
        end of ``task.path``, or one move there after the first, as PVS searches it."""
        game, node = ctx.game, self.algorithm.node
        for move in task.path:
            game.make(move)
        ply, depth, alpha, beta = len(task.path), task.depth, task.alpha, task.beta
        if task.whole:
            return node(ctx, depth, alpha, beta, ply), ctx.pv[ply]
        game.make(task.move)
        value = -node(ctx, depth - 1, -alpha - 1, -alpha, ply + 1)
        if alpha < value < beta:
            value = -node(ctx, depth - 1, -beta, -alpha, ply + 1)
        return value, (task.move, *ctx.pv[ply + 1])


def _serve(index: int, pipe: Connection, stop: Any) -> None:
    """A worker's life (after :func:`~zerosum.runtime.workers.worker_init`): search whatever
    the pipe sends until it sends ``None`` or closes."""
    current: _WorkerSearch | None = None
    pipe.send("ready")
    while True:
        try:
            task = pipe.recv()
        except (EOFError, OSError):  # the parent is gone
            break
        if task is None:
            break
        try:
            if current is None or current.search_id != task.search_id:
                _end(current)
                current = None
                current = task.start()
            answer: _Answer | str = current.run(task, stop, index)
        except Exception as error:  # a bug in a game or an algorithm: tell the parent
            answer = f"{type(error).__name__}: {error}"
            _end(current)
            current = None
        pipe.send(answer)
    _end(current)
    for block in _attached.values():
        with contextlib.suppress(BufferError):
            block.close()
    _attached.clear()


def _end(search: Any) -> None:
    """Let a worker's finished search go of its shared table, if it has one."""
    table = getattr(search, "table", None)
    if isinstance(table, SharedTable):
        table.release()


@dataclass
class _Job:
    """What every task of one iteration of :meth:`SearchPool.search_root` shares."""

    ctx: Context[Any]
    search_id: int
    root: Any
    algorithm: str
    table_on: bool
    table_entries: int
    table: SharedTable[Any] | None
    """The parent's view of the shared table (``None``: each worker keeps its own)."""
    generation: int
    workers: int

    def task(
        self,
        move: Any,
        depth: int,
        alpha: Score,
        *,
        null_window: bool,
        path: tuple[Any, ...] = (),
        beta: Score = INFINITY,
        whole: bool = False,
    ) -> _Task:
        """A task for a worker, with what is left of the time and node budget."""
        ctx, limit = self.ctx, self.ctx.limit
        remaining = None
        if limit.time is not None:
            remaining = max(ctx.started + limit.time - time.perf_counter(), 1e-3)
        budget = None
        if limit.nodes is not None:
            budget = max((limit.nodes - ctx.nodes) // self.workers, 1)
        return _Task(
            self.search_id,
            self.root,
            self.algorithm,
            self.table_on,
            self.table_entries if self.table is None else self.table.capacity,
            move,
            depth,
            alpha,
            null_window,
            remaining,
            budget,
            path,
            beta,
            whole,
            "" if self.table is None else self.table.name,
            self.generation,
        )

    def stopping(self) -> bool:
        """Whether the search's limit says stop."""
        ctx, limit = self.ctx, self.ctx.limit
        return (
            (limit.time is not None and time.perf_counter() - ctx.started >= limit.time)
            or (limit.nodes is not None and ctx.nodes >= limit.nodes)
            or (limit.stop is not None and limit.stop())
        )


class SplitItems:
    """A :class:`~zerosum.runtime.scheduler.Plan`: search ``items`` (moves at one node, or
    ``None`` for the node itself) over the workers as they come free, each with the best value
    so far as its alpha (``task(item, alpha)`` makes the worker's task); :attr:`found` is then
    the best value above ``best`` and its PV (``None`` if none is above). A value at least
    ``beta`` is a cutoff; a worker whose own limit stopped it stops the run.
    ``on_better(found)`` hears of every new best."""

    def __init__(
        self,
        items: Iterable[Any],
        best: Score,
        beta: Score,
        *,
        task: Callable[[Any, Score], Any],
        count: Callable[[_Answer | str], None],
        stopping: Callable[[], bool],
        on_better: Callable[[tuple[Score, tuple[Any, ...]]], None] | None = None,
    ) -> None:
        self.queue = list(items)
        self.best = best
        self.beta = beta
        self.found: tuple[Score, tuple[Any, ...]] | None = None
        self._task = task
        self._count = count
        self.stopping = stopping
        self._on_better = on_better

    def assign(self, worker: int) -> tuple[Any, Any] | None:
        if not self.queue:
            return None
        item = self.queue.pop(0)
        return item, self._task(item, self.best)

    def count(self, worker: int, tag: Any, answer: _Answer | str) -> int:
        self._count(answer)
        assert isinstance(answer, _Answer)  # a failed worker raised in ``count``
        return answer.counts[0]

    def take(self, worker: int, tag: Any, answer: _Answer) -> Verdict:
        if answer.stopped:
            return Verdict.STOP
        if answer.value > self.best:
            self.best = answer.value
            self.found = (self.best, answer.pv)
            if self._on_better is not None:
                self._on_better(self.found)
            if self.best >= self.beta:
                return Verdict.CUTOFF
        return Verdict.GO_ON


class _RootPlan:
    """A :class:`~zerosum.runtime.scheduler.Plan`: the root moves of one iteration of
    :meth:`SearchPool.search_root` (steps 2-3 of the module docstring)."""

    def __init__(
        self,
        split: Split[int],
        job: _Job,
        moves: list[Any],
        depth: int,
        mode: Mode,
        queue: list[int],
        values: dict[int, Score],
        pvs: dict[int, tuple[Any, ...]],
        best: Score,
    ) -> None:
        self.split, self.job, self.moves, self.depth, self.mode = split, job, moves, depth, mode
        self.queue, self.values, self.pvs, self.best = queue, values, pvs, best

    def assign(self, worker: int) -> tuple[int, _Task] | None:
        # Step 2. Young brothers wait for the first move, unless every move gets a full window.
        waiting = self.mode is not Mode.EXACT and 0 not in self.values
        if not self.queue or (waiting and (self.split.busy or self.queue[0] != 0)):
            return None
        index = self.queue.pop(0)
        alpha = root_alpha(self.mode, self.best)
        return index, self.job.task(self.moves[index], self.depth, alpha, null_window=index > 0)

    def count(self, worker: int, tag: int, answer: _Answer | str) -> int:
        _count(self.job.ctx, answer)
        assert isinstance(answer, _Answer)
        return answer.counts[0]

    def take(self, worker: int, index: int, answer: _Answer) -> Verdict:
        # Step 3. Each new best tightens the window of later moves.
        if answer.stopped:
            return Verdict.STOP
        self.values[index], self.pvs[index] = answer.value, answer.pv
        self.best = max(self.best, answer.value)
        return Verdict.GO_ON

    def stopping(self) -> bool:
        return self.job.stopping()


def _count(ctx: Context[Any], answer: _Answer | str) -> None:
    """Add a worker's answer to ``ctx``; raises if the worker failed (its answer says how)."""
    if isinstance(answer, str):
        raise RuntimeError(f"a search worker failed: {answer}")
    answer.add_to(ctx)
    ctx.stale_cutoffs += answer.stale_cutoffs


class SearchPool:
    """``workers`` search processes, started once and reused by every search until
    :meth:`close` (or the end of a ``with`` block). The pool is the
    :class:`~zerosum.runtime.scheduler.Link` its searches' splits talk to."""

    def __init__(self, workers: int = 0) -> None:
        self.workers = resolve_workers(workers)
        context = multiprocessing.get_context("spawn")
        self._stop: Any = context.RawArray("b", self.workers)
        self._search_ids = 0
        self._order: dict[Any, Score] = {}
        self._order_search = -1
        self.closed = False
        self._blocks: dict[int, SharedMemory] = {}
        self._views: dict[int, SharedTable[Any]] = {}
        self._view_game: Game[Any] | None = None
        self._generation = 0
        self.split_depth = SPLIT_DEPTH
        """PVS splits the first root move's nodes of the principal variation with at least
        this many plies left (see :meth:`_split`)."""
        self.activity = Activity(self.workers)
        """Busy time and nodes per worker since the last search started."""
        self._group = WorkerGroup(
            self.workers,
            _serve,
            lambda index, pipe: (index, pipe, self._stop),
            flag=self._flag,
            name="zerosum-search",
        )
        self._scheduler: Split[Any] = Split(self, activity=self.activity)

    def _flag(self, worker: int, raised: bool) -> None:
        self._stop[worker] = int(raised)

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids."""
        return self._group.pids

    @property
    def _processes(self) -> list[Any]:
        return self._group.processes

    def send(self, worker: int, task: Any) -> None:
        """Send ``task`` (an object with ``search_id`` and ``start()``, whose ``start()`` gives an
        object with ``search_id`` and ``run(task, stop, index)``) to an idle ``worker``."""
        self._group.send(worker, task)

    def connection(self, worker: int) -> Connection:
        """The pipe on which ``worker`` answers (to ``wait`` on)."""
        return self._group.connection(worker)

    def halt(self, workers: Iterable[int]) -> None:
        """Raise the stop flags of ``workers``: their searches stop at their next poll."""
        self._group.halt(workers)

    def lost(self) -> None:
        """A worker could not answer (it died, or Ctrl-C came): the pool closes."""
        self.close()

    def shared_block(self, size: int) -> SharedMemory:
        """A block of shared memory of ``size`` bytes for this pool's searches (a shared
        table), made on first use and kept, like the workers, until :meth:`close` frees it.
        Its content is the caller's to clear."""
        if self.closed:
            raise RuntimeError("the search pool is closed")
        block = self._blocks.get(size)
        if block is None:
            block = self._blocks[size] = SharedMemory(create=True, size=size)
        return block

    def new_search(self) -> int:
        """A fresh search id: workers start it with empty tables."""
        self._search_ids += 1
        return self._search_ids

    def search_root(
        self,
        ctx: Context[M],
        algorithm: str,
        depth: int,
        mode: Mode,
        *,
        search_id: int,
        table: bool,
        table_entries: int,
    ) -> Iteration:
        """One iteration at ``depth``, split over the workers (see the module docstring).
        Adds the workers' counts to ``ctx``; raises SearchStopped when the limit in ``ctx``
        stops it, with every worker idle again."""
        if self.closed:
            raise RuntimeError("the search pool is closed")
        game = ctx.game
        ctx.nodes += 1
        shared = table and get_algorithm(algorithm).table_kind == "table"
        if self._order_search != search_id:
            self._order, self._order_search = {}, search_id
            self.activity.reset()
            self._generation = 0
            if shared:  # a new search starts with an empty table
                self.shared_table(game, table_entries).clear()
        self._generation += 1
        # Step 1. Order the root moves by the previous iteration's values.
        moves = sorted(game.legal_moves(), key=lambda move: -self._order.get(move, -INFINITY))
        root = game.copy()
        job = _Job(
            ctx,
            search_id,
            root,
            algorithm,
            table,
            table_entries,
            self.shared_table(game, table_entries) if shared else None,
            self._generation,
            self.workers,
        )
        values: dict[int, Score] = {}
        pvs: dict[int, tuple[Any, ...]] = {}
        best = -INFINITY
        queue = list(range(len(moves)))
        split = get_algorithm(algorithm).null_window and probe_of(game) is None
        if split and mode is not Mode.EXACT and depth - 1 >= self.split_depth:
            # Step 2a. PVS: the first move is split along its principal variation.
            queue.pop(0)
            value, line = self._split(job, [moves[0]], depth - 1, -INFINITY, INFINITY)
            values[0], pvs[0] = -value, (moves[0], *line)
            best = values[0]
        plan = _RootPlan(self._scheduler, job, moves, depth, mode, queue, values, pvs, best)
        if self._scheduler.run(plan) is Verdict.STOP:
            raise SearchStopped
        # Step 4. Combine as the serial root does.
        best = plan.best
        scored = tuple((moves[index], values[index]) for index in range(len(moves)))
        self._order = {move: value for move, value in scored}
        best_moves = tuple(move for move, value in scored if value == best)
        if mode is Mode.ONE:
            best_moves = best_moves[:1]
        pv = pvs[moves.index(best_moves[0])]
        return Iteration(best, scored, best_moves, pv)

    def shared_table(self, game: Game[Any], entries: int) -> SharedTable[Any]:
        """The parent's view of the pool's shared table of ``entries`` slots (made once per
        size, released by :meth:`close`), for searches of ``game`` (its moves name the table's
        move codes). Its content is the caller's to clear."""
        entries = slots_for(entries)
        view = self._views.get(entries)
        if view is not None and type(game) is not type(self._view_game):
            view.release()  # another game: its moves get codes of their own
            view = None
        if view is None:
            block = self.shared_block(table_bytes(entries))
            codes: MoveCodes[Any] = MoveCodes(self._view_moves)
            view = self._views[entries] = SharedTable(block, entries, codes)
        self._view_game = game
        return view

    def _view_moves(self) -> list[Any]:
        """The legal moves of the position the parent's table view probes."""
        return [] if self._view_game is None else self._view_game.legal_moves()

    def _split(
        self, job: _Job, path: list[Any], depth: int, alpha: Score, beta: Score
    ) -> tuple[Score, tuple[Any, ...]]:
        """The value and PV of the node at the end of ``path`` (a node of the principal
        variation, searched with the window ``(alpha, beta)``), as PVS searches it: the first
        move here recursively (the next PV node), then the others over the workers, each with
        a null window at the best value so far and the full window if that lands inside. A
        node with fewer than ``split_depth`` plies left, or a finished game, is one task."""
        board = job.root.copy()
        for move in path:
            board.make(move)
        if depth < self.split_depth or board.outcome() is not None:
            found = self._run(job, path, depth, alpha, beta, [None], -INFINITY - 1)
            assert found is not None
            return found
        job.ctx.nodes += 1
        moves = board.legal_moves()
        if not moves:
            raise no_moves_error(board)
        key = board.key()
        if job.table is not None:
            self._view_game = board
            entry = job.table.probe(key)
            if entry is not None and entry.move in moves:
                moves.remove(entry.move)
                moves.insert(0, entry.move)
        alpha_on_entry = alpha
        value, line = self._split(job, [*path, moves[0]], depth - 1, -beta, -alpha)
        best, best_pv = -value, (moves[0], *line)
        alpha = max(alpha, best)
        if best < beta and len(moves) > 1:
            found = self._run(job, path, depth, alpha, beta, moves[1:], best)
            if found is not None:
                best, best_pv = found
        if job.table is not None:
            bound = Bound.of(best, alpha_on_entry, beta)
            job.table.generation = job.generation
            job.table.store(key, depth, to_table(best, len(path)), bound, best_pv[0])
        return best, best_pv

    def _run(
        self,
        job: _Job,
        path: list[Any],
        depth: int,
        alpha: Score,
        beta: Score,
        items: list[Any],
        best: Score,
    ) -> tuple[Score, tuple[Any, ...]] | None:
        """Search ``items`` (moves at the node at the end of ``path``, or ``None`` for the
        node itself) over the workers (:class:`SplitItems`): the best value above ``best`` and
        its PV (``None`` if none is above). A value at least ``beta`` stops the others.
        Raises ``SearchStopped`` (with every worker idle) when the limit stops the search."""
        moves = tuple(path)

        def task(move: Any, best: Score) -> _Task:
            return job.task(
                move,
                depth,
                max(alpha, best) if move is not None else alpha,
                null_window=move is not None,
                path=moves,
                beta=beta,
                whole=move is None,
            )

        plan = SplitItems(
            items,
            best,
            beta,
            task=task,
            count=lambda answer: _count(job.ctx, answer),
            stopping=job.stopping,
        )
        if self._scheduler.run(plan) is Verdict.STOP:
            raise SearchStopped
        return plan.found

    def close(self, *, kill: bool = False) -> None:
        """Stop the workers (``kill``: at once); the pool cannot be used afterwards."""
        if self.closed:
            return
        self.closed = True
        self._group.close(kill=kill)
        for view in self._views.values():
            view.release()
        self._views.clear()
        for block in self._blocks.values():
            with contextlib.suppress(BufferError):  # a table over it may still be in use here
                block.close()
            block.unlink()
        self._blocks.clear()

    def __enter__(self) -> SearchPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_shared: SearchPool | None = None


def shared_pool(workers: int) -> SearchPool:
    """A pool of ``workers`` processes kept for this process's lifetime, for callers that pass
    ``workers=N`` without a pool of their own (a new count replaces the old pool)."""
    global _shared
    count = resolve_workers(workers)
    if _shared is None or _shared.closed or _shared.workers != count:
        if _shared is not None:
            _shared.close()
        else:
            atexit.register(_close_shared)
        _shared = SearchPool(count)
    return _shared


def _close_shared() -> None:
    if _shared is not None:
        _shared.close()
