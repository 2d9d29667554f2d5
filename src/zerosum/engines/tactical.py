"""The tactical engine: PVS with quiescence, null move and reductions (:mod:`.search.tactical`).

Strong at a depth or a time on games with tactics (chess); not an exact solver. It keeps its
table and move-ordering history while it searches the same game object, so a player following
one game move by move keeps what it learnt, as a UCI engine does; with ``keep_history`` the
history also passes to the searcher of a new game object (``zerosum uci``, whose every
``position`` is one).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from zerosum.engines.base import Engine, EngineError, OnIteration, at_depth, check_picklable
from zerosum.game import Game
from zerosum.search import driver
from zerosum.search.core import Limit, SearchResult
from zerosum.search.root import Mode
from zerosum.search.table import TranspositionTable
from zerosum.search.tactical import Options, Report, SearchDriver, TacticalSearch

if TYPE_CHECKING:
    from zerosum.search.parallel import SearchPool


class TacticalEngine(Engine):
    """The tactical search, serial or split over ``workers`` processes."""

    name = "tactical"
    exact = False

    def __init__(
        self,
        *,
        workers: int = 1,
        pool: SearchPool | None = None,
        shared_table: TranspositionTable[Any] | None = None,
    ) -> None:
        self.workers = workers
        self.shared_table = shared_table
        """A table the caller keeps across engines (a UCI engine's ``Hash``), else its own."""
        self.options: Options | None = None
        """The search's options for the searches it starts from now on (default: all on)."""
        self.keep_history = False
        """Whether the searcher of a new game object takes the last one's move-ordering
        history (:meth:`SearchDriver.inherit`): a UCI engine's next move is a new game object
        of the same game. :meth:`reset` forgets it (a new game)."""
        self._pool = pool
        self._owns_pool = False
        self._game: Game[Any] | None = None
        self._searcher: SearchDriver[Any] | None = None

    def _searcher_for(self, game: Game[Any]) -> SearchDriver[Any]:
        if self._searcher is None or game is not self._game:
            last = self._searcher
            if self.workers > 1 or self._pool is not None:
                check_picklable(game)
            if self._pool is None and self.workers > 1:
                from zerosum.search.parallel import SearchPool  # processes only when asked for

                self._pool = SearchPool(self.workers)
                self._owns_pool = True
            if self._pool is None:
                self._searcher = TacticalSearch(game, table=self.shared_table, options=self.options)
            else:
                from zerosum.search.tactical_parallel import tactical_search  # as the pool

                self._searcher = tactical_search(
                    game, table=self.shared_table, options=self.options, pool=self._pool
                )
            if self.keep_history and last is not None:
                self._searcher.inherit(last)
            self._game = game
        return self._searcher

    def search(
        self,
        game: Game[Any],
        limit: Limit | None = None,
        *,
        on_iteration: OnIteration | None = None,
    ) -> SearchResult[Any]:
        if game.outcome() is not None:  # nothing to search: the game's own verdict
            return driver.search(game, limit=limit)
        searcher = self._searcher_for(game)

        def on_report(found: Report[Any]) -> None:
            if on_iteration is not None and found.complete and found.line == 1:
                on_iteration(searcher.result(found))

        return searcher.search(limit or Limit(), on_report=on_report)

    def reports(
        self,
        game: Game[Any],
        limit: Limit | None = None,
        *,
        multipv: int = 1,
        root_moves: Sequence[Any] = (),
    ) -> Iterator[Report[Any]]:
        """The tactical search's own reports of ``game`` (not over), one per finished iteration
        and line: what a UCI engine shows, MultiPV lines and ``searchmoves`` included."""
        return self._searcher_for(game).iterate(limit, multipv=multipv, root_moves=root_moves)

    def solve(self, game: Game[Any], *, limit: Limit | None = None) -> SearchResult[Any]:
        raise EngineError(
            "the tactical engine searches to a depth or a time and does not solve exactly: "
            "expected an exact engine (engine, alphabeta, ... or compiled)"
        )

    def _best_moves(
        self, game: Game[Any], depth: int, seed: int | None, limit: Limit | None
    ) -> SearchResult[Any]:
        if depth == 0:  # a perfect player needs an exact engine
            return driver.solve(game, limit=limit, seed=seed, pool=self._pool, moves=Mode.ALL)
        return self.search(game, at_depth(limit, depth))

    def reset(self) -> None:
        self._searcher = None
        self._game = None

    def close(self) -> None:
        self.reset()
        if self._owns_pool and self._pool is not None:
            self._pool.close()
        self._pool = None
