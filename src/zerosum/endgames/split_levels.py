"""The level passes of a large tier in parts: each level is two rounds of units, by index range.

:func:`zerosum.endgames.reduced.solve_levels` runs step 2 over a whole tier in one process
(its twin). Here the tier's arrays stay in the part files that step 1 wrote (copied first to
*state* files, so that an interrupted run can start the passes again from step 1's output), and
every level ``d`` is two rounds, each one unit per part of each class:

1. **predecessors** (:func:`predecessors_unit`): the part marks its entries that a removal
   wins at ``d``, then lists the distinct canonical predecessors (in the other class) of each
   entry decided at ``d``, sorted, in a file of the level's folder;
2. **apply** (:func:`apply_unit`): the part reads the slices of those lists that fall in its
   range and applies them: after a loss, an undecided predecessor wins at ``d + 1``; after a
   win, it has one successor fewer, and loses when none is left (and no removal wins or draws).

A round's units touch disjoint files, and no level writes an entry of its own level (a pass
at ``d`` decides entries at ``d + 1`` or later), so the rounds give what one process gives.
:func:`finish_unit` then fills the duplicate entries and sends the tables back.

Nothing done is lost when a run is interrupted (Ctrl-C, kill -9, a lost node), and nothing is
done twice. The driver records the next level to run in the folder (:func:`save_levels`) once
a level's last unit is back, before it removes the level's lists; a new run resumes there.
Within a level:

* a predecessors unit writes its list (atomically) after its marks, which are idempotent (it
  marks an undecided entry decided at ``d``, and lists the entries decided at ``d``, which no
  unit of the level writes): a unit whose list is there is done;
* an apply unit is not idempotent (it counts moves down), so it first saves the entries it will
  change (a journal, atomically), and leaves a marker with its result when it is done: a unit
  whose marker is there is done; one with a journal but no marker was interrupted, and its
  entries are put back from the journal before it applies again.

A unit holds a lock on its part (a POSIX record lock, ``lockf``, on ``state....npy.lock``)
while it runs, so a worker left over from a killed run (it finishes its unit before it
notices) and the new run's worker never work on one part at once; the lock goes with its
process (a killed worker's is released by its kernel). A POSIX lock, not ``flock``: it is the
lock a network file system carries to its server (NFS: the NLM protocol beside v3, part of
v4), where Linux sends ``flock`` only as an emulated POSIX lock, and not at all when mounted
with ``local_lock=flock``. It is per process, which is all a unit needs: a worker runs one unit at
a time, and opens the lock file once. What the files and the lock rely on, and what that means
on NFS v3 and v4: the endgames page of the docs.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from math import comb
from pathlib import Path
from typing import Any, Final

import numpy as np

from zerosum.endgames.board import Board
from zerosum.endgames.database import EndgameError
from zerosum.endgames.orbits import orbits, permutation_bytes
from zerosum.endgames.reduced import _add, canonical_index, fill
from zerosum.endgames.retro import (
    _REMOVAL_DRAWS,
    DRAW_BYTE,
    FLYING_MEN,
    Geometry,
    closes_mill,
    spread,
    subsets,
)
from zerosum.endgames.work_files import save_array, write_whole
from zerosum.jit import cached_njit

_ROOM: Final = 64
"""Room for one entry's predecessors (at most 3 * 21 when the opponent flies)."""
_CHUNK: Final = 1 << 22
"""Predecessors gathered per call of :func:`_gather`."""


@cached_njit()
def _gather(
    level: int,
    lo: int,
    start: int,
    x: int,
    y: int,
    n: int,
    neighbours: Any,
    point_mills: Any,
    mill_count: Any,
    binom: Any,
    perm: Any,
    others: Any,
    rep_x: Any,
    orbit_y: Any,
    sym_y: Any,
    rep_y: Any,
    stab_y: Any,
    back_count: int,
    value: Any,
    win_by_removal: Any,
    out: Any,
) -> tuple[int, int]:
    """Round 1 from the part's entry ``start`` on (the part begins at the class's entry
    ``lo``): the predecessors of the entries decided at ``level`` into ``out``; returns where
    it stopped (``len(value)`` when done) and how many it wrote."""
    full = (1 << n) - 1
    other_count = len(others)
    code = level + 1
    filled = 0
    buf = np.empty(_ROOM, dtype=np.int64)
    i = start
    while i < len(value):
        if filled + _ROOM > len(out):
            return i, filled
        if value[i] == DRAW_BYTE and level > 0 and win_by_removal[i] == level:
            value[i] = code
        if value[i] != code:
            i += 1
            continue
        at = lo + i
        mover = rep_x[at // other_count]
        other = spread(others[at % other_count], mover, n)
        empty = full & ~(mover | other)
        found = 0
        for p in range(n):
            if not other >> p & 1 or closes_mill(other, p, point_mills, mill_count):
                continue
            sources = empty if y == FLYING_MEN else neighbours[p] & empty
            for q in range(n):
                if sources >> q & 1:
                    before = canonical_index(
                        other ^ (1 << p) ^ (1 << q),
                        mover,
                        back_count,
                        orbit_y,
                        sym_y,
                        rep_y,
                        stab_y,
                        perm,
                        binom,
                    )
                    found = _add(buf, found, before)
        for k in range(found):
            out[filled + k] = buf[k]
        filled += found
        i += 1
    return i, filled


@cached_njit()
def _apply(
    level: int,
    preds: Any,
    lo: int,
    value: Any,
    moves_left: Any,
    win_by_removal: Any,
    loss_by_removal: Any,
) -> int:
    """Round 2: the predecessors ``preds`` (entries of this class, all in the part that
    begins at ``lo``) hear of a decision at ``level``; returns the largest level scheduled."""
    code = level + 1
    top = 0
    for k in range(len(preds)):
        i = preds[k] - lo
        if value[i] != DRAW_BYTE:
            continue
        if level % 2 == 0:
            value[i] = code + 1
            top = max(top, level + 1)
            continue
        moves_left[i] -= 1
        if moves_left[i] == 0 and win_by_removal[i] == 0 and loss_by_removal[i] != _REMOVAL_DRAWS:
            end = max(level + 1, int(loss_by_removal[i]))
            value[i] = end + 1
            top = max(top, end)
    return top


def state_file(folder: Path, mover: int, other: int, lo: int) -> Path:
    """The part's arrays during the level passes (a copy of step 1's part file)."""
    return folder / f"state.{mover}-{other}.{lo}.npy"


def _levels_file(folder: Path) -> Path:
    return folder / "levels.json"


def save_levels(folder: Path, level: int, top: int) -> None:
    """Record (atomically) that every level below ``level`` is applied to the state files, and
    the largest level scheduled so far."""
    record = json.dumps({"level": level, "top": top}).encode()
    write_whole(_levels_file(folder), lambda out: out.write(record))


def load_levels(folder: Path) -> tuple[int, int] | None:
    """``(next level, top)`` as :func:`save_levels` left them, or ``None`` (no level passes
    started, or a record that cannot be read: the passes start again from step 1's parts)."""
    try:
        record = json.loads(_levels_file(folder).read_text())
        return int(record["level"]), int(record["top"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def forget_levels(folder: Path) -> None:
    """Remove the record of :func:`save_levels` (before the state files are made again)."""
    _levels_file(folder).unlink(missing_ok=True)


def lock_file(state: Path) -> Path:
    """The file whose lock guards the part of ``state``."""
    return state.with_name(f"{state.name}.lock")


@contextlib.contextmanager
def _locked(state: Path) -> Iterator[None]:
    """Hold an exclusive POSIX record lock on the part (see the module docstring); no lock
    where the platform has none."""
    try:
        import fcntl
    except ImportError:  # not POSIX: one run at a time is the user's to ensure
        yield
        return
    with open(lock_file(state), "a+b") as handle:
        fcntl.lockf(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.lockf(handle.fileno(), fcntl.LOCK_UN)


def level_folder(folder: Path, level: int) -> Path:
    """Where round 1 of ``level`` leaves its lists."""
    return folder / f"level.{level}"


def predecessors_unit(
    board: Board, folder: str, mover: int, other: int, lo: int, level: int
) -> float:
    """A unit: round 1 of ``level`` for the part of ``mover-other`` that begins at ``lo``;
    the seconds it took."""
    started = time.perf_counter()
    state = state_file(Path(folder), mover, other, lo)
    listing = level_folder(Path(folder), level) / f"{mover}-{other}.{lo}.npy"
    with _locked(state):
        if not listing.exists():  # else done by an earlier run
            _list_predecessors(board, state, listing, mover, other, lo, level)
    return time.perf_counter() - started


def _list_predecessors(
    board: Board, state: Path, listing: Path, mover: int, other: int, lo: int, level: int
) -> None:
    """Round 1 of ``level`` on the part's ``state``: its marks, then its list in ``listing``."""
    n = board.size
    geo = Geometry(board)
    mine, theirs = orbits(board, mover), orbits(board, other)
    arrays = np.load(state, mmap_mode="r+")
    value, win = arrays[0], arrays[2]
    found = []
    out = np.empty(_CHUNK, dtype=np.int64)
    start = 0
    while start < len(value):
        start, filled = _gather(
            level,
            lo,
            start,
            mover,
            other,
            n,
            geo.neighbours,
            geo.point_mills,
            geo.mill_count,
            geo.binom,
            permutation_bytes(board),
            subsets(n - mover, other),
            mine.rep,
            theirs.orbit,
            theirs.sym,
            theirs.rep,
            theirs.stab,
            comb(n - other, mover),
            value,
            win,
            out,
        )
        found.append(out[:filled].copy())
    arrays.flush()
    del arrays
    preds = np.sort(np.concatenate(found)) if found else np.zeros(0, np.int64)
    save_array(listing, preds)


def apply_unit(
    folder: str, mover: int, other: int, lo: int, hi: int, level: int, sources: int | None = None
) -> tuple[int, float]:
    """A unit: round 2 of ``level`` for the part ``lo..hi-1`` of ``mover-other``, from every
    list the other class's parts left (``sources`` of them, one a part: another number found
    is an :class:`~.database.EndgameError`, never a part applied without some of its
    predecessors); the largest level it scheduled and its seconds."""
    started = time.perf_counter()
    state = state_file(Path(folder), mover, other, lo)
    lists = level_folder(Path(folder), level)
    done = lists / f"applied.{mover}-{other}.{lo}.npy"
    journal = lists / f"undo.{mover}-{other}.{lo}.npy"
    with _locked(state):
        if done.exists():  # applied by an earlier run
            return int(np.load(done)[0]), time.perf_counter() - started
        listings = sorted(lists.glob(f"{other}-{mover}.*.npy"))
        if sources is not None and len(listings) != sources:
            raise EndgameError(
                f"{len(listings)} of the {sources} lists of level {level} of class "
                f"{other}-{mover} are in {lists}: expected all of them, written by round 1 "
                "(a shared file system must show a file to every node once it is renamed "
                "into place: on NFS, mount without 'nocto')"
            )
        arrays = np.load(state, mmap_mode="r+")
        chunks = []
        for listing in listings:
            preds = np.load(listing, mmap_mode="r")
            a, b = np.searchsorted(preds, [lo, hi])
            if b > a:
                chunks.append(np.ascontiguousarray(preds[a:b]))
        if journal.exists():  # an earlier run stopped inside this unit: undo what it did
            saved = np.load(journal)
            arrays[0][saved[0]] = saved[1]
            arrays[1][saved[0]] = saved[2]
        else:
            touched = np.unique(np.concatenate(chunks)) - lo if chunks else np.zeros(0, np.int64)
            before = np.stack([touched, arrays[0][touched], arrays[1][touched]])
            save_array(journal, before.astype(np.int64))
        top = 0
        for chunk in chunks:
            found = _apply(level, chunk, lo, arrays[0], arrays[1], arrays[2], arrays[3])
            top = max(top, int(found))
        arrays.flush()
        del arrays
        save_array(done, np.array([top], np.int64))
    return top, time.perf_counter() - started


def finish(
    board: Board, folder: str, mover: int, other: int, size: int, part_size: int
) -> np.ndarray[Any, Any]:
    """The finished table of ``mover-other`` from its parts' state: values, duplicates filled."""
    value = np.empty(size, dtype=np.uint8)
    for lo in range(0, size, part_size):
        part = np.load(state_file(Path(folder), mover, other, lo), mmap_mode="r")
        value[lo : lo + part.shape[1]] = part[0]
    mine = orbits(board, mover)
    fill(
        board.size,
        Geometry(board).binom,
        permutation_bytes(board),
        subsets(board.size - mover, other),
        mine.rep,
        mine.stab,
        value,
    )
    return value
