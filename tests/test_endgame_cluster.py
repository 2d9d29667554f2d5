"""Endgame tiers in parts on a real two-node Ray cluster (``ray start``, token authentication).

The two nodes run on this machine and so see the same file system, as the nodes of a cluster
with a shared file system do: every unit reads its inputs (``STORE.parts/inputs``) and its part
(the tier's work folder) by the same (absolute) path; only the driver opens the store. The
tables must equal the serial build's.

Losing a node: the second node is killed (every process of it, SIGKILL, as a crashed machine)
while one of its workers runs a unit of the level passes. The moment is an observable state,
never a time: the kernel's lock table (``/proc/locks``) shows a part's lock held by a process
of the second node; that process is stopped (SIGSTOP) at once, its lock checked again, and only
then is the node killed, so the unit is certainly in flight when its node goes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray")

from ray_nodes import TwoNodes, joined
from test_cli_crash import ENV
from test_endgames import store  # noqa: F401  (the session's serially built classes)
from waiting import HANG_S

from zerosum.endgames.database import Endgames
from zerosum.endgames.split_levels import level_folder, load_levels
from zerosum.endgames.tiers import build_tiers, work_folder
from zerosum.runtime.cluster import RayTaskExecutor

# The slow set: two Ray nodes started, and the serial build of the oracle.
pytestmark = [pytest.mark.slow, pytest.mark.ray]


@pytest.fixture
def cluster(two_ray_nodes: TwoNodes, tmp_path: Path) -> Iterator[TwoNodes]:
    """The session's two nodes (``conftest.two_ray_nodes``), both up, joined from this process
    with the cluster's token (as a user who exported it); the environment and Ray's view of it
    are put back afterwards."""
    with joined(two_ray_nodes, tmp_path) as nodes:
        yield nodes


def test_a_tier_in_parts_on_two_ray_nodes_equals_the_serial_build(
    store: Path,  # noqa: F811
    cluster: TwoNodes,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """3-3 whole, then 3-4 and 4-3 in parts of 200,000 entries (5 each): step 1 and every
    level's two rounds as Ray tasks spread over both nodes. The store is named by a relative
    path, which the nodes' workers (their own working folders) must still find."""
    monkeypatch.chdir(tmp_path)
    size = 200_000
    with Endgames("cluster.sqlite") as built, RayTaskExecutor(cluster.address) as ray:
        assert ray._ray.cluster_resources().get("CPU") == 2  # both nodes
        infos = build_tiers(built, ray, 4, through=(4, 3), part_size=size)
        assert not work_folder(tmp_path / "cluster.sqlite", (3, 4), size).exists()
        with Endgames(store, create=False) as serial:
            for key in [(3, 3), (3, 4), (4, 3)]:
                assert np.array_equal(built.table(*key), serial.table(*key)), key
    assert [i.name for i in infos] == ["3-3", "3-4", "4-3"]
    assert all(info.built_now for info in infos)


# -- losing a node ----------------------------------------------------------------------------


def held_locks(folder: Path) -> dict[int, str]:
    """The parts' locks in ``folder`` held now, by the holder's process id (``/proc/locks``:
    ``N: POSIX ADVISORY WRITE PID MAJOR:MINOR:INODE ...``; a waiter's line has ``->``)."""
    files = {}
    for lock in folder.glob("*.lock"):
        with contextlib.suppress(OSError):
            stat = lock.stat()
            files[(os.major(stat.st_dev), os.minor(stat.st_dev), stat.st_ino)] = lock.name
    held: dict[int, str] = {}
    if not files:
        return held
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if len(fields) < 6 or fields[1] not in ("POSIX", "FLOCK"):
            continue
        major, minor, inode = fields[5].split(":")
        name = files.get((int(major, 16), int(minor, 16), int(inode)))
        if name is not None:
            held[int(fields[4])] = name
    return held


def part_state(folder: Path, lock: str) -> str:
    """Where the unit that holds ``lock`` is, from the files it leaves (for messages)."""
    part = lock.removeprefix("state.").removesuffix(".npy.lock")
    found = load_levels(folder)
    if found is None:
        return f"{part}, before the first level record"
    lists = level_folder(folder, found[0])
    if (lists / f"applied.{part}.npy").exists():
        return f"{part}, level {found[0]} applied"
    if (lists / f"undo.{part}.npy").exists():
        return f"{part}, level {found[0]} being applied (its journal written)"
    if (lists / f"{part}.npy").exists():
        return f"{part}, level {found[0]} listed"
    return f"{part}, level {found[0]} being listed"


class Loser:
    """Kills the second node while one of its workers holds a part's lock in ``folder`` (once
    ``ready()`` is true, and the unit's state, :func:`part_state`, is ``wanted``; ``also()``
    runs just before the kill), from a thread that reads the lock table every 5 ms while the
    build goes on."""

    def __init__(
        self,
        cluster: TwoNodes,
        folder: Path,
        ready: Callable[[], bool] = lambda: True,
        also: Callable[[], None] = lambda: None,
        wanted: Callable[[str], bool] = lambda state: True,
    ) -> None:
        self.caught: str | None = None
        """The part whose unit was in flight, and its state, once the node is killed."""
        self.stops = 0
        """How many units were stopped to be looked at (each let go on unless ``wanted``)."""
        self._done = threading.Event()

        def watch() -> None:
            while not self._done.wait(0.005):
                if not ready():
                    continue
                for pid, lock in held_locks(folder).items():
                    if not cluster.on_second(pid):
                        continue
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGSTOP)  # frozen: its unit stays in flight
                    self.stops += 1
                    try:
                        state = part_state(folder, lock)
                        if held_locks(folder).get(pid) == lock and wanted(state):
                            self.caught = state  # before also(): a killed driver is expected
                            also()
                            cluster.kill_second()
                            return
                    finally:  # finished meanwhile, not wanted, or an error here: let it go on
                        if self.caught is None:
                            with contextlib.suppress(ProcessLookupError):
                                os.kill(pid, signal.SIGCONT)

        self._thread = threading.Thread(target=watch, daemon=True)
        self._thread.start()

    def stop(self) -> str | None:
        """Stop looking; the part caught in flight, or ``None``."""
        self._done.set()
        self._thread.join()
        return self.caught


def test_losing_a_node_in_a_tier_build_loses_nothing(
    store: Path,  # noqa: F811
    cluster: TwoNodes,
    tmp_path: Path,
) -> None:
    """3-4 and 4-3 in parts of 200,000 entries on both nodes; the second node is killed with
    an apply unit of the level passes in flight on it, its journal written (so some of its
    entries may be changed). Ray runs that unit again on the head, which puts the entries back
    from the journal and applies once, and the build ends there, with the serial build's
    tables."""
    path = tmp_path / "lost.sqlite"
    size = 200_000
    folder = work_folder(path, (3, 4), size)
    with Endgames(path) as built, RayTaskExecutor(cluster.address) as ray:
        assert ray._ray.cluster_resources().get("CPU") == 2  # both nodes
        loser = Loser(cluster, folder, wanted=lambda state: "journal written" in state)
        try:
            infos = build_tiers(built, ray, 4, through=(4, 3), part_size=size)
        finally:
            caught = loser.stop()
        assert caught is not None, f"no apply unit caught in {loser.stops} stops"
        assert cluster.lost
        print(f"in flight on the lost node: {caught} ({loser.stops} units looked at)")
        assert not folder.exists()
        with Endgames(store, create=False) as serial:
            for key in [(3, 3), (3, 4), (4, 3)]:
                assert np.array_equal(built.table(*key), serial.table(*key)), (key, caught)
    assert [i.name for i in infos] == ["3-3", "3-4", "4-3"]


def test_a_build_that_lost_its_driver_and_a_node_resumes_on_the_other(
    store: Path,  # noqa: F811
    cluster: TwoNodes,
    tmp_path: Path,
) -> None:
    """``build-endgames --cluster`` runs in a process of its own; once it has recorded level
    3 of 3-4, it is killed (kill -9) together with the second node while a unit is in flight
    there. A new build on the remaining node builds no part of step 1 again, resumes at the
    level recorded, and its tables equal the serial build's."""
    path = tmp_path / "driver.sqlite"
    size = 200_000
    folder = work_folder(path, (3, 4), size)
    command = [sys.executable, "-m", "zerosum", "build-endgames", "morris", "--max-men", "4"]
    command += ["--cluster", cluster.address, "--part-size", str(size), "--store", str(path)]
    env = {**os.environ, "PYTHONPATH": ENV["PYTHONPATH"]}  # now: with the cluster's token
    errors = tmp_path / "driver.err"
    with open(errors, "w") as err:
        driver = subprocess.Popen(command, env=env, stderr=err)

    def recorded() -> int:
        found = load_levels(folder)
        return -1 if found is None else found[0]

    loser = Loser(cluster, folder, ready=lambda: recorded() >= 3, also=driver.kill)
    try:
        deadline = time.monotonic() + 900
        while loser.caught is None:
            assert driver.poll() is None, f"the build ended first: {errors.read_text()}"
            assert time.monotonic() < deadline, "no unit caught on the second node"
            time.sleep(0.02)  # polling an observable state, not waiting a fixed time
        assert driver.wait(timeout=HANG_S) == -signal.SIGKILL
    finally:
        caught = loser.stop()
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    reached = recorded()
    assert reached >= 3, caught
    print(f"in flight on the lost node: {caught}; resumed at level {reached}")
    units: list[tuple[str, tuple[object, ...]]] = []
    with Endgames(path) as built, RayTaskExecutor(cluster.address) as ray:
        submit = ray.submit

        def recording(fn: Callable[..., object], /, *args: object) -> object:
            units.append((fn.__name__, args))
            return submit(fn, *args)

        ray.submit = recording  # type: ignore[method-assign,assignment]
        infos = build_tiers(built, ray, 4, through=(4, 3), part_size=size)
        kinds = [name for name, _ in units]
        assert "count_unit" not in kinds and "build_tier" not in kinds  # 3-3 and step 1 kept
        levels = [args[-1] for name, args in units if name == "predecessors_unit"]
        assert levels and min(levels) == reached, caught  # resumed at the level recorded
        assert not folder.exists()
        with Endgames(store, create=False) as serial:
            for key in [(3, 4), (4, 3)]:
                assert np.array_equal(built.table(*key), serial.table(*key)), (key, caught)
    assert [i.name for i in infos] == ["3-3", "3-4", "4-3"]
