"""The compiled tactical engine: the tactical search compiled for one game (chess).

A game whose :class:`~zerosum.games.GameSpec` names a ``searcher`` (chess:
:class:`zerosum.compiled.chess_engine.CoreSearch`) gets this engine: the algorithm of the
tactical engine run by the compiled twin, with a table sized in MB and ``workers`` as Lazy SMP
threads on that table. The searcher is loaded (and numba imported) only when the engine is
opened, and :meth:`warm_up` loads or compiles its compiled functions before a clock runs.

What a reused engine keeps. The table lives as long as the engine, across every position it
is asked about, related or not, as a UCI engine keeps its hash until ``ucinewgame``: a game's
next move, or the position a user steps back to, starts from what the last searches stored.
The searcher (killers, history) lives while the same game object is searched, as
:class:`TacticalEngine`'s does, and with ``keep_history`` its history passes on to the next
game object's searcher. So a reused engine's answer at a fixed depth is not always a
fresh engine's: entries of earlier searches (deeper ones, other positions' transpositions)
change cutoffs, and with them what the selective search (null move, reductions, futility)
prunes. It reaches the same depth and never claims a proof (a heuristic search), and its move
is legal; :meth:`clear` makes the next search a fresh engine's exactly
(``tests/test_engine_reuse.py`` checks both against a fresh engine). Its pure-Python twin
starts a table per game object unless it is given a shared one (``zerosum uci`` gives one).
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
                if self.keep_history:
                    searcher.inherit(self._searcher)
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
        """Forget the table, the killers and the history (a new game; UCI's ``ucinewgame``
        and ``Clear Hash``), also after :meth:`reset`: the next search answers as a fresh
        engine's (the same value, depth, principal variation and, with one thread, nodes)."""
        if self._table is not None:
            keys, data = self._table
            keys[:] = 0
            data[:] = 0
        self.reset()  # the next search starts a searcher with no history, at generation 0

    def reset(self) -> None:
        self._searcher = None
        self._game = None
