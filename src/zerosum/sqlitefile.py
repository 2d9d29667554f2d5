"""An SQLite file that a user names, opened with checks and used without tracebacks.

Both files zerosum keeps (the store of proven results, :mod:`zerosum.store`, and the morris
endgame databases, :mod:`zerosum.endgames.database`) open through :class:`SqliteFile`, which
turns what can go wrong with a file on disk into one-line errors (:class:`FileProblem` and its
kinds) instead of ``sqlite3`` tracebacks:

* **Damaged.** Opening an existing file runs SQLite's ``PRAGMA quick_check`` before anything is
  written (the check reads every page, about a second per few hundred MB); a file that fails
  it, or that SQLite later finds malformed, raises :class:`DamagedError` and is never written.
* **Read-only.** A file or folder this user cannot write raises :class:`ReadOnlyError` at once
  (root writes through permission bits, so for root a ``chmod a-w`` file is writable); a write
  SQLite itself refuses raises it too.
* **Locked.** A write that another connection's transaction blocks waits, telling
  ``on_wait`` once (for a status line), and raises :class:`LockedError` after ``wait_s``
  seconds. A transaction is retried whole (:meth:`SqliteFile.run`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final, TypeVar

from zerosum.game import ZerosumError

T = TypeVar("T")

LOCK_WAIT_S: Final = 60.0
"""How long a write waits for another connection's lock by default."""
_BUSY_SLICE_S: Final = 0.5
"""SQLite's own busy timeout: how long one try waits before :meth:`SqliteFile.run` looks at
the clock again."""


class FileProblem(ZerosumError, OSError):
    """An SQLite file that cannot be used (the message says why and what was expected)."""


class DamagedError(FileProblem):
    """A file that is not an SQLite database, or one SQLite finds damaged."""


class ReadOnlyError(FileProblem):
    """A file (or its folder) that this user cannot write."""


class LockedError(FileProblem):
    """A file another connection kept locked for longer than the wait allowed."""


class SqliteFile:
    """The SQLite file at ``path`` (created if missing), checked on opening; ``what`` names it
    in messages (``store``). ``on_wait(message)`` is told once when a write waits for a lock;
    :class:`LockedError` comes after ``wait_s`` seconds of waiting (default
    :data:`LOCK_WAIT_S`)."""

    def __init__(
        self,
        path: str | Path,
        *,
        what: str = "database",
        wait_s: float | None = None,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.what = what
        self.wait_s = LOCK_WAIT_S if wait_s is None else wait_s
        self.on_wait = on_wait
        memory = str(path) == ":memory:"
        if not memory:
            self._check_writable()
        existed = not memory and self.path.exists() and self.path.stat().st_size > 0
        try:
            self.db = sqlite3.connect(self.path, timeout=_BUSY_SLICE_S)
        except sqlite3.Error as error:
            raise self.problem(error) from None
        try:
            if existed:
                self.quick_check()
            self.run(lambda db: db.execute("PRAGMA journal_mode=WAL"))
        except BaseException:
            self.db.close()
            raise

    def _check_writable(self) -> None:
        """Raise :class:`ReadOnlyError` if this user cannot write the file, or its folder (for
        a new file, and for the write-ahead log beside it)."""
        folder = self.path.parent if str(self.path.parent) else Path(".")
        if self.path.exists() and not os.access(self.path, os.W_OK):
            raise ReadOnlyError(
                f"the {self.what} {self.path} is read-only for this user: expected a file "
                "this user can write"
            )
        if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
            raise ReadOnlyError(
                f"the folder of the {self.what} {self.path} is read-only for this user (SQLite "
                "writes its log beside the file): expected a folder this user can write"
            )

    def quick_check(self) -> None:
        """SQLite's ``quick_check``; raises :class:`DamagedError` naming the first problem."""
        rows = self.run(lambda db: db.execute("PRAGMA quick_check").fetchall())
        # One line: a row of the check may hold several ("*** in database main ***\nOn ...").
        problems = [" ".join(str(row[0]).split()) for row in rows if row[0] != "ok"]
        if problems:
            more = f" and {len(problems) - 1:,} more" if len(problems) > 1 else ""
            raise DamagedError(
                f"the {self.what} {self.path} is damaged (SQLite's quick check: "
                f"{problems[0][:200]}{more}); it was left as it is: expected an intact file "
                "(restore a copy, or give a new path)"
            )

    def run(self, work: Callable[[sqlite3.Connection], T], *, write: bool = False) -> T:
        """``work(connection)``, committed if ``write``; retried whole (after a rollback)
        while another connection holds the lock, for up to ``wait_s`` seconds. SQLite's
        errors come out as :class:`FileProblem` s."""
        started = time.monotonic()
        told = False
        while True:
            try:
                result = work(self.db)
                if write:
                    self.db.commit()
                return result
            except sqlite3.Error as error:
                if self.db.in_transaction:
                    self._rollback()
                if not _busy(error):
                    raise self.problem(error) from None
                if not told and self.on_wait is not None:
                    told = True
                    self.on_wait(
                        f"the {self.what} {self.path} is locked by another process: waiting up "
                        f"to {self.wait_s:g} s"
                    )
                waited = time.monotonic() - started
                if waited >= self.wait_s:
                    raise LockedError(
                        f"the {self.what} {self.path} is locked by another process (waited "
                        f"{waited:.1f} s): expected it free (stop the other process, or give "
                        "another path)"
                    ) from None
                time.sleep(0.01)  # SQLite's busy timeout waited already; a locked table may not

    def _rollback(self) -> None:
        with contextlib.suppress(sqlite3.Error):  # the next try reports what is wrong
            self.db.rollback()

    def problem(self, error: sqlite3.Error) -> FileProblem:
        """The one-line error for SQLite's ``error``."""
        name = getattr(error, "sqlite_errorname", "") or ""
        text = str(error)
        if name.startswith("SQLITE_READONLY") or "readonly" in text:
            return ReadOnlyError(
                f"the {self.what} {self.path} cannot be written ({text}): expected a file this "
                "user can write"
            )
        if name.startswith("SQLITE_NOTADB") or "not a database" in text:
            return DamagedError(
                f"{self.path} cannot be used as {self._a_what} ({text}); it was left as it "
                f"is: expected a zerosum {self.what} file or a new path"
            )
        if name.startswith("SQLITE_CORRUPT") or "malformed" in text:
            return DamagedError(
                f"the {self.what} {self.path} is damaged ({text}); it was left as it is: "
                "expected an intact file (restore a copy, or give a new path)"
            )
        if name.startswith("SQLITE_FULL"):
            return FileProblem(f"the disk of the {self.what} {self.path} is full ({text})")
        return FileProblem(
            f"{self.path} cannot be used as {self._a_what} ({text}): expected a zerosum "
            f"{self.what} file or a new path"
        )

    @property
    def _a_what(self) -> str:
        return f"{'an' if self.what[:1] in 'aeiou' else 'a'} {self.what}"

    def close(self) -> None:
        self.db.close()


def _busy(error: sqlite3.Error) -> bool:
    """Whether ``error`` says another connection holds the lock."""
    name = getattr(error, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in str(error)
