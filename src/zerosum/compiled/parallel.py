"""Exact solving on every core: the compiled search in worker processes sharing one table.

Python threads cannot run the search side by side, so each worker is a process. The workers
start once (``spawn``: each imports numba and loads the cached search) and are reused for every
solve until :meth:`ParallelEngine.close`.

Root splitting. The null-window narrowing of an exact solve runs in the parent; each
null-window test hands the root's moves to the workers as they come free, best first, and the
first move that refutes the window stops the rest. A worker that finds no move left joins the
search of one still running, in a varied move order near its root (lazy SMP on that subtree,
``io[VARIANT]``): the first copy to finish answers. All workers read and write one
transposition table in shared memory, so what one proves the others find; stop flags live in
shared memory too.

Concurrent writes. Entries are two 64-bit words written without locks; a reader accepts an
entry only if ``keys[i] ^ data[i]`` equals its key (see :mod:`.engine`). Two writers racing on
one slot can leave words from different entries, which then fail that check and read as a miss.
A torn entry is never taken for another position's, so every stored bound stays true and every
worker's answer is exact: parallel and serial solves give the same rank.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import time
from multiprocessing.connection import Connection, wait
from multiprocessing.shared_memory import SharedMemory
from typing import Any, Final

import numpy as np

from zerosum.compiled import DEFAULT_HASH_MB, MAX_HASH_MB
from zerosum.compiled.engine import (
    ABORTED,
    DEPTH_INF,
    GENERATION,
    INF,
    IO_SIZE,
    NO_SCORE,
    NODE_LIMIT,
    NODES,
    STOP,
    VARIANT,
    Kernel,
    narrowed,
    new_io,
    new_stack,
    next_test,
    rank_of_lower_bound,
    score_of_rank,
    solve_bounds,
    table_entries,
)
from zerosum.compiled.runner import Solution, compiled
from zerosum.search.core import Limit, Stats

_POLL_S: Final = 0.01
SERIAL_NODES: Final = 200_000
"""A solve is first tried in the calling process with this many nodes (tens of milliseconds):
handing a small solve to the workers costs more than it saves."""


def _attach(name: str) -> SharedMemory:
    """Open shared memory that the parent owns and unlinks (a spawned child shares the
    parent's resource tracker, so attaching registers nothing new)."""
    return SharedMemory(name=name)


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
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    from zerosum.compiled.solver import compiled_game

    kernel = compiled_game(game).kernel
    search = compiled(kernel)
    table_memory, io_memory = _attach(table_name), _attach(io_name)
    table: np.ndarray[Any, Any] = np.ndarray((2, entries), np.int64, buffer=table_memory.buf)
    ios: np.ndarray[Any, Any] = np.ndarray((workers, IO_SIZE), np.int64, buffer=io_memory.buf)
    io = ios[index]
    stack = new_stack(kernel)
    state = np.zeros(kernel.state_size, np.int64)
    search.negamax(state, -INF, INF, 1, table[0], table[1], new_io(), stack)  # load the code
    pipe.send("ready")
    while True:
        task = pipe.recv()
        if task is None:
            break
        values, alpha, beta = task  # an exact search of one position in a window
        state[:] = values
        score = search.negamax(state, alpha, beta, DEPTH_INF, table[0], table[1], io, stack)
        pipe.send(int(score))
    del table, ios, io
    table_memory.close()
    io_memory.close()


class ParallelEngine:
    """Exact solves of one kernel's game by ``workers`` processes sharing one table."""

    def __init__(
        self, game: str, kernel: Kernel, *, workers: int, hash_mb: float = DEFAULT_HASH_MB
    ) -> None:
        if not 0 < hash_mb <= MAX_HASH_MB:
            raise ValueError(f"hash size {hash_mb} MB is out of range: expected 1..{MAX_HASH_MB}")
        if workers < 1:
            raise ValueError(f"{workers} workers: expected 1 or more")
        self.kernel = kernel
        self.workers = workers
        entries = table_entries(hash_mb)
        self._table_memory = SharedMemory(create=True, size=2 * entries * 8)
        self._io_memory = SharedMemory(create=True, size=workers * IO_SIZE * 8)
        self.table: np.ndarray[Any, Any] = np.ndarray(
            (2, entries), np.int64, buffer=self._table_memory.buf
        )
        self.table.fill(0)
        self.ios: np.ndarray[Any, Any] = np.ndarray(
            (workers, IO_SIZE), np.int64, buffer=self._io_memory.buf
        )
        self.generation = 0
        self._stack = new_stack(kernel)
        self._nodes = 0
        self._node_limit: int | None = None
        context = multiprocessing.get_context("spawn")
        self._pipes: list[Connection] = []
        self._processes = []
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
            process.start()
            self._pipes.append(mine)
            self._processes.append(process)
        for pipe in self._pipes:
            try:
                ready = pipe.recv()
            except EOFError:
                ready = None
            if ready != "ready":
                self.close()
                raise RuntimeError("a search worker failed to start (see its error above)")

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
        # Most solves are small: try here first, on the shared table, with a small budget.
        io = self._fresh()
        io[NODE_LIMIT] = min(int(io[NODE_LIMIT]), SERIAL_NODES)
        search = compiled(kernel)
        rank = search.solve(root, lo, hi, self.table[0], self.table[1], io, self._stack)
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

    def _expand(self, root: np.ndarray[Any, Any]) -> list[list[int]]:
        """The states after each move of ``root`` (just looked at by ``decided``), best first.
        An undecided position always has a move to search."""
        kernel = self.kernel
        moves = np.zeros(kernel.max_moves, np.int64)
        children = []
        for move in moves[: kernel.moves(root, moves)].copy():
            child = root.copy()
            kernel.play(child, move)
            children.append([int(value) for value in child])
        if not children:
            raise RuntimeError("an undecided position offered no move to search")
        return children

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
            self._pipes[worker].send((children[child], -beta, -alpha))

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

    def close(self) -> None:
        """Stop the workers and free the shared memory."""
        for pipe in self._pipes:
            with contextlib.suppress(BrokenPipeError, OSError):
                pipe.send(None)
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
        del self.table, self.ios
        self._table_memory.close()
        self._table_memory.unlink()
        self._io_memory.close()
        self._io_memory.unlink()

    def __enter__(self) -> ParallelEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
