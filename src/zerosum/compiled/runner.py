"""Running the compiled search from Python: tables, limits, statistics.

An :class:`Engine` owns one transposition table and reuses it across searches, as a player does
between moves. Under a time limit or a stop callback a search runs in a helper thread (the
compiled code releases the GIL) while the calling thread watches the clock and the callback and
raises the search's stop flag. A search that nothing can stop early runs in the calling thread,
except that in the main thread only its first :data:`INLINE_NODES` nodes do: Python handles a
signal (Ctrl-C, SIGTERM) between bytecodes, never inside compiled code, so a longer search moves
to a helper thread, where the main thread stays free to see the signal and stop it.
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
    EPOCH,
    EVALUATIONS,
    FIRST,
    GENERATION,
    HITS,
    INF,
    KEEP_PROOFS,
    LEAST,
    LIVE_SIZE,
    MOST,
    NO_SCORE,
    NODE_LIMIT,
    NODES,
    PROBES,
    RETEST,
    STALE,
    STOP,
    STORES,
    TEST,
    WINDOW_HI,
    WINDOW_LO,
    Compiled,
    Kernel,
    build,
    new_io,
    new_stack,
    solve_bounds,
    stamp_before_search,
    table_entries,
)
from zerosum.search.core import Limit, Stats

_POLL_S: Final = 0.01
NO_NODE_LIMIT: Final = int(np.iinfo(np.int64).max)
"""The largest node budget the search's ``io`` array holds: a larger one is no limit at all."""
INLINE_NODES: Final = 1_000_000
"""Nodes (about 0.1 s) that a search left without a limit runs in the main thread before it
restarts in a helper thread; the table keeps what the first try proved, so little is lost."""


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
    bounds: tuple[int, int] | None = None
    """For a solve whose window could move while it ran (``live``): the least and most the rank
    can be, as its tests proved (in a window that moved, ``rank`` alone would not say which
    window it answers)."""


@dataclass(frozen=True)
class Found:
    """The result of a depth-limited search."""

    score: int
    best_move: int
    """The best move code, or -1 if the search settled the root without trying a move."""
    stats: Stats
    complete: bool = True
    proven: bool = False
    """True when no heuristic decided the score, neither an evaluation nor a table entry that
    may hide one (:data:`~zerosum.compiled.engine.STALE`): the score is the game's value."""


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
        self._stamped = 0
        """The generation when the table was last cleared or restamped (see :meth:`search`)."""
        self._fresh_io = new_io()
        self.io = new_io()
        """The counters and controls of the current (or last) search."""

    @property
    def table_bytes(self) -> int:
        return int(self.keys.nbytes + self.data.nbytes)

    def live_nodes(self) -> int:
        """The nodes the running search (else the last one) has visited so far: the search
        counts them in its ``io`` array as it goes, so another thread may read them while it
        runs, for a progress display; the count restarts with each search or solve."""
        return int(self.io[NODES])

    def clear(self) -> None:
        """Forget every table entry."""
        self.keys[:] = 0
        self.data[:] = 0
        self._stamped = self.generation

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
        live: Callable[[], tuple[int, int] | None] | None = None,
        first: int | None = None,
        keep: bool = False,
    ) -> Solution:
        """The exact rank of ``state`` (left unchanged). ``weak`` only tells win, draw or loss;
        ``window`` ``(lo, hi)`` only tells the rank if it lies inside, else the nearer end.
        ``keep``: the table's deeper entries of earlier solves stay against this one's (for a
        solve of a position related to the earlier ones: ``engine.KEEP_PROOFS``).

        ``live``: the window may move while the solve runs: ``live()``, called every few
        milliseconds, gives the window that matters now (``None``: unchanged). The next test
        reads it, and a running test whose answer no longer matters stops and gives way to the
        next. The answer's :attr:`Solution.bounds` then say what was proven. ``first`` (with
        ``live``): the rank ``middle`` of the first null-window test ``(middle, middle + 1)``,
        if it lies inside the window (a re-search that expects the rank next to one end)."""
        lo, hi = solve_bounds(weak, window)
        io = self._io(limit)
        if keep:
            io[EPOCH] = KEEP_PROOFS
        started = time.perf_counter()
        if live is not None:
            return self._solve_live(state, weak, (lo, hi), io, limit, live, started, first)
        rank = self._run(
            lambda: self.compiled.solve(
                state.copy(), lo, hi, self.keys, self.data, io, self.buf, self.aux
            ),
            io,
            limit,
        )
        return Solution(int(rank), self._stats(io, started), complete=bool(io[ABORTED] == 0))

    def _solve_live(
        self,
        state: np.ndarray[Any, Any],
        weak: bool,
        window: tuple[int, int],
        io: np.ndarray[Any, Any],
        limit: Limit | None,
        live: Callable[[], tuple[int, int] | None],
        started: float,
        first: int | None,
    ) -> Solution:
        lo, hi = solve_bounds(weak, None)
        told = live()  # a window told before the unit ran: start in it
        if told is not None:
            window = (max(told[0], -INF), min(told[1], INF))
        slots = np.zeros(LIVE_SIZE, np.int64)
        slots[WINDOW_LO], slots[WINDOW_HI] = window
        slots[TEST] = window[0]
        slots[FIRST] = NO_SCORE if first is None else first

        def watch() -> None:
            moved = live()
            if moved is None or moved == (slots[WINDOW_LO], slots[WINDOW_HI]):
                return
            slots[WINDOW_LO], slots[WINDOW_HI] = max(moved[0], -INF), min(moved[1], INF)
            low = max(int(slots[LEAST]), lo, moved[0])
            high = min(int(slots[MOST]), hi, moved[1])
            if not low <= slots[TEST] < high and io[STOP] == 0:
                io[STOP] = RETEST  # the running test no longer matters

        rank = self._run(
            lambda: self.compiled.solve_live(
                state.copy(), lo, hi, self.keys, self.data, io, self.buf, self.aux, slots
            ),
            io,
            limit,
            watch,
        )
        return Solution(
            int(rank),
            self._stats(io, started),
            complete=bool(io[ABORTED] == 0),
            bounds=(int(slots[LEAST]), int(slots[MOST])),
        )

    def search(
        self,
        state: np.ndarray[Any, Any],
        depth: int,
        *,
        alpha: int = -INF,
        beta: int = INF,
        limit: Limit | None = None,
        epoch: int | None = None,
    ) -> Found:
        """A fail-soft alpha-beta search of ``state`` to ``depth`` plies. It reads only the
        table entries of the searches from generation ``epoch`` on (this search's own when
        ``None``; an iterative deepening passes its first iteration's, ``generation + 1`` before
        it starts), so the same search on a fresh engine gives the same result and nodes. A
        depth past the kernel's ``max_ply`` is searched as ``max_ply``: the search's stack
        holds that many plies (a game that can go on, morris, overran it), and a game that
        ends by then has the same tree."""
        depth = min(depth, self.compiled.kernel.max_ply)
        self._stamped = stamp_before_search(
            self.keys,
            self.data,
            self.generation,
            epoch,
            self.compiled.kernel.max_ply,
            self._stamped,
        )
        io = self._io(limit)
        io[EPOCH] = (self.generation if epoch is None else epoch) & 255
        started = time.perf_counter()
        score = self._run(
            lambda: self.compiled.negamax(
                state.copy(), alpha, beta, depth, self.keys, self.data, io, self.buf, self.aux
            ),
            io,
            limit,
        )
        return Found(
            int(score),
            int(io[BEST_MOVE]),
            self._stats(io, started),
            complete=bool(io[ABORTED] == 0),
            proven=bool(io[EVALUATIONS] == 0 and io[STALE] == 0),
        )

    def _io(self, limit: Limit | None) -> np.ndarray[Any, Any]:
        self.generation += 1
        io = self.io
        io[:] = self._fresh_io
        io[GENERATION] = self.generation & 255
        if limit is not None and limit.nodes is not None:
            io[NODE_LIMIT] = min(limit.nodes, NO_NODE_LIMIT)  # a budget past int64 is none
        return io

    @staticmethod
    def _run(
        call: Callable[[], int],
        io: np.ndarray[Any, Any],
        limit: Limit | None,
        watch: Callable[[], None] | None = None,
    ) -> int:
        """``call()``, in a helper thread if the clock, a callback, ``watch`` (called every
        few milliseconds) or a signal may have to stop it (``call`` searches a fresh copy of
        the state each time: a stopped search leaves its copy mid-line)."""
        if watch is None and (limit is None or (limit.time is None and limit.stop is None)):
            if threading.current_thread() is not threading.main_thread():
                return call()
            budget = int(io[NODE_LIMIT])
            io[NODE_LIMIT] = min(budget, INLINE_NODES)
            value = call()
            if io[ABORTED] == 0 or budget <= INLINE_NODES:
                return value
            io[NODE_LIMIT], io[ABORTED], io[BEST_MOVE] = budget, 0, -1
        limit = limit or Limit()
        # Events, not Thread.join: on Python 3.11 a join interrupted by Ctrl-C can mark a thread
        # that is still running as stopped, and a later join then returns at once.
        result: list[int] = []
        errors: list[BaseException] = []
        running, done = threading.Event(), threading.Event()

        def search() -> None:
            running.set()
            try:
                result.append(call())
            except BaseException as error:  # raised again below, in the caller's thread
                errors.append(error)
            finally:
                done.set()

        deadline = None if limit.time is None else time.perf_counter() + limit.time
        try:
            threading.Thread(target=search, daemon=True).start()
            while not done.wait(_POLL_S):
                if watch is not None:
                    watch()
                if (deadline is not None and time.perf_counter() >= deadline) or (
                    limit.stop is not None and limit.stop()
                ):
                    io[STOP] = 1
        except BaseException:
            # Never leave the search running: it shares this engine's table, stack and io.
            io[STOP] = 1
            if running.wait(1.0):
                while not done.wait(_POLL_S):
                    io[STOP] = 1  # again: a live solve may have cleared it with a RETEST
            raise
        if errors:  # never an answer made up of nothing (0 read as a complete, proven draw)
            raise errors[0]
        return result[0]

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
