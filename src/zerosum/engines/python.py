"""The pure-Python family: the seeds' algorithms behind :mod:`zerosum.search.driver`.

Readable and exact on every game, the reference the faster engines are checked against; with
``workers`` > 1 each iteration's root moves are split over worker processes (a pool started on
first use and kept until :meth:`PythonEngine.close`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zerosum.engines.base import Engine, OnIteration, at_depth, check_picklable
from zerosum.game import Game
from zerosum.search import driver
from zerosum.search.core import Limit, SearchResult
from zerosum.search.root import Mode
from zerosum.search.table import TranspositionTable

if TYPE_CHECKING:
    from zerosum.search.parallel import SearchPool


class PythonEngine(Engine):
    """One of the pure-Python algorithms (``engine``, ``alphabeta``, ``minimax``, ...)."""

    def __init__(
        self,
        algorithm: str = "engine",
        *,
        table: bool = True,
        all_best: bool = False,
        seed: int | None = None,
        workers: int = 1,
        pool: SearchPool | None = None,
        shared_table: TranspositionTable[Any] | None = None,
    ) -> None:
        driver.get_algorithm(algorithm)  # an unknown name fails here, listing the known ones
        self.name = algorithm
        self.table = table
        self.all_best = all_best
        self.seed = seed
        self.shared_table = shared_table
        """A table kept across searches (a player's between moves), else a fresh one each."""
        self.workers = workers
        self._pool = pool
        self._owns_pool = False

    @property
    def pool(self) -> SearchPool | None:
        """The worker processes (``None`` for a serial engine), started on first use."""
        if self._pool is None and self.workers > 1:
            # Worker processes (and numpy, for their shared table) only when asked for.
            from zerosum.search.parallel import SearchPool

            self._pool = SearchPool(self.workers)
            self._owns_pool = True
        return self._pool

    def _pool_for(self, game: Game[Any]) -> SearchPool | None:
        """The pool, once ``game`` is known to reach the workers."""
        if self.workers > 1 or self._pool is not None:
            check_picklable(game)
        return self.pool

    def search(
        self,
        game: Game[Any],
        limit: Limit | None = None,
        *,
        on_iteration: OnIteration | None = None,
    ) -> SearchResult[Any]:
        return driver.search(
            game,
            algorithm=self.name,
            limit=limit,
            table=self.table,
            all_best=self.all_best,
            seed=self.seed,
            shared_table=self.shared_table,
            on_iteration=_completed(on_iteration),
            pool=self._pool_for(game),
        )

    def solve(self, game: Game[Any], *, limit: Limit | None = None) -> SearchResult[Any]:
        return driver.solve(
            game,
            algorithm=self.name,
            limit=limit,
            table=self.table,
            seed=self.seed,
            pool=self._pool_for(game),
        )

    def _best_moves(
        self, game: Game[Any], depth: int, seed: int | None, limit: Limit | None
    ) -> SearchResult[Any]:
        if depth == 0:  # all best moves, not every move's value
            return driver.solve(
                game,
                algorithm=self.name,
                limit=limit,
                seed=seed,
                pool=self._pool_for(game),
                moves=Mode.ALL,
            )
        return driver.search(
            game,
            algorithm=self.name,
            limit=at_depth(limit, depth),
            table=self.table,
            all_best=True,
            seed=seed,
            pool=self._pool_for(game),
        )

    def close(self) -> None:
        if self._owns_pool and self._pool is not None:
            self._pool.close()
        self._pool = None


def _completed(on_iteration: OnIteration | None) -> OnIteration | None:
    """``on_iteration`` called for completed iterations only (the driver also yields the one a
    limit cut short)."""
    if on_iteration is None:
        return None
    report = on_iteration

    def completed(result: SearchResult[Any]) -> None:
        if result.complete:
            report(result)

    return completed
