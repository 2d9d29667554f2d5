"""Value words and result dicts (``zerosum.formatting``), which the CLI and the web app share."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

import pytest
from test_cli import run

from zerosum.formatting import (
    describe,
    exact_text,
    exact_value_text,
    move_names,
    plies_to_end,
    result_data,
    result_figures,
)
from zerosum.game import WIN
from zerosum.games import get_game
from zerosum.search import Limit, search, solve


@pytest.mark.parametrize(
    ("value", "solved", "words"),
    [
        (WIN - 1, False, "win in 1 ply"),
        (WIN - 3, True, "win in 3 plies"),
        (-(WIN - 1), True, "loss in 1 ply"),
        (-(WIN - 4), False, "loss in 4 plies"),
        (0, True, "draw"),
        (0, False, "0"),
        (12, False, "+12"),
        (12, True, "+12"),
        (-5, False, "-5"),
    ],
)
def test_describe(value: int, solved: bool, words: str) -> None:
    assert describe(value, solved=solved) == words


def test_plies_to_end_counts_from_either_side() -> None:
    assert plies_to_end(WIN - 7) == plies_to_end(-(WIN - 7)) == 7


@dataclass(frozen=True)
class _Exact:
    rank: int
    value: int


def test_exact_texts() -> None:
    won = _Exact(rank=18, value=WIN - 3)
    assert exact_text(won, weak=False) == "+18 (win in 3 plies)"
    assert exact_value_text(won, weak=False) == "win in 3 plies"
    assert exact_text(_Exact(0, 0), weak=False) == "0 (draw)"
    assert exact_value_text(_Exact(0, 0), weak=False) == "draw"
    for rank, word in ((1, "win"), (0, "draw"), (-1, "loss")):
        assert exact_text(_Exact(rank, rank), weak=True) == word
        assert exact_value_text(_Exact(rank, rank), weak=True) == word


def test_result_data_is_the_clis_json(capsys: pytest.CaptureFixture[str]) -> None:
    spec = get_game("tictactoe")
    game = spec.new()
    result = solve(game)
    data = result_data(spec, game, result, "engine")
    status, out, _ = run(capsys, "solve", "tictactoe", "--json")
    cli = json.loads(out)
    assert status == 0
    timing = ("time_s", "nps")
    assert {k: v for k, v in data.items() if k not in timing} == {
        k: v for k, v in cli.items() if k not in (*timing, "move_values")
    }
    assert data["value_text"] == "draw" and data["best_move"] in data["best_moves"]


def test_result_figures_name_moves_at_the_root() -> None:
    game = get_game("connect4").from_position("4453")
    result = search(game, limit=Limit(depth=4))
    figures = result_figures(game, result)
    assert figures["pv"] == move_names(game, result.pv) and len(figures["pv"]) == 4
    assert figures["value_text"] == describe(result.value, solved=result.solved)
    assert figures["nodes"] == result.stats.nodes and figures["depth"] == 4


def test_imports_no_front_end_and_no_engine() -> None:
    script = (
        "import sys, zerosum.formatting; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'fastapi') "
        "or m.startswith(('zerosum.cli', 'zerosum.web', 'zerosum.compiled.'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"
