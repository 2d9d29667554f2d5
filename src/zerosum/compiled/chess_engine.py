"""Running the compiled chess search from Python: deepening, windows, threads, reports.

:class:`CoreSearch` is the compiled twin of :class:`zerosum.search.tactical.TacticalSearch`:
the same driver (iterative deepening, aspiration windows, MultiPV, ``searchmoves``, the soft
time after which no iteration starts, the best move of an interrupted iteration) yielding the
same :class:`~zerosum.search.tactical.Report` values, so every front end that shows the
tactical search shows this one. Each root search of an iteration is one call into
:mod:`.chess_search`, run as the compiled engine runs its searches
(:meth:`zerosum.compiled.runner.Engine._run`: the GIL released, a helper thread when a clock,
a callback or Ctrl-C may have to stop it, ``io[STOP]`` raised by the watching thread).

Threads (Lazy SMP): with ``threads`` > 1 each root search also starts ``threads - 1`` helper
threads that search the same position to the same or the next depth, each with its own board,
killers and history but all with the one table, and stop when the main thread's search ends.
The helpers fill the table with results the main search then finds; only the main thread's
result is reported, and ``Limit.nodes`` counts the main thread's nodes (the statistics count
every thread's). The table is racy by design (:mod:`.engine`: a torn entry reads as a
miss), so the threads never wait on each other.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any, Final

import chess
import numpy as np

from zerosum.compiled import DEFAULT_HASH_MB, MAX_HASH_MB
from zerosum.compiled import chess_board as cb
from zerosum.compiled import chess_search as cs
from zerosum.compiled.engine import (
    ABORTED,
    CUTOFFS,
    EVALUATIONS,
    GENERATION,
    HITS,
    NODE_LIMIT,
    NODES,
    PROBES,
    SELDEPTH,
    STOP,
    STORES,
    _move,
    probe,
)
from zerosum.compiled.runner import Engine, _new_table
from zerosum.game import HEURISTIC_LIMIT, INFINITY, no_moves_error
from zerosum.games.chess import Chess
from zerosum.search.core import Limit
from zerosum.search.tactical import (
    ASPIRATION,
    ASPIRATION_GROWTH,
    MAX_DEPTH,
    Options,
    Report,
    SearchDriver,
    _incomplete,
    best_first,
)

MAX_THREADS: Final = 64
WARM_UP_POSITIONS: Final = (
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2P5/8/8/8/8/5k1p/K7 w - - 0 1",
)
"""Positions :meth:`CoreSearch.warm_up` searches: Kiwipete (castling, en passant, pins,
checks) and a race of promotions."""


class CoreSearch(SearchDriver[chess.Move]):
    """The compiled tactical search of one chess game; keep it (and its table) between moves.

    ``hash_mb`` sizes the table (16 bytes an entry, a power-of-two count), ``threads`` the
    Lazy SMP threads, ``options`` the selective techniques (:class:`Options`, all on by
    default). ``table`` is a ``(keys, data)`` pair to share with other searches instead.
    """

    def __init__(
        self,
        game: Chess,
        *,
        hash_mb: float = DEFAULT_HASH_MB,
        threads: int = 1,
        options: Options | None = None,
        table: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None,
    ) -> None:
        if not 0 < hash_mb <= MAX_HASH_MB:
            raise ValueError(f"hash size {hash_mb} MB is out of range: expected 1..{MAX_HASH_MB}")
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"{threads} threads is out of range: expected 1..{MAX_THREADS}")
        self.game = game
        self.options = options or Options()
        self.keys, self.data = table if table is not None else _new_table(hash_mb)
        self.threads = threads
        self._flags = np.array(
            [
                self.options.quiescence,
                self.options.check_extension,
                self.options.null_move,
                self.options.reductions,
                self.options.futility,
                self.options.contempt,
                self.options.singular_extension,
                self.options.correction_history,
                self.options.continuation_history,
            ],
            np.int64,
        )
        self._contexts = [
            cs.new_context(cb.new_state(), self.keys, self.data, self._flags)
            for _ in range(threads)
        ]
        self.generation = 0
        self.nodes = self.seldepth = self.cutoffs = 0
        self.tt_probes = self.tt_hits = self.tt_stores = self.evaluations = 0
        self._limit = Limit()
        self._started = 0.0
        self._partial: tuple[int, tuple[chess.Move, ...]] | None = None

    @property
    def table_bytes(self) -> int:
        return int(self.keys.nbytes + self.data.nbytes)

    def clear(self) -> None:
        """Forget the table, the killers and the history (and the correction and continuation
        histories)."""
        self.keys[:] = 0
        self.data[:] = 0
        for context in self._contexts:
            context[cs._HIST][:] = 0

    def inherit(self, other: SearchDriver[chess.Move]) -> None:
        """Take ``other``'s history (:meth:`SearchDriver.inherit`), a thread's from the thread
        of its number, or from the last if ``other`` had fewer."""
        if isinstance(other, CoreSearch):
            theirs = other._contexts
            for index, context in enumerate(self._contexts):
                mine, given = context[cs._HIST], theirs[min(index, len(theirs) - 1)][cs._HIST]
                # One of them may lack the continuation history (its option off).
                shared = min(len(mine), len(given))
                mine[:shared] = given[:shared]
                mine[shared:] = 0

    def hashfull(self) -> int:
        """The permille of table entries in use (a sample of the first thousand), as UCI's
        ``hashfull`` reports it."""
        sample = self.data[: min(1000, len(self.data))]
        return int(np.count_nonzero(sample) * 1000 // max(len(sample), 1))

    @classmethod
    def warm_up(cls) -> float:
        """Load (from numba's cache) or compile every compiled function a search calls, and
        return the seconds it took; afterwards no search pays for loading or compiling.

        A front end with a clock calls it before the clock runs (``zerosum uci`` at
        ``isready``): numba compiles a function at its first call, which no time limit can
        interrupt. Searches ``WARM_UP_POSITIONS`` to a small depth with throwaway 1 MB tables,
        and the start position stopped at its first node (the path that reports the static
        evaluation), so every function the driver calls from Python runs once. Repeated
        calls cost a few milliseconds.
        """
        started = time.perf_counter()
        for fen in WARM_UP_POSITIONS:
            cls(Chess(fen), hash_mb=1).search(Limit(depth=3))
        cls(Chess(), hash_mb=1).search(Limit(nodes=1))
        return time.perf_counter() - started

    # -- the driver ---------------------------------------------------------------------

    def iterate(
        self,
        limit: Limit | None = None,
        *,
        multipv: int = 1,
        soft_time: float | None = None,
        root_moves: Sequence[chess.Move] = (),
    ) -> Iterator[Report[chess.Move]]:
        """Deepen iteratively and yield a report per finished iteration and line, with the
        contract of :meth:`TacticalSearch.iterate` (the game is left as it was)."""
        game = self.game
        state = cb.state_of_game(game)
        # The Python twin's root order (MVV-LVA, then by code; the quiet moves by code).
        moves = game.tactical_moves() + game.quiet_moves()
        if root_moves:
            moves = [move for move in moves if move in root_moves] or moves
        if not moves:
            if game.outcome() is None:
                raise no_moves_error(game)
            raise ValueError("the game is over: there is no move to search")
        self._start(limit or Limit(), state)
        entry = probe(self.keys, self.data, state[cb.KEY])
        if entry != 0:
            first = cb.to_move(_move(entry))
            if first in moves:
                moves.remove(first)
                moves.insert(0, first)
        lines = max(1, min(multipv, len(moves)))
        last: list[Report[chess.Move]] = []
        for depth in range(1, min(self._limit.max_depth, MAX_DEPTH) + 1):
            reports: list[Report[chess.Move]] = []
            excluded: list[chess.Move] = []
            stopped = False
            for line in range(1, lines + 1):
                candidates = [move for move in moves if move not in excluded]
                previous = last[line - 1].value if len(last) >= line else None
                found = self._root(depth, candidates, previous, use_window=lines == 1)
                if found is None:
                    stopped = True
                    break
                value, pv = found
                excluded.append(pv[0])
                reports.append(self._report(depth, value, pv, line))
            if stopped:
                yield from self._stopped(depth, reports, last, moves)
                return
            reports = best_first(reports)
            yield from reports
            last = reports
            if self._deepening_ends(moves, reports[0], depth, lines, soft_time):
                return

    def _start(self, limit: Limit, state: np.ndarray[Any, Any]) -> None:
        self._reset(limit)
        self._partial = None
        self.generation += 1
        for context in self._contexts:
            context[cs._ST][:] = state
            io = context[cs._IO]
            io[:] = 0
            io[NODE_LIMIT] = np.iinfo(np.int64).max
            io[GENERATION] = self.generation & 255
            history = context[cs._HIST]
            history[: cs.HISTORY_ENTRIES] >>= 2  # the correction history is kept
            history[cs.CONTINUATION_BASE :] >>= 2  # empty with the option off
            context[cs._KILLERS][:] = -2
        if limit.nodes is not None:
            self._contexts[0][cs._IO][NODE_LIMIT] = limit.nodes

    def _root(
        self, depth: int, moves: list[chess.Move], previous: int | None, *, use_window: bool
    ) -> tuple[int, tuple[chess.Move, ...]] | None:
        """The value and PV of ``moves`` searched to ``depth`` (aspiration windows around
        ``previous`` as ``TacticalSearch._root``), or None when the limit stopped it."""
        codes = np.array([cb.from_move(move) for move in moves], np.int64)
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
                value = self._call(depth, alpha, beta, codes)
                if value is None:
                    return None
                if alpha < value < beta:
                    return value, self._pv()
                delta *= ASPIRATION_GROWTH
                if value <= alpha:
                    alpha = max(value - delta, -INFINITY) if delta < 1000 else -INFINITY
                else:
                    beta = min(value + delta, INFINITY) if delta < 1000 else INFINITY
        value = self._call(depth, -INFINITY, INFINITY, codes)
        return None if value is None else (value, self._pv())

    def _call(self, depth: int, alpha: int, beta: int, codes: np.ndarray[Any, Any]) -> int | None:
        """One compiled root search, with the Lazy SMP helpers; None if it was stopped."""
        main = self._contexts[0]
        io = main[cs._IO]

        def search() -> int:
            helpers = []
            for index, context in enumerate(self._contexts[1:], start=1):
                context[cs._IO][STOP] = 0
                context[cs._IO][ABORTED] = 0
                helper = threading.Thread(
                    target=cs.root,
                    args=(context, depth + (index & 1), -INFINITY, INFINITY, codes, len(codes)),
                    daemon=True,
                )
                helper.start()
                helpers.append(helper)
            try:
                return int(cs.root(main, depth, alpha, beta, codes, len(codes)))
            finally:
                for context in self._contexts[1:]:
                    context[cs._IO][STOP] = 1
                for helper in helpers:
                    helper.join()

        budget = int(io[NODE_LIMIT])
        value = Engine._run(search, io, self._limit.since(self._started))
        io[NODE_LIMIT] = budget  # _run caps a search in the main thread: not the next one
        self._collect()
        if io[ABORTED]:
            if io[cs.PARTIAL_MOVE] >= 0:
                move = cb.to_move(int(io[cs.PARTIAL_MOVE]))
                self._partial = (int(io[cs.PARTIAL_SCORE]), (move,))
            return None
        self._partial = None
        return value

    def _collect(self) -> None:
        """The statistics of every thread so far."""
        ios = [context[cs._IO] for context in self._contexts]
        self.nodes = sum(int(io[NODES]) for io in ios)
        self.cutoffs = sum(int(io[CUTOFFS]) for io in ios)
        self.tt_probes = sum(int(io[PROBES]) for io in ios)
        self.tt_hits = sum(int(io[HITS]) for io in ios)
        self.tt_stores = sum(int(io[STORES]) for io in ios)
        self.evaluations = sum(int(io[EVALUATIONS]) for io in ios)
        self.seldepth = int(ios[0][SELDEPTH])

    def _pv(self) -> tuple[chess.Move, ...]:
        """The main thread's principal variation, followed on through the table."""
        main = self._contexts[0]
        pv, length = main[cs._PV][0], int(main[cs._PVLEN][0])
        out = np.zeros(MAX_DEPTH, np.int64)
        count = cs.table_line(
            main[cs._ST], self.keys, self.data, pv, min(length, MAX_DEPTH), MAX_DEPTH, out
        )
        return tuple(cb.to_move(int(code)) for code in out[:count])

    def _report(
        self, depth: int, value: int, pv: tuple[chess.Move, ...], line: int
    ) -> Report[chess.Move]:
        return Report(depth, self.seldepth, value, pv, self.nodes, self._elapsed(), line)

    def _stopped(
        self,
        depth: int,
        reports: list[Report[chess.Move]],
        last: list[Report[chess.Move]],
        moves: list[chess.Move],
    ) -> Iterator[Report[chess.Move]]:
        """The last report of a stopped search (``TacticalSearch``'s rules): finished lines
        of the interrupted iteration, else the move it proved better than the last best, else
        the last iteration's, else a first move with the static evaluation."""
        nodes, seconds = self.nodes, self._elapsed()
        if reports:
            yield _incomplete(reports[0], nodes, seconds)
        elif self._partial is not None and (not last or self._partial[1][:1] != last[0].pv[:1]):
            value, pv = self._partial
            yield Report(depth, self.seldepth, value, pv, nodes, seconds, complete=False)
        elif last:
            yield _incomplete(last[0], nodes, seconds)
        else:
            state = self._contexts[0][cs._ST]
            yield Report(
                0, self.seldepth, cb.evaluate(state), (moves[0],), nodes, seconds, complete=False
            )
