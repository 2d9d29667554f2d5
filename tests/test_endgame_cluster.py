"""Endgame tiers in parts on a real two-node Ray cluster (``ray start``, token authentication).

The two nodes run on this machine and so see the same file system, as the nodes of a cluster
with a shared file system do: every unit reads its inputs from the store and its part from the
tier's work folder, by the same (absolute) path. The tables must equal the serial build's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray")

from ray_nodes import TwoNodes, holding_token
from test_endgames import store  # noqa: F401  (the session's serially built classes)

from zerosum.endgames.database import Endgames
from zerosum.endgames.tiers import build_tiers, work_folder
from zerosum.runtime.cluster import RayTaskExecutor

# The slow set: two Ray nodes started, and the serial build of the oracle.
pytestmark = pytest.mark.slow


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[TwoNodes]:
    """Two nodes, joined from this process with the cluster's token (as a user who exported
    it); the environment and Ray's view of it are put back afterwards."""
    nodes = TwoNodes()
    try:
        with holding_token(nodes.token, tmp_path):
            yield nodes
    finally:
        nodes.close()


def test_a_tier_in_parts_on_two_ray_nodes_equals_the_serial_build(
    store: Path,  # noqa: F811
    cluster: TwoNodes,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """3-3 whole, then 3-4 and 4-3 in parts of 200,000 entries (5 each): step 1 and every
    level's two rounds as Ray tasks spread over both nodes. The store is named by a relative
    path, which the nodes' workers (their own working folders) must still find."""
    monkeypatch.chdir(tmp_path)
    size = 200_000
    with Endgames("cluster.sqlite") as built, RayTaskExecutor(cluster.address) as ray:
        assert ray._ray.cluster_resources().get("CPU") == 2  # both nodes
        infos = build_tiers(built, ray, 4, through=(4, 3), part_size=size)
        assert not work_folder(tmp_path / "cluster.sqlite", (3, 4), size).exists()
        with Endgames(store, create=False) as serial:
            for key in [(3, 3), (3, 4), (4, 3)]:
                assert np.array_equal(built.table(*key), serial.table(*key)), key
    assert [i.name for i in infos] == ["3-3", "3-4", "4-3"]
    assert all(info.built_now for info in infos)
