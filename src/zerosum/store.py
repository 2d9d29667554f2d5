"""An embedded store of proven results (SQLite), so that solving is resumable work.

Each row is one position's exact result: the game, a canonical key (shared by symmetric
positions), whether the result is weak (only win, draw or loss: -1, 0, 1) or strong (the
game's exact score), and the result. A strong result also answers weak questions.

Durability, and its trade-off: every ``put`` commits at once, in write-ahead-log mode with
``synchronous=NORMAL``. A commit is then in the operating system's hands when ``put`` returns,
so a process that is interrupted or killed (Ctrl-C, ``kill -9``, a crash) loses nothing it
committed, and the next open finds the file whole (tests/test_cli_crash.py kills ``book`` and
``solve --store`` and runs SQLite's integrity check). A power cut may lose the last commits
(never the file's consistency): re-proving them is cheaper than waiting for the disk at every
one of a book's thousands of commits (``synchronous=FULL`` made ``book`` 1.5-2x slower).

Checks: opening runs SQLite's quick check and refuses a damaged, read-only or foreign file in
one line (:mod:`zerosum.sqlitefile`); a write blocked by another process's lock waits a bounded
time, then fails in one line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Self

from zerosum.sqlitefile import FileProblem, SqliteFile

_SCHEMA = """
CREATE TABLE IF NOT EXISTS solved (
    game TEXT NOT NULL,
    key INTEGER NOT NULL,
    weak INTEGER NOT NULL,
    result INTEGER NOT NULL,
    PRIMARY KEY (game, key, weak)
) WITHOUT ROWID
"""


StoreError = FileProblem
"""A store file that cannot be used (damaged, read-only, locked, not a zerosum store)."""


class Store:
    """Proven results in the SQLite file at ``path`` (created if missing).

    Opening checks the file (:class:`~zerosum.sqlitefile.SqliteFile`: SQLite's quick check, a
    file this user can write); every problem with it, then or later, is a
    :class:`~zerosum.sqlitefile.FileProblem` in one line, and a damaged store is never
    written. A write that another process's lock blocks waits up to ``wait_s`` seconds,
    telling ``on_wait`` once (a command shows it as a status line)."""

    def __init__(
        self,
        path: str | Path,
        *,
        wait_s: float | None = None,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self._file = SqliteFile(path, what="store", wait_s=wait_s, on_wait=on_wait)
        try:
            self._file.run(lambda db: db.execute("PRAGMA synchronous=NORMAL"))  # see the header
            self._file.run(lambda db: db.execute(_SCHEMA), write=True)
        except BaseException:
            self._file.close()
            raise

    def get(self, game: str, key: int, *, weak: bool = False) -> int | None:
        """The stored result, or ``None``; a weak question takes a strong answer's sign."""
        rows = self._file.run(
            lambda db: db.execute(
                "SELECT weak, result FROM solved WHERE game = ? AND key = ? ORDER BY weak",
                (game, key),
            ).fetchall()
        )
        for is_weak, result in rows:
            if not is_weak:
                return int((result > 0) - (result < 0)) if weak else int(result)
            if weak:
                return int(result)
        return None

    def put(self, game: str, key: int, result: int, *, weak: bool = False) -> None:
        """Store a proven result and commit it."""
        self._file.run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO solved (game, key, weak, result) VALUES (?, ?, ?, ?)",
                (game, key, int(weak), result),
            ),
            write=True,
        )

    def count(self, game: str | None = None) -> int:
        """How many results are stored (for ``game``, or in all)."""
        if game is None:
            row = self._file.run(lambda db: db.execute("SELECT COUNT(*) FROM solved").fetchone())
        else:
            row = self._file.run(
                lambda db: db.execute(
                    "SELECT COUNT(*) FROM solved WHERE game = ?", (game,)
                ).fetchone()
            )
        return int(row[0])

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
