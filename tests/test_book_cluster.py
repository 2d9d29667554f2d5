"""``zerosum book --cluster`` (Ray tasks) stores what the serial book stores.

A local Ray instance (``--cluster auto``) runs the units as a cluster's nodes would: each
position of a layer is a Ray task, and its result comes back to the command, which keeps it in
the one store. A real two-node cluster (:mod:`ray_nodes`: two ``ray start`` processes, token
authentication) builds a connect four book with both nodes, after a first run was killed
(kill -9) once the store held some results: the rerun solves only what is not stored, and the
book equals the serial one.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray")

from ray_nodes import TwoNodes, joined
from test_cli_crash import ENV, _rows
from waiting import HANG_S

from zerosum.cli import main
from zerosum.runtime.cluster import RayTaskExecutor

# The slow set: a local Ray started (about 20 s on a loaded machine) and two books built.
pytestmark = [pytest.mark.slow, pytest.mark.ray]

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


CONNECT4 = ["book", "connect4", "--moves", "3216462", "--plies", "2", "--no-book"]
"""57 positions of 7 to 9 plies (the shipped book answers only up to 4), 0.1 s or so each."""


@pytest.fixture
def two_nodes(two_ray_nodes: TwoNodes, tmp_path: Path) -> Iterator[TwoNodes]:
    """The session's two nodes (``conftest.two_ray_nodes``), both up and joined from this
    process (:func:`ray_nodes.joined`)."""
    home = tmp_path / "home"
    home.mkdir()
    with joined(two_ray_nodes, home) as nodes:
        yield nodes


def test_a_connect_four_book_on_two_nodes_resumes_after_kill_9_and_equals_the_serial_book(
    two_nodes: TwoNodes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serial, path = tmp_path / "serial.sqlite", tmp_path / "nodes.sqlite"
    assert main([*CONNECT4, "--store", str(serial), "--json"]) == 0
    local = json.loads(capsys.readouterr().out)
    argv = [*CONNECT4, "--store", str(path), "--cluster", two_nodes.address, "--json"]
    env = {**os.environ, "PYTHONPATH": ENV["PYTHONPATH"]}  # now: with the cluster's token
    first = subprocess.Popen(
        [sys.executable, "-m", "zerosum", *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 600
        while _rows(path) < 10:
            assert first.poll() is None, "the first build ended before it was killed"
            assert time.monotonic() < deadline, "the first build stored nothing"
            time.sleep(0.02)  # polling an observable state, not waiting a fixed time
        first.kill()
        assert first.wait(timeout=HANG_S) == -signal.SIGKILL
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    kept = _solved(path)
    assert 10 <= len(kept) < local["positions"]
    assert main(argv) == 0
    remote = json.loads(capsys.readouterr().out)
    assert remote["complete"] is True and remote["positions"] == local["positions"]
    assert remote["stored_before"] == len(kept)  # nothing kept is solved again
    assert remote["solved"] == remote["positions"] - len(kept)
    assert remote["cluster_nodes"] == 2, remote["units_per_node"]
    assert sum(remote["units_per_node"].values()) == remote["solved"]
    # Every result is the serial book's (which also proves a best move one ply deeper), and
    # every book position is there.
    assert kept <= _solved(path) <= _solved(serial)
    assert len(_solved(path)) == remote["positions"]
