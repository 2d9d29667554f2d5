"""``benchmarks/ray_scale.py --warm``: simulated workers that keep their tables."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from zerosum.compiled.distributed import Budget
from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4

POSITION = "32164625"  # Test_L1_R1: score 11, a few hundred thousand nodes


@functools.cache
def _ray_scale() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "ray_scale.py"
    spec = importlib.util.spec_from_file_location("ray_scale", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("warm", ["runs", "segments"])
@pytest.mark.parametrize("workers", [1, 2, 8])
def test_a_warm_replay_finds_the_serial_score_and_best_moves(workers: int, warm: str) -> None:
    scale = _ray_scale()
    game = Connect4.from_position(POSITION)
    solver = Solver("connect4", hash_mb=1, book=False)
    exact = solver.solve(game)
    best, _ = solver.best_moves_search(game, exact.rank)
    took, simulated, found, _ = scale.replay(
        POSITION, 1, workers, Budget(nodes=5_000), scale.Costs(None, 0.0), 1e6, 0.005,
        warm=warm, hash_mb=1,
    )  # fmt: skip
    assert isinstance(simulated, scale.Segmented if warm == "segments" else scale.Warm)
    assert (found.rank, list(found.best_moves)) == (exact.rank, list(best))
    assert took > 0 and simulated.measured_nodes > 0
    if workers == 8:  # idle workers split the units that run longest
        assert found.splits > 0
    if workers == 8 and warm == "segments":  # windows that move reach the running units
        assert found.narrowed > 0


def _run(scale: ModuleType, warm: Any, window: tuple[int, int]) -> dict[str, Any]:
    """A run of the unit ``POSITION`` on ``warm``'s worker 0, as the executor records it."""
    args = ("connect4", POSITION, window, False, 1.0, None, None, None, False, None)
    return {"args": args, "worker": 0, "start": 0.0, "step": 0, "full": None}


def test_a_run_cut_short_leaves_its_workers_table_as_a_run_of_that_length_does() -> None:
    # A unit is measured to its end first, then cut at 5,000 nodes (it was split, or
    # cancelled): the worker's table must hold what that shorter run leaves, not the longer
    # run's entries, as on a worker that ran only the short one.
    scale = _ray_scale()
    window = (-18, 19)
    cut = scale.Warm(1, 1e6, 0.0, 10_000, 1.0)
    run = _run(scale, cut, window)
    whole = cut._run_to(run, None)
    assert whole.rank == 11 and whole.nodes > 15_000
    short = cut._run_to(run, 5_000)
    assert short.rank is None
    alone = scale.Warm(1, 1e6, 0.0, 10_000, 1.0)
    assert alone._run_to(_run(scale, alone, window), 5_000).nodes == short.nodes
    ours, theirs = cut.solvers[0].engine, alone.solvers[0].engine
    assert np.array_equal(ours.keys, theirs.keys) and np.array_equal(ours.data, theirs.data)
    assert np.count_nonzero(ours.keys) > 0


def test_a_worker_keeps_its_table_for_its_next_unit() -> None:
    # The same unit again on the same worker: its table proves it at once.
    scale = _ray_scale()
    warm = scale.Warm(1, 1e6, 0.0, 10_000, 1.0)
    first = warm._run_to(_run(scale, warm, (-18, 19)), None)
    again = warm._run_to(_run(scale, warm, (-18, 19)), None)
    assert first.rank == again.rank == 11
    assert again.nodes * 100 < first.nodes


def test_a_narrowed_unit_goes_on_in_its_new_window_from_where_it_was() -> None:
    # A unit sent in the whole window is told, after 5,000 of its nodes, that only whether
    # it is at most 10 matters (a scout's null window): it answers that bound, having searched
    # its first 5,000 nodes in the old window, and costs less than the whole solve.
    scale = _ray_scale()
    segmented = scale.Segmented(1, 1e6, 0.0, 20_000, 1.0)
    future = segmented.submit(None, *_run(scale, segmented, (-18, 19))["args"])
    segmented.now = 0.005  # 5,000 nodes in, before its first checkpoint
    assert segmented.narrow(future, (10, 11))
    run = segmented._runs[future]
    assert run["args"][2] == (10, 11) and 5_000 <= run["from"] < 6_000  # polled every few nodes
    segmented.wait_all()
    answer = future.result()
    assert answer.proven is not None and answer.proven[0] >= 11  # it beats 10 (its rank: 11)
    whole = scale.Warm(1, 1e6, 0.0, 20_000, 1.0)._run_to(_run(scale, segmented, (-18, 19)), None)
    assert 5_000 < answer.nodes < whole.nodes


def test_a_split_units_first_child_goes_to_its_worker() -> None:
    # ``submit_on``: the worker that ran a unit, if free, though others are free too (its
    # table holds the child's subtree); any free worker if not.
    scale = _ray_scale()
    segmented = scale.Segmented(4, 1e6, 0.0, 20_000, 1.0)
    args = _run(scale, segmented, (-18, 19))["args"]
    first = segmented.submit(None, *args)
    worker = segmented.records[first]["worker"]
    segmented.wait_all()
    assert len(segmented.idle) == 4
    child = segmented.submit_on(first, None, *args)
    assert segmented.records[child]["worker"] == worker
    other = segmented.submit_on(child, None, *args)  # its worker is busy: another one
    assert segmented.records[other]["worker"] != worker
