"""Exact solving on every core: the compiled search in worker processes sharing one table.

Python threads cannot run the search side by side, so each worker is a process. The workers
start once (``spawn``: each imports numba and loads the cached search) and are reused for every
solve until :meth:`ParallelEngine.close`.

Lazy SMP. Every worker solves the same position, all reading and writing one transposition table
in shared memory; what one proves, the others find in the table. Helpers (every worker but the
first) take the moves after the first in a rotated order near the root (``io[VARIANT]``), so
they work on different subtrees. The first worker to finish gives the answer; the others are
stopped through their ``io[STOP]`` flags, which also live in shared memory.

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
    GENERATION,
    INF,
    IO_SIZE,
    NODE_LIMIT,
    NODES,
    STOP,
    VARIANT,
    Kernel,
    new_io,
    new_stack,
    table_entries,
)
from zerosum.compiled.runner import Solution, compiled
from zerosum.search.core import Limit, Stats

_POLL_S: Final = 0.01


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
    search.solve(state, 0, 0, table[0], table[1], new_io(), stack)  # load the compiled code
    pipe.send("ready")
    while True:
        task = pipe.recv()
        if task is None:
            break
        values, lo, hi = task
        state[:] = values
        rank = search.solve(state, lo, hi, table[0], table[1], io, stack)
        pipe.send(int(rank))
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
        it: the first worker to finish answers, the others are stopped."""
        lo, hi = (-1, 1) if weak else (-INF, INF)
        if window is not None:
            lo, hi = max(lo, window[0]), min(hi, window[1])
        self.generation += 1
        fresh = new_io()
        fresh[GENERATION] = self.generation & 255
        if limit is not None and limit.nodes is not None:
            fresh[NODE_LIMIT] = max(limit.nodes // self.workers, 1)
        for index in range(self.workers):
            self.ios[index] = fresh
            self.ios[index, VARIANT] = index
        task = ([int(value) for value in state], lo, hi)
        started = time.perf_counter()
        deadline = None if limit is None or limit.time is None else started + limit.time
        for pipe in self._pipes:
            pipe.send(task)
        answer: int | None = None
        pending = list(self._pipes)
        try:
            while pending:
                for ready in wait(pending, timeout=_POLL_S):
                    index = next(i for i, pipe in enumerate(self._pipes) if pipe is ready)
                    rank = self._pipes[index].recv()
                    pending.remove(self._pipes[index])
                    if answer is None and self.ios[index, ABORTED] == 0:
                        answer = rank
                        self.ios[:, STOP] = 1
                if answer is None and (
                    (deadline is not None and time.perf_counter() >= deadline)
                    or (limit is not None and limit.stop is not None and limit.stop())
                ):
                    self.ios[:, STOP] = 1
        except BaseException:
            self.ios[:, STOP] = 1
            for pipe in pending:
                pipe.recv()
            raise
        nodes = int(self.ios[:, NODES].sum())
        stats = Stats(nodes=nodes, time_s=time.perf_counter() - started)
        if answer is None:
            return Solution(0, stats, complete=False)
        return Solution(answer, stats)

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
