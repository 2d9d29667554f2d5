"""Exact solving on every core: the compiled search in workers sharing one table.

The workers start once and are reused for every solve until :meth:`ParallelEngine.close`.
They are threads of this process by default: the compiled search releases the GIL, so threads
search side by side like processes, and the one table then lives in this process's memory,
which gets transparent huge pages (numpy asks for them on large arrays), whereas shared memory
gets none on this kind of machine (``/sys/kernel/mm/transparent_hugepage/shmem_enabled`` is
``never``): with 4 KiB pages nearly every probe of a 64 MB table misses the TLB, and worker
processes searched about 10% slower per node than the serial engine (``cpu est`` 1.52 against
``est`` 1.68 for ``4453`` in ``benchmarks/parallel.py``), threads about as fast as it (``cpu
est`` close to ``est``). ``threads=False`` gives worker processes (``spawn``: each imports
numba and loads the cached search) sharing the table and their ``io`` rows in shared memory;
everything below holds for both. A worker thread cannot be killed: it is stopped, as a worker
process is, through its ``io[STOP]``.

Root splitting. The null-window narrowing of an exact solve runs in the parent; each
null-window test hands the root's moves to the workers as they come free, best first, and the
first move that refutes the window stops the rest. A worker that finds no move left joins the
search of one still running, in a varied move order near its root (lazy SMP on that subtree,
``io[VARIANT]``): the first copy to finish answers. All workers read and write one
transposition table, so what one proves the others find; their stop flags are in memory they
share with the parent too.

Concurrent writes. Entries are two 64-bit words written without locks; a reader accepts an
entry only if ``keys[i] ^ data[i]`` equals its key (see :mod:`.engine`). Two writers racing on
one slot can leave words from different entries, which then fail that check and read as a miss.
A torn entry is never taken for another position's, so every stored bound stays true and every
worker's answer is exact: parallel and serial solves give the same rank.

Memory. An entry's two words sit side by side (``table[0]`` and ``table[1]`` are strided views
of one array, as in the serial engine's table), so a probe reads one cache line (and one page:
with the words in two arrays a probe would miss twice in the cache and in the TLB). Each
worker's ``io`` row (counters written at every node) has cache lines of its own.

Batches. :meth:`ParallelEngine.solve_many` solves many positions, each whole by one worker, for
sets of solves too small to split (a test set): the workers take chunks of positions as they
come free and the results come back in the order of the positions.

The workers are a :class:`~zerosum.runtime.workers.WorkerGroup`; the send/collect/stop loop of
each of the three splits (a null-window test, a search, a batch) is
:class:`~zerosum.runtime.scheduler.Split`'s, and this module brings the plans.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Generator, Iterable
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from typing import Any, Final

import numpy as np

from zerosum.compiled import DEFAULT_HASH_MB, MAX_HASH_MB
from zerosum.compiled.engine import (
    ABORTED,
    BEST_MOVE,
    DEPTH_INF,
    EPOCH,
    EVALUATIONS,
    EXACT,
    GENERATION,
    INF,
    IO_SIZE,
    NO_SCORE,
    NODE_LIMIT,
    NODES,
    STALE,
    STOP,
    VARIANT,
    Kernel,
    _pack,
    narrowed,
    new_io,
    new_stack,
    next_test,
    rank_of_lower_bound,
    score_of_rank,
    solve_bounds,
    stamp_before_search,
    store,
    table_entries,
    table_move,
)
from zerosum.compiled.runner import NO_NODE_LIMIT, Found, Solution, compiled
from zerosum.runtime.scheduler import Split, Verdict
from zerosum.runtime.workers import Activity, WorkerGroup
from zerosum.search.core import Limit, Stats

_IO_STRIDE: Final = 32
"""Slots from one worker's ``io`` row to the next: 256 bytes, so that no two workers' rows
share a cache line (each search writes its counters at every node; on a shared line the
cores would keep taking the line from each other)."""
_SEARCH: Final = 0
_SOLVE: Final = 1
"""The kinds of task a worker takes: a search in a window, a whole solve."""
_NO_LIMIT: Final = (1 << 63) - 1
_IN_FLIGHT: Final = 2
"""Chunks of whole solves queued per worker in a batch, so that it never waits for us."""
_CHUNK_S: Final = 0.01
_CHUNK_MAX: Final = 32
"""A chunk holds about ``_CHUNK_S`` seconds of solves (by the mean so far), at most
``_CHUNK_MAX``: fewer messages, and results still come back every few milliseconds."""
_HERE: Final = -1
"""The node budget's holder for a search in this process (the first try of a solve)."""
SERIAL_NODES: Final = 200_000
"""A solve is first tried in the calling process with this many nodes (tens of milliseconds):
handing a small solve to the workers costs more than it saves."""


def _attach(name: str) -> SharedMemory:
    """Open shared memory that the parent owns and unlinks (a spawned child shares the
    parent's resource tracker, so attaching registers nothing new)."""
    return SharedMemory(name=name)


def _table(memory: SharedMemory, entries: int) -> np.ndarray[Any, Any]:
    """The shared table in ``memory``: ``table[0]`` the keys and ``table[1]`` the data, each a
    strided view, an entry's two words side by side (as in :class:`.runner.Engine`'s table: a
    probe reads one cache line)."""
    pairs: np.ndarray[Any, Any] = np.ndarray((entries, 2), np.int64, buffer=memory.buf)
    return pairs.T


def _rows(memory: SharedMemory, workers: int) -> np.ndarray[Any, Any]:
    """The workers' ``io`` arrays in ``memory``, one row each, ``_IO_STRIDE`` slots apart."""
    padded: np.ndarray[Any, Any] = np.ndarray((workers, _IO_STRIDE), np.int64, buffer=memory.buf)
    return padded[:, :IO_SIZE]


def _worker(
    kernel: Kernel,
    table_name: str,
    entries: int,
    io_name: str,
    workers: int,
    index: int,
    pipe: Connection,
) -> None:
    """A worker process's life (after :func:`~zerosum.runtime.workers.worker_init`): attach to
    the shared arrays, then solve whatever the pipe sends. ``kernel`` comes pickled: numba
    pickles its compiled functions, and the worker loads them from numba's cache."""
    table_memory, io_memory = _attach(table_name), _attach(io_name)
    table = _table(table_memory, entries)
    ios = _rows(io_memory, workers)
    _serve(kernel, table, ios[index], pipe)
    del table, ios
    table_memory.close()
    io_memory.close()


def _serve(
    kernel: Kernel,
    table: np.ndarray[Any, Any],
    io: np.ndarray[Any, Any],
    pipe: Connection,
    aux: np.ndarray[Any, Any] | None = None,
) -> None:
    """A worker (process or thread) searches whatever the pipe sends, with ``table`` and its
    own ``io`` row, until it receives ``None``. ``aux`` is the kernel's (read-only) probe array
    if the caller shares its own, else the worker loads a copy."""
    search = compiled(kernel)
    stack = new_stack(kernel)
    state = np.zeros(kernel.state_size, np.int64)
    if aux is None:
        aux = kernel.load_aux()  # a worker process loads its own copy, as the parent does
    search.negamax(state, -INF, INF, 1, table[0], table[1], new_io(), stack, aux)  # load
    search.solve(state, 0, 0, table[0], table[1], new_io(), stack, aux)  # load this too
    pipe.send("ready")
    while True:
        task = pipe.recv()
        if task is None:
            break
        if task[0] == _SOLVE:  # whole solves: (_SOLVE, states, lo, hi, node limit, generation)
            _, positions, lo, hi, node_limit, generation = task
            results = []
            for values in positions:
                state[:] = values
                # Every slot but STOP, which the parent may be raising right now.
                io[NODES:STOP] = 0
                io[NODE_LIMIT], io[ABORTED], io[GENERATION] = node_limit, 0, generation
                io[BEST_MOVE], io[VARIANT], io[STALE], io[EPOCH] = -1, 0, 0, -1
                started = time.perf_counter()
                rank = search.solve(state, lo, hi, table[0], table[1], io, stack, aux)
                seconds = time.perf_counter() - started
                results.append((int(rank), int(io[NODES]), seconds, bool(io[ABORTED] != 0)))
            pipe.send(results)
            continue
        _, values, alpha, beta, depth = task  # a search of one position in a window
        state[:] = values
        score = search.negamax(state, alpha, beta, depth, table[0], table[1], io, stack, aux)
        pipe.send(int(score))


class _BatchPlan:
    """A :class:`~zerosum.runtime.scheduler.Plan`: whole solves in chunks of about
    ``_CHUNK_S`` seconds (the first position alone), for :meth:`ParallelEngine.solve_many`.
    Every answer is kept (a halted chunk's too: its solutions say whether they completed)."""

    def __init__(
        self,
        states: Iterable[np.ndarray[Any, Any]],
        bounds: tuple[int, int, int, int],
        deadline: float | None,
        limit: Limit | None,
    ) -> None:
        self.pending = enumerate(states)
        self.bounds = bounds
        """``(lo, hi, node limit, generation)`` of every solve."""
        self.deadline, self.limit = deadline, limit
        self.done: dict[int, Solution] = {}
        self.mean_s = 0.0  # seconds per position so far, for the size of the chunks
        self.solved = 0

    def assign(self, worker: int) -> tuple[list[int], Any] | None:
        size = 1 if self.solved == 0 else int(_CHUNK_S / max(self.mean_s, 1e-6))
        chunk = list(itertools.islice(self.pending, max(1, min(size, _CHUNK_MAX))))
        if not chunk:
            return None
        values = [[int(value) for value in state] for _, state in chunk]
        return [index for index, _ in chunk], (_SOLVE, values, *self.bounds)

    def count(self, worker: int, indices: list[int], results: Any) -> int:
        for index, (rank, searched, seconds, aborted) in zip(indices, results, strict=True):
            self.done[index] = Solution(rank, Stats(nodes=searched, time_s=seconds), not aborted)
            self.mean_s = (self.mean_s * self.solved + seconds) / (self.solved + 1)
            self.solved += 1
        return sum(result[1] for result in results)

    def take(self, worker: int, indices: list[int], results: Any) -> Verdict:
        return Verdict.GO_ON

    def stopping(self) -> bool:
        return _limit_says_stop(self.deadline, self.limit)


def _stopped(verdict: Verdict, left: list[Any]) -> bool:
    """Whether a split whose run ended with ``verdict`` and ``left`` pieces never sent is
    incomplete: stopped by a limit, or run to its end with pieces the node budget could not
    fund."""
    return verdict is Verdict.STOP or (verdict is Verdict.GO_ON and bool(left))


def _limit_says_stop(deadline: float | None, limit: Limit | None) -> bool:
    """Whether the clock passed ``deadline`` or the stop callback of ``limit`` says stop."""
    return (deadline is not None and time.perf_counter() >= deadline) or (
        limit is not None and limit.stop is not None and limit.stop()
    )


POLL_NODES: Final = 1024
"""The compiled search looks at its node budget when its node count is a multiple of this,
and stops at the first look at or past the budget (see :mod:`.engine`)."""


class _NodeBudget:
    """A node limit shared by the searches of one solve or search: a hard bound on the nodes
    they spend together, however they interleave.

    A search is granted its share before it starts (:meth:`grant`): the budget that neither
    the searches that ended spent nor the searches still running hold, split between the
    workers that hold no share, rounded down to a multiple of :data:`POLL_NODES` (at least
    that many while that many are free). The compiled search stops at the first multiple of
    ``POLL_NODES`` at or past its budget, so it never spends more than such a share; its
    share is given back when it ends (:meth:`settle`), its nodes counted instead. So the nodes
    spent and held never pass the limit, but for the last few: when fewer than ``POLL_NODES``
    are free, one search at a time (the tail) is granted them and may spend up to
    ``POLL_NODES``. The nodes of a solve or search therefore never pass the limit by more than
    ``POLL_NODES - 1``, the serial engine's bound (and not at all while no search is granted
    fewer than ``POLL_NODES``). When nothing is free, no search starts: the solve or search
    ends incomplete."""

    def __init__(self, limit: int | None, workers: int) -> None:
        self.limit, self.workers = limit, workers
        self.held: dict[int, int] = {}
        """Each running search's share, by holder (a worker, or -1 for this process)."""
        self.tail: int | None = None
        """The holder of a share under ``POLL_NODES``, if one runs."""

    def grant(self, holder: int, spent: int) -> int | None:
        """The node budget of a search that ``holder`` starts now, when the searches that
        ended spent ``spent`` nodes (``None``: nothing is left to grant; no limit: the largest
        budget)."""
        if self.limit is None:
            return NO_NODE_LIMIT
        free = self.limit - spent - sum(self.held.values())
        sharing = max(1, self.workers - len(self.held))
        share = free // sharing // POLL_NODES * POLL_NODES
        if share == 0 and free >= POLL_NODES:
            share = POLL_NODES
        elif share == 0:  # the last few nodes, to one search at a time
            if free <= 0 or self.tail is not None:
                return None
            share, self.tail = free, holder
        self.held[holder] = share
        return share

    def settle(self, holder: int) -> None:
        """``holder``'s search has ended (its nodes are counted): its share is free again."""
        self.held.pop(holder, None)
        if self.tail == holder:
            self.tail = None


class _SearchPlan:
    """A :class:`~zerosum.runtime.scheduler.Plan`: the root moves of
    :meth:`ParallelEngine.search` (see :meth:`ParallelEngine._split`). A piece is ``(move
    index, its alpha, full window)``."""

    def __init__(
        self,
        engine: ParallelEngine,
        moves: list[tuple[int, list[int]]],
        depth: int,
        window: tuple[int, int],
        deadline: float | None,
        limit: Limit | None,
    ) -> None:
        self.engine, self.moves, self.depth = engine, moves, depth
        self.floor, self.beta = window
        self.deadline, self.limit = deadline, limit
        self.queue: list[tuple[int, bool]] = [(0, True)]  # (move index, full window), in order
        self.queue += [(index, False) for index in range(1, len(moves))]
        self.best, self.best_at = -INF, -1

    def assign(self, worker: int) -> tuple[tuple[int, int, bool], Any] | None:
        engine = self.engine
        if not self.queue or (self.best_at < 0 and engine._scheduler.busy):
            return None  # young brothers wait for the first move
        if not engine._grant(worker):
            return None  # the node budget is spent: the search ends incomplete
        index, full = self.queue.pop(0)
        alpha = max(self.best, self.floor)
        top = self.beta if full or self.best_at < 0 else alpha + 1
        message = (_SEARCH, self.moves[index][1], -top, -alpha, self.depth - 1)
        return (index, alpha, full or self.best_at < 0), message

    def count(self, worker: int, tag: Any, score: Any) -> int:
        engine = self.engine
        nodes = engine._settle(worker)
        for slot in range(EVALUATIONS + 1):
            engine._counts[slot] += int(engine.ios[worker, slot])
        engine._stale += int(engine.ios[worker, STALE])
        return nodes

    def take(self, worker: int, tag: tuple[int, int, bool], score: Any) -> Verdict:
        index, alpha, full = tag
        if self.engine.ios[worker, ABORTED] != 0:  # its node budget ran out
            return Verdict.STOP
        value = -int(score)
        if not full and alpha < value < self.beta:
            # A null window failed high: the value is a lower bound. Above the best so far,
            # the move is the new best: search it with the full window; else test it again
            # against the best, which rose meanwhile.
            self.queue.insert(0, (index, value > self.best))
            return Verdict.GO_ON
        if value > self.best or self.best_at < 0:
            self.best, self.best_at = value, index
        if self.best >= self.beta:  # a cutoff: the other moves cannot matter
            return Verdict.CUTOFF
        return Verdict.GO_ON

    def stopping(self) -> bool:
        return _limit_says_stop(self.deadline, self.limit)


class _TestPlan:
    """A :class:`~zerosum.runtime.scheduler.Plan`: the root's children in one null-window test
    of an exact solve (see :meth:`ParallelEngine._root`). A piece is a child's index."""

    def __init__(
        self,
        engine: ParallelEngine,
        children: list[list[int]],
        window: tuple[int, int],
        deadline: float | None,
        limit: Limit | None,
    ) -> None:
        self.engine, self.children = engine, children
        self.alpha, self.beta = window
        self.deadline, self.limit = deadline, limit
        self.queue = list(range(len(children)))
        self.answered: set[int] = set()
        self.best = -INF

    def assign(self, worker: int) -> tuple[int, Any] | None:
        engine = self.engine
        busy = engine._scheduler.tags()
        if self.queue:
            child, variant = self.queue[0], 0
        elif busy:  # lazy SMP: join a child still being searched, in another move order
            child, variant = min(busy.values()), worker + 1
        else:
            return None
        if not engine._grant(worker):
            return None  # the node budget is spent: the test ends incomplete
        if variant == 0:
            self.queue.pop(0)
        engine.ios[worker, VARIANT] = variant
        return child, (_SEARCH, self.children[child], -self.beta, -self.alpha, DEPTH_INF - 1)

    def count(self, worker: int, child: int, score: Any) -> int:
        return self.engine._settle(worker)

    def take(self, worker: int, child: int, score: Any) -> Verdict:
        engine = self.engine
        if child in self.answered:  # another copy answered first
            return Verdict.GO_ON
        if engine.ios[worker, ABORTED] != 0:  # not stopped by us: its node budget
            return Verdict.STOP
        self.answered.add(child)
        copies = [
            other for other, searching in engine._scheduler.tags().items() if searching == child
        ]
        engine._group_halt(copies)
        self.best = max(self.best, -int(score))
        if self.best >= self.beta:
            return Verdict.CUTOFF
        return Verdict.GO_ON

    def stopping(self) -> bool:
        return _limit_says_stop(self.deadline, self.limit)


class ParallelEngine:
    """Exact solves of one kernel's game by ``workers`` threads (or processes, ``threads=False``)
    sharing one table."""

    def __init__(
        self,
        game: str,
        kernel: Kernel,
        *,
        workers: int,
        hash_mb: float = DEFAULT_HASH_MB,
        threads: bool = True,
    ) -> None:
        if not 0 < hash_mb <= MAX_HASH_MB:
            raise ValueError(f"hash size {hash_mb} MB is out of range: expected 1..{MAX_HASH_MB}")
        if workers < 1:
            raise ValueError(f"{workers} workers: expected 1 or more")
        self.kernel = kernel
        self.workers = workers
        self.threads = threads
        entries = table_entries(hash_mb)
        self._table_memory: SharedMemory | None = None
        self._io_memory: SharedMemory | None = None
        if threads:  # this process's memory: huge pages (see the module header)
            self.table = np.zeros((entries, 2), np.int64).T
            padded: np.ndarray[Any, Any] = np.zeros((workers, _IO_STRIDE), np.int64)
            self.ios = padded[:, :IO_SIZE]
        else:
            self._table_memory = SharedMemory(create=True, size=2 * entries * 8)
            self._io_memory = SharedMemory(create=True, size=workers * _IO_STRIDE * 8)
            self.table = _table(self._table_memory, entries)
            self.ios = _rows(self._io_memory, workers)
        self.table.fill(0)  # touch every page now rather than inside the first searches
        self.generation = 0
        self._stamped = 0
        """The generation when the table was last restamped (see :meth:`search`)."""
        self._stack = new_stack(kernel)
        self._aux = kernel.load_aux()
        self._nodes = 0
        self._counts = [0] * (EVALUATIONS + 1)
        self._stale = 0
        self._epoch = -1
        """``io[EPOCH]`` of the workers' searches: -1 in exact solves."""
        self._budget = _NodeBudget(None, workers)
        self.activity = Activity(workers)
        """Busy time and nodes per worker since the last solve or search started."""
        self.game = game
        self.closed = False
        self._group: WorkerGroup | None = None
        try:
            self._group = self._start(entries)
        except BaseException:  # Ctrl-C while the workers load: end them, free the memory
            self.close(kill=True)
            raise
        self._scheduler: Split[Any] = Split(self._group, activity=self.activity)
        self._batches: Split[Any] = Split(self._group, activity=self.activity, in_flight=_IN_FLIGHT)

    def _start(self, entries: int) -> WorkerGroup:
        """Start the workers and wait until each has loaded the compiled search."""
        workers = self.workers
        if self.threads:
            return WorkerGroup(
                workers,
                _serve,
                lambda index, pipe: (self.kernel, self.table, self.ios[index], pipe, self._aux),
                flag=self._flag,
                name="zerosum-worker",
                threads=True,
            )
        assert self._table_memory is not None and self._io_memory is not None
        table_name, io_name = self._table_memory.name, self._io_memory.name
        return WorkerGroup(
            workers,
            _worker,
            lambda index, pipe: (self.kernel, table_name, entries, io_name, workers, index, pipe),
            flag=self._flag,
            name="zerosum-worker",
            join_s=5.0,
        )

    def _flag(self, worker: int, raised: bool) -> None:
        self.ios[worker, STOP] = int(raised)

    @property
    def _processes(self) -> list[Any]:
        """The workers (threads or processes)."""
        return [] if self._group is None else self._group.processes

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids; with threads, this process's id (whose CPU time is
        the workers' and this thread's, which mostly waits for them)."""
        assert self._group is not None
        return self._group.pids

    @property
    def table_bytes(self) -> int:
        return int(self.table.nbytes)

    def solve(
        self,
        state: np.ndarray[Any, Any],
        *,
        weak: bool = False,
        window: tuple[int, int] | None = None,
        limit: Limit | None = None,
    ) -> Solution:
        """The exact rank of ``state``, as :meth:`zerosum.compiled.runner.Engine.solve` gives
        it. The null-window narrowing of the compiled ``solve`` runs here, and each null-window
        test is split over the root's moves (:meth:`_root`). A node limit is shared out: each
        search of a child gets what the others left."""
        kernel = self.kernel
        root = state.copy()
        started = time.perf_counter()
        decided = kernel.decided(root)
        if decided != NO_SCORE:
            return Solution(int(rank_of_lower_bound(decided)), Stats(time_s=0.0))
        least, most = kernel.rank_range(root)
        lo, hi = solve_bounds(weak, window)
        lo, hi = max(lo, least), min(hi, most)
        self.generation += 1
        self._epoch = -1
        self._nodes = 0
        self._budget = _NodeBudget(None if limit is None else limit.nodes, self.workers)
        self.activity.reset()
        # Most solves are small: try here first, on the shared table, with a small budget.
        io = self._fresh()
        first = self._budget.grant(_HERE, 0)
        if first is None:  # a node limit of 0
            return Solution(0, Stats(time_s=time.perf_counter() - started), False)
        io[NODE_LIMIT] = min(first, SERIAL_NODES)
        search = compiled(kernel)
        rank = search.solve(root, lo, hi, self.table[0], self.table[1], io, self._stack, self._aux)
        self._nodes = int(io[NODES])
        self._budget.settle(_HERE)
        if io[ABORTED] == 0:
            return Solution(
                int(rank), Stats(nodes=self._nodes, time_s=time.perf_counter() - started)
            )
        if limit is not None and limit.nodes is not None and self._nodes >= limit.nodes:
            return Solution(
                0, Stats(nodes=self._nodes, time_s=time.perf_counter() - started), False
            )
        root = state.copy()  # an aborted search leaves its state array mid-line
        kernel.decided(root)  # what ``moves`` may rely on, as in the search
        children = self._expand(root)
        deadline = None if limit is None or limit.time is None else started + limit.time
        while lo < hi:
            middle = int(next_test(lo, hi))
            alpha, beta = int(score_of_rank(middle)), int(score_of_rank(middle + 1))
            value = self._root(children, alpha, beta, deadline, limit)
            if value is None:
                stats = Stats(nodes=self._nodes, time_s=time.perf_counter() - started)
                return Solution(0, stats, complete=False)
            lo, hi = (int(end) for end in narrowed(lo, hi, middle, value))
        return Solution(lo, Stats(nodes=self._nodes, time_s=time.perf_counter() - started))

    def solve_many(
        self,
        states: Iterable[np.ndarray[Any, Any]],
        *,
        weak: bool = False,
        limit: Limit | None = None,
    ) -> Generator[Solution, None, None]:
        """The exact ranks of many positions, each solved whole by one worker (a batch: a
        test set, say, of positions too small to split), yielded in the order of ``states``
        as soon as each one and those before it are done.

        The positions go out in chunks of about 10 ms of work (the first one alone), each worker
        keeping two chunks queued, so that it never waits for this process; every
        worker reads and writes the shared table (one generation for the whole batch). A node
        limit applies to each position (one that runs out comes back incomplete and the batch
        goes on); the time limit and the stop callback to the whole batch: once they stop it,
        the first position left unsolved comes back incomplete and the iteration ends.
        Closing the iterator early stops the workers too."""
        lo, hi = solve_bounds(weak, None)
        self.generation += 1
        generation = self.generation & 255
        nodes = _NO_LIMIT if limit is None or limit.nodes is None else max(limit.nodes, 1)
        started = time.perf_counter()
        deadline = None if limit is None or limit.time is None else started + limit.time
        self.activity.reset()
        self.ios[:, STOP] = 0
        plan = _BatchPlan(states, (lo, hi, nodes, generation), deadline, limit)
        answered = 0  # results yielded
        verdict = Verdict.GO_ON
        try:
            with contextlib.closing(self._batches.rounds(plan)) as rounds:
                for verdict in rounds:
                    while answered in plan.done:
                        solution = plan.done.pop(answered)
                        answered += 1
                        yield solution
                        if verdict is Verdict.STOP and not solution.complete:
                            return
            if verdict is Verdict.STOP and next(plan.pending, None) is not None:
                yield Solution(0, Stats(), complete=False)  # the first one never sent
        finally:
            self.ios[:, STOP] = 0

    def _expand(self, root: np.ndarray[Any, Any]) -> list[list[int]]:
        """The states after each move of ``root`` (just looked at by ``decided``), best first.
        An undecided position always has a move to search."""
        children = [child for _, child in self._moves(root)]
        if not children:
            raise RuntimeError("an undecided position offered no move to search")
        return children

    def _moves(self, root: np.ndarray[Any, Any]) -> list[tuple[int, list[int]]]:
        """Each move the kernel offers at ``root`` with the state after it, best first."""
        return self._moves_of(self.kernel, root)

    @staticmethod
    def _moves_of(kernel: Kernel, root: np.ndarray[Any, Any]) -> list[tuple[int, list[int]]]:
        """:meth:`_moves` for any kernel (the benchmark replays solves with it)."""
        moves = np.zeros(kernel.max_moves, np.int64)
        children = []
        for move in moves[: kernel.moves(root, moves)].copy():
            child = root.copy()
            kernel.play(child, move)
            children.append((int(move), [int(value) for value in child]))
        return children

    def search(
        self,
        state: np.ndarray[Any, Any],
        depth: int,
        *,
        limit: Limit | None = None,
        epoch: int | None = None,
    ) -> Found:
        """A search of ``state`` to ``depth`` plies, its root split over the workers: the
        value the serial :meth:`zerosum.compiled.runner.Engine.search` gives at that depth
        (on an empty table), and a best move. ``epoch`` is that method's: the table entries
        of older searches read as misses.

        Young brothers wait: the first move (the table's, else the kernel's best) is searched
        alone with the full window; the others then go to the workers as they come free, each
        with a null window at the best value so far, searched again with the full window when
        it fails high (principal variation search at the root). A depth past the kernel's
        ``max_ply`` is searched as ``max_ply``, as the serial search does."""
        kernel, root = self.kernel, state.copy()
        depth = min(depth, kernel.max_ply)
        started = time.perf_counter()
        self._stamped = stamp_before_search(
            self.table[0], self.table[1], self.generation, epoch, kernel.max_ply, self._stamped
        )
        self.generation += 1
        self._nodes = 0
        self._counts = [0] * (EVALUATIONS + 1)
        self._stale = 0
        self._epoch = (self.generation if epoch is None else epoch) & 255
        # The root counts as one node of the search's (its ``Stats``).
        nodes = None if limit is None or limit.nodes is None else limit.nodes - 1
        self._budget = _NodeBudget(nodes, self.workers)
        self.activity.reset()
        decided = int(kernel.decided(root))
        if decided != NO_SCORE:
            seconds = time.perf_counter() - started
            return Found(decided, -1, Stats(nodes=1, time_s=seconds), proven=True)
        # The scores this position can still reach narrow the root's window, as in the serial
        # search (which then settles or fails soft at the same places).
        lo, hi = (int(end) for end in kernel.bounds(root))
        alpha, beta = max(-INF, lo), min(INF, hi)
        if alpha >= beta:
            seconds = time.perf_counter() - started
            return Found(alpha, -1, Stats(nodes=1, time_s=seconds), proven=True)
        moves = self._moves(root)
        if not moves:
            return Found(int(kernel.no_moves(root)), -1, Stats(nodes=1), proven=True)
        first = table_move(self.table[0], self.table[1], int(kernel.key(root)))
        moves.sort(key=lambda pair: pair[0] != first)  # stable: the kernel's order after it
        deadline = None if limit is None or limit.time is None else started + limit.time
        found = self._split(moves, depth, (alpha, beta), deadline, limit)
        _, cutoffs, probes, hits, stores, evaluations = self._counts
        stats = Stats(
            self._nodes + 1,
            cutoffs,
            probes,
            hits,
            stores,
            evaluations,
            time_s=time.perf_counter() - started,
        )
        if found is None:
            return Found(0, -1, stats, complete=False)
        best, move = found
        packed = _pack(best, move, depth, EXACT, self.generation & 255)
        store(self.table[0], self.table[1], int(kernel.key(root)), packed)
        return Found(best, move, stats, proven=evaluations == 0 and self._stale == 0)

    def _split(
        self,
        moves: list[tuple[int, list[int]]],
        depth: int,
        window: tuple[int, int],
        deadline: float | None,
        limit: Limit | None,
    ) -> tuple[int, int] | None:
        """The fail-soft value in ``window`` and the best move of the root whose children are
        ``moves``, searched to ``depth`` (see :meth:`search`); ``None`` if a limit stopped
        it."""
        plan = _SearchPlan(self, moves, depth, window, deadline, limit)
        if _stopped(self._scheduler.run(plan), plan.queue):
            return None
        return plan.best, moves[plan.best_at][0]

    def _root(
        self,
        children: list[list[int]],
        alpha: int,
        beta: int,
        deadline: float | None,
        limit: Limit | None,
    ) -> int | None:
        """The root's fail-soft value for the window ``(alpha, beta)``, or ``None`` if a limit
        stopped it.

        The children go to the workers as they come free, best first; the first child that
        refutes the window stops the others. A worker that finds no child left joins one still
        being searched, in a varied move order (lazy SMP on that subtree): whichever copy ends
        first answers for the child and the other copies stop.

        A child is searched to ``DEPTH_INF - 1``, the depth the serial solve gives it one ply
        below its root: the entries the workers store then carry the serial depths, which the
        table's depth-preferred replacement weighs as in the serial solve. (The entries of the
        first try in this process, :data:`SERIAL_NODES`, settle nodes in the workers at any
        depth: every exact entry is a proof, :data:`~zerosum.compiled.engine.PROOF_DEPTH`.)
        """
        plan = _TestPlan(self, children, (alpha, beta), deadline, limit)
        if _stopped(self._scheduler.run(plan), plan.queue):
            return None
        return plan.best

    def _group_halt(self, workers: Iterable[int]) -> None:
        assert self._group is not None
        self._group.halt(workers)

    def _fresh(self) -> np.ndarray[Any, Any]:
        """A search's ``io`` row of this solve or search (no node limit)."""
        fresh = new_io()
        fresh[GENERATION] = self.generation & 255
        fresh[EPOCH] = self._epoch
        return fresh

    def _grant(self, worker: int) -> bool:
        """Give ``worker``'s next search a fresh ``io`` row with its share of the node limit
        (:class:`_NodeBudget`); ``False`` if the budget cannot fund a search."""
        share = self._budget.grant(worker, self._nodes)
        if share is None:
            return False
        self.ios[worker] = self._fresh()
        self.ios[worker, NODE_LIMIT] = share
        return True

    def _settle(self, worker: int) -> int:
        """Count the nodes of ``worker``'s search, which has ended, and free its share."""
        nodes = int(self.ios[worker, NODES])
        self._nodes += nodes
        self._budget.settle(worker)
        return nodes

    def close(self, *, kill: bool = False) -> None:
        """Stop the workers (``kill``: at once, without letting them finish; threads are told to
        stop) and free the shared memory."""
        if self.closed:
            return
        self.closed = True
        if self._group is not None:
            self._group.close(kill=kill)
        del self.table, self.ios
        for memory in (self._table_memory, self._io_memory):
            if memory is not None:
                memory.close()
                memory.unlink()

    def __enter__(self) -> ParallelEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
