"""The commands' view of the engine layer (:mod:`zerosum.engines`): its names, the check that a
command may run an engine on a game, and the compiled solver for what only it offers (weak
solves, Pons's scores, books, the store).

Every command opens its engine through :func:`zerosum.engines.open_engine`; the compiled
engine imports numba only when a command asks for it, so ``zerosum games`` and ``zerosum legal``
start in a fraction of a second.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final

from zerosum.cli.progress import Progress
from zerosum.compiled import DEFAULT_HASH_MB
from zerosum.engines import COMPILED, MCTS, TACTICAL, Engine, Task, choose_engine, open_engine
from zerosum.engines.warming import WarmingEngine
from zerosum.games import GameSpec
from zerosum.store import Store

if TYPE_CHECKING:  # the compiled engine imports numba: commands that need it import it late
    from zerosum.compiled.solver import Solver

COMPILED_ENGINE: Final = COMPILED
"""The algorithm name of the compiled engine (games with a kernel only)."""
TACTICAL_ENGINE: Final = TACTICAL
"""The algorithm name of the tactical engine (``zerosum.search.tactical``)."""
MCTS_ENGINE: Final = MCTS
"""The algorithm name of Monte Carlo tree search (``zerosum.engines.mcts``)."""


def check_algorithm(spec: GameSpec | None, name: str | None, command: Task = "analyze") -> str:
    """The engine ``command`` runs on ``spec`` (None: any game): ``name``, or the game's choice
    when ``name`` is None; raises :class:`~zerosum.engines.EngineError` (exit 2) listing the
    engines the game offers when it cannot run that one."""
    return choose_engine(spec, name, task=command)


def load_engine(engine: Engine, args: argparse.Namespace) -> None:
    """Load ``engine``'s compiled search before the command's clock runs, with a progress
    line: its first use on a machine compiles it (about a minute for chess), which the user
    should see happening rather than a silent terminal. Engines with nothing to load are
    left alone. A :class:`WarmingEngine` starts loading in the background and returns at
    once (its twin answers meanwhile), saying so in one line on stderr (a terminal, no
    ``--json``) if it has to compile."""
    if isinstance(engine, WarmingEngine):
        engine.start()
        progress = Progress.for_command(args, engine.spec.name)
        if progress.enabled and not engine.warmer.cached():
            print(f"{engine.spec.name}: {engine.status()}", file=progress.stream, flush=True)
        return
    if type(engine).warm_up is Engine.warm_up:  # pure Python: nothing to load
        return
    with Progress.for_command(args, engine.name) as status:
        status.update("loading (its first use compiles it: about a minute)")
        engine.warm_up()


@contextmanager
def engine_status(engine: Engine, args: argparse.Namespace) -> Iterator[Progress]:
    """A status line (stderr, a terminal, no ``--json``) that says, while ``engine`` (a
    :class:`WarmingEngine` not yet ready) searches, what is compiling or loading and how long
    it should take; a silent one for every other engine. Print the command's lines through
    its :meth:`~Progress.echo`."""
    progress = Progress.for_command(args, getattr(engine, "name", "engine"))
    warming = engine if isinstance(engine, WarmingEngine) else None
    if warming is None or warming.ready:
        progress.enabled = False
    with progress:
        if warming is not None and progress.enabled:
            progress.update("", detail=lambda: warming.status() or "the compiled engine searches")
        yield progress


def open_solver(
    spec: GameSpec,
    *,
    hash_mb: float = DEFAULT_HASH_MB,
    store: Store | None = None,
    workers: int = 1,
) -> Solver:
    """The compiled engine's solver for ``spec``'s game (the caller closes it)."""
    from zerosum.engines.compiled import CompiledEngine  # numba: only when it is used

    engine = open_engine(spec, COMPILED, hash_mb=hash_mb, store=store, workers=workers)
    assert isinstance(engine, CompiledEngine)
    return engine.solver
