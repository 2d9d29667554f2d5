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
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Generator, Iterable
from multiprocessing.connection import Connection, wait
from multiprocessing.shared_memory import SharedMemory
from typing import Any, Final

import numpy as np

from zerosum.compiled import DEFAULT_HASH_MB, MAX_HASH_MB
from zerosum.compiled.engine import (
    ABORTED,
    BEST_MOVE,
    DEPTH_INF,
    EVALUATIONS,
    EXACT,
    GENERATION,
    INF,
    IO_SIZE,
    NO_SCORE,
    NODE_LIMIT,
    NODES,
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
    store,
    table_entries,
    table_move,
)
from zerosum.compiled.runner import Found, Solution, compiled
from zerosum.search.core import Limit, Stats
from zerosum.search.parallel import Activity, ignore_sigint, sigint_held, wait_until_ready

_POLL_S: Final = 0.01
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
    game: str,
    table_name: str,
    entries: int,
    io_name: str,
    workers: int,
    index: int,
    pipe: Connection,
) -> None:
    """A worker's life: attach to the shared arrays, then solve whatever the pipe sends."""
    ignore_sigint()  # the parent handles Ctrl-C and stops us
    from zerosum.compiled.kernels import compiled_game

    kernel = compiled_game(game).kernel
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
                io[BEST_MOVE], io[VARIANT] = -1, 0
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
        self._stack = new_stack(kernel)
        self._aux = kernel.load_aux()
        self._nodes = 0
        self._counts = [0] * (EVALUATIONS + 1)
        self._node_limit: int | None = None
        self.activity = Activity(workers)
        """Busy time and nodes per worker since the last solve or search started."""
        context = multiprocessing.get_context("spawn")
        self._pipes: list[Connection] = []
        self._processes: list[Any] = []
        try:
            self._start(context, game, entries)
        except BaseException:  # Ctrl-C while the workers load: end them, free the memory
            self.close(kill=True)
            raise

    def _start(self, context: Any, game: str, entries: int) -> None:
        """Start the workers and wait until each has loaded the compiled search."""
        workers = self.workers
        if self.threads:
            for index in range(workers):
                mine, theirs = context.Pipe()
                thread = threading.Thread(
                    target=_serve,
                    args=(self.kernel, self.table, self.ios[index], theirs, self._aux),
                    daemon=True,
                    name=f"zerosum-worker-{index}",
                )
                thread.start()
                self._pipes.append(mine)
                self._processes.append(thread)
            wait_until_ready(self._pipes)
            return
        assert self._table_memory is not None and self._io_memory is not None
        for index in range(workers):
            mine, theirs = context.Pipe()
            process = context.Process(
                target=_worker,
                args=(
                    game,
                    self._table_memory.name,
                    entries,
                    self._io_memory.name,
                    workers,
                    index,
                    theirs,
                ),
                daemon=True,
                name=f"zerosum-worker-{index}",
            )
            with sigint_held():
                process.start()
            self._pipes.append(mine)
            self._processes.append(process)
        wait_until_ready(self._pipes)

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids; with threads, this process's id (whose CPU time is
        the workers' and this thread's, which mostly waits for them)."""
        if self.threads:
            return [os.getpid()]
        return [int(process.pid) for process in self._processes]

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
        self._nodes = 0
        self._node_limit = None if limit is None else limit.nodes
        self.activity.reset()
        # Most solves are small: try here first, on the shared table, with a small budget.
        io = self._fresh()
        io[NODE_LIMIT] = min(int(io[NODE_LIMIT]), SERIAL_NODES)
        search = compiled(kernel)
        rank = search.solve(root, lo, hi, self.table[0], self.table[1], io, self._stack, self._aux)
        self._nodes = int(io[NODES])
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
        pending = enumerate(states)
        queued: list[deque[list[int]]] = [deque() for _ in range(self.workers)]
        done: dict[int, Solution] = {}
        answered = 0  # results yielded
        mean_s = 0.0  # seconds per position so far, for the size of the chunks
        solved = 0
        stopped = False

        def send(worker: int) -> None:
            while not stopped and len(queued[worker]) < _IN_FLIGHT:
                size = 1 if solved == 0 else int(_CHUNK_S / max(mean_s, 1e-6))
                chunk = list(itertools.islice(pending, max(1, min(size, _CHUNK_MAX))))
                if not chunk:
                    return
                if not queued[worker]:
                    self.activity.begin(worker)
                queued[worker].append([index for index, _ in chunk])
                values = [[int(value) for value in state] for _, state in chunk]
                self._pipes[worker].send((_SOLVE, values, lo, hi, nodes, generation))

        try:
            for worker in range(self.workers):
                send(worker)
            while any(queued):
                busy = {self._pipes[worker]: worker for worker in range(self.workers)}
                ready = wait([pipe for pipe, w in busy.items() if queued[w]], timeout=_POLL_S)
                for pipe in ready:
                    worker = busy[pipe]  # type: ignore[index]  # the pipes we waited on
                    results = self._pipes[worker].recv()
                    indices = queued[worker].popleft()
                    self.activity.end(worker, sum(result[1] for result in results))
                    if queued[worker]:
                        self.activity.begin(worker)
                    for index, (rank, searched, seconds, aborted) in zip(
                        indices, results, strict=True
                    ):
                        stats = Stats(nodes=searched, time_s=seconds)
                        done[index] = Solution(rank, stats, not aborted)
                        mean_s = (mean_s * solved + seconds) / (solved + 1)
                        solved += 1
                    send(worker)
                while answered in done:
                    solution = done.pop(answered)
                    answered += 1
                    yield solution
                    if stopped and not solution.complete:
                        return
                if not stopped and (
                    (deadline is not None and time.perf_counter() >= deadline)
                    or (limit is not None and limit.stop is not None and limit.stop())
                ):
                    stopped = True
                    self.ios[:, STOP] = 1
            if stopped and next(pending, None) is not None:
                yield Solution(0, Stats(), complete=False)  # the first one never sent
        finally:
            if any(queued):  # stopped, or the caller closed the iterator: let none run on
                self.ios[:, STOP] = 1
                for worker, chunks in enumerate(queued):
                    for _ in chunks:
                        self._pipes[worker].recv()
                    if chunks:
                        self.activity.end(worker, 0)
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
        self, state: np.ndarray[Any, Any], depth: int, *, limit: Limit | None = None
    ) -> Found:
        """A search of ``state`` to ``depth`` plies, its root split over the workers: the
        value the serial :meth:`zerosum.compiled.runner.Engine.search` gives at that depth
        (on an empty table), and a best move.

        Young brothers wait: the first move (the table's, else the kernel's best) is searched
        alone with the full window; the others then go to the workers as they come free, each
        with a null window at the best value so far, searched again with the full window when
        it fails high (principal variation search at the root)."""
        kernel, root = self.kernel, state.copy()
        started = time.perf_counter()
        self.generation += 1
        self._nodes = 0
        self._counts = [0] * (EVALUATIONS + 1)
        self._node_limit = None if limit is None or limit.nodes is None else limit.nodes
        self.activity.reset()
        decided = int(kernel.decided(root))
        if decided != NO_SCORE:
            return Found(decided, -1, Stats(nodes=1, time_s=time.perf_counter() - started))
        # The scores this position can still reach narrow the root's window, as in the serial
        # search (which then settles or fails soft at the same places).
        lo, hi = (int(end) for end in kernel.bounds(root))
        alpha, beta = max(-INF, lo), min(INF, hi)
        if alpha >= beta:
            return Found(alpha, -1, Stats(nodes=1, time_s=time.perf_counter() - started))
        moves = self._moves(root)
        if not moves:
            return Found(int(kernel.no_moves(root)), -1, Stats(nodes=1))
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
        return Found(best, move, stats)

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
        floor, beta = window
        queue: list[tuple[int, bool]] = [(0, True)]  # (move index, full window), in order
        queue += [(index, False) for index in range(1, len(moves))]
        busy: dict[int, tuple[int, int, bool]] = {}  # worker -> (move, its alpha, full window)
        best, best_at = -INF, -1
        stopping = stopped = False

        def fill() -> None:
            for worker in range(self.workers):
                if worker in busy or stopping or not queue:
                    continue
                if best_at < 0 and busy:  # young brothers wait for the first move
                    return
                index, full = queue.pop(0)
                alpha = max(best, floor)
                top = beta if full or best_at < 0 else alpha + 1
                self.ios[worker] = self._fresh()
                busy[worker] = (index, alpha, full or best_at < 0)
                self.activity.begin(worker)
                self._pipes[worker].send((_SEARCH, moves[index][1], -top, -alpha, depth - 1))

        fill()
        try:
            while busy:
                for pipe in wait([self._pipes[worker] for worker in busy], timeout=_POLL_S):
                    worker = next(w for w in busy if self._pipes[w] is pipe)
                    score = self._pipes[worker].recv()
                    index, alpha, full = busy.pop(worker)
                    self._nodes += int(self.ios[worker, NODES])
                    self.activity.end(worker, int(self.ios[worker, NODES]))
                    for slot in range(EVALUATIONS + 1):
                        self._counts[slot] += int(self.ios[worker, slot])
                    if stopping:
                        continue
                    if self.ios[worker, ABORTED] != 0:  # its node budget ran out
                        stopping = stopped = True
                        self.ios[:, STOP] = 1
                        continue
                    value = -int(score)
                    if not full and alpha < value < beta:
                        # A null window failed high: the value is a lower bound. Above the best
                        # so far, the move is the new best: search it with the full window;
                        # else test it again against the best, which rose meanwhile.
                        queue.insert(0, (index, value > best))
                        continue
                    if value > best or best_at < 0:
                        best, best_at = value, index
                    if best >= beta:  # a cutoff: the other moves cannot matter
                        stopping = True
                        self.ios[:, STOP] = 1
                if not stopping and (
                    (deadline is not None and time.perf_counter() >= deadline)
                    or (limit is not None and limit.stop is not None and limit.stop())
                ):
                    stopping = stopped = True
                    self.ios[:, STOP] = 1
                fill()
        except BaseException:
            self.ios[:, STOP] = 1
            for worker in busy:
                self._pipes[worker].recv()
            raise
        return None if stopped else (best, moves[best_at][0])

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
        below its root: the entries the workers store then carry the serial depths, and the
        entries of the first try in this process (:data:`SERIAL_NODES`) settle nodes in the
        workers too (with ``DEPTH_INF`` every one of them was too shallow at the children and
        the first tests were searched again).
        """
        queue = list(range(len(children)))
        busy: dict[int, int] = {}  # worker -> child
        answered: set[int] = set()
        best = -INF
        stopping = stopped = False

        def start(worker: int, child: int, variant: int) -> None:
            self.ios[worker] = self._fresh()
            self.ios[worker, VARIANT] = variant
            busy[worker] = child
            self.activity.begin(worker)
            message = (_SEARCH, children[child], -beta, -alpha, DEPTH_INF - 1)
            self._pipes[worker].send(message)

        def fill() -> None:
            for worker in range(self.workers):
                if worker in busy or stopping:
                    continue
                if queue:
                    start(worker, queue.pop(0), 0)
                elif busy:
                    start(worker, min(busy.values()), worker + 1)

        fill()
        try:
            while busy:
                for pipe in wait([self._pipes[worker] for worker in busy], timeout=_POLL_S):
                    worker = next(i for i, mine in enumerate(self._pipes) if mine is pipe)
                    score = self._pipes[worker].recv()
                    child = busy.pop(worker)
                    self._nodes += int(self.ios[worker, NODES])
                    self.activity.end(worker, int(self.ios[worker, NODES]))
                    if stopping or child in answered:
                        continue
                    if self.ios[worker, ABORTED] != 0:  # not stopped by us: its node budget
                        stopping = stopped = True
                        self.ios[:, STOP] = 1
                        continue
                    answered.add(child)
                    for other, searching in busy.items():
                        if searching == child:
                            self.ios[other, STOP] = 1
                    best = max(best, -score)
                    if best >= beta:
                        stopping = True
                        self.ios[:, STOP] = 1
                if not stopping and (
                    (deadline is not None and time.perf_counter() >= deadline)
                    or (limit is not None and limit.stop is not None and limit.stop())
                ):
                    stopping = stopped = True
                    self.ios[:, STOP] = 1
                fill()
        except BaseException:
            self.ios[:, STOP] = 1
            for worker in busy:
                self._pipes[worker].recv()
            raise
        return None if stopped else best

    def _fresh(self) -> np.ndarray[Any, Any]:
        fresh = new_io()
        fresh[GENERATION] = self.generation & 255
        if self._node_limit is not None:
            fresh[NODE_LIMIT] = max((self._node_limit - self._nodes) // self.workers, 1)
        return fresh

    def close(self, *, kill: bool = False) -> None:
        """Stop the workers (``kill``: at once, without letting them finish; threads are told to
        stop) and free the shared memory."""
        if kill:
            self.ios[:, STOP] = 1
        for pipe in self._pipes:
            with contextlib.suppress(BrokenPipeError, OSError):
                pipe.send(None)
        for process in self._processes:
            if self.threads:
                process.join()
                continue
            if kill:
                process.kill()
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
        del self.table, self.ios
        for memory in (self._table_memory, self._io_memory):
            if memory is not None:
                memory.close()
                memory.unlink()

    def __enter__(self) -> ParallelEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
