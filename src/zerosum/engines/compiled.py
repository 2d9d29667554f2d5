"""The compiled engine: numba alpha-beta on the game's kernel (:mod:`zerosum.compiled`).

The fastest engine for games whose spec names a kernel; its table (and optional store of
proven results) lives as long as the engine. Exact solves narrow the value with null windows as
Pons's solver does; ``workers`` > 1 runs them in threads sharing one table. Importing this
module imports numba.
"""

from __future__ import annotations

import time
from typing import Any

from zerosum.compiled import DEFAULT_HASH_MB
from zerosum.compiled.solver import Exact, Solver
from zerosum.engines.base import Engine, OnIteration, at_depth, no_moves
from zerosum.game import Game
from zerosum.search.core import Limit, SearchResult, Stats
from zerosum.store import Store


class CompiledEngine(Engine):
    """The compiled engine for the registered game ``game`` (a name: ``connect4``)."""

    name = "compiled"

    def __init__(
        self,
        game: str,
        *,
        hash_mb: float = DEFAULT_HASH_MB,
        store: Store | None = None,
        workers: int = 1,
    ) -> None:
        self.solver = Solver(game, hash_mb=hash_mb, store=store, workers=workers)
        """The compiled solver, for what only it offers (weak solves, ranks, books)."""
        self.exact = self.solver.compiled.exact

    def search(
        self,
        game: Game[Any],
        limit: Limit | None = None,
        *,
        on_iteration: OnIteration | None = None,
    ) -> SearchResult[Any]:
        return self.solver.search(game, limit=limit, on_iteration=on_iteration)

    def solve(self, game: Game[Any], *, limit: Limit | None = None) -> SearchResult[Any]:
        """The exact value, then every move's (one solve each), as the pure-Python ``solve``
        reports them; the limit covers all of it."""
        if game.outcome() is not None:
            self.solver.solve(game)  # refuses a game the kernel cannot solve exactly
            return no_moves(game)
        started = time.perf_counter()
        exact = self.solver.solve(game, limit=limit)
        if not exact.complete:
            return _unfinished(game, exact.stats)
        results = self.solver.move_results(
            game, limit=None if limit is None else limit.since(started)
        )
        stats = _sum([exact.stats, *(r.stats for _, r in results)], started)
        if len(results) < len(game.legal_moves()):
            return _unfinished(game, stats)
        best = tuple(move for move, r in results if r.rank == exact.rank)
        return SearchResult(
            value=exact.value,
            best_move=best[0],
            best_moves=best,
            pv=best[:1],
            depth=0,
            stats=stats,
            move_values=tuple((move, r.value) for move, r in results),
            solved=True,
        )

    def _best_moves(
        self, game: Game[Any], depth: int, seed: int | None, limit: Limit | None
    ) -> SearchResult[Any]:
        if depth == 0 and self.exact:
            started = time.perf_counter()
            exact = self.solver.solve(game, limit=limit)
            found = None
            if exact.complete and (exact.book or exact.stored):
                # The book or the store may know only some best moves (a book built by
                # ``zerosum book`` proves one for each deeper position): play among those at
                # once rather than prove the others.
                found = self.solver.known_best_moves(game, exact.rank) or None
            if exact.complete and found is None:
                found = self.solver.best_moves_within(
                    game, exact.rank, limit=None if limit is None else limit.since(started)
                )
            if found is None:  # stopped before the best moves were known
                return SearchResult(
                    0, None, (), (), 0, _sum([exact.stats], started), complete=False
                )
            best = tuple(found)
            return SearchResult(
                exact.value,
                best[0] if best else None,
                best,
                best[:1],
                0,
                _sum([exact.stats], started),
                solved=True,
            )
        return self.solver.search(game, limit=at_depth(limit, depth or None))

    def reset(self) -> None:
        self.solver.engine.clear()

    def close(self) -> None:
        self.solver.close()


def _unfinished(game: Game[Any], stats: Stats) -> SearchResult[Any]:
    """A solve that a limit stopped: no value, a legal move to play."""
    moves = tuple(game.legal_moves()[:1])
    return SearchResult(0, moves[0] if moves else None, moves, moves, 0, stats, complete=False)


def _sum(parts: list[Stats], started: float) -> Stats:
    return Stats(
        nodes=sum(s.nodes for s in parts),
        cutoffs=sum(s.cutoffs for s in parts),
        tt_probes=sum(s.tt_probes for s in parts),
        tt_hits=sum(s.tt_hits for s in parts),
        tt_stores=sum(s.tt_stores for s in parts),
        evaluations=sum(s.evaluations for s in parts),
        time_s=time.perf_counter() - started,
    )


__all__ = ["CompiledEngine", "Exact"]
