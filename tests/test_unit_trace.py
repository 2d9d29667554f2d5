"""``benchmarks/unit_trace.py --compare``: where a second run's extra nodes went."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


def _unit_trace() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "unit_trace.py"
    spec = importlib.util.spec_from_file_location("unit_trace", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _unit(position: str, window: list[int], nodes: int, sent: float, rank: Any = 0) -> Any:
    return {"position": position, "window": window, "nodes": nodes, "sent": sent, "rank": rank}


def test_each_position_counts_under_the_first_kind_that_fits() -> None:
    compare = _unit_trace().compare
    one = [
        _unit("11", [-17, 18], 100, 0.0),
        _unit("12", [1, 2], 10, 1.0),
        _unit("12", [-17, 1], 20, 2.0),
        _unit("13", [1, 2], 5, 3.0),
        _unit("14", [1, 2], 7, 4.0),
    ]
    two = [
        _unit("11", [-17, 18], 100, 0.0),
        _unit("12", [-17, 18], 50, 0.0),  # beside its eldest, in the whole window
        _unit("12", [-2, 1], 15, 1.0),
        _unit("13", [1, 2], 9, 1.5),  # the same window, from another table
        _unit("14", [1, 2], 3, 2.0, rank=None),  # stopped, then run again
        _unit("14", [1, 2], 7, 3.0),
        _unit("15", [1, 2], 4, 2.5),  # never searched by one worker
    ]
    found = compare(one, two)
    assert found["extra"] == {
        "not in ONE": 4,
        "not in TWO": 0,
        "stopped": 3,
        "other windows": 35,
        "same windows": 4,
    }
    assert found["positions"][0]["position"] == "12"  # the largest difference first
    assert found["positions"][0]["windows"] == [[[1, 2], [-17, 1]], [[-17, 18], [-2, 1]]]


def test_a_position_only_one_searched_counts_as_not_in_two() -> None:
    compare = _unit_trace().compare
    one = [_unit("11", [-17, 18], 100, 0.0), _unit("12", [1, 2], 50, 1.0)]
    two = [_unit("11", [-17, 18], 100, 0.0)]
    found = compare(one, two)
    assert found["extra"]["not in TWO"] == -50
    assert found["extra"]["other windows"] == 0
    # a unit split for its budget answers no rank: stopped; its children are positions too
    split = [_unit("11", [-17, 18], 30, 0.0, rank=None), _unit("111", [-18, 17], 80, 1.0)]
    assert compare(one, split)["extra"] == {
        "not in ONE": 80,
        "not in TWO": -50,
        "stopped": -70,
        "other windows": 0,
        "same windows": 0,
    }


def test_options_are_checked_before_any_worker_starts() -> None:
    options = _unit_trace().options
    assert options(["siblings_wait=0", "split=3"]) == {"siblings_wait": 0, "split": 3}
    for item, error in [
        ("siblings_wait", "expected NAME=VALUE"),
        ("sibling_wait=0", "'sibling_wait' is not a keyword of solve_distributed"),
        ("budget=5", "unit_trace.py sets 'budget' itself"),
        ("hash_mb=8", "unit_trace.py sets 'hash_mb' itself"),
        ("split=x", "'x' is not a number"),
    ]:
        with pytest.raises(ValueError, match=re.escape(error)):
            options([item])


def test_cpu_use_splits_the_machine_into_workers_coordinator_and_others() -> None:
    cpu_use = _unit_trace().cpu_use
    before = {"workers": [1.0, 2.0], "coordinator": 0.5, "machine": 100.0, "wall": 10.0}
    after = {"workers": [4.0, 4.5], "coordinator": 1.0, "machine": 112.0, "wall": 14.0}
    assert cpu_use(before, after, 22_000_000) == {
        "wall_s": 4.0,
        "workers_cpu_s": [3.0, 2.5],
        "coordinator_cpu_s": 0.5,
        "others_cpu_s": 6.0,  # 12 s of the machine's, less the workers' 5.5 and the 0.5
        "nodes_per_cpu_s": 4_000_000,
    }
    idle = {**before, "machine": 100.0}
    assert cpu_use(idle, idle, 0)["nodes_per_cpu_s"] == 0  # no CPU: no rate


def test_a_process_cpu_seconds_are_read_from_proc() -> None:
    module = _unit_trace()
    if not Path(f"/proc/{os.getpid()}/stat").exists():
        pytest.skip("no /proc")
    times = os.times()
    tick = 1 / os.sysconf("SC_CLK_TCK")
    # the kernel's count in ticks, with the children waited for, never more than this
    # process's own and its children's, and at most a few ticks less (read one after the other)
    read = module.cpu_seconds(os.getpid())
    assert sum(times[:4]) - 2 * tick <= read <= sum(os.times()[:4]) + tick
    assert module.machine_cpu_seconds() >= read
