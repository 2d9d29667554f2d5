"""Endgame classes as a graph of tiers, built in order on an executor, large tiers in parts.

A *tier* is a pair of classes ``x-y``/``y-x`` (``x <= y``), solved together because a move
that removes nothing turns one into the other (:mod:`.retro`). A move that closes a mill leads
into the pair of ``(y - 1)-x`` or of ``(x - 1)-y``: those tiers must be built first, and are
the tier's dependencies (:func:`tier_graph`). Tiers whose dependencies are all stored do not
depend on each other and are built at once, as units of an
:class:`~zerosum.runtime.executor.Executor` (local processes or Ray). Every table is in the
symmetric layout of :mod:`.orbits`, solved by :mod:`.reduced`.

A tier is built in one of two ways:

* **whole** (every class at most ``part_size`` entries): one unit reads its inputs, solves
  the pair and sends back the tables (:func:`build_tier`);
* **in parts**: step 1 of the solve (each position's moves, and what its removals already
  decide; 80% of the work at 5-5, 44% at 6-6) is split by a fixed index range of ``part_size``
  entries, each
  part its own unit (:func:`count_unit`), which writes its arrays to the tier's work folder
  beside the store (``STORE.parts/x-y.SIZE/``); when every part is there, the level passes
  run on the same parts, each level two rounds of units (:mod:`.split_levels`), and one more
  unit (:func:`finish_unit`) fills the duplicate entries and sends back the tables. A part of
  step 1 already in the folder is not built again, and the level passes resume at the level
  and the units an interrupted run left (:mod:`.split_levels`), so an interrupted tier loses
  only the units in flight.

This process commits each tier's classes in one transaction as they arrive (and then removes
its work folder). An interrupted build therefore loses only the units in flight, and the next
one resumes from the file. The result equals
:meth:`~zerosum.endgames.database.Endgames.build`'s, one tier after another in one process (its
serial twin), whatever the part size.

Only this process opens the SQLite store. A tier's inputs (the tables its removals lead to)
are written, before its units go out, as plain files to ``STORE.parts/inputs/`` (each whole
or absent: written aside, then renamed), and the units read them from there, so that workers
on other machines never open the store (SQLite's write-ahead log, which the store uses, needs
every process on one host). The work folder must be readable and writable by every worker: on
a Ray cluster of several machines, on a shared file system (what that relies on:
:mod:`.split_levels`, :mod:`.work_files`, and the endgames page of the docs). One build of a
store runs at a time (:func:`one_build`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import socket
import time
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import numpy as np

from zerosum.endgames import DEFAULT_MEN, MAX_MEN
from zerosum.endgames.board import Board
from zerosum.endgames.database import ClassInfo, EndgameError, Endgames, peak_mb
from zerosum.endgames.work_files import save_array
from zerosum.runtime.executor import Executor

Tier = tuple[int, int]
"""A pair of classes ``(x, y)`` with ``x <= y``."""
PART_SIZE: Final = 1 << 24
"""Entries of a class per part (16.8 M: 6-6 is ten parts)."""
_POLL_S: Final = 0.2
Packed = list[tuple[int, int, bytes]]
"""Tables sent back by a unit: (mover, other, zlib-compressed bytes)."""


def tier_graph(max_men: int) -> dict[Tier, frozenset[Tier]]:
    """Every tier up to ``max_men`` men a side, with the tiers its removals lead to (only
    those with three men a side or more: fewer is a won game, no table)."""
    from zerosum.endgames.retro import MIN_MEN, class_pairs

    graph: dict[Tier, frozenset[Tier]] = {}
    for x, y in class_pairs(max_men):
        needs = {(min(a, b), max(a, b)) for a, b in ((y - 1, x), (x - 1, y))}
        graph[(x, y)] = frozenset(tier for tier in needs if tier[0] >= MIN_MEN)
    return graph


def _classes(tier: Tier) -> list[tuple[int, int]]:
    x, y = tier
    return [(x, y)] if x == y else [(x, y), (y, x)]


def _pack(tables: dict[tuple[int, int], np.ndarray[Any, Any]]) -> Packed:
    return [(m, o, zlib.compress(table.tobytes(), 1)) for (m, o), table in tables.items()]


def tier_inputs(tier: Tier) -> set[tuple[int, int]]:
    """The classes a tier's removals lead to that have tables (three men a side or more)."""
    x, y = tier
    return {key for key in [(y - 1, x), (x - 1, y)] if min(key) >= 3}


def inputs_folder(path: str | Path) -> Path:
    """Where a build leaves the tables its units read: ``STORE.parts/inputs``."""
    return Path(f"{path}.parts") / "inputs"


def _input_file(inputs: Path, mover: int, other: int) -> Path:
    return inputs / f"{mover}-{other}.npy"


def write_input(endgames: Endgames, inputs: str | Path, mover: int, other: int) -> Path:
    """The stored table of ``mover-other`` as a plain file in ``inputs`` for the units
    (whole or not at all: :func:`.work_files.save_array`)."""
    target = _input_file(Path(inputs), mover, other)
    save_array(target, endgames.table(mover, other, keep=False))
    return target


def _read_input(inputs: str, mover: int, other: int) -> np.ndarray[Any, Any]:
    """A unit's input table, from the file :func:`write_input` left; a file this worker
    cannot read is an :class:`~.database.EndgameError` in one line."""
    source = _input_file(Path(inputs), mover, other)
    try:
        table: np.ndarray[Any, Any] = np.load(source)
    except OSError as error:
        raise EndgameError(
            f"cannot read the input table {source} ({error.strerror or error}): expected the "
            "file the build wrote before this unit went out, by the same path on every worker "
            "(on a cluster, the store's folder on a file system the nodes share)"
        ) from None
    return table


BUILD_LOCK: Final = "build.lock"
"""The file in ``STORE.parts`` whose lock a build holds (:func:`one_build`)."""
_LOCK_TRIES: Final = 100


@contextlib.contextmanager
def one_build(path: str | Path) -> Iterator[None]:
    """Hold the build lock of the store at ``path`` while a build in tiers runs: a POSIX record
    lock (``lockf``, as the parts' locks: :mod:`.split_levels`) on ``STORE.parts/build.lock``,
    not waited for. Another build of the store that holds it is an
    :class:`~.database.EndgameError` (two builds at once would each remove the other's inputs
    and level lists). A lock goes with its process, so a build killed with kill -9 leaves none.
    On the way out, the lock still held, the build's inputs (:func:`inputs_folder`), the lock
    file and, when no tier's work is left in it, ``STORE.parts`` are removed. One lock a
    process (POSIX locks are per process): two builds of one store in one process are the
    caller's to avoid. No lock where the platform has none."""
    parts = Path(f"{path}.parts")
    lock = parts / BUILD_LOCK
    handle = _take_build_lock(lock, path)
    try:
        yield
    finally:
        shutil.rmtree(inputs_folder(path), ignore_errors=True)
        with contextlib.suppress(OSError):
            lock.unlink(missing_ok=True)  # before the lock goes: see _take_build_lock
            parts.rmdir()
        if handle is not None:
            handle.close()  # lets the lock go


def _take_build_lock(lock: Path, store: str | Path) -> IO[bytes] | None:
    """The open lock file, its lock held (see :func:`one_build`); ``None`` without ``fcntl``.
    A build that finishes removes the file before it lets the lock go, so a lock taken on a
    file that is no longer the one at ``lock`` is let go, and the new file tried."""
    try:
        import fcntl
    except ImportError:  # not POSIX: one build at a time is the user's to ensure
        return None
    for _ in range(_LOCK_TRIES):
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            handle = open(lock, "a+b")  # noqa: SIM115  (kept open while the build runs)
        except FileNotFoundError:  # the folder went with a build that finished: again
            continue
        except OSError as error:
            raise EndgameError(
                f"cannot make the build's lock file {lock} ({error.strerror or error}): "
                "expected a writable folder beside the store"
            ) from None
        try:
            fcntl.lockf(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            handle.seek(0)
            holder = handle.read().decode(errors="replace").strip()
            handle.close()
            if error.errno not in (errno.EACCES, errno.EAGAIN):
                raise EndgameError(
                    f"cannot lock {lock} ({error.strerror or error}): expected a file system "
                    "with POSIX locks (on NFS, mounted without 'nolock')"
                ) from None
            raise EndgameError(
                f"another build of {store} is running ({holder or 'its lock'}: {lock}): "
                "expected one build of a store at a time"
            ) from None
        try:
            same = os.path.samestat(os.fstat(handle.fileno()), os.stat(lock))
        except OSError:
            same = False
        if same:
            handle.truncate(0)
            handle.write(f"process {os.getpid()} on {socket.gethostname()}".encode())
            handle.flush()
            return handle
        handle.close()
    raise EndgameError(f"cannot take the build lock {lock}: it was removed {_LOCK_TRIES} times")


def build_tier(board: Board, inputs: str, x: int, y: int) -> tuple[Packed, float, float]:
    """A unit, run in a worker: the tier ``x-y`` solved whole from its inputs in the folder
    ``inputs`` (:func:`write_input`); its tables, the seconds per class and the worker's peak
    memory in MB."""
    from zerosum.endgames.reduced import solve_pair

    tables = {key: _read_input(inputs, *key) for key in tier_inputs((x, y))}
    started = time.perf_counter()
    solved = solve_pair(board, x, y, tables)
    seconds = (time.perf_counter() - started) / len(solved)
    return _pack(solved), seconds, peak_mb()


def work_folder(path: str | Path, tier: Tier, part_size: int) -> Path:
    """Where the parts of ``tier`` wait for its level passes: ``STORE.parts/x-y.SIZE`` (a
    run with another part size does not use them)."""
    return Path(f"{path}.parts") / f"{tier[0]}-{tier[1]}.{part_size}"


def _part_file(folder: Path, mover: int, other: int, lo: int) -> Path:
    return folder / f"{mover}-{other}.{lo}.npy"


def count_unit(
    board: Board, inputs: str, folder: str, mover: int, other: int, lo: int, hi: int
) -> tuple[float, float, int]:
    """A unit, run in a worker: step 1 of the class ``mover-other`` for the entries
    ``lo..hi-1`` (its removals' table read from the folder ``inputs``: :func:`write_input`),
    written to ``folder`` (whole or not at all: :func:`.work_files.save_array`); the seconds
    it took, the worker's peak memory in MB and the top level step 1 scheduled."""
    from zerosum.endgames.reduced import count_part

    down = (other - 1, mover)
    table = _read_input(inputs, *down) if min(down) >= 3 else None
    started = time.perf_counter()
    arrays, top = count_part(board, mover, other, lo, hi, table)
    seconds = time.perf_counter() - started
    save_array(_part_file(Path(folder), mover, other, lo), arrays)
    return seconds, peak_mb(), top


def _top_of(part: Path) -> int:
    """Step 1's top level in a part file: its slowest forced loss or soonest removal win."""
    arrays = np.load(part, mmap_mode="r")
    return max(int(arrays[2].max()), int(arrays[0].max()) - 1)


def finish_unit(
    board: Board, folder: str, x: int, y: int, part_size: int
) -> tuple[Packed, float, float]:
    """A unit, run in a worker: the tables of the tier ``x-y`` from its parts' state after the
    level passes (:func:`zerosum.endgames.split_levels.finish`); its tables, seconds and the
    worker's peak memory in MB."""
    from zerosum.endgames.reduced import Layout
    from zerosum.endgames.split_levels import finish

    started = time.perf_counter()
    tables = {
        key: finish(board, folder, *key, Layout(board, *key).size, part_size)
        for key in _classes((x, y))
    }
    return _pack(tables), time.perf_counter() - started, peak_mb()


@dataclass
class _Progress:
    """A tier being built in parts: step 1, then two rounds a level, then the finish."""

    sizes: dict[tuple[int, int], int]
    folder: Path
    pending: int = 0
    """Units of the current round still out."""
    phase: str = "count"
    """``count``, ``predecessors``, ``apply`` or ``finish``."""
    level: int = 0
    top: int = 0
    seconds: float = 0.0
    peak: float = 0.0

    part_size: int = PART_SIZE

    def ranges(self) -> list[tuple[int, int, int, int]]:
        """``(mover, other, lo, hi)`` of every part."""
        step = self.part_size
        return [
            (mover, other, lo, min(lo + step, size))
            for (mover, other), size in self.sizes.items()
            for lo in range(0, size, step)
        ]


def build_tiers(
    endgames: Endgames,
    executor: Executor,
    max_men: int = DEFAULT_MEN,
    *,
    through: Tier | None = None,
    on_class: Callable[[ClassInfo], None] | None = None,
    part_size: int = PART_SIZE,
) -> list[ClassInfo]:
    """Build every tier up to ``max_men`` that is not stored in ``endgames`` on ``executor``
    (see the module docstring; with ``through``, only that tier and what it needs; a class
    of more than ``part_size`` entries in parts); ``on_class`` hears of each class as it is
    stored (or found stored). Returns the classes built or found, in dependency order."""
    if not 3 <= max_men <= MAX_MEN:
        raise EndgameError(f"{max_men} men a side is out of range: expected 3..{MAX_MEN}")
    if part_size < 1:
        raise EndgameError(f"part size {part_size}: expected 1 or more entries")
    graph = tier_graph(max_men)
    if through is not None:
        wanted: set[Tier] = set()
        stack = [(min(through), max(through))]
        while stack:
            tier = stack.pop()
            if tier not in wanted:
                wanted.add(tier)
                stack.extend(graph[tier])
        graph = {tier: needs for tier, needs in graph.items() if tier in wanted}
    path = str(endgames.path.resolve())  # the same for every worker, whatever its folder
    with one_build(path):
        return _build_graph(endgames, executor, graph, path, on_class, part_size)


def _build_graph(
    endgames: Endgames,
    executor: Executor,
    graph: dict[Tier, frozenset[Tier]],
    path: str,
    on_class: Callable[[ClassInfo], None] | None,
    part_size: int,
) -> list[ClassInfo]:
    """:func:`build_tiers`'s work on the tiers of ``graph``, the build lock held
    (:func:`one_build`); ``path``: the store's absolute path."""
    from zerosum.endgames.reduced import Layout

    stored = {(info.mover, info.other): info for info in endgames.classes()}
    done: set[Tier] = set()
    infos: list[ClassInfo] = []

    def store(tables: Packed, seconds: float, peak: float) -> None:
        arrays = {
            (m, o): np.frombuffer(zlib.decompress(data), dtype=np.uint8) for m, o, data in tables
        }
        for info in endgames.commit(arrays, seconds, peak):
            infos.append(info)
            if on_class is not None:
                on_class(info)

    for tier in graph:
        if all(key in stored for key in _classes(tier)):
            done.add(tier)
            for left in Path(f"{path}.parts").glob(f"{tier[0]}-{tier[1]}.*"):
                shutil.rmtree(left, ignore_errors=True)  # stored, then interrupted
            for key in _classes(tier):
                infos.append(stored[key])
                if on_class is not None:
                    on_class(stored[key])
    inputs = str(inputs_folder(path))
    exported: set[tuple[int, int]] = set()
    running: dict[Future[Any], tuple[Tier, str]] = {}
    in_parts: dict[Tier, _Progress] = {}
    board = endgames.board

    def export(tier: Tier) -> None:
        """The tier's inputs as files for its units (rewritten once per run: a file left by
        an earlier run is not trusted to match the store)."""
        for key in sorted(tier_inputs(tier) - exported):
            write_input(endgames, inputs, *key)
            exported.add(key)

    def submit_round(tier: Tier, progress: _Progress, phase: str) -> None:
        from zerosum.endgames.split_levels import apply_unit, predecessors_unit

        progress.phase = phase
        folder = str(progress.folder)
        for mover, other, lo, hi in progress.ranges():
            if phase == "predecessors":
                args: tuple[Any, ...] = (board, folder, mover, other, lo, progress.level)
                running[executor.submit(predecessors_unit, *args)] = (tier, phase)
            else:
                sources = sum((m, o) == (other, mover) for m, o, _, _ in progress.ranges())
                args = (folder, mover, other, lo, hi, progress.level, sources)
                running[executor.submit(apply_unit, *args)] = (tier, phase)
            progress.pending += 1

    def start_levels(tier: Tier, progress: _Progress) -> None:
        """Every part of step 1 is there: resume the level passes where an earlier run left
        them, or copy the parts to the passes' state and start at level 0."""
        from zerosum.endgames.split_levels import (
            forget_levels,
            load_levels,
            save_levels,
            state_file,
        )

        folder = progress.folder
        states = [state_file(folder, m, o, lo) for m, o, lo, _ in progress.ranges()]
        resumed = load_levels(folder)
        if resumed is not None and all(state.exists() for state in states):
            progress.level = resumed[0]
            progress.top = max(progress.top, resumed[1])
        else:
            forget_levels(folder)
            for stale in folder.glob("level.*"):
                shutil.rmtree(stale, ignore_errors=True)
            for mover, other, lo, _ in progress.ranges():
                shutil.copyfile(
                    _part_file(folder, mover, other, lo), state_file(folder, mover, other, lo)
                )
            progress.level = 0
            save_levels(folder, 0, progress.top)
        start_level(tier, progress)

    def start_level(tier: Tier, progress: _Progress) -> None:
        """The rounds of ``progress.level``, or the finish once every level is done."""
        from zerosum.endgames.retro import MAX_DISTANCE

        if progress.top > MAX_DISTANCE:
            raise OverflowError(f"distance {progress.top} does not fit the one-byte entries")
        if progress.level <= progress.top:
            submit_round(tier, progress, "predecessors")
        else:
            progress.phase = "finish"
            unit = (board, str(progress.folder), *tier, progress.part_size)
            running[executor.submit(finish_unit, *unit)] = (tier, "finish")

    def next_round(tier: Tier, progress: _Progress) -> None:
        from zerosum.endgames.split_levels import level_folder, save_levels

        if progress.phase == "count":
            start_levels(tier, progress)
        elif progress.phase == "predecessors":
            submit_round(tier, progress, "apply")
        else:  # the level is applied: record it before its lists go (see split_levels)
            save_levels(progress.folder, progress.level + 1, progress.top)
            shutil.rmtree(level_folder(progress.folder, progress.level), ignore_errors=True)
            progress.level += 1
            start_level(tier, progress)

    try:
        while len(done) < len(graph):
            # Step 1. Start every tier whose dependencies are stored: whole, or its parts.
            started = {tier for tier, _ in running.values()}
            for tier, needs in graph.items():
                if tier in done or tier in started or tier in in_parts or not needs <= done:
                    continue
                sizes = {key: Layout(endgames.board, *key).size for key in _classes(tier)}
                if max(sizes.values()) <= part_size:
                    export(tier)
                    running[executor.submit(build_tier, board, inputs, *tier)] = (tier, "whole")
                    continue
                folder = work_folder(path, tier, part_size)
                progress = in_parts[tier] = _Progress(sizes, folder, part_size=part_size)
                for mover, other, lo, hi in progress.ranges():
                    part = _part_file(folder, mover, other, lo)
                    if part.exists():  # built by an earlier, interrupted run
                        progress.top = max(progress.top, _top_of(part))
                        continue
                    export(tier)
                    unit = (board, inputs, str(folder), mover, other, lo, hi)
                    running[executor.submit(count_unit, *unit)] = (tier, "part")
                    progress.pending += 1
                if progress.pending == 0:
                    start_levels(tier, progress)
            # Step 2. Collect what came back: commit a tier, or start its next round.
            for future in executor.wait(list(running), _POLL_S):
                tier, kind = running.pop(future)
                if kind != "whole":
                    progress = in_parts[tier]
                    if kind == "finish":
                        packed, seconds, peak = future.result()
                        in_parts.pop(tier)
                        seconds = (seconds + progress.seconds) / len(packed)
                        store(packed, seconds, max(peak, progress.peak))
                        shutil.rmtree(progress.folder, ignore_errors=True)
                        done.add(tier)
                        continue
                    if kind == "part":
                        seconds, peak, top = future.result()
                        progress.peak = max(progress.peak, peak)
                        progress.top = max(progress.top, top)
                    elif kind == "apply":
                        top, seconds = future.result()
                        progress.top = max(progress.top, top)
                    else:
                        seconds = future.result()
                    progress.seconds += seconds
                    progress.pending -= 1
                    if progress.pending == 0:
                        next_round(tier, progress)
                    continue
                packed, seconds, peak = future.result()
                store(packed, seconds, peak)
                done.add(tier)
    finally:
        for future in running:
            executor.cancel(future)
    order = {key: i for i, key in enumerate(k for tier in graph for k in _classes(tier))}
    return sorted(infos, key=lambda info: order[(info.mover, info.other)])
