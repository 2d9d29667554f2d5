"""A ``kill -9`` in the middle of ``book`` and ``solve --store`` loses nothing committed: the
store passes SQLite's integrity check, its rows read back, and a rerun resumes from them and
completes. (``build-endgames`` is killed the same way in tests/test_endgames.py.)

Each test waits for observable committed progress (rows in the file, read through a
connection of its own), never for a fixed time, then kills the process with SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from waiting import HANG_S

SRC = str(Path(__file__).resolve().parents[1] / "src")
ENV = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _rows(path: Path) -> int:
    """The rows committed to the store at ``path`` so far (0 before its table exists)."""
    if not path.exists():
        return 0
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=HANG_S)
    except sqlite3.OperationalError:  # created but not yet a database
        return 0
    try:
        return int(db.execute("SELECT COUNT(*) FROM solved").fetchone()[0])
    except sqlite3.OperationalError:  # the table is not there yet
        return 0
    finally:
        db.close()


def _kill_after(command: list[str], path: Path, rows: int, *, timeout: float = HANG_S) -> int:
    """Start ``zerosum command``, wait until ``path`` holds at least ``rows`` committed rows,
    SIGKILL it, and return the rows seen just before the kill."""
    process = subprocess.Popen(
        [sys.executable, "-m", "zerosum", *command],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + timeout
        seen = 0
        while seen < rows:
            assert process.poll() is None, f"finished before the kill: {process.stderr}"
            assert time.monotonic() < deadline, f"no {rows} rows after {timeout} s"
            time.sleep(0.02)  # polling an observable state, not waiting a fixed time
            seen = _rows(path)
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=HANG_S) == -signal.SIGKILL
        return seen
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _check_store(path: Path, at_least: int) -> list[tuple[str, int, int, int]]:
    """The store is whole (integrity check ``ok``) and holds at least ``at_least`` readable
    rows, each a proven result; returns them."""
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        rows = db.execute("SELECT game, key, weak, result FROM solved").fetchall()
    finally:
        db.close()
    assert len(rows) >= at_least
    assert all(isinstance(key, int) and weak in (0, 1) for _, key, weak, _ in rows)
    return rows


def _rerun(command: list[str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "zerosum", *command, "--json"],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def test_a_killed_book_keeps_its_results_and_resumes(tmp_path: Path) -> None:
    store = tmp_path / "book.sqlite"
    command = ["book", "tictactoe", "--moves", "b2", "a1", "--plies", "5", "--store", str(store)]
    seen = _kill_after(command, store, rows=20)
    rows = _check_store(store, seen)
    assert {game for game, *_ in rows} == {"tictactoe"}
    assert all(-5 <= result <= 5 for *_, result in rows)  # tic-tac-toe's scores
    data = _rerun(command)
    assert data["complete"] is True
    # Resumed: what was stored is not proven again. The store holds more than the book's
    # positions: a best move of each position searched, one ply deeper.
    assert 0 < data["stored_before"] <= len(rows)  # type: ignore[operator]
    assert data["stored_before"] + data["solved"] == data["positions"]  # type: ignore[operator]
    assert data["store_results"] >= data["positions"]  # type: ignore[operator]
    _check_store(store, len(rows))


def test_a_killed_solve_keeps_its_results_and_resumes(tmp_path: Path) -> None:
    store = tmp_path / "solve.sqlite"
    # The score is proven and stored first (17k nodes), then each move's (5.5M nodes in all).
    command = ["solve", "connect4", "--moves", "32164625", "--all", "--store", str(store)]
    seen = _kill_after(command, store, rows=1)
    rows = _check_store(store, seen)
    assert {(game, weak) for game, _, weak, _ in rows} == {("connect4", 0)}
    data = _rerun(command)
    assert data["stored"] is True and data["complete"] is True  # the score from the store
    assert data["score"] in {result for *_, result in rows}
    _check_store(store, len(rows) + 1)  # and the moves' results, added to what was kept
