"""A distributed solve interrupted by ``kill -9`` or Ctrl-C loses only the units in flight.

``zerosum solve --cluster local`` runs the solve in work units on local worker processes, with
a small ``--unit-nodes`` budget so that units split while they run. Each test waits for an
observable state (rows committed to the store, read through a connection of its own), never
for a fixed time, then interrupts the command; the rerun finds every committed row, takes them
from the store, and gives the serial answer.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_cli_crash import ENV, _check_store, _rows
from waiting import HANG_S

from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4

POSITION = "3216462"
"""About 3 M nodes for one process; split into units of 20,000 nodes, a few hundred units."""


def _command(store: Path) -> list[str]:
    return [
        sys.executable, "-m", "zerosum", "solve", "connect4", "--moves", POSITION,
        "--cluster", "local", "--workers", "2", "--unit-nodes", "20000",
        "--store", str(store), "--json",
    ]  # fmt: skip


def _interrupt_after(store: Path, rows: int, how: signal.Signals) -> int:
    """Start the solve, wait until ``store`` holds ``rows`` committed rows, send ``how`` to
    the command (its workers are children in their own process groups), wait for it to end,
    and return the rows seen before the signal."""
    process = subprocess.Popen(
        _command(store), env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        seen = 0
        deadline = time.monotonic() + 300
        while seen < rows:
            assert process.poll() is None, f"finished before the signal: {process.stderr}"
            assert time.monotonic() < deadline, f"no {rows} rows in the store"
            time.sleep(0.02)  # polling an observable state, not waiting a fixed time
            seen = _rows(store)
        process.send_signal(how)
        process.wait(timeout=HANG_S)
        if how is signal.SIGKILL:
            assert process.returncode == -signal.SIGKILL
        return seen
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.slow  # a distributed solve on workers, interrupted, resumed and checked
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["kill -9", "ctrl-c"])
def test_an_interrupted_distributed_solve_resumes_from_the_store(
    tmp_path: Path, how: signal.Signals
) -> None:
    store = tmp_path / "units.sqlite"
    seen = _interrupt_after(store, 3, how)
    kept = _check_store(store, seen)
    game = Connect4.from_position(POSITION)
    serial = Solver("connect4")
    rank = serial.solve(game).rank
    best = [game.format_move(m) for m in serial.best_moves(game, rank)]
    done = subprocess.run(_command(store), env=ENV, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["score"], data["best_moves"]) == (rank, best)
    assert data["units_from_store"] >= 1 or data["stored"]
    assert _rows(store) >= len(kept)
    assert os.path.getsize(store) > 0
