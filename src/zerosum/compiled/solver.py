"""Solving and searching protocol games with the compiled engine.

A :class:`Solver` connects a registered game to its kernel: it builds the kernel's state from a
:class:`zerosum.game.Game`, runs exact solves (optionally through a :class:`~zerosum.store.Store`
of proven results) and iterative-deepening searches, and reports in the foundation's terms
(:class:`~zerosum.search.SearchResult`, values in ``mission.md``'s convention). Moves are the
game's own; the kernels use the same integers (a column, a cell).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from zerosum.compiled import DEFAULT_HASH_MB, NotCompiledError
from zerosum.compiled.engine import PROVEN, table_move
from zerosum.compiled.kernels import check_contract, check_move_codes, compiled_game
from zerosum.compiled.parallel import ParallelEngine
from zerosum.compiled.runner import Engine, Solution
from zerosum.game import Game, Score, terminal_score
from zerosum.games import get_game
from zerosum.games.connect4_book import book_for
from zerosum.search.core import Limit, SearchResult, Stats
from zerosum.store import Store


def rank_of(score: int) -> int:
    """The rank of an exact engine score (0 for a draw)."""
    if score > PROVEN:
        return score - PROVEN
    if score < -PROVEN:
        return score + PROVEN
    return 0


@dataclass(frozen=True)
class Exact:
    """An exact result for the side to move."""

    rank: int
    """The game's own score: Pons's for connect four; -1/0/1 after a weak solve."""
    value: Score
    """The same as a search value (``mission.md``); after a weak solve only its sign counts."""
    stats: Stats
    complete: bool = True
    """False when a limit stopped the solve (then ``rank`` and ``value`` mean nothing)."""
    stored: bool = False
    """True when the result came from the store."""
    book: bool = False
    """True when the result came from the game's opening book (no search: no nodes)."""


class Solver:
    """The compiled engine for one game, with its table (and optionally a store) kept across
    calls. With ``workers`` > 1, exact solves run in that many worker threads sharing one table
    (:mod:`.parallel`; the compiled search releases the GIL); call :meth:`close` (or use
    ``with``) to stop them."""

    def __init__(
        self,
        game: str,
        *,
        hash_mb: float = DEFAULT_HASH_MB,
        store: Store | None = None,
        workers: int = 1,
        book: bool = True,
    ) -> None:
        self.name = game
        self.compiled = compiled_game(game)
        self.engine = Engine(self.compiled.kernel, hash_mb=hash_mb if workers == 1 else 1)
        check_contract(game, self.compiled, get_game(game).new())
        self.exact: Engine | ParallelEngine = self.engine
        """What runs exact solves: the engine, or the workers."""
        if workers > 1:
            self.exact = ParallelEngine(
                game, self.compiled.kernel, workers=workers, hash_mb=hash_mb
            )
        self.store = store
        self.book = book_for(game) if book else None
        """The game's opening book (:mod:`zerosum.games.connect4_book`), asked before any
        search and before the store; ``None``: no book (``book=False``, or the game has none)."""

    def live_nodes(self) -> int | None:
        """The nodes the running exact solve has visited so far (see
        :meth:`~zerosum.compiled.runner.Engine.live_nodes`), for a progress display read from
        another thread; ``None`` with workers, whose counts are gathered only as they finish."""
        return self.exact.live_nodes() if isinstance(self.exact, Engine) else None

    def close(self) -> None:
        """Stop the workers, if any."""
        if isinstance(self.exact, ParallelEngine):
            self.exact.close()
            self.exact = self.engine

    def __enter__(self) -> Solver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def state(self, game: Game[Any]) -> np.ndarray[Any, Any]:
        return self.engine.state(self.compiled.state(game))

    def _check_exact(self) -> None:
        if not self.compiled.exact:
            raise NotCompiledError(
                f"the compiled engine cannot solve {self.name} exactly (play may never end): "
                "expected a depth- or time-limited search (analyze --algorithm compiled)"
            )

    def solve(self, game: Game[Any], *, weak: bool = False, limit: Limit | None = None) -> Exact:
        """The exact result of ``game`` (``weak``: only win, draw or loss)."""
        self._check_exact()
        outcome = game.outcome()
        if outcome is not None:  # decided by the game: the loss (or draw) for the side to move
            final = self._terminal_rank(game)
            if weak:
                final = (final > 0) - (final < 0)
            return Exact(final, terminal_score(outcome, 0), Stats())
        if self.book is not None:
            known = self.book.score(game)
            if known is not None:
                return self._exact(game, known, Stats(), weak=weak, book=True)
        key = self.compiled.canonical_key(game) if self.store is not None else 0
        if self.store is not None:
            rank = self.store.get(self.name, key, weak=weak)
            if rank is not None:
                return self._exact(game, rank, Stats(), weak=weak, stored=True)
        solution = self.exact.solve(self.state(game), weak=weak, limit=limit)
        if solution.complete and self.store is not None:
            self.store.put(self.name, key, solution.rank, weak=weak)
        return self._exact(
            game, solution.rank, solution.stats, weak=weak, complete=solution.complete
        )

    def solve_many(
        self, games: Sequence[Game[Any]], *, weak: bool = False, limit: Limit | None = None
    ) -> Generator[Exact, None, None]:
        """The exact result of each of ``games``, as :meth:`solve` gives it, yielded in their
        order as soon as each is known: with workers, each worker solves whole positions
        (:meth:`ParallelEngine.solve_many`), else they are solved one after the other. The
        time limit and the stop callback cover the whole batch: the first position they leave
        unsolved comes back incomplete and the iteration ends; a node limit applies to each
        position."""
        self._check_exact()  # now, not when the first result is asked for
        return self._solve_many(games, weak=weak, limit=limit)

    def _solve_many(
        self, games: Sequence[Game[Any]], *, weak: bool, limit: Limit | None
    ) -> Generator[Exact, None, None]:
        started = time.perf_counter()
        known: dict[int, Exact] = {}  # finished games and stored results, by index
        searched: list[tuple[int, np.ndarray[Any, Any]]] = []
        for index, game in enumerate(games):
            outcome = game.outcome()
            if outcome is not None:
                final = self._terminal_rank(game)
                if weak:
                    final = (final > 0) - (final < 0)
                known[index] = Exact(final, terminal_score(outcome, 0), Stats())
                continue
            rank = self._stored(game, weak=weak)
            if rank is not None:
                known[index] = self._exact(game, rank, Stats(), weak=weak, stored=True)
            else:
                searched.append((index, self.state(game)))
        states = [state for _, state in searched]
        if isinstance(self.exact, ParallelEngine):
            solutions = self.exact.solve_many(states, weak=weak, limit=limit)
        else:
            solutions = self._solve_serially(states, weak=weak, limit=limit, started=started)
        try:
            for index, game in enumerate(games):
                if index in known:
                    yield known[index]
                    continue
                solution = next(solutions, None)
                if solution is None:  # a limit ended the batch before this position
                    yield Exact(0, 0, Stats(), complete=False)
                    return
                if solution.complete and self.store is not None:
                    key = self.compiled.canonical_key(game)
                    self.store.put(self.name, key, solution.rank, weak=weak)
                yield self._exact(
                    game, solution.rank, solution.stats, weak=weak, complete=solution.complete
                )
                if not solution.complete and _remaining(limit, started) is None:
                    return
        finally:
            solutions.close()

    def _solve_serially(
        self,
        states: list[np.ndarray[Any, Any]],
        *,
        weak: bool,
        limit: Limit | None,
        started: float,
    ) -> Generator[Solution, None, None]:
        """:meth:`solve_many` on this process's engine: one position after the other."""
        for state in states:
            left = _remaining(limit, started)
            if left is None:
                return
            solution = self.engine.solve(state, weak=weak, limit=left)
            yield solution
            if not solution.complete and _remaining(limit, started) is None:
                return

    def _exact(
        self,
        game: Game[Any],
        rank: int,
        stats: Stats,
        *,
        weak: bool,
        complete: bool = True,
        stored: bool = False,
        book: bool = False,
    ) -> Exact:
        if weak:
            rank = (rank > 0) - (rank < 0)
        value = rank if weak or not complete else self.compiled.value(rank, game.ply())
        return Exact(rank, value, stats, complete, stored, book)

    def move_results(
        self,
        game: Game[Any],
        *,
        weak: bool = False,
        limit: Limit | None = None,
        on_move: Callable[[Any, Exact], None] | None = None,
    ) -> list[tuple[Any, Exact]]:
        """Every legal move with the exact result it leads to, from the side to move (stops
        early, with the moves done so far, when a limit stops a solve)."""
        started = time.perf_counter()
        results: list[tuple[Any, Exact]] = []
        for move in game.legal_moves():
            game.make(move)
            try:
                outcome = game.outcome()
                if outcome is not None:
                    rank = self._terminal_rank(game)
                    child = Exact(rank, terminal_score(outcome, 0), Stats())
                else:
                    child_limit = None if limit is None else limit.since(started)
                    child = self.solve(game, weak=weak, limit=child_limit)
            finally:
                game.undo()
            if not child.complete:
                break
            mine = self._exact(
                game, -child.rank, child.stats, weak=weak, stored=child.stored, book=child.book
            )
            results.append((move, mine))
            if on_move is not None:
                on_move(move, mine)
        return results

    def best_moves(self, game: Game[Any], rank: int, *, weak: bool = False) -> list[Any]:
        """The moves that keep the exact result ``rank`` of ``game`` (one null-window search
        per move instead of a full solve)."""
        best = self.best_moves_within(game, rank, weak=weak)
        assert best is not None, "a solve without a limit always finishes"
        return best

    def best_moves_within(
        self, game: Game[Any], rank: int, *, weak: bool = False, limit: Limit | None = None
    ) -> list[Any] | None:
        """:meth:`best_moves` under ``limit`` (its time counts for all the moves together):
        None if the limit stopped it first."""
        return self.best_moves_search(game, rank, weak=weak, limit=limit)[0]

    def best_moves_search(
        self,
        game: Game[Any],
        rank: int,
        *,
        weak: bool = False,
        limit: Limit | None = None,
        first_only: bool = False,
    ) -> tuple[list[Any] | None, Stats]:
        """:meth:`best_moves_within`, with what its searches cost: their nodes, and the
        seconds of the whole call (also when the limit stopped it). With ``first_only`` it
        stops at the first best move, trying the table's move for ``game`` first (after a solve
        of ``game`` it is usually one). With a store, every move a search proves best has its
        position's result stored (``-rank``: it keeps the best result), so that the store
        knows a best move of ``game`` from then on (:meth:`known_best_moves`)."""
        self._check_exact()
        started = time.perf_counter()
        best: list[Any] = []
        nodes = 0

        def cost() -> Stats:
            return Stats(nodes=nodes, time_s=time.perf_counter() - started)

        moves = list(game.legal_moves())
        if first_only:
            hinted = table_move(*self._table(), self.compiled.kernel.key(self.state(game)))
            if hinted in moves:
                moves.remove(hinted)
                moves.insert(0, hinted)
        for move in moves:
            game.make(move)
            try:
                searched = False
                outcome = game.outcome()
                if outcome is not None:
                    child = self._terminal_rank(game)
                else:
                    known = self._stored(game, weak=weak)
                    if known is not None:
                        child = known
                    else:  # one null window: is the child's rank at most -rank?
                        left = _remaining(limit, started)
                        if left is None:
                            return None, cost()
                        window = (-rank, -rank + 1)
                        state = self.state(game)
                        solution = self.exact.solve(state, weak=weak, window=window, limit=left)
                        nodes += solution.stats.nodes
                        if not solution.complete:
                            return None, cost()
                        child, searched = solution.rank, True
                if weak:  # a finished child's rank and a windowed solve's bound are strong
                    child = (child > 0) - (child < 0)
                if -child >= rank and searched and self.store is not None:
                    # At most -rank (the window) and at least -rank (``rank`` is the best of
                    # the moves): exactly -rank.
                    key = self.compiled.canonical_key(game)
                    self.store.put(self.name, key, -rank, weak=weak)
            finally:
                game.undo()
            if -child >= rank:
                best.append(move)
                if first_only:
                    break
        return best, cost()

    def known_best_moves(self, game: Game[Any], rank: int, *, weak: bool = False) -> list[Any]:
        """The moves of ``game`` that the opening book, the store or the game's end shows to
        keep its result ``rank``, without a search (possibly not all its best moves; none when
        nothing is known)."""
        known: list[Any] = []
        for move in game.legal_moves():
            game.make(move)
            try:
                if game.outcome() is not None:
                    child: int | None = self._terminal_rank(game)
                else:
                    child = self._stored(game, weak=weak)
            finally:
                game.undo()
            if child is not None and weak:
                child = (child > 0) - (child < 0)
            if child is not None and -child >= rank:
                known.append(move)
        return known

    def _stored(self, game: Game[Any], *, weak: bool) -> int | None:
        """The rank the opening book or the store knows (weak: its sign), else ``None``."""
        if self.book is not None:
            known = self.book.score(game)
            if known is not None:
                return (known > 0) - (known < 0) if weak else known
        if self.store is None:
            return None
        return self.store.get(self.name, self.compiled.canonical_key(game), weak=weak)

    def build_book(
        self,
        game: Game[Any],
        plies: int,
        *,
        weak: bool = False,
        limit: Limit | None = None,
        on_position: Callable[[Game[Any], Exact], None] | None = None,
    ) -> bool:
        """Solve every position up to ``plies`` moves after ``game`` into the store, deepest
        first (their table entries help the shallower ones); positions already stored are
        skipped, so an interrupted build resumes, and a position whose every move leads to a
        known result (stored, in the book, or the game's end) takes the best of them without a
        search. A position solved by a search also gets one best move proven (its result
        stored, :meth:`best_moves_search`), so that the store can answer it in play, not only
        score it. Returns False if a limit stopped it."""
        if self.store is None:
            raise ValueError("building a book needs a store")
        started = time.perf_counter()
        layers = self.book_layers(game, plies, stopped=lambda: _remaining(limit, started) is None)
        if layers is None:
            return False
        for layer in reversed(layers):
            for position in layer:
                remaining = _remaining(limit, started)
                if remaining is None:
                    return False
                exact = self._from_moves(position, weak=weak)
                if exact is None:
                    exact = self.solve(position, weak=weak, limit=remaining)
                if not exact.complete:
                    return False
                if not self.known_best_moves(position, exact.rank, weak=weak):
                    left = _remaining(limit, started)
                    if left is None:
                        return False
                    best, cost = self.best_moves_search(
                        position, exact.rank, weak=weak, limit=left, first_only=True
                    )
                    if best is None:
                        return False
                    spent = Stats(
                        nodes=exact.stats.nodes + cost.nodes,
                        time_s=exact.stats.time_s + cost.time_s,
                    )
                    exact = dataclasses.replace(exact, stats=spent)
                if on_position is not None:
                    on_position(position, exact)
        return True

    def book_layers(
        self, game: Game[Any], plies: int, *, stopped: Callable[[], bool] | None = None
    ) -> list[list[Game[Any]]] | None:
        """The positions of a book: ``game``, then layer by layer every position up to
        ``plies`` moves after it that is not over, each once (transpositions and symmetric
        twins share a canonical key). ``None`` if ``stopped`` said so first."""
        layers: list[list[Game[Any]]] = [[game.copy()]]
        seen = {self.compiled.canonical_key(game)}
        for _ in range(plies):
            layer = []
            for parent in layers[-1]:
                if stopped is not None and stopped():
                    return None
                for move in parent.legal_moves():
                    child = parent.copy()
                    child.make(move)
                    key = self.compiled.canonical_key(child)
                    if key not in seen and child.outcome() is None:
                        seen.add(key)
                        layer.append(child)
            layers.append(layer)
        return layers

    def _from_moves(self, game: Game[Any], *, weak: bool) -> Exact | None:
        """The result of ``game`` as the best of its moves' known results, stored at once;
        ``None`` (nothing stored) unless every move's result is known, or if ``game`` itself is
        stored or in the book (then :meth:`solve` answers it as such)."""
        assert self.store is not None
        if self._stored(game, weak=weak) is not None:
            return None
        best: int | None = None
        for move in game.legal_moves():
            game.make(move)
            try:
                if game.outcome() is not None:
                    child: int | None = self._terminal_rank(game)
                    if weak and child is not None:
                        child = (child > 0) - (child < 0)
                else:
                    child = self._stored(game, weak=weak)
            finally:
                game.undo()
            if child is None:
                return None
            best = -child if best is None else max(best, -child)
        if best is None:
            return None
        self.store.put(self.name, self.compiled.canonical_key(game), best, weak=weak)
        return self._exact(game, best, Stats(), weak=weak)

    def _terminal_rank(self, game: Game[Any]) -> int:
        """The rank of a finished position, for the side to move in it."""
        state = self.state(game)
        return rank_of(int(self.compiled.kernel.decided(state)))

    def search(
        self,
        game: Game[Any],
        *,
        limit: Limit | None = None,
        on_iteration: Callable[[SearchResult[Any]], None] | None = None,
    ) -> SearchResult[Any]:
        """Iterative deepening under ``limit`` until an iteration proves the value."""
        limit = limit or Limit()
        outcome = game.outcome()
        if outcome is not None:
            return SearchResult(terminal_score(outcome, 0), None, (), (), 0, Stats(), solved=True)
        state = self.state(game)
        legal = game.legal_moves()
        started = time.perf_counter()
        totals = [0] * 6
        epoch = self.exact.generation + 1  # the first iteration's: see Engine.search
        last: SearchResult[Any] | None = None
        for depth in range(1, min(limit.max_depth, self.compiled.kernel.max_ply) + 1):
            remaining = None
            if limit.time is not None:
                remaining = limit.time - (time.perf_counter() - started)
                if remaining <= 0:
                    break
            if limit.nodes is not None and totals[0] >= limit.nodes:
                break  # each iteration polls its own limit only every 1,024 nodes
            found = self.exact.search(
                state,
                depth,
                limit=Limit(
                    nodes=None if limit.nodes is None else max(limit.nodes - totals[0], 1),
                    time=remaining,
                    stop=limit.stop,
                ),
                epoch=epoch,
            )
            stats = found.stats
            for index, count in enumerate(
                (
                    stats.nodes,
                    stats.cutoffs,
                    stats.tt_probes,
                    stats.tt_hits,
                    stats.tt_stores,
                    stats.evaluations,
                )
            ):
                totals[index] += count
            if not found.complete:
                break
            if found.best_move >= 0:
                check_move_codes(self.name, game, [found.best_move], every=False)
            move = found.best_move if found.best_move >= 0 else legal[0]  # -1: settled untried
            value = self._value(found.score, game.ply())
            last = SearchResult(
                value=value,
                best_move=move,
                best_moves=(move,),
                pv=self._pv(game, move, depth),
                depth=depth,
                stats=self._total(totals, started),
                solved=found.proven,
            )
            if on_iteration is not None:
                on_iteration(last)
            if last.solved:
                return last
        if last is None:
            return SearchResult(
                0,
                legal[0],
                (legal[0],),
                (legal[0],),
                0,
                self._total(totals, started),
                complete=False,
            )
        return SearchResult(
            last.value,
            last.best_move,
            last.best_moves,
            last.pv,
            last.depth,
            self._total(totals, started),
            complete=limit.max_depth <= last.depth,
            solved=last.solved,
        )

    def _table(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """The ``keys`` and ``data`` arrays of the table that searches use."""
        if isinstance(self.exact, ParallelEngine):
            return self.exact.table[0], self.exact.table[1]
        return self.engine.keys, self.engine.data

    def _value(self, score: int, ply: int) -> Score:
        """An engine score as a search value: exact ranks converted, heuristics kept."""
        rank = rank_of(score)
        return self.compiled.value(rank, ply) if rank else score

    def _pv(self, game: Game[Any], first: Any, depth: int) -> tuple[Any, ...]:
        """The best move, then the table's best moves while they are legal."""
        line = [first]
        game.make(first)
        try:
            while len(line) < depth and game.outcome() is None:
                key = self.compiled.kernel.key(self.state(game))
                move = table_move(*self._table(), key)
                if move not in game.legal_moves():
                    break
                game.make(move)
                line.append(move)
        finally:
            for _ in line:
                game.undo()
        return tuple(line)

    @staticmethod
    def _total(totals: list[int], started: float) -> Stats:
        nodes, cutoffs, probes, hits, stores, evaluations = totals
        return Stats(
            nodes, cutoffs, probes, hits, stores, evaluations, time.perf_counter() - started
        )


def _remaining(limit: Limit | None, started: float) -> Limit | None:
    """What is left of ``limit`` (its time counted from ``started``), or None once it is spent:
    time up or the stop callback raised."""
    if limit is None:
        return Limit()
    if limit.stop is not None and limit.stop():
        return None
    if limit.time is None:
        return limit
    left = limit.time - (time.perf_counter() - started)
    if left <= 0:
        return None
    return Limit(nodes=limit.nodes, time=left, stop=limit.stop)
