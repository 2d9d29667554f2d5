"""Opening books on an executor: every position up to some plies solved into the store.

:func:`book_distributed` is :meth:`~zerosum.compiled.solver.Solver.build_book` (its serial
twin) with each position a work unit of :mod:`zerosum.compiled.distributed`'s
:func:`~zerosum.compiled.distributed.solve_unit`, on any
:class:`~zerosum.runtime.executor.Executor` (local processes or Ray). The positions are
solved a layer at a time, deepest first, so a position's children are in the store (or the
workers' tables) before it; each result is put into the store as it arrives, so an
interrupted build loses only the units in flight and the next one skips what is stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Final

from zerosum.compiled.distributed import UnitAnswer, _unit_solver, solve_unit
from zerosum.compiled.kernels import compiled_game
from zerosum.compiled.solver import Exact
from zerosum.game import Game
from zerosum.runtime.executor import Executor
from zerosum.search.core import Limit, Stats
from zerosum.store import Store

_POLL_S: Final = 0.05
_UNBOUNDED: Final = 1 << 30


def book_distributed(
    game: Game[Any],
    plies: int,
    *,
    executor: Executor,
    store: Store,
    weak: bool = False,
    hash_mb: float = 16,
    limit: Limit | None = None,
    on_position: Callable[[Game[Any], Exact], None] | None = None,
) -> bool:
    """:meth:`~zerosum.compiled.solver.Solver.build_book` on ``executor``: every position up
    to ``plies`` moves after ``game`` solved into ``store``, a layer at a time, deepest first,
    each position a unit (positions stored before are skipped, so an interrupted build resumes
    and loses only the units in flight). Returns False if ``limit`` stopped it."""
    compiled_game(game.name)  # a clear error for a game without a kernel
    started = time.perf_counter()
    limit = limit or Limit()
    solver = _unit_solver(game.name, 1)
    name = solver.name

    def stopped() -> bool:
        return (limit.time is not None and time.perf_counter() - started >= limit.time) or (
            limit.stop is not None and limit.stop()
        )

    # Step 1. The positions, layer by layer (transpositions and symmetric twins once).
    layers = solver.book_layers(game, plies)
    assert layers is not None  # nothing stops the listing
    # Step 2. Each layer's positions as units, deepest layer first.
    full = (-_UNBOUNDED, _UNBOUNDED)
    for layer in reversed(layers):
        running: dict[Future[UnitAnswer], Game[Any]] = {}
        try:
            for position in layer:
                known = store.get(name, solver.compiled.canonical_key(position), weak=weak)
                if known is not None:
                    if on_position is not None:
                        on_position(
                            position,
                            solver._exact(position, known, Stats(), weak=weak, stored=True),
                        )
                    continue
                future = executor.submit(solve_unit, name, position.position(), full, weak, hash_mb)
                running[future] = position
            while running:
                if stopped():
                    return False
                for future in executor.wait(list(running), _POLL_S):
                    position = running.pop(future)
                    answer = future.result()
                    assert answer.rank is not None  # no budget: every unit runs to its end
                    exact = solver._exact(
                        position,
                        answer.rank,
                        Stats(nodes=answer.nodes, time_s=answer.seconds),
                        weak=weak,
                    )
                    key = solver.compiled.canonical_key(position)
                    store.put(name, key, exact.rank, weak=weak)
                    if on_position is not None:
                        on_position(position, exact)
        finally:
            for future in running:
                executor.cancel(future)
    return True
