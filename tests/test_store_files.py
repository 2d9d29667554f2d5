"""The store and the endgame store on a bad day: a damaged file, a read-only one, one locked by
another process. Each is one line on stderr and exit 2, never a traceback, and a damaged file
is never written."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

import zerosum.sqlitefile
from zerosum.cli import main
from zerosum.endgames.database import EndgameError, Endgames
from zerosum.sqlitefile import DamagedError, LockedError, ReadOnlyError, SqliteFile
from zerosum.store import Store

SOLVE = ["solve", "tictactoe", "--moves", "a1", "b2", "c3", "--algorithm", "compiled"]
"""A solve that stores what it proves, in well under a second once compiled."""


def real_store(path: Path, rows: int = 60_000) -> Path:
    """A store of ``rows`` results (about 1.4 MB), checkpointed into the one file."""
    with Store(path) as store:
        store.put("tictactoe", 1, 0)
    db = sqlite3.connect(path)
    db.executemany(
        "INSERT INTO solved VALUES (?, ?, ?, ?)",
        [("connect4", key * 7919, 0, key % 5 - 2) for key in range(rows)],
    )
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path


def damaged_store(path: Path) -> Path:
    """A real store with 8 KB overwritten in its middle."""
    real_store(path)
    size = path.stat().st_size
    with path.open("r+b") as file:
        file.seek(size // 2)
        file.write(bytes(range(256)) * 32)
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line_error(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert "Traceback" not in captured.err
    assert lines and lines[-1].startswith("zerosum: error: "), captured.err
    assert all(word in lines[-1] for word in words), lines[-1]
    return lines[-1]


# -- damaged --------------------------------------------------------------------------------


def test_opening_a_damaged_store_is_refused_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    bad = damaged_store(tmp_path / "bad.sqlite")
    before = digest(bad)
    with pytest.raises(DamagedError, match="damaged"):
        Store(bad)
    with pytest.raises(EndgameError, match="damaged"):
        Endgames(bad)
    assert digest(bad) == before
    assert (
        not (tmp_path / "bad.sqlite-wal").exists()
        or (tmp_path / "bad.sqlite-wal").stat().st_size == 0
    )


def test_a_quick_check_of_several_lines_is_one_line(tmp_path: Path) -> None:
    """SQLite's quick check answers in rows that hold several lines each ("*** in database
    main ***" then a line a problem): the error said them all, one per line."""
    bad = real_store(tmp_path / "bad.sqlite")
    with bad.open("r+b") as file:
        file.seek(4096)  # the pages after the first: the check itself reads them
        file.write(b"\xff" * 8192)
    with pytest.raises(
        DamagedError, match=r"SQLite's quick check: \*\*\* in database main"
    ) as caught:
        Store(bad)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "argv",
    [
        SOLVE,
        ["book", "tictactoe", "--moves", "a1", "b2", "c3", "--plies", "1"],
        ["build-endgames", "morris", "--max-men", "3"],
        ["solve", "connect4", "--positions", "POSITIONS"],
    ],
    ids=["solve", "book", "build-endgames", "solve-positions"],
)
def test_commands_refuse_a_damaged_store_in_one_line(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = damaged_store(tmp_path / "bad.sqlite")
    before = digest(bad)
    (tmp_path / "positions.txt").write_text("4453 -2\n")
    argv = [str(tmp_path / "positions.txt") if word == "POSITIONS" else word for word in argv]
    assert main([*argv, "--store", str(bad)]) == 2
    one_line_error(capsys, "damaged", str(bad))
    assert digest(bad) == before, "the damaged store was written"


def test_a_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all\n" * 500)
    with pytest.raises(DamagedError, match="cannot be used as a store"):
        Store(junk)


# -- read-only ------------------------------------------------------------------------------


def test_a_read_only_store_as_the_user_running_the_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``chmod a-w``: a user is refused in one line before anything is solved; root writes
    through permission bits, so for root (CI runs as root) the store is writable and used."""
    store = real_store(tmp_path / "ro.sqlite", rows=10)
    store.chmod(0o444)
    try:
        status = main([*SOLVE, "--store", str(store)])
        if os.geteuid() == 0:
            assert status == 0
            with Store(store) as opened:
                assert opened.count("tictactoe") > 1  # what the solve proved was stored
        else:
            assert status == 2
            one_line_error(capsys, "read-only", str(store))
    finally:
        store.chmod(0o644)


def test_a_store_this_user_cannot_write_is_refused_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a user who is not root sees (``os.access`` as such a user would answer it)."""
    store = real_store(tmp_path / "ro.sqlite", rows=10)
    before = digest(store)
    monkeypatch.setattr(zerosum.sqlitefile.os, "access", lambda path, mode: False)
    with pytest.raises(ReadOnlyError, match="read-only"):
        Store(store)
    assert main([*SOLVE, "--store", str(store)]) == 2
    one_line_error(capsys, "read-only", str(store))
    assert main(["book", "tictactoe", "--plies", "1", "--store", str(store)]) == 2
    one_line_error(capsys, "read-only")
    assert digest(store) == before


def test_a_write_that_sqlite_refuses_is_one_line(tmp_path: Path) -> None:
    """SQLite's own "attempt to write a readonly database" (a read-only mount, say), here
    through a read-only connection."""
    path = real_store(tmp_path / "store.sqlite", rows=10)
    store = Store(path)
    store._file.db.close()
    store._file.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert store.get("tictactoe", 1) == 0  # reading works
        with pytest.raises(ReadOnlyError, match="cannot be written"):
            store.put("tictactoe", 2, 1)
    finally:
        store.close()


# -- locked ---------------------------------------------------------------------------------


@pytest.fixture
def short_wait(monkeypatch: pytest.MonkeyPatch) -> float:
    """Lock waits of a fraction of a second (the lock below is held for the whole test, so
    the wait's length only sets how long the test takes)."""
    monkeypatch.setattr(zerosum.sqlitefile, "LOCK_WAIT_S", 0.3)
    return 0.3


def hold_lock(path: Path) -> sqlite3.Connection:
    """Another connection in a write transaction on ``path`` (held until closed)."""
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    return holder


def test_a_locked_store_waits_then_says_so(tmp_path: Path, short_wait: float) -> None:
    path = real_store(tmp_path / "store.sqlite", rows=10)
    told: list[str] = []
    holder = hold_lock(path)
    try:
        with Store(path, on_wait=told.append) as store:
            assert store.get("tictactoe", 1) == 0  # readers are not blocked (WAL)
            with pytest.raises(LockedError, match="locked by another process"):
                store.put("tictactoe", 2, 1)
        assert len(told) == 1 and "waiting up to" in told[0]
    finally:
        holder.close()
    with Store(path) as store:  # free again: the write goes through
        store.put("tictactoe", 2, 1)
        assert store.get("tictactoe", 2) == 1


def test_a_write_waits_for_a_lock_that_ends(tmp_path: Path) -> None:
    """The lock ends while the write waits: the write goes through (on_wait is where the
    other connection lets go, so nothing depends on timing)."""
    path = real_store(tmp_path / "store.sqlite", rows=10)
    holder = hold_lock(path)

    def release(message: str) -> None:
        holder.execute("ROLLBACK")

    with Store(path, wait_s=120, on_wait=release) as store:
        store.put("tictactoe", 3, -1)
        assert store.get("tictactoe", 3) == -1
    holder.close()


def test_commands_with_a_locked_store_wait_with_a_status_line_then_fail_in_one_line(
    tmp_path: Path, short_wait: float, capsys: pytest.CaptureFixture[str]
) -> None:
    path = real_store(tmp_path / "store.sqlite", rows=10)
    holder = hold_lock(path)
    try:
        assert main([*SOLVE, "--store", str(path)]) == 2
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert "Traceback" not in captured.err
        assert lines[0].startswith("zerosum: the store") and "waiting up to" in lines[0]
        assert lines[-1].startswith("zerosum: error: ") and "locked" in lines[-1]
        assert main(["build-endgames", "morris", "--max-men", "3", "--store", str(path)]) == 2
        one_line_error(capsys, "locked")
    finally:
        holder.close()


def test_the_memory_store_needs_no_file() -> None:
    with Store(":memory:") as store:
        store.put("tictactoe", 1, 1)
        assert store.get("tictactoe", 1) == 1 and store.count() == 1


def test_sqlite_file_names_its_kind(tmp_path: Path) -> None:
    opened = SqliteFile(tmp_path / "new.sqlite", what="endgame store")
    assert opened._a_what == "an endgame store"
    opened.close()
