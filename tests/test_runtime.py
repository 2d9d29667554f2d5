"""The runtime: executors, the split scheduler over worker threads, and the layering."""

from __future__ import annotations

import ast
import gc
import math
import multiprocessing
import operator
import os
import pickle
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

from zerosum.runtime import (
    ProcessExecutor,
    SerialExecutor,
    Split,
    Verdict,
    WorkerError,
    WorkerGroup,
)


def test_serial_and_process_executors_give_the_same_results() -> None:
    items = [1.0, 4.0, 9.0, 16.0, 25.0]
    serial = list(SerialExecutor().map_unordered(math.sqrt, items))
    with ProcessExecutor(2) as pool:
        assert pool.workers == 2
        assert sorted(pool.map_unordered(math.sqrt, items)) == serial
        future = pool.submit(pow, 2, 10)
        while not pool.wait([future], 0.2):
            pass
        assert future.result() == 1024


def test_a_unit_cancelled_before_it_starts_never_runs() -> None:
    with ProcessExecutor(1) as pool:
        running = pool.submit(time.sleep, 0.5)
        waiting = pool.submit(math.sqrt, 4.0)
        pool.cancel(waiting)
        assert waiting.cancelled()
        while not pool.wait([running], 0.2):
            pass
        assert running.result() is None
        assert not pool._waiting and not pool._sent


def test_a_shared_value_goes_to_the_workers_as_a_file_that_lives_while_needed() -> None:
    # A value many units take (a worker's table in a distributed solve: 6 MB) goes to each as
    # the path of a file in memory, not inline (pickled and copied for every unit, it cost each
    # tens of milliseconds); a unit reads it when it asks. The file stays while the caller or
    # a unit not yet answered refers to it, then goes; the folder goes with the executor.
    value = list(range(200_000))
    get = operator.methodcaller("get")
    with ProcessExecutor(1) as pool:
        shared = pool.share(value)
        assert len(pickle.dumps(shared)) < 1_000 < len(pickle.dumps(value))
        path = shared._path  # type: ignore[attr-defined]
        future = pool.submit(get, shared)
        del shared
        gc.collect()
        assert os.path.exists(path)  # the unit's answer is not taken yet
        while not pool.wait([future], 0.2):
            pass
        assert future.result() == value
        gc.collect()
        assert not os.path.exists(path)
        folder = pool._folder
        assert folder is not None and os.path.isdir(folder)
    assert not os.path.exists(folder)


def test_a_shared_value_that_does_not_fit_goes_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    from zerosum.runtime import executor

    def full(*_: Any, **__: Any) -> None:
        raise OSError(28, "No space left on device")

    class Small:  # a folder with 1 kB free: more than half of it goes inline
        f_bavail, f_frsize = 1, 1024

    get = operator.methodcaller("get")
    with ProcessExecutor(1) as pool:
        monkeypatch.setattr(executor, "_write_shared", full)
        shared = pool.share([1, 2, 3])
        monkeypatch.undo()
        monkeypatch.setattr(executor.os, "statvfs", lambda _: Small())
        large = pool.share(bytes(600))
        small = pool.share(bytes(100))
        monkeypatch.undo()
        assert not isinstance(shared, executor._FileShared)
        assert not isinstance(large, executor._FileShared)
        assert isinstance(small, executor._FileShared)
        futures = [pool.submit(get, value) for value in (shared, large, small)]
        for future in futures:
            while not pool.wait([future], 0.2):
                pass
        assert [future.result() for future in futures] == [[1, 2, 3], bytes(600), bytes(100)]
        assert pool._folder is not None
        assert sorted(os.listdir(pool._folder)) == ["2.pickle", executor.SHARED_LOCK]


def test_a_shared_value_goes_inline_if_no_folder_can_be_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from zerosum.runtime import executor

    def refused(*_: Any, **__: Any) -> str:
        raise PermissionError(13, "Permission denied")

    with ProcessExecutor(1) as pool:
        monkeypatch.setattr(executor.tempfile, "mkdtemp", refused)
        shared = pool.share([4, 5])
        monkeypatch.undo()
        assert not isinstance(shared, executor._FileShared) and pool._folder is None
        future = pool.submit(operator.methodcaller("get"), shared)
        while not pool.wait([future], 0.2):
            pass
        assert future.result() == [4, 5]


def test_a_value_that_cannot_be_pickled_leaves_no_file() -> None:
    with ProcessExecutor(1) as pool:
        kept = pool.share(1)
        with pytest.raises((pickle.PicklingError, TypeError, AttributeError)):
            pool.share([bytes(1 << 16), lambda: 0])
        assert pool._folder is not None
        assert sorted(os.listdir(pool._folder)) == ["1.pickle", "owner.lock"]
        assert kept.get() == 1


_HOLD = """
import fcntl, os, sys
lock = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR, 0o600)
fcntl.flock(lock, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


def test_a_killed_executors_shared_values_are_removed_by_the_next() -> None:
    # A folder goes when its owner lock is free (its process is gone), whatever process id
    # its name gives: a process in another pid namespace (a container sharing /dev/shm)
    # may hold one named with a number that is no process here. Odd names are passed over.
    from zerosum.runtime.executor import SHARED_LOCK, SHARED_PREFIX, _shared_root

    root = _shared_root()
    if root is None:
        pytest.skip("no memory-backed folder on this machine")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    left, alive = (os.path.join(root, f"{SHARED_PREFIX}{gone.pid}-{n}") for n in ("l", "a"))
    odd = [os.path.join(root, f"{SHARED_PREFIX}{pid}-odd") for pid in ("²", "9" * 30)]
    for folder in (left, alive, *odd):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "1.pickle"), "wb") as file:
            file.write(b"a table")
    with open(os.path.join(left, SHARED_LOCK), "wb"):
        pass
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, os.path.join(alive, SHARED_LOCK)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with ProcessExecutor(1) as pool:
            pool.share(1)
            assert not os.path.exists(left)
            assert os.path.exists(alive) and all(os.path.exists(folder) for folder in odd)
    finally:
        holder.communicate("")
        for folder in (alive, *odd):
            shutil.rmtree(folder, ignore_errors=True)


def test_a_failing_unit_fails_its_future() -> None:
    with ProcessExecutor(1) as pool:
        future = pool.submit(math.sqrt, -1.0)
        while not pool.wait([future], 0.2):
            pass
        with pytest.raises(WorkerError, match="math domain error"):
            future.result()
    with pytest.raises(ValueError, match="math domain error"):
        SerialExecutor().submit(math.sqrt, -1.0).result()


def _echo(flags: list[int], index: int, pipe: Connection) -> None:
    """A worker thread: answers ``(value, stopped)`` to ``(value, seconds)``, waiting
    ``seconds`` unless its stop flag rises first."""
    pipe.send("ready")
    while (message := pipe.recv()) is not None:
        value, seconds = message
        ends = time.perf_counter() + seconds
        while time.perf_counter() < ends and not flags[index]:
            time.sleep(0.001)
        pipe.send((value, bool(flags[index])))


class _Largest:
    """Hands out ``items`` (value, seconds); a value at least ``beta`` is a cutoff."""

    def __init__(self, items: list[tuple[int, float]], beta: int) -> None:
        self.queue = list(items)
        self.beta = beta
        self.best = -1
        self.counted: list[int] = []

    def assign(self, worker: int) -> tuple[int, Any] | None:
        return (self.queue[0][0], self.queue.pop(0)) if self.queue else None

    def count(self, worker: int, tag: int, answer: Any) -> int:
        self.counted.append(tag)
        return 1

    def take(self, worker: int, tag: int, answer: Any) -> Verdict:
        value, _ = answer
        self.best = max(self.best, value)
        return Verdict.CUTOFF if value >= self.beta else Verdict.GO_ON

    def stopping(self) -> bool:
        return False


def _group(flags: list[int]) -> WorkerGroup:
    def flag(worker: int, raised: bool) -> None:
        flags[worker] = int(raised)

    return WorkerGroup(
        2, _echo, lambda index, pipe: (flags, index, pipe), flag=flag, name="t", threads=True
    )


def test_a_split_collects_every_answer_and_stops_at_a_cutoff() -> None:
    flags = [0, 0]
    group = _group(flags)
    try:
        split: Split[int] = Split(group)
        plan = _Largest([(3, 0.0), (1, 0.0), (7, 0.0), (2, 0.0)], beta=100)
        assert split.run(plan) is Verdict.GO_ON
        assert plan.best == 7 and sorted(plan.counted) == [1, 2, 3, 7]
        # A cutoff: the long piece is halted and waited for, the last one never sent.
        plan = _Largest([(50, 30.0), (200, 0.0), (5, 0.0), (6, 0.0)], beta=100)
        assert split.run(plan) is Verdict.CUTOFF
        assert plan.best == 200 and not split.busy and 50 in plan.counted
        assert plan.queue  # not everything was sent
    finally:
        group.close()


def test_a_split_that_does_not_wait_keeps_orphans_until_drained() -> None:
    flags = [0, 0]
    group = _group(flags)
    try:
        split: Split[int] = Split(group, wait_on_cutoff=False)
        plan = _Largest([(50, 30.0), (200, 0.05)], beta=100)
        assert split.run(plan) is Verdict.CUTOFF
        assert list(split.orphans) == [0] and not split.busy
        late: list[Any] = []
        split.drain(lambda worker, answer: late.append(answer))
        assert late == [(50, True)] and not split.orphans
    finally:
        group.close()


def test_a_worker_that_cannot_start_raises_its_own_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second process fails to start (as a script without the ``__main__`` guard makes
    a spawned child fail): the first is ended and that error is raised, not one of ending a
    process that never started."""
    started: list[Any] = []
    real = multiprocessing.get_context("spawn").Process.start

    def start(process: Any) -> None:
        if started:
            raise RuntimeError("no second process")
        started.append(process)
        real(process)

    monkeypatch.setattr(multiprocessing.get_context("spawn").Process, "start", start)
    with pytest.raises(RuntimeError, match="no second process"):
        WorkerGroup(2, _echo, lambda index, pipe: ([0, 0], index, pipe), flag=_no_flag, name="t")
    assert len(started) == 1 and not started[0].is_alive()


def _no_flag(worker: int, raised: bool) -> None:
    pass


def test_the_runtime_imports_neither_numba_nor_ray() -> None:
    code = (
        "import sys, zerosum.runtime, zerosum.runtime.cluster\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('numba', 'ray')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


SRC = Path(__file__).resolve().parents[1] / "src" / "zerosum"
CYCLES = {
    "search/parallel.py": "zerosum.search.driver",
    "search/root.py": "zerosum.search.driver",
    "compiled/parallel.py": "zerosum.compiled.solver",
}
"""Modules that must not import the module that imports them."""
LAZY = {("search/driver.py", "zerosum.search.parallel")}
"""Imports inside a function that only keep a heavy import off every command's start-up (the
pool's shared table imports numpy)."""


def _imports(tree: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node, node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name


@pytest.mark.parametrize(
    "path",
    [
        "runtime/__init__.py",
        "runtime/cluster.py",
        "runtime/executor.py",
        "runtime/pool.py",
        "runtime/raybase.py",
        "runtime/scheduler.py",
        "runtime/signals.py",
        "runtime/workers.py",
        "search/driver.py",
        "search/root.py",
        "search/parallel.py",
        "search/tactical_parallel.py",
        "compiled/parallel.py",
        "compiled/distributed.py",
    ],
)
def test_no_import_inside_a_function_holds_a_cycle_together(path: str) -> None:
    """The runtime and the split searches import at the top (but for :data:`LAZY`), and never
    the module that imports them."""
    tree = ast.parse((SRC / path).read_text())
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = [m for _, m in _imports(function) if (path, m) not in LAZY]
            assert not inner, f"{path}: {function.name} imports {inner}"
    forbidden = CYCLES.get(path)
    assert forbidden not in {module for _, module in _imports(tree)}
