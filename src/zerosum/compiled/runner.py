"""Running the compiled search from Python: tables, limits, statistics.

An :class:`Engine` owns one transposition table and reuses it across searches, as a player does
between moves. Searches run in the calling thread when nothing can stop them early; under a
time limit or a stop callback they run in a helper thread (the compiled code releases the GIL)
while the calling thread watches the clock and the callback and raises the search's stop flag.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import numpy as np

from zerosum.compiled import DEFAULT_HASH_MB, MAX_HASH_MB
from zerosum.compiled.engine import (
    ABORTED,
    BEST_MOVE,
    CUTOFFS,
    EVALUATIONS,
    GENERATION,
    HITS,
    INF,
    NODE_LIMIT,
    NODES,
    PROBES,
    STOP,
    STORES,
    Compiled,
    Kernel,
    build,
    new_io,
    new_stack,
    solve_bounds,
    table_entries,
)
from zerosum.search.core import Limit, Stats

_POLL_S: Final = 0.01


@cache
def compiled(kernel: Kernel) -> Compiled:
    """The search compiled for ``kernel`` (once per process; numba caches it on disk)."""
    return build(kernel)


@dataclass(frozen=True)
class Solution:
    """The result of an exact solve."""

    rank: int
    """The kernel's rank of the position for the side to move (0 a draw); for a weak solve
    -1, 0 or 1."""
    stats: Stats
    complete: bool = True
    """False when a limit stopped the solve: ``rank`` is then meaningless."""


@dataclass(frozen=True)
class Found:
    """The result of a depth-limited search."""

    score: int
    best_move: int
    """The best move code, or -1 if the search settled the root without trying a move."""
    stats: Stats
    complete: bool = True


def _new_table(hash_mb: float) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Empty ``keys`` and ``data`` arrays of :func:`.engine.table_entries` entries, as two
    strided views of one array in which an entry's key word and data word are neighbours: a
    probe then reads one cache line (a bucket, two entries, is 32 bytes) instead of one line in
    each of two arrays, which makes the memory-bound search 5-10% faster (the same entries and
    replacements, so the same node counts)."""
    pairs = np.zeros((table_entries(hash_mb), 2), np.int64)
    pairs.fill(0)  # touch every page now rather than inside the first searches
    return pairs[:, 0], pairs[:, 1]


class Engine:
    """A compiled searcher for one kernel's game, with its own transposition table."""

    def __init__(self, kernel: Kernel, *, hash_mb: float = DEFAULT_HASH_MB) -> None:
        if not 0 < hash_mb <= MAX_HASH_MB:
            raise ValueError(f"hash size {hash_mb} MB is out of range: expected 1..{MAX_HASH_MB}")
        self.kernel = kernel
        self.compiled = compiled(kernel)
        self.keys, self.data = _new_table(hash_mb)
        self.buf = new_stack(kernel)
        self.aux = kernel.load_aux()
        """What the kernel's ``probe`` reads (its endgame databases, say)."""
        self.generation = 0
        self._fresh_io = new_io()
        self.io = new_io()
        """The counters and controls of the current (or last) search."""

    @property
    def table_bytes(self) -> int:
        return int(self.keys.nbytes + self.data.nbytes)

    def clear(self) -> None:
        """Forget every table entry."""
        self.keys[:] = 0
        self.data[:] = 0

    def state(self, values: list[int] | np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """A state array for this kernel from its fields."""
        state = np.zeros(self.kernel.state_size, np.int64)
        state[: len(values)] = values
        return state

    def solve(
        self,
        state: np.ndarray[Any, Any],
        *,
        weak: bool = False,
        window: tuple[int, int] | None = None,
        limit: Limit | None = None,
    ) -> Solution:
        """The exact rank of ``state`` (left unchanged). ``weak`` only tells win, draw or loss;
        ``window`` ``(lo, hi)`` only tells the rank if it lies inside, else the nearer end."""
        lo, hi = solve_bounds(weak, window)
        io = self._io(limit)
        work = state.copy()
        started = time.perf_counter()
        rank = self._run(
            lambda: self.compiled.solve(work, lo, hi, self.keys, self.data, io, self.buf, self.aux),
            io,
            limit,
        )
        return Solution(int(rank), self._stats(io, started), complete=bool(io[ABORTED] == 0))

    def search(
        self,
        state: np.ndarray[Any, Any],
        depth: int,
        *,
        alpha: int = -INF,
        beta: int = INF,
        limit: Limit | None = None,
    ) -> Found:
        """A fail-soft alpha-beta search of ``state`` to ``depth`` plies."""
        io = self._io(limit)
        work = state.copy()
        started = time.perf_counter()
        score = self._run(
            lambda: self.compiled.negamax(
                work, alpha, beta, depth, self.keys, self.data, io, self.buf, self.aux
            ),
            io,
            limit,
        )
        return Found(
            int(score),
            int(io[BEST_MOVE]),
            self._stats(io, started),
            complete=bool(io[ABORTED] == 0),
        )

    def _io(self, limit: Limit | None) -> np.ndarray[Any, Any]:
        self.generation += 1
        io = self.io
        io[:] = self._fresh_io
        io[GENERATION] = self.generation & 255
        if limit is not None and limit.nodes is not None:
            io[NODE_LIMIT] = limit.nodes
        return io

    @staticmethod
    def _run(call: Callable[[], int], io: np.ndarray[Any, Any], limit: Limit | None) -> int:
        """``call()``, in a helper thread if the clock or a callback may have to stop it."""
        if limit is None or (limit.time is None and limit.stop is None):
            return call()
        result: list[int] = []
        worker = threading.Thread(target=lambda: result.append(call()), daemon=True)
        deadline = None if limit.time is None else time.perf_counter() + limit.time
        worker.start()
        try:
            while worker.is_alive():
                worker.join(_POLL_S)
                if (deadline is not None and time.perf_counter() >= deadline) or (
                    limit.stop is not None and limit.stop()
                ):
                    io[STOP] = 1
        except BaseException:
            io[STOP] = 1
            worker.join()
            raise
        return result[0] if result else 0

    @staticmethod
    def _stats(io: np.ndarray[Any, Any], started: float) -> Stats:
        return Stats(
            nodes=int(io[NODES]),
            cutoffs=int(io[CUTOFFS]),
            tt_probes=int(io[PROBES]),
            tt_hits=int(io[HITS]),
            tt_stores=int(io[STORES]),
            evaluations=int(io[EVALUATIONS]),
            time_s=time.perf_counter() - started,
        )
