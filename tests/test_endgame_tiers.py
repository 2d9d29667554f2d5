"""Endgame tiers built in dependency order on an executor equal the serial build."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_endgames import store  # noqa: F401  (the session's serially built classes)

from zerosum.endgames.database import Endgames
from zerosum.endgames.tiers import build_tiers, tier_graph
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
