"""What ``solve`` says a solve cost covers the whole command: the score and the best moves
(every move's score with ``--all``), locally and with workers (on Ray: test_cluster_nodes)."""

from __future__ import annotations

import json
import re

import pytest

from zerosum.cli import main
from zerosum.compiled import DEFAULT_HASH_MB
from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4

POSITION = "32164625"


def _solve(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    assert main(["solve", "connect4", "--moves", POSITION, "--json", *extra]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_the_nodes_of_the_best_moves_are_counted(capsys: pytest.CaptureFixture[str]) -> None:
    data = _solve(capsys)
    # the oracle: the same solver, by hand, the score then the best moves
    game = Connect4.from_position(POSITION)
    with Solver("connect4", hash_mb=DEFAULT_HASH_MB) as solver:
        exact = solver.solve(game)
        best, cost = solver.best_moves_search(game, exact.rank)
    assert data["solve_nodes"] == exact.stats.nodes
    assert data["moves_nodes"] == cost.nodes > 0
    assert data["nodes"] == exact.stats.nodes + cost.nodes
    assert data["best_moves"] == [game.format_move(m) for m in best or []]


@pytest.mark.parametrize("extra", [(), ("--all",), ("--workers", "2")])
def test_time_and_nodes_are_the_sum_of_their_parts(
    capsys: pytest.CaptureFixture[str], extra: tuple[str, ...]
) -> None:
    data = _solve(capsys, *extra)
    parts = [data["startup_s"], data["solve_s"], data["moves_s"]]
    assert all(isinstance(p, float) and p >= 0 for p in parts)
    assert data["time_s"] == pytest.approx(sum(parts), abs=1e-5)  # type: ignore[arg-type]
    assert data["nodes"] == data["solve_nodes"] + data["moves_nodes"]  # type: ignore[operator]
    assert data["moves_nodes"] > 0  # type: ignore[operator]
    assert main(["solve", "connect4", "--moves", POSITION, *extra]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    # the same numbers (workers search in varying order: their node counts vary)
    number = r"[\d,]+"
    pattern = rf"nodes {number} in [\d.]+ s \(start [\d.]+ s; score {number} in [\d.]+ s; moves "
    assert re.match(pattern, last), last
    if "--workers" not in extra:
        assert last.startswith(f"nodes {data['nodes']:,} in ")
        assert f"moves {data['moves_nodes']:,} in" in last
