"""The engines the commands run besides ``zerosum.search``'s algorithms: their names, the
check that a command may run one on a game, and how a command opens one.

The compiled engine and the tactical engine's parallel search import numba or start worker
processes, so they are imported only when a command asks for them: ``zerosum games`` and
``zerosum legal`` start in a fraction of a second.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from zerosum.cli.common import UsageError
from zerosum.compiled import DEFAULT_HASH_MB, check_compiled
from zerosum.game import Game
from zerosum.games import GameSpec
from zerosum.search import ALGORITHMS, Limit, SearchResult
from zerosum.store import Store

if TYPE_CHECKING:  # the compiled engine imports numba: commands that need it import it late
    from zerosum.compiled.solver import Solver
    from zerosum.search.parallel import SearchPool

COMPILED_ENGINE: Final = "compiled"
"""The algorithm name of the compiled engine (games with a kernel only)."""
TACTICAL_ENGINE: Final = "tactical"
"""The algorithm name of the tactical engine (``zerosum.search.tactical``)."""


def check_algorithm(spec: GameSpec | None, name: str, command: str = "analyze") -> None:
    """Reject an algorithm ``command`` cannot run on ``spec`` (None: any game), listing the
    ones it can."""
    if name == COMPILED_ENGINE and spec is not None:
        check_compiled(spec.name)
    available = [*ALGORITHMS, COMPILED_ENGINE]
    if command == "analyze":
        available.append(TACTICAL_ENGINE)
    if name in available:
        return
    expected = ", ".join(available)
    if name in (COMPILED_ENGINE, TACTICAL_ENGINE):
        raise UsageError(
            f"algorithm {name!r} is not available for {command}: expected one of {expected}"
        )
    raise UsageError(f"unknown algorithm {name!r}: expected one of {expected}")


def open_solver(
    game: str, *, hash_mb: float = DEFAULT_HASH_MB, store: Store | None = None, workers: int = 1
) -> Solver:
    """The compiled engine for ``game`` (the caller closes it)."""
    from zerosum.compiled.solver import Solver

    return Solver(game, hash_mb=hash_mb, store=store, workers=workers)


def tactical(
    game: Game[Any],
    limit: Limit,
    report: Callable[[SearchResult[Any]], None] | None = None,
    pool: SearchPool | None = None,
) -> SearchResult[Any]:
    """The tactical engine's search of ``game`` under ``limit`` (over ``pool``'s workers when
    given), calling ``report`` with each completed iteration."""
    from zerosum.search.tactical_parallel import tactical_search

    searcher = tactical_search(game, pool=pool)

    def on_report(found: Any) -> None:
        if report is not None and found.complete:
            report(searcher.result(found))

    return searcher.search(limit, on_report=on_report)


@contextlib.contextmanager
def search_pool(workers: int) -> Iterator[SearchPool | None]:
    """Worker processes for the pure-Python search when ``--workers`` asks for them, started
    once for the whole command and stopped at its end (None: search in this process)."""
    if workers == 1:
        yield None
        return
    from zerosum.search.parallel import SearchPool

    with SearchPool(workers) as pool:
        yield pool
