"""Endgame tiers built in dependency order on an executor equal the serial build."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_endgames import store  # noqa: F401  (the session's serially built classes)

from zerosum.endgames.database import Endgames
from zerosum.endgames.tiers import build_tiers, count_unit, tier_graph, work_folder
from zerosum.runtime.executor import ProcessExecutor


def test_the_tier_graph_follows_the_removals() -> None:
    graph = tier_graph(5)
    assert graph[(3, 3)] == frozenset()
    assert graph[(3, 4)] == {(3, 3)}
    assert graph[(4, 4)] == {(3, 4)}
    assert graph[(3, 5)] == {(3, 4)}  # 3-5 removes to 4-3 and 2-5 (won): independent of 4-4
    assert graph[(4, 5)] == {(4, 4), (3, 5)}
    assert graph[(5, 5)] == {(4, 5)}
    order = list(graph)
    assert all(order.index(need) < order.index(tier) for tier in graph for need in graph[tier])


@pytest.mark.slow  # test_endgames' serial build of 3-3, 3-4 and 4-3 (slow), then the tiers
def test_tiers_on_worker_processes_equal_the_serial_build(
    store: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    seen = []
    with Endgames(tmp_path / "tiers.sqlite") as built, ProcessExecutor(2) as pool:
        infos = build_tiers(built, pool, 4, through=(4, 3), on_class=seen.append)
        assert [(i.mover, i.other) for i in infos] == [(3, 3), (3, 4), (4, 3)]
        assert [(i.mover, i.other) for i in seen] == [(3, 3), (3, 4), (4, 3)]
        with Endgames(store, create=False) as serial:
            for info in infos:
                key = (info.mover, info.other)
                assert np.array_equal(built.table(*key), serial.table(*key)), key
        again = build_tiers(built, pool, 4, through=(3, 4))
        assert all(not info.built_now for info in again)
    assert infos[0].entries == 2_691_920  # 3-3: Gasser's and Malom's count


class Recording(ProcessExecutor):
    """Worker processes that note every unit they are given."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.units: list[tuple[str, tuple[object, ...]]] = []

    def submit(self, fn, /, *args):  # type: ignore[no-untyped-def]
        self.units.append((fn.__name__, args))
        return super().submit(fn, *args)


def test_tiers_in_parts_equal_the_one_unit_build(
    store: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Parts of 200,000 entries split 3-4 and 4-3 into 5 each, step 1 and every level's two
    rounds; one part of 3-4 is built beforehand (as by an interrupted run) and is not built
    again."""
    path = tmp_path / "parts.sqlite"
    size = 200_000
    with Endgames(path) as built, Recording(2) as pool:
        build_tiers(built, pool, 3)  # 3-3, the input of 3-4's parts
        folder = work_folder(path, (3, 4), size)
        count_unit(str(path), str(folder), 3, 4, 200_000, 400_000)
        infos = build_tiers(built, pool, 4, through=(4, 3), part_size=size)
        kinds = [name for name, _ in pool.units]
        assert kinds.count("build_tier") == 1  # 3-3, whole (no part size given)
        parts = [args for name, args in pool.units if name == "count_unit"]
        assert len(parts) == 5 + 5 - 1
        assert (str(path), str(folder), 3, 4, 200_000, 400_000) not in parts
        levels = kinds.count("predecessors_unit")
        assert levels == kinds.count("apply_unit") and levels % 10 == 0 and levels >= 10 * 33
        assert kinds.count("finish_unit") == 1
        assert not folder.exists()  # removed once the tier is stored
        with Endgames(store, create=False) as serial:
            for info in infos:
                key = (info.mover, info.other)
                assert np.array_equal(built.table(*key), serial.table(*key)), key
                (same,) = [i for i in serial.classes() if i.name == info.name]
                counted = ("entries", "classes", "stored", "wins", "losses", "draws")
                assert [getattr(info, f) for f in counted] == [getattr(same, f) for f in counted]
    assert [i.name for i in infos] == ["3-3", "3-4", "4-3"]
