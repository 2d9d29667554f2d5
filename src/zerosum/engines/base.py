"""The one interface every engine offers, whatever searches underneath.

An :class:`Engine` is a searcher with its state (tables, worker processes or threads, a store)
kept across calls, so a player keeps what it learnt between the moves of a game. It answers
three questions about a position, all from the side to move and in ``mission.md``'s score
convention:

* :meth:`Engine.search` — the best move and value under a :class:`~zerosum.search.Limit`,
  reporting every completed iteration through ``on_iteration``;
* :meth:`Engine.solve` — the exact value, every root move's value and all best moves;
* :meth:`Engine.best_moves` — the moves a player at a given depth would choose among (depth 0:
  every move that keeps the exact value), asking the game's exact probe first.

Engines never print and never own the clock: the caller's limit says when to stop. Close an
engine (or use it in a ``with`` block) to stop its workers.
"""

from __future__ import annotations

import pickle
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from zerosum.game import Game, ProtocolError, ZerosumError, terminal_score
from zerosum.search.core import Limit, SearchResult, Stats
from zerosum.search.probing import probe_root

OnIteration = Callable[[SearchResult[Any]], None]
"""Called with the result of every completed iteration, as it completes."""


class EngineError(ZerosumError, ValueError):
    """An engine that does not exist, or that cannot do what was asked for this game."""


class Engine(ABC):
    """A search engine bound to one game (and its variants' positions)."""

    name: str
    """The engine's name as ``--algorithm`` spells it."""
    exact: bool = True
    """Whether :meth:`solve` can run: an engine that only searches to a depth says no."""

    @abstractmethod
    def search(
        self,
        game: Game[Any],
        limit: Limit | None = None,
        *,
        on_iteration: OnIteration | None = None,
    ) -> SearchResult[Any]:
        """Iterative deepening under ``limit`` (no limit: until the value is proven); the
        last completed iteration's result, with ``complete=False`` if the limit cut it short.
        Leaves ``game`` as it was."""

    def warm_up(self) -> float:
        """Load (or, on first use, compile) what the engine runs, before any clock does; the
        seconds it took. Pure-Python engines have nothing to load."""
        return 0.0

    @abstractmethod
    def solve(self, game: Game[Any], *, limit: Limit | None = None) -> SearchResult[Any]:
        """The exact value with every root move's value and all best moves
        (``result.solved``); a limit may stop it first (``solved`` false)."""

    @abstractmethod
    def _best_moves(
        self, game: Game[Any], depth: int, seed: int | None, limit: Limit | None
    ) -> SearchResult[Any]:
        """:meth:`best_moves` once the probe has not decided the position."""

    def best_moves(
        self,
        game: Game[Any],
        *,
        depth: int,
        seed: int | None = None,
        limit: Limit | None = None,
    ) -> SearchResult[Any]:
        """The moves a player searching ``depth`` plies would choose among (``best_moves``),
        with their value: depth 0 plays perfectly (all exact best moves); ``seed`` makes the
        engine's own random choices repeatable. Every best move when the game's probe (an
        endgame database) decides the position. ``limit`` (time, nodes, stop) may cut a
        perfect player short: then ``best_moves`` holds what the engine knew, possibly nothing."""
        probed = probe_root(game)
        if probed is not None:
            value, scored = probed
            best = tuple(move for move, v in scored if v == value)
            return SearchResult(
                value, best[0], best, best[:1], 0, Stats(), tuple(scored), solved=True
            )
        return self._best_moves(game, depth, seed, limit)

    def reset(self) -> None:  # noqa: B027  # an engine without tables has nothing to forget
        """Forget what earlier searches learnt (a new game starts)."""

    def close(self) -> None:  # noqa: B027  # a serial engine has nothing to stop
        """Stop the engine's workers, if any; the engine is not used again."""

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def no_moves(game: Game[Any]) -> SearchResult[Any]:
    """The result at a finished position: its terminal value, no moves."""
    outcome = game.outcome()
    assert outcome is not None
    return SearchResult(terminal_score(outcome, 0), None, (), (), 0, Stats(), solved=True)


def at_depth(limit: Limit | None, depth: int | None) -> Limit:
    """``limit`` with its depth set to ``depth`` (``None``: no depth limit)."""
    if limit is None:
        return Limit(depth=depth)
    return Limit(depth=depth, nodes=limit.nodes, time=limit.time, stop=limit.stop)


def check_picklable(game: Game[Any]) -> None:
    """Raise :class:`ProtocolError` unless ``game`` can be sent to worker processes (they
    receive a pickled copy, so its class must be importable by its module's name)."""
    try:
        pickle.dumps(game)
    except Exception as error:
        raise ProtocolError(
            f"game {getattr(game, 'name', type(game).__name__)!r} cannot be sent to worker "
            f"processes ({type(error).__name__}: {error}): expected a game that pickles, its "
            "class defined at the top level of an importable module"
        ) from error
