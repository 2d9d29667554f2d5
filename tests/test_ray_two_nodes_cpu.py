"""``benchmarks/ray_two_nodes.py``: where the CPU went while a command ran."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ray_two_nodes() -> ModuleType:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "benchmarks")]
    spec = importlib.util.spec_from_file_location(
        "ray_two_nodes", ROOT / "benchmarks" / "ray_two_nodes.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cpu_line_gives_each_node_and_the_nodes_rate() -> None:
    cpu_line = _ray_two_nodes().cpu_line
    two = {"command": 1.5, "nodes": [6.0, 4.0], "others": 9.25}
    assert cpu_line(two, 48_000_000) == (
        " cpu: cmd 1.50, nodes [6.0, 4.0], 4.80 M/cpu s, others 9.25"
    )
    local = {"command": 8.0, "nodes": [], "others": 1.0}
    assert cpu_line(local, 48_000_000) == " cpu: cmd 8.00, others 1.00"


def test_a_session_cpu_seconds_count_its_processes_and_a_gone_one_counts_nothing() -> None:
    module = _ray_two_nodes()
    if not Path(f"/proc/{os.getpid()}/stat").exists():
        pytest.skip("no /proc")
    # The session's leader burns 0.3 CPU seconds and runs a child that burns 0.2 and ends: a
    # node's figure counts both, each once.
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < {}: pass\n"
    busy = burn.format(0.3) + "import subprocess, sys\n"
    busy += f"subprocess.run([sys.executable, '-c', {burn.format(0.2)!r}], check=True)\n"
    busy += "print(flush=True); input()"
    child = subprocess.Popen(
        [sys.executable, "-c", busy],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert child.stdout is not None
        child.stdout.readline()  # its 0.3 CPU seconds are spent

        class Cluster:
            def pids(self) -> list[int]:
                return [child.pid]

        (spent,) = module.node_cpu_seconds(Cluster())
        # The leader, now waiting on its input, is the session's one process: counted once,
        # with the child it waited for.
        assert spent == module.cpu_seconds(child.pid)
        assert spent >= 0.5 - 2 / os.sysconf("SC_CLK_TCK")
        assert module.node_cpu_seconds(None) == []
    finally:
        child.communicate("\n")
    assert module.cpu_seconds(child.pid) == 0.0  # gone (reaped)


def test_a_way_s_cpu_summary_gives_each_node_s_share_and_the_others() -> None:
    cpu_summary = _ray_two_nodes().cpu_summary
    two = [
        {"nodes": 30_000_000, "cpu": {"wall": 6.0, "nodes": [5.0, 4.0], "others": 1.2}},
        {"nodes": 18_000_000, "cpu": {"wall": 4.0, "nodes": [3.0, 2.0], "others": 0.8}},
    ]
    assert cpu_summary(two, 2) == (
        "a node's share of a core 0.80, 0.60; 3.43 M/cpu s; others 0.10 of the machine"
    )
    local = [{"nodes": 9, "cpu": {"wall": 5.0, "nodes": [], "others": 0.0}}]
    assert cpu_summary(local, 2) == "others 0.00 of the machine"
    idle = [{"nodes": 9, "cpu": {"wall": 5.0, "nodes": [0.0], "others": 0.0}}]
    assert cpu_summary(idle, 2) == "others 0.00 of the machine"


def test_the_sampler_counts_a_child_that_ended_once_by_its_kind() -> None:
    # A node's session leader, once the sampler has read it, burns 0.2 CPU seconds, then
    # runs a child that burns 0.8 and is waited for: the leader counts its own 0.2 only (with
    # the child's, it would count 0.8 more) and the child counts up to its last reading (how
    # much it missed depends on the sampler thread's share of the machine).
    module = _ray_two_nodes()
    if not Path(f"/proc/{os.getpid()}/stat").exists():
        pytest.skip("no /proc")
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < {}: pass\n"
    busy = "input()\n" + burn.format(0.2) + "import subprocess, sys\n"
    busy += f"subprocess.run([sys.executable, '-c', {burn.format(0.8)!r}], check=True)\n"
    busy += "print(flush=True); input()"
    child = subprocess.Popen(
        [sys.executable, "-c", busy],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert child.stdin is not None and child.stdout is not None

        class Cluster:
            def pids(self) -> list[int]:
                return [child.pid]

        with module.NodeSampler(Cluster()) as sampler:
            child.stdin.write("\n")
            child.stdin.flush()
            child.stdout.readline()  # both have burnt their CPU seconds
        (kinds,) = sampler.kinds()
        tick = 2 / os.sysconf("SC_CLK_TCK")
        assert 0.2 - tick <= sum(kinds.values()) <= 1.0 + 3 * tick
        assert module.NodeSampler(None).kinds() == []
    finally:
        child.communicate("\n")


def test_no_rounds_is_a_clear_error_before_any_cluster_starts() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "ray_two_nodes.py"), "--rounds", "0"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        check=False,
    )
    assert done.returncode == 2
    assert "--rounds 0: expected 1 or more" in done.stderr
    assert "Traceback" not in done.stderr


def test_parallel_py_reads_the_cpu_as_the_other_benchmarks_do() -> None:
    # benchmarks/parallel.py's readers are the shared ones of unit_trace.py: a process's CPU
    # counts the children it waited for (its own reader of /proc did not), a gone one is not
    # known (None).
    sys.path[:0] = [str(ROOT / "benchmarks")]
    spec = importlib.util.spec_from_file_location("parallel", ROOT / "benchmarks" / "parallel.py")
    assert spec is not None and spec.loader is not None
    parallel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(parallel)
    if not Path(f"/proc/{os.getpid()}/stat").exists():
        pytest.skip("no /proc")
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"
    waits = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {burn!r}])\n"
    waits += "print(flush=True); input()"
    child = subprocess.Popen(
        [sys.executable, "-c", waits], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        child.stdout.readline()
        spent = parallel._cpu_seconds([child.pid])
        assert spent is not None and spent >= 0.3 - 2 / os.sysconf("SC_CLK_TCK")
    finally:
        child.communicate("\n")
    assert parallel._cpu_seconds([child.pid]) is None  # gone (reaped)
    busy = parallel._machine_busy()
    assert busy is not None and busy >= parallel.machine_cpu_seconds() - 0.5


def test_ray_costs_splits_the_nodes_cpu_into_the_units_parts_and_the_processes() -> None:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "benchmarks")]
    spec = importlib.util.spec_from_file_location("ray_costs", ROOT / "benchmarks" / "ray_costs.py")
    assert spec is not None and spec.loader is not None
    ray_costs = importlib.util.module_from_spec(spec)
    sys.modules["ray_costs"] = ray_costs  # its dataclass looks its module up there
    spec.loader.exec_module(ray_costs)
    parts = {"fetch": 0.0, "load": 0.25, "snapshot": 0.5, "bounds": 0.0, "load n": 2.0}
    parts |= {"unit rest": 0.25, "search": 4.0}
    # a unit's row: its times, worker, nodes, CPU seconds (5.0) and CPU by part
    report = {"units": [[0.0] * 6 + [1, 10, 5.0, parts], [0.0] * 6 + [2, 10, 1.0, {}]]}
    kinds = [{"ray::PoolWorker": 4.5, "raylet": 0.5}, {"ray::PoolWorker": 2.0, "raylet": 0.25}]
    assert ray_costs.cpu_parts(report, kinds) == {
        "fetch": 0.0,
        "load": 0.25,
        "snapshot": 0.5,
        "bounds": 0.0,
        "unit rest": 0.25,
        "search": 4.0,
        "worker outside units": 0.5,  # 6.5 in the workers' processes, 6.0 in their units
        "raylet": 0.75,
    }
