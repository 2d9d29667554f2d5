"""Parallel exact solves (worker processes sharing one table) against serial ones."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_compiled import read_set

from zerosum.cli import main
from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4
from zerosum.search import Limit


@pytest.fixture(scope="module")
def parallel() -> Iterator[Solver]:
    with Solver("connect4", hash_mb=16, workers=2) as solver:
        yield solver


def test_parallel_solves_equal_the_serial_ones(parallel: Solver, data_dir: Path) -> None:
    serial = Solver("connect4", hash_mb=16)
    sample = read_set(data_dir, "Test_L2_R1")[:40] + read_set(data_dir, "Test_L1_R1")[:10]
    for moves, score in sample:
        game = Connect4.from_position(moves)
        assert parallel.solve(game).rank == serial.solve(game).rank == score, moves
        weak = (score > 0) - (score < 0)
        assert parallel.solve(game, weak=True).rank == weak, moves


def test_parallel_best_moves_equal_the_serial_ones(parallel: Solver, data_dir: Path) -> None:
    serial = Solver("connect4", hash_mb=16)
    for moves, score in read_set(data_dir, "Test_L2_R1")[40:50]:
        game = Connect4.from_position(moves)
        assert parallel.best_moves(game, score) == serial.best_moves(game, score)


def test_a_time_limit_stops_every_worker(parallel: Solver) -> None:
    started = time.perf_counter()
    exact = parallel.solve(Connect4.from_position("4"), limit=Limit(time=0.3))
    assert not exact.complete
    assert time.perf_counter() - started < 3
    # the workers are free again: the next solve answers
    end_game = Connect4.from_position("2252576253462244111563365343671351441")
    assert parallel.solve(end_game).rank == -1


def test_closing_leaves_no_process_behind() -> None:
    solver = Solver("connect4", hash_mb=4, workers=2)
    processes = list(solver.exact._processes)  # type: ignore[union-attr]
    assert all(process.is_alive() for process in processes)
    solver.close()
    assert not any(process.is_alive() for process in processes)


def test_the_command_line_takes_workers(capsys: pytest.CaptureFixture[str]) -> None:
    moves = "52753311433677442422121"
    assert main(["solve", "connect4", "--moves", moves, "--workers", "2", "--json"]) == 0
    assert '"score": 8' in capsys.readouterr().out
    assert main(["solve", "connect4", "--workers", "none"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_a_node_limit_is_shared_by_the_workers(parallel: Solver) -> None:
    exact = parallel.solve(Connect4.from_position("4"), limit=Limit(nodes=200_000))
    assert not exact.complete
    assert exact.stats.nodes < 200_000 + 2 * 2048


def test_depth_limited_searches_equal_the_serial_ones(parallel: Solver, data_dir: Path) -> None:
    sample = read_set(data_dir, "Test_L2_R1")[50:65] + read_set(data_dir, "Test_L1_R1")[10:25]
    for moves, _ in [("4453", 0), ("", 0), *sample]:
        game = Connect4.from_position(moves)
        for depth in (3, 8, 12):
            serial = Solver("connect4", hash_mb=4)
            parallel.exact.table[:] = 0  # type: ignore[union-attr]  # both start empty
            one = serial.search(game, limit=Limit(depth=depth))
            many = parallel.search(game, limit=Limit(depth=depth))
            assert many.value == one.value, (moves, depth)
            assert many.depth == one.depth and many.best_move in game.legal_moves()


def test_a_time_limit_stops_a_parallel_search(parallel: Solver) -> None:
    started = time.perf_counter()
    result = parallel.search(Connect4(), limit=Limit(time=0.4))
    assert time.perf_counter() - started < 1.5
    assert not result.complete and result.depth > 0


def test_analyze_takes_workers_with_the_compiled_engine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["analyze", "connect4", "--moves", "4453", "--algorithm", "compiled", "--depth", "12"]
    assert main([*argv, "--json"]) == 0
    serial = capsys.readouterr().out
    assert main([*argv, "--workers", "2", "--json"]) == 0
    parallel = capsys.readouterr().out
    assert json.loads(parallel)["value"] == json.loads(serial)["value"]
