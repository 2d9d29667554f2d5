"""Engines: the one layer through which every front end and the library search and solve.

Four families implement :class:`Engine` — the pure-Python algorithms (:class:`PythonEngine`),
the tactical search (:class:`TacticalEngine`, and its compiled twin for games that have one,
``compiled-tactical``) and the compiled engine (:class:`CompiledEngine`),
each serial or with ``workers``, and Monte Carlo tree search with a solver
(:class:`MctsEngine`, serial, and its compiled twin
:class:`~zerosum.engines.mcts_compiled.CompiledMctsEngine`, with threads, for games whose kernel
offers it) — and :func:`open_engine` is the one place that picks one for a
game: the engine the caller names, else the choice in the game's :class:`GameSpec` for the task
at hand (``analyze``, ``solve`` or ``play``). An engine the game cannot use is refused with an
:class:`EngineError` that names the engines the game offers.

:func:`search` and :func:`solve` are the library's entry points (``zerosum.search``,
``zerosum.solve``): they open the game's engine, run it and close it, so Python gets what the
command line gets — connect four solves with the compiled engine, chess searches with the
compiled tactical one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Literal

from zerosum.engines.base import Engine, EngineError, OnIteration
from zerosum.engines.mcts import GAME_DEFAULTS, MctsEngine
from zerosum.engines.python import PythonEngine
from zerosum.engines.tactical import TacticalEngine
from zerosum.game import Game
from zerosum.games import GameSpec, get_game, resolve, spec_of
from zerosum.search.core import Limit, SearchResult
from zerosum.search.driver import ALGORITHMS
from zerosum.search.perft import perft as protocol_perft
from zerosum.search.table import TranspositionTable

if TYPE_CHECKING:
    from zerosum.search.parallel import SearchPool
    from zerosum.store import Store

COMPILED: Final = "compiled"
"""The compiled engine's name."""
TACTICAL: Final = "tactical"
"""The tactical engine's name."""
COMPILED_TACTICAL: Final = "compiled-tactical"
"""The compiled tactical engine's name (games whose spec names a ``searcher``: chess)."""
MCTS: Final = "mcts"
"""The Monte Carlo tree search engine's name."""

Task = Literal["analyze", "solve", "play", "bench"]
"""What the engine is for; a game's spec may choose a different engine for each (``bench``
measures the exact engines' node-count signature)."""


def engine_names(spec: GameSpec | None = None, *, task: Task = "analyze") -> list[str]:
    """The engines ``spec``'s game offers for ``task`` (every engine when ``spec`` is None):
    the pure-Python algorithms, the compiled engine for a game with a kernel, the tactical
    search (and its compiled twin for a game with a ``searcher``) unless the task is an exact
    solve or the signature, and MCTS (a solver too) unless
    the task is the signature."""
    names = list(ALGORITHMS)
    if spec is None or spec.kernel is not None:
        names.append(COMPILED)
    if task not in ("solve", "bench"):
        names.append(TACTICAL)
        if spec is None or spec.searcher is not None:
            names.append(COMPILED_TACTICAL)
    if task != "bench":
        names.append(MCTS)
    return names


def default_engine(spec: GameSpec | None, task: Task = "analyze") -> str:
    """The engine the game's spec chooses for ``task`` (``engine`` for an unregistered game)."""
    if spec is None:
        return "engine"
    if task == "solve":
        return spec.solver
    if task == "bench":
        return "engine"
    if task == "play":
        return spec.play_engine
    return spec.analyzer


def choose_engine(
    spec: GameSpec | None, algorithm: str | None = None, *, task: Task = "analyze"
) -> str:
    """The engine to run: ``algorithm`` if the game offers it for ``task``, else the spec's
    choice. Raises :class:`EngineError` naming what the game offers."""
    name = algorithm or default_engine(spec, task)
    offered = engine_names(spec, task=task)
    if name in offered:
        return name
    expected = ", ".join(offered)
    if name == COMPILED and spec is not None:
        raise EngineError(f"game {spec.name!r} has no compiled engine: expected one of {expected}")
    if name in engine_names(None):
        raise EngineError(
            f"algorithm {name!r} is not available for {task}: expected one of {expected}"
        )
    raise EngineError(f"unknown algorithm {name!r}: expected one of {expected}")


def open_engine(
    game: GameSpec | Game[Any] | str | None,
    algorithm: str | None = None,
    *,
    task: Task = "analyze",
    workers: int = 1,
    pool: SearchPool | None = None,
    table: bool = True,
    all_best: bool = False,
    seed: int | None = None,
    hash_mb: float | None = None,
    store: Store | None = None,
    shared_table: TranspositionTable[Any] | None = None,
    exploration: float | None = None,
    playout: str | None = None,
    bias: float | None = None,
    expand_after: int | None = None,
    max_nodes: int | None = None,
    compiled: bool | None = None,
    instant: bool = False,
) -> Engine:
    """The engine for ``game`` (a spec, a position, a registered name, or None for any game):
    ``algorithm`` if given, else the game's choice for ``task``.

    ``workers`` > 1 runs it in parallel (``pool``: worker processes a caller keeps for several
    engines); ``table``, ``all_best`` and ``seed`` are the pure-Python engines' options,
    ``shared_table`` a table the caller keeps across engines (pure-Python and tactical),
    ``hash_mb`` and ``store`` the compiled engine's; ``seed``, ``exploration``, ``playout``,
    ``bias``, ``expand_after`` and ``max_nodes`` MCTS's (``None``: its defaults, see
    :class:`MctsEngine` and, compiled, the game's). MCTS runs compiled
    (:class:`~zerosum.engines.mcts_compiled.CompiledMctsEngine`: ``hash_mb`` its tree's
    memory, ``workers`` its threads) when the game's kernel offers it and
    ``compiled`` is not false, else in Python (one thread: ``workers`` > 1 is refused);
    ``compiled=True`` refuses a game without such a kernel. Close the engine when done.

    ``instant`` (the front ends' choice) wraps a compiled engine in a
    :class:`~zerosum.engines.warming.WarmingEngine`: its pure-Python twin answers at once while
    the compiled one compiles in a child process (first use) or loads (every process), unless
    ``ZEROSUM_COMPILE=wait`` is set in the environment (compile or load before answering, as
    without ``instant``).
    """
    spec = _spec(game)
    name = choose_engine(spec, algorithm, task=task)
    from zerosum.compiled.warm import compiling_in_background  # subprocess, hashlib: late

    if instant and spec is not None and compiling_in_background():
        warming = _warming(
            spec,
            name,
            workers=workers,
            table=table,
            all_best=all_best,
            seed=seed,
            hash_mb=hash_mb,
            store=store,
            mcts={
                "exploration": exploration,
                "playout": playout,
                "bias": bias,
                "expand_after": expand_after,
                "max_nodes": max_nodes,
            },
            compiled=compiled,
        )
        if warming is not None:
            return warming
    if name == MCTS:
        given = {
            "exploration": exploration,
            "playout": playout,
            "bias": bias,
            "expand_after": expand_after,
            "max_nodes": max_nodes,
        }
        chosen: dict[str, Any] = {key: value for key, value in given.items() if value is not None}
        if compiled is not False and spec is not None and spec.kernel is not None:
            from zerosum.engines.mcts_compiled import CompiledMctsEngine, has_compiled_mcts

            if has_compiled_mcts(spec.name):
                return CompiledMctsEngine(
                    spec.name, seed=seed, hash_mb=hash_mb, workers=workers, **chosen
                )
        if compiled:
            where = "any game" if spec is None else f"game {spec.name!r}"
            raise EngineError(
                f"{where} has no kernel for compiled {MCTS}: expected compiled=False or None"
            )
        if workers > 1:
            raise EngineError(
                f"the Python {MCTS} engine runs in one thread (only a game with a compiled "
                "kernel runs MCTS in threads): expected workers=1"
            )
        return MctsEngine(seed=seed, **chosen)
    if name == COMPILED:
        assert spec is not None  # choose_engine offers it only for a game with a kernel
        from zerosum.engines.compiled import CompiledEngine  # numba: only when it is used

        options: dict[str, Any] = {"store": store, "workers": workers}
        if hash_mb is not None:
            options["hash_mb"] = hash_mb
        return CompiledEngine(spec.name, **options)
    if name == COMPILED_TACTICAL:
        assert spec is not None  # choose_engine offers it only for a game with a searcher
        from zerosum.engines.compiled_tactical import CompiledTacticalEngine

        chosen_hash = {} if hash_mb is None else {"hash_mb": hash_mb}
        return CompiledTacticalEngine(spec, workers=workers, **chosen_hash)
    if name == TACTICAL:
        return TacticalEngine(workers=workers, pool=pool, shared_table=shared_table)
    return PythonEngine(
        name,
        table=table,
        all_best=all_best,
        seed=seed,
        workers=workers,
        pool=pool,
        shared_table=shared_table,
    )


def _warming(
    spec: GameSpec,
    name: str,
    *,
    workers: int,
    table: bool,
    all_best: bool,
    seed: int | None,
    hash_mb: float | None,
    store: Store | None,
    mcts: dict[str, Any],
    compiled: bool | None,
) -> Engine | None:
    """The :class:`WarmingEngine` of the compiled engine ``name`` of ``spec``'s game, or
    ``None`` for an engine that is not compiled. Imports no numba: the compiled engine is
    opened by the loader."""
    from zerosum.engines.warming import WarmingEngine

    def opened(**options: Any) -> Callable[[], Engine]:
        return lambda: open_engine(spec, name, **options)

    if name == MCTS and compiled is not False and spec.kernel is not None:
        chosen = {key: value for key, value in mcts.items() if value is not None}
        defaults = {**GAME_DEFAULTS.get(spec.name, {}), **chosen}
        twin: Engine = MctsEngine(seed=seed, **defaults)
        return WarmingEngine(
            spec,
            ("mcts",),
            twin,
            opened(seed=seed, hash_mb=hash_mb, workers=workers, compiled=True, **chosen),
            name=MCTS,
        )
    if name == COMPILED:
        twin = PythonEngine(table=table, all_best=all_best, seed=seed)
        return WarmingEngine(
            spec,
            ("search",),
            twin,
            opened(hash_mb=hash_mb, store=store, workers=workers),
            name=COMPILED,
        )
    if name == COMPILED_TACTICAL:
        return WarmingEngine(
            spec,
            ("tactical",),
            TacticalEngine(),
            opened(hash_mb=hash_mb, workers=workers),
            name=COMPILED_TACTICAL,
        )
    return None


def _spec(game: GameSpec | Game[Any] | str | None) -> GameSpec | None:
    if game is None or isinstance(game, GameSpec):
        return game
    if isinstance(game, str):
        return get_game(game)
    return spec_of(game)


def search(
    game: Game[Any],
    *,
    algorithm: str | None = None,
    limit: Limit | None = None,
    on_iteration: OnIteration | None = None,
    workers: int = 1,
    pool: SearchPool | None = None,
    table: bool = True,
    all_best: bool = False,
    seed: int | None = None,
    hash_mb: float | None = None,
    shared_table: TranspositionTable[Any] | None = None,
) -> SearchResult[Any]:
    """Search ``game`` under ``limit`` with its engine (see :func:`open_engine`) and return the
    last completed iteration's result (its moves named in the game's notation for display,
    :meth:`SearchResult.named`); ``on_iteration`` sees every iteration as it completes."""
    with open_engine(
        game,
        algorithm,
        workers=workers,
        pool=pool,
        table=table,
        all_best=all_best,
        seed=seed,
        hash_mb=hash_mb,
        shared_table=shared_table,
    ) as engine:
        return engine.search(game, limit, on_iteration=on_iteration).named(game)


def solve(
    game: Game[Any],
    *,
    algorithm: str | None = None,
    limit: Limit | None = None,
    workers: int = 1,
    pool: SearchPool | None = None,
    table: bool = True,
    seed: int | None = None,
    hash_mb: float | None = None,
    store: Store | None = None,
) -> SearchResult[Any]:
    """The exact value of ``game``, every root move's value and all best moves, with its
    solving engine (connect four: compiled); ``result.solved`` is false if ``limit`` stopped it."""
    with open_engine(
        game,
        algorithm,
        task="solve",
        workers=workers,
        pool=pool,
        table=table,
        seed=seed,
        hash_mb=hash_mb,
        store=store,
    ) as engine:
        return engine.solve(game, limit=limit).named(game)


def perft_counter(
    spec: GameSpec | None, *, generic: bool = False
) -> tuple[Callable[[Game[Any], int], int], str]:
    """The perft a game runs, and its kind: the compiled one its spec names (``compiled``), or
    else, or when ``generic``, the protocol's (``protocol``)."""
    if spec is not None and spec.perft is not None and not generic:
        counter: Callable[[Game[Any], int], int] = resolve(spec.perft)
        return counter, "compiled"
    return protocol_perft, "protocol"


def perft(game: Game[Any], depth: int, *, generic: bool = False) -> int:
    """The number of move sequences of ``depth`` plies from ``game``, counted as ``zerosum
    perft`` counts them (see :func:`perft_counter`)."""
    counter, _ = perft_counter(spec_of(game), generic=generic)
    return counter(game, depth)


__all__ = [
    "COMPILED",
    "COMPILED_TACTICAL",
    "MCTS",
    "TACTICAL",
    "Engine",
    "EngineError",
    "MctsEngine",
    "PythonEngine",
    "TacticalEngine",
    "Task",
    "choose_engine",
    "default_engine",
    "engine_names",
    "open_engine",
    "perft",
    "perft_counter",
    "search",
    "solve",
]
