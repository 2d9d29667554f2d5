"""``zerosum book --cluster`` (Ray tasks) stores what the serial book stores.

A local Ray instance (``--cluster auto``) runs the units as a cluster's nodes would: each
position of a layer is a Ray task, and its result comes back to the command, which keeps it in
the one store. (The two-node cluster runs the same executor: ``tests/test_cluster_nodes.py``.)
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray")

from zerosum.cli import main
from zerosum.runtime.cluster import RayTaskExecutor

# The slow set: a local Ray started (about 20 s on a loaded machine) and two books built.
pytestmark = pytest.mark.slow

BOOK = ["book", "tictactoe", "--moves", "b2", "a1", "--plies", "3"]


def _solved(path: Path) -> set[tuple[str, int, int, int]]:
    db = sqlite3.connect(path)
    try:
        return set(db.execute("SELECT game, key, weak, result FROM solved"))
    finally:
        db.close()


@pytest.fixture
def running_ray() -> Iterator[None]:
    """A local Ray that both commands join (started once, not by each command)."""
    executor = RayTaskExecutor("auto", workers=2)
    yield
    executor.shutdown()


def test_a_book_on_ray_equals_the_serial_book_and_resumes(
    running_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serial, ray = tmp_path / "serial.sqlite", tmp_path / "ray.sqlite"
    assert main([*BOOK, "--store", str(serial), "--json"]) == 0
    local = json.loads(capsys.readouterr().out)
    argv = [*BOOK, "--store", str(ray), "--cluster", "auto", "--workers", "2", "--json"]
    assert main(argv) == 0
    remote = json.loads(capsys.readouterr().out)
    assert remote["complete"] is True and remote["positions"] == local["positions"]
    # The serial book also proves a best move of each position it searched (one ply deeper):
    # every result of the cluster's book is the serial book's, and every book position is there.
    assert _solved(ray) <= _solved(serial)
    assert len(_solved(ray)) == remote["positions"] == remote["solved"]
    assert main(argv) == 0  # again: every position from the store, none solved twice
    again = json.loads(capsys.readouterr().out)
    assert again["complete"] and again["solved"] == 0
    assert again["stored_before"] == remote["positions"]
