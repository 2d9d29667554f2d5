"""Morris endgame databases in the embedded store: build once, probe any time.

Each class ``x-y`` (the side to move with ``x`` men, its opponent with ``y``, nothing in hand)
is one row of the ``endgame_tables`` table of an SQLite file: its byte table as a
zlib-compressed blob, one byte a position up to the board's 16 symmetries (the layout of
:mod:`zerosum.endgames.orbits`, the codes of :mod:`zerosum.endgames.retro`), with its counts
(every position, as the published figures count them, and the symmetry classes), its build
time and the building process's peak memory. The file may be the same one
``zerosum.store.Store`` keeps proven results in; the tables do not meet. (Files of earlier
versions kept full tables in a table ``endgames``: it is ignored, and the classes rebuilt.)

Building is resumable: the classes are built in dependency order, a class already stored is
skipped, and each pair ``x-y``/``y-x`` (solved together) is committed in one transaction, so a
killed build loses only the pair in progress.

The default file is ``$ZEROSUM_ENDGAMES`` if set, else ``endgames.sqlite`` in
``$XDG_CACHE_HOME/zerosum`` (``~/.cache/zerosum``).
"""

from __future__ import annotations

import os
import sqlite3
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from math import comb
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

import numpy as np

from zerosum.endgames import ENV_STORE, MAX_MEN
from zerosum.endgames.board import NINE_MENS_MORRIS, NINE_POINTS, Board
from zerosum.game import Outcome, PositionError, ZerosumError
from zerosum.sqlitefile import FileProblem, SqliteFile

GAME: Final = "morris"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS endgame_tables (
    game TEXT NOT NULL,
    mover INTEGER NOT NULL,
    other INTEGER NOT NULL,
    entries INTEGER NOT NULL,
    classes INTEGER NOT NULL,
    stored INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    longest_win INTEGER NOT NULL,
    longest_loss INTEGER NOT NULL,
    build_s REAL NOT NULL,
    peak_mb REAL NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (game, mover, other)
)
"""


class EndgameError(ZerosumError, OSError):
    """An endgame store that cannot be opened or does not hold a class it should."""


def default_path() -> Path:
    """Where the databases live unless told otherwise (see the module docstring)."""
    if os.environ.get(ENV_STORE):
        return Path(os.environ[ENV_STORE])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "zerosum" / "endgames.sqlite"


@dataclass(frozen=True)
class EndgameResult:
    """The exact result of a position for the side to move."""

    outcome: Outcome
    moves_to_end: int | None
    """Moves (one move = one turn) until the loser is down to two men or blocked, the winner
    hurrying and the loser delaying; ``None`` for a draw."""

    @classmethod
    def from_code(cls, code: int) -> EndgameResult:
        if code == 0:
            return cls(Outcome.DRAW, None)
        distance = code - 1
        return cls(Outcome.WIN if distance % 2 else Outcome.LOSS, distance)

    @property
    def word(self) -> str:
        return {Outcome.WIN: "win", Outcome.LOSS: "loss", Outcome.DRAW: "draw"}[self.outcome]

    def __str__(self) -> str:
        if self.moves_to_end is None:
            return "draw"
        moves = self.moves_to_end
        return f"{self.word} in {moves} {'move' if moves == 1 else 'moves'}"


@dataclass(frozen=True)
class ClassInfo:
    """What one stored class holds."""

    mover: int
    other: int
    entries: int
    """Positions of the class (every one, as the published figures count them)."""
    classes: int
    """Positions up to the board's symmetries (the canonical entries)."""
    stored: int
    """Entries of the stored table (the classes and their duplicates, see :mod:`.orbits`)."""
    wins: int
    losses: int
    draws: int
    longest_win: int
    longest_loss: int
    build_s: float
    peak_mb: float
    """The building process's peak resident memory (0 when unknown)."""
    built_now: bool = False
    """Built by this call rather than found in the store."""

    @property
    def name(self) -> str:
        return f"{self.mover}-{self.other}"


@dataclass(frozen=True)
class Setup:
    """A morris position as the database sees it."""

    white: int
    black: int
    white_to_move: bool
    in_hand: tuple[int, int]

    @property
    def mover(self) -> int:
        return self.white if self.white_to_move else self.black

    @property
    def other(self) -> int:
        return self.black if self.white_to_move else self.white


def parse_position(text: str) -> Setup:
    """The morris position format ``<24 of W/B/.> <w|b> <white in hand> <black in hand>``
    (optional counters after it are ignored)."""
    fields = text.split()
    expected = "expected '<24 of W, B or .> <w|b> <white men in hand> <black men in hand>'"
    if len(fields) < 4:
        raise PositionError(f"morris position {text!r} is incomplete: {expected}")
    board, side, white_hand, black_hand = fields[:4]
    if len(board) != len(NINE_POINTS) or set(board) - set("WB."):
        raise PositionError(f"morris board {board!r} is malformed: {expected}")
    if side not in ("w", "b"):
        raise PositionError(f"side to move {side!r} is malformed: {expected}")
    if not (white_hand.isdigit() and black_hand.isdigit()):
        raise PositionError(f"men in hand {white_hand!r} {black_hand!r} are malformed: {expected}")
    white = sum(1 << p for p, c in enumerate(board) if c == "W")
    black = sum(1 << p for p, c in enumerate(board) if c == "B")
    return Setup(white, black, side == "w", (int(white_hand), int(black_hand)))


def covered(setup: Setup, *, max_men: int = MAX_MEN) -> bool:
    """Whether the databases (up to ``max_men`` a side) decide this position."""
    return setup.in_hand == (0, 0) and all(
        3 <= men.bit_count() <= max_men for men in (setup.white, setup.black)
    )


_BINOM: Final = [[comb(n, k) for k in range(32)] for n in range(32)]


def _rank(men: int, taken: int) -> int:
    """The colex rank of ``men`` renumbered onto the points not in ``taken``."""
    rank = 0
    i = 1
    rest = men
    while rest:
        low = rest & -rest
        rank += _BINOM[((low - 1) & ~taken).bit_count()][i]
        i += 1
        rest ^= low
    return rank


def _counts(per_code: np.ndarray[Any, Any]) -> tuple[int, int, int, int, int, int, int]:
    """``(positions, classes, wins, losses, draws, longest win, longest loss)`` from the
    counts per code of :func:`zerosum.endgames.reduced.counts` (positions per code in row 0,
    classes in row 1; the wins, losses and draws count positions)."""
    positions = per_code[0]
    codes = np.arange(len(positions))
    wins = (codes > 0) & ((codes - 1) % 2 == 1) & (positions > 0)
    losses = (codes > 0) & ((codes - 1) % 2 == 0) & (positions > 0)
    return (
        int(positions.sum()),
        int(per_code[1].sum()),
        int(positions[wins].sum()),
        int(positions[losses].sum()),
        int(positions[0]),
        int(codes[wins].max()) - 1 if wins.any() else -1,
        int(codes[losses].max()) - 1 if losses.any() else -1,
    )


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB (0 where unknown)."""
    try:
        import resource
    except ImportError:  # not on every platform
        return 0.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _insert(db: sqlite3.Connection, *, rows: list[tuple[Any, ...]]) -> None:
    db.executemany(
        "INSERT OR REPLACE INTO endgame_tables VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


class Endgames:
    """The morris endgame databases in the SQLite file at ``path``.

    Tables are read from the file when first needed and kept in memory. ``create=False``
    opens an existing file only (for probing from a search, which must never build).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        board: Board = NINE_MENS_MORRIS,
        create: bool = True,
        wait_s: float | None = None,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.board = board
        self._tables: dict[tuple[int, int], np.ndarray[Any, Any]] = {}
        self._stored: set[tuple[int, int]] | None = None
        self._orbits: dict[int, Any] = {}
        if not create and not self.path.exists():
            raise EndgameError(
                f"no endgame store at {self.path}: build it with 'zerosum build-endgames morris'"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise EndgameError(
                f"{self.path} cannot be used as an endgame store ({error.strerror or error}): "
                "expected a path in a folder this user can write"
            ) from None
        # Checked on opening, one-line errors, bounded lock waits: see zerosum.sqlitefile.
        try:
            self._file = SqliteFile(self.path, what="endgame store", wait_s=wait_s, on_wait=on_wait)
        except FileProblem as problem:  # the probes fall back on EndgameError
            raise EndgameError(str(problem)) from None
        try:
            self._file.run(lambda db: db.execute(_SCHEMA), write=True)
        except FileProblem as problem:
            self._file.close()
            raise EndgameError(str(problem)) from None

    # -- what is stored -----------------------------------------------------------------

    def classes(self) -> list[ClassInfo]:
        """The stored classes, smallest first."""
        rows = self._file.run(
            lambda db: db.execute(
                "SELECT mover, other, entries, classes, stored, wins, losses, draws, "
                "longest_win, longest_loss, build_s, peak_mb FROM endgame_tables "
                "WHERE game = ? ORDER BY mover + other, mover",
                (GAME,),
            ).fetchall()
        )
        return [ClassInfo(*row) for row in rows]

    def has(self, mover: int, other: int) -> bool:
        """Whether the class ``mover-other`` is stored (read once, then kept up to date)."""
        if self._stored is None:
            self._stored = {(info.mover, info.other) for info in self.classes()}
        return (mover, other) in self._stored

    def table(self, mover: int, other: int, *, keep: bool = True) -> np.ndarray[Any, Any]:
        """The stored byte table of the class ``mover-other``, one entry a position up to
        symmetry (:mod:`.orbits`; raises if it is not stored); kept in memory for the next
        call unless ``keep`` is false."""
        key = (mover, other)
        if key not in self._tables:
            row = self._file.run(
                lambda db: db.execute(
                    "SELECT data FROM endgame_tables WHERE game = ? AND mover = ? AND other = ?",
                    (GAME, mover, other),
                ).fetchone()
            )
            if row is None:
                raise EndgameError(
                    f"class {mover}-{other} is not in {self.path}: build it with "
                    f"'zerosum build-endgames morris --store {self.path}'"
                )
            table = np.frombuffer(zlib.decompress(row[0]), dtype=np.uint8)
            if not keep:
                return table
            self._tables[key] = table
        return self._tables[key]

    def full_table(self, mover: int, other: int) -> np.ndarray[Any, Any]:
        """The class ``mover-other`` with every position, in the layout of
        :mod:`zerosum.endgames.retro` (its index :func:`~zerosum.endgames.retro.index_of`)."""
        from zerosum.endgames.reduced import expand

        return expand(self.board, mover, other, self.table(mover, other))

    # -- building -----------------------------------------------------------------------

    def build(
        self,
        max_men: int = MAX_MEN,
        *,
        through: tuple[int, int] | None = None,
        on_class: Callable[[ClassInfo], None] | None = None,
    ) -> list[ClassInfo]:
        """Build every class up to ``max_men`` a side that is not stored yet, in dependency
        order (with ``through``, only up to that class and what it needs); ``on_class`` hears
        of each class as soon as it is stored (or found in the store)."""
        from zerosum.endgames.reduced import solve_pair
        from zerosum.endgames.retro import class_pairs

        if not 3 <= max_men <= MAX_MEN:
            raise EndgameError(f"{max_men} men a side is out of range: expected 3..{MAX_MEN}")
        done: list[ClassInfo] = []
        stored = {(info.mover, info.other): info for info in self.classes()}
        pairs = class_pairs(max_men)
        if through is not None:
            pairs = pairs[: pairs.index((min(through), max(through))) + 1]
        for x, y in pairs:
            wanted = [(x, y)] if x == y else [(x, y), (y, x)]
            if all(key in stored for key in wanted):
                for key in wanted:
                    done.append(stored[key])
                    if on_class is not None:
                        on_class(stored[key])
                continue
            needed = {(y - 1, x), (x - 1, y)}
            inputs = {key: self.table(*key) for key in needed if min(key) >= 3}
            started = time.perf_counter()
            tables = solve_pair(self.board, x, y, inputs)
            seconds = (time.perf_counter() - started) / len(tables)
            for info in self.commit(tables, seconds, peak_mb()):
                stored[(info.mover, info.other)] = info
                done.append(info)
                if on_class is not None:
                    on_class(info)
        return done

    def commit(
        self,
        tables: dict[tuple[int, int], np.ndarray[Any, Any]],
        seconds: float,
        peak: float = 0.0,
    ) -> list[ClassInfo]:
        """Store the classes of one pair (symmetric tables, built in ``seconds`` each by a
        process that peaked at ``peak`` MB) in one transaction."""
        from zerosum.endgames.reduced import counts

        infos = []
        for (mover, other), table in tables.items():
            positions, classes, wins, losses, draws, win, loss = _counts(
                counts(self.board, mover, other, table)
            )
            infos.append(
                ClassInfo(
                    mover,
                    other,
                    positions,
                    classes,
                    len(table),
                    wins,
                    losses,
                    draws,
                    win,
                    loss,
                    seconds,
                    peak,
                    built_now=True,
                )
            )
        rows = [
            (
                GAME,
                info.mover,
                info.other,
                info.entries,
                info.classes,
                info.stored,
                info.wins,
                info.losses,
                info.draws,
                info.longest_win,
                info.longest_loss,
                info.build_s,
                info.peak_mb,
                zlib.compress(table.tobytes()),
            )
            for info, table in zip(infos, tables.values(), strict=True)
        ]
        self._file.run(partial(_insert, rows=rows), write=True)  # the pair: one transaction
        self._stored = None
        return infos

    # -- probing ------------------------------------------------------------------------

    def _index(self, mover: int, other: int) -> int:
        """The table index of :func:`zerosum.endgames.reduced.lookup_index`, in plain Python
        (so probing needs no compiler)."""
        x = mover.bit_count()
        found = self._orbits.get(x)
        if found is None:
            found = self._orbits[x] = self._load_orbits(x)
        orbit, sym, rep, perm = found
        r = _rank(mover, 0)
        o = orbit[r]
        g = perm[sym[r]]
        image = g[0][other & 255] | g[1][other >> 8 & 255] | g[2][other >> 16 & 255]
        return o * _BINOM[self.board.size - x][other.bit_count()] + _rank(image, rep[o])

    def _load_orbits(self, x: int) -> tuple[list[int], list[int], list[int], list[list[list[int]]]]:
        """The orbits of the ``x``-sets as plain lists (for :meth:`_index`)."""
        from zerosum.endgames.orbits import orbits, permutation_bytes

        mine = orbits(self.board, x)
        perm = permutation_bytes(self.board).tolist()
        return mine.orbit.tolist(), mine.sym.tolist(), mine.rep.tolist(), perm

    def code(self, mover: int, other: int) -> int | None:
        """The byte entry of a position (see :mod:`zerosum.endgames.retro`), or ``None`` when
        its class is not stored; the fast path of :meth:`probe`."""
        key = (mover.bit_count(), other.bit_count())
        table = self._tables.get(key)
        if table is None:
            if not self.has(*key):
                return None
            table = self.table(*key)
        return int(table[self._index(mover, other)])

    def lookup(self, mover: int, other: int) -> EndgameResult:
        """The result for the side to move with the men ``mover`` against ``other`` (both
        within the databases' reach; their classes must be stored)."""
        table = self.table(mover.bit_count(), other.bit_count())
        return EndgameResult.from_code(int(table[self._index(mover, other)]))

    def probe(self, setup: Setup) -> EndgameResult | None:
        """The exact result, or ``None`` when the position is outside the stored classes."""
        if not covered(setup):
            return None
        if not self.has(setup.mover.bit_count(), setup.other.bit_count()):
            return None
        return self.lookup(setup.mover, setup.other)

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
