"""Value words and result dicts (``zerosum.formatting``), which the CLI and the web app share."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

import pytest
from test_cli import run
from waiting import HANG_S

from zerosum.formatting import (
    describe,
    exact_text,
    exact_value_text,
    line_labels,
    move_label,
    move_labels,
    move_names,
    numbered_line,
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
    timing = ("time_s", "nps", "proof_time_s")
    assert data["proof_nodes"] == cli["proof_nodes"] <= data["nodes"]
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
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=HANG_S
    )
    assert done.stdout.strip() == "[]"


# -- people's notation (MoveLabels: SAN in chess) -------------------------------------------


def test_chess_moves_are_labelled_in_san_and_lines_are_played_out() -> None:
    game = get_game("chess").new()
    e4, nf3 = game.parse_move("e2e4"), game.parse_move("g1f3")
    assert move_label(game, nf3) == "Nf3" and move_labels(game, [e4, nf3]) == ["e4", "Nf3"]
    scholar = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]
    board = game.copy()
    line = []
    for text in scholar:
        line.append(board.parse_move(text))
        board.make(line[-1])
    assert line_labels(game, line) == ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]
    assert game.ply() == 0  # the line was played on a copy
    # A move that is not legal where it stands (a stale line) keeps the machine notation.
    assert line_labels(game, [e4, e4, nf3]) == ["e4", "e2e4", "g1f3"]


def test_games_without_labels_keep_their_notation() -> None:
    game = get_game("connect4").new()
    moves = [game.parse_move("1"), game.parse_move("2")]
    assert line_labels(game, moves) == move_names(game, moves) == ["1", "2"]
    assert move_labels(game, moves) == ["1", "2"]
    tictactoe = get_game("tictactoe").new()
    result = search(tictactoe, limit=Limit(depth=2))
    assert not any(key.endswith("_san") for key in result_figures(tictactoe, result))


def test_chess_results_carry_san_beside_uci() -> None:
    game = get_game("chess").from_position("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    figures = result_figures(game, search(game, limit=Limit(depth=2)))
    assert figures["best_move"] == "a1a8" and figures["best_move_san"] == "Ra8#"
    assert figures["pv_san"] == ["Ra8#"] and figures["pv"] == ["a1a8"]


@pytest.mark.parametrize(
    ("labels", "first_side", "first_number", "text"),
    [
        (["e4", "e5", "Nf3"], 0, 1, "1. e4 e5 2. Nf3"),
        (["e5", "Nf3", "Nc6"], 1, 1, "1... e5 2. Nf3 Nc6"),
        (["e5", "Nf3"], 1, 7, "7... e5 8. Nf3"),
        (["a1"], 0, 3, "3. a1"),
        ([], 0, 1, ""),
    ],
)
def test_numbered_line(labels: list[str], first_side: int, first_number: int, text: str) -> None:
    assert numbered_line(labels, first_side=first_side, first_number=first_number) == text
