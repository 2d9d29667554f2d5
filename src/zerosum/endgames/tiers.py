"""Endgame classes as a graph of tiers, built in dependency order on an executor.

A *tier* is a pair of classes ``x-y``/``y-x`` (``x <= y``), solved together because a move
that removes nothing turns one into the other (:mod:`.retro`). A move that closes a mill leads
into the pair of ``(y - 1)-x`` or of ``(x - 1)-y``: those tiers must be built first, and are
the tier's dependencies (:func:`tier_graph`). Tiers whose dependencies are all stored do not
depend on each other and are built at once, each a unit of an
:class:`~zerosum.runtime.executor.Executor` (local processes or Ray): the worker reads its
inputs from the database file, solves the pair and sends back the tables; this process commits
each pair in one transaction as it arrives. An interrupted build therefore loses only the
tiers in flight, and the next one resumes from the file. The result equals
:meth:`~zerosum.endgames.database.Endgames.build`'s, one tier after another (its serial twin).

What this does not do yet: split one large tier into parts by index range (a tier is one
unit, so 4-4, the largest tier up to four men, bounds the build's time), or store a position
once per board symmetry.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Final

import numpy as np

from zerosum.endgames import MAX_MEN
from zerosum.endgames.database import ClassInfo, EndgameError, Endgames
from zerosum.runtime.executor import Executor

Tier = tuple[int, int]
"""A pair of classes ``(x, y)`` with ``x <= y``."""
_POLL_S: Final = 0.2


def tier_graph(max_men: int) -> dict[Tier, frozenset[Tier]]:
    """Every tier up to ``max_men`` men a side, with the tiers its removals lead to (only
    those with three men a side or more: fewer is a won game, no table)."""
    from zerosum.endgames.retro import MIN_MEN, class_pairs

    graph: dict[Tier, frozenset[Tier]] = {}
    for x, y in class_pairs(max_men):
        needs = {(min(a, b), max(a, b)) for a, b in ((y - 1, x), (x - 1, y))}
        graph[(x, y)] = frozenset(tier for tier in needs if tier[0] >= MIN_MEN)
    return graph


def build_tier(path: str, x: int, y: int) -> tuple[list[tuple[int, int, bytes]], float]:
    """A unit, run in a worker: the tier ``x-y`` solved from its inputs in the file at
    ``path``; its tables (mover, other, zlib-compressed bytes) and the seconds per class."""
    from zerosum.endgames.retro import solve_pair

    with Endgames(path, create=False) as endgames:
        needed = {(y - 1, x), (x - 1, y)}
        inputs = {key: endgames.table(*key) for key in needed if min(key) >= 3}
        started = time.perf_counter()
        tables = solve_pair(endgames.board, x, y, inputs)
    seconds = (time.perf_counter() - started) / len(tables)
    packed = [(m, o, zlib.compress(table.tobytes(), 1)) for (m, o), table in tables.items()]
    return packed, seconds


def build_tiers(
    endgames: Endgames,
    executor: Executor,
    max_men: int = MAX_MEN,
    *,
    through: Tier | None = None,
    on_class: Callable[[ClassInfo], None] | None = None,
) -> list[ClassInfo]:
    """Build every tier up to ``max_men`` that is not stored in ``endgames`` on ``executor``
    (see the module docstring; with ``through``, only that tier and what it needs);
    ``on_class`` hears of each class as it is stored (or found stored). Returns the classes
    built or found, in dependency order."""
    if not 3 <= max_men <= MAX_MEN:
        raise EndgameError(f"{max_men} men a side is out of range: expected 3..{MAX_MEN}")
    graph = tier_graph(max_men)
    if through is not None:
        wanted: set[Tier] = set()
        stack = [(min(through), max(through))]
        while stack:
            tier = stack.pop()
            if tier not in wanted:
                wanted.add(tier)
                stack.extend(graph[tier])
        graph = {tier: needs for tier, needs in graph.items() if tier in wanted}
    stored = {(info.mover, info.other): info for info in endgames.classes()}
    done: set[Tier] = set()
    infos: list[ClassInfo] = []

    def classes(tier: Tier) -> list[tuple[int, int]]:
        x, y = tier
        return [(x, y)] if x == y else [(x, y), (y, x)]

    for tier in graph:
        if all(key in stored for key in classes(tier)):
            done.add(tier)
            for key in classes(tier):
                infos.append(stored[key])
                if on_class is not None:
                    on_class(stored[key])
    running: dict[Future[Any], Tier] = {}
    path = str(endgames.path)
    try:
        while len(done) < len(graph):
            # Step 1. Send every tier whose dependencies are stored.
            busy = set(running.values())
            for tier, needs in graph.items():
                if tier not in done and tier not in busy and needs <= done:
                    running[executor.submit(build_tier, path, *tier)] = tier
            # Step 2. Commit each tier as it comes back.
            for future in executor.wait(list(running), _POLL_S):
                tier = running.pop(future)
                packed, seconds = future.result()
                tables = {
                    (m, o): np.frombuffer(zlib.decompress(data), dtype=np.uint8)
                    for m, o, data in packed
                }
                for info in endgames.commit(tables, seconds):
                    infos.append(info)
                    if on_class is not None:
                        on_class(info)
                done.add(tier)
    finally:
        for future in running:
            executor.cancel(future)
    order = {key: i for i, key in enumerate(k for tier in graph for k in classes(tier))}
    return sorted(infos, key=lambda info: order[(info.mover, info.other)])
