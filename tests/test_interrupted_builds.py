"""Books and endgame tiers built on worker processes, interrupted by ``kill -9`` or Ctrl-C,
lose only the units in flight: the rerun takes the rest from the file and equals the serial
build.

Each test waits for an observable state (rows committed to the store, read through a
connection of its own; a class's line on the command's stderr), never for a fixed time, then
interrupts the command. What was committed before the signal may be more than what the test
saw (the command runs on meanwhile): the assertions hold for any amount.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from test_cli_crash import ENV, _check_store, _rerun, _rows
from test_endgames import store  # noqa: F401  (the session's serially built classes)
from waiting import HANG_S

from zerosum.endgames.database import Endgames
from zerosum.endgames.tiers import build_tiers
from zerosum.runtime.executor import ProcessExecutor

SIGNALS = pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["kill -9", "ctrl-c"])
BOOK = ["book", "tictactoe", "--moves", "b2", "a1", "--plies", "5"]
"""About a hundred positions, each a unit on the workers."""


def _stop(process: subprocess.Popen[str], how: signal.Signals, ctrl_c_exit: int) -> None:
    """Send ``how`` to the command and wait for it to end (Ctrl-C: it stops its workers and
    exits ``ctrl_c_exit``; kill -9: its workers stop at their next idle moment)."""
    process.send_signal(how)
    code = process.wait(timeout=HANG_S)
    assert code == (-signal.SIGKILL if how is signal.SIGKILL else ctrl_c_exit), code


def _solved(path: Path) -> set[tuple[str, int, int, int]]:
    db = sqlite3.connect(path)
    try:
        return set(db.execute("SELECT game, key, weak, result FROM solved"))
    finally:
        db.close()


@pytest.fixture(scope="module")
def serial_book(tmp_path_factory: pytest.TempPathFactory) -> set[tuple[str, int, int, int]]:
    """What the serial book stores: built once for the tests below."""
    serial = tmp_path_factory.mktemp("serial") / "serial.sqlite"
    assert _rerun([*BOOK, "--store", str(serial)])["complete"] is True
    return _solved(serial)


@pytest.mark.slow  # a book on workers built twice, and serially (once) for the oracle
@SIGNALS
def test_an_interrupted_book_on_workers_resumes_and_equals_the_serial_book(
    tmp_path: Path, how: signal.Signals, serial_book: set[tuple[str, int, int, int]]
) -> None:
    path = tmp_path / "book.sqlite"
    command = [*BOOK, "--store", str(path), "--workers", "2"]
    process = subprocess.Popen(
        [sys.executable, "-m", "zerosum", *command],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        seen = 0
        while seen < 10:
            assert process.poll() is None, f"finished before the signal: {process.stderr}"
            assert time.monotonic() < deadline, "no 10 rows in the store"
            time.sleep(0.02)  # polling an observable state, not waiting a fixed time
            seen = _rows(path)
        _stop(process, how, 0)  # book reports what it built and exits 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    kept = _check_store(path, seen)
    data = _rerun(command)
    assert data["complete"] is True
    assert data["stored_before"] == len(kept)  # resumed: nothing proven twice
    # The serial book also proves a best move of each position it searched (one ply deeper):
    # every result of the workers' book is the serial book's, and every book position is there.
    assert _solved(path) <= serial_book
    assert len(_solved(path)) == data["positions"]


@pytest.mark.slow  # the 3-4 tier built up to twice, 3-3 and 3-4 serially for the oracle
@SIGNALS
def test_an_interrupted_tier_build_resumes_and_equals_the_serial_build(
    store: Path,  # noqa: F811
    tmp_path: Path,
    how: signal.Signals,
) -> None:
    path = tmp_path / "tiers.sqlite"
    command = [sys.executable, "-m", "zerosum", "build-endgames", "morris", "--max-men", "4"]
    command += ["--workers", "2", "--store", str(path)]
    process = subprocess.Popen(command, env=ENV, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # 3-3 is committed; the 3-4 tier goes out next
        assert line.startswith("endgames 3-3:"), line
        _stop(process, how, 130)  # build-endgames: "interrupted"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    with Endgames(path) as built:
        before = {(info.mover, info.other) for info in built.classes()}
        assert (3, 3) in before
        with ProcessExecutor(2) as pool:
            infos = build_tiers(built, pool, 4, through=(4, 3))
        assert {(i.mover, i.other) for i in infos if not i.built_now} == before & {
            (3, 3),
            (3, 4),
            (4, 3),
        }
        with Endgames(store, create=False) as serial:
            for info in infos:
                key = (info.mover, info.other)
                assert np.array_equal(built.table(*key), serial.table(*key)), key
    assert infos[0].entries == 2_691_920  # 3-3: Gasser's and Malom's count
