"""The compiled tactical engine: the tactical search compiled for one game (chess).

A game whose :class:`~zerosum.games.GameSpec` names a ``searcher`` (chess:
:class:`zerosum.compiled.chess_engine.CoreSearch`) gets this engine: the algorithm of the
tactical engine run by the compiled twin, with a table sized in MB and ``workers`` as Lazy SMP
threads on that table. It keeps its table between searches and its searcher (killers,
history) while it searches the same game object, as :class:`TacticalEngine` does; the
searcher is loaded (and numba imported) only when the engine is opened, and :meth:`warm_up`
loads or compiles its compiled functions before a clock runs.
"""

from __future__ import annotations

from typing import Any

from zerosum.compiled import DEFAULT_HASH_MB
from zerosum.engines.base import EngineError
from zerosum.engines.tactical import TacticalEngine
from zerosum.game import Game
from zerosum.games import GameSpec, resolve
from zerosum.search.tactical import SearchDriver


class CompiledTacticalEngine(TacticalEngine):
    """The game's compiled tactical search, ``workers`` threads sharing one table."""

    name = "compiled-tactical"

    def __init__(
        self, spec: GameSpec, *, hash_mb: float = DEFAULT_HASH_MB, workers: int = 1
    ) -> None:
        super().__init__()
        assert spec.searcher is not None  # open_engine offers this engine only then
        self._factory: Any = resolve(spec.searcher)
        self.hash_mb = hash_mb
        self.threads = workers
        self._table: Any = None
        """The (keys, data) arrays of the first searcher, handed to the next ones."""

    def _searcher_for(self, game: Game[Any]) -> SearchDriver[Any]:
        if self._searcher is None or game is not self._game:
            try:
                searcher = self._factory(
                    game,
                    hash_mb=self.hash_mb,
                    threads=self.threads,
                    table=self._table,
                    options=self.options,
                )
            except ValueError as error:  # an option out of the searcher's range
                raise EngineError(f"the {self.name} engine: {error}") from None
            if self._searcher is not None:  # the table's entries are aged across searchers
                searcher.generation = self._searcher.generation  # type: ignore[attr-defined]
            self._table = (searcher.keys, searcher.data)
            self._searcher, self._game = searcher, game
        return self._searcher

    def warm_up(self) -> float:
        """Load or compile every compiled function the searcher calls, before any clock runs
        (the searcher's ``warm_up()``, if it has one); the seconds it took."""
        warm = getattr(self._factory, "warm_up", None)
        return float(warm()) if callable(warm) else 0.0

    def hashfull(self) -> int:
        """The permille of the table in use (0 before the first search)."""
        searcher = self._searcher
        return int(searcher.hashfull()) if searcher is not None else 0  # type: ignore[attr-defined]

    def clear(self) -> None:
        """Forget the table (a new game)."""
        if self._searcher is not None:
            self._searcher.clear()  # type: ignore[attr-defined]

    def reset(self) -> None:
        self._searcher = None
        self._game = None
