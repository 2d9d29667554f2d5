"""The command line with the compiled engine: solving connect four, the store, bad input."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_compiled import read_set
from waiting import HANG_S

from zerosum.cli import main
from zerosum.store import Store


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main([*argv, "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


@pytest.mark.parametrize(
    "cases", [slice(0, 2), pytest.param(slice(2, 5), marks=pytest.mark.slow)], ids=["0-1", "2-4"]
)
def test_solve_connect4_gives_the_score_and_best_moves(
    capsys: pytest.CaptureFixture[str], data_dir: Path, cases: slice
) -> None:
    # The first five positions of Pons's set; the last three (about a minute) in the slow set.
    for moves, score in read_set(data_dir, "Test_L2_R1")[cases]:
        data = run_json(capsys, "solve", "connect4", "--moves", moves, "--hash", "8")
        assert data["score"] == score and data["complete"] is True
        everything = run_json(capsys, "solve", "connect4", "--moves", moves, "--all")
        scores = everything["scores"]
        assert isinstance(scores, dict) and list(scores) == list("1234567")
        proven = {column: value for column, value in scores.items() if value is not None}
        assert max(proven.values()) == score
        best = sorted(column for column, value in proven.items() if value == score)
        assert sorted(data["best_moves"]) == sorted(everything["best_moves"]) == best  # type: ignore[arg-type]


def test_a_full_column_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "connect4", "--moves", "111111222222333333", "--all"]) == 0
    out = capsys.readouterr().out
    assert "not playable: 1 2 3" in out
    data = run_json(capsys, "solve", "connect4", "--moves", "111111222222333333", "--all")
    scores = data["scores"]
    assert isinstance(scores, dict)
    assert scores["1"] is None and scores["4"] is not None


def test_weak_solve_answers_win_draw_or_loss(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    for moves, score in read_set(data_dir, "Test_L2_R1")[:10]:
        data = run_json(capsys, "solve", "connect4", "--moves", moves, "--weak")
        assert data["score"] == (score > 0) - (score < 0)
        assert data["value_text"] in ("win", "draw", "loss")


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("44x", "move 3 ('x'): 'x' is not a column: expected a digit 1-7"),
        ("40", "move 2 ('0')"),
        ("1111111", "move 7 ('1'): column 1 is full"),
        ("44556671", "move 8 ('1'): 1 cannot be played: the game is over"),
    ],
)
def test_bad_move_strings_exit_2_naming_the_move(
    capsys: pytest.CaptureFixture[str], moves: str, message: str
) -> None:
    assert main(["solve", "connect4", "--moves", moves]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zerosum: error: ") and message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "connect4", "--hash", "0"],
        ["solve", "connect4", "--hash", "lots"],
        ["solve", "tictactoe", "--algorithm", "engine", "--weak"],
        ["analyze", "tictactoe", "--algorithm", "compiled", "--hash", "-3"],
        ["analyze", "tictactoe", "--algorithm", "engine", "--hash", "8"],
        ["analyze", "chess", "--algorithm", "tactical", "--depth", "1", "--hash", "8"],
    ],
)
def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("zerosum: error: ")


def test_the_store_makes_the_second_solve_instant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data_dir: Path
) -> None:
    moves, score = read_set(data_dir, "Test_L1_R1")[0]
    path = str(tmp_path / "book.sqlite")
    first = run_json(capsys, "solve", "connect4", "--moves", moves, "--store", path, "--all")
    again = run_json(capsys, "solve", "connect4", "--moves", moves, "--store", path, "--all")
    assert first["score"] == again["score"] == score
    assert first["scores"] == again["scores"]
    assert again["stored"] is True and again["nodes"] == 0


def test_analyze_with_the_compiled_engine(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys, "analyze", "connect4", "--moves", "4453", "--algorithm", "compiled", "--depth", "8"
    )
    assert data["depth"] == 8 and data["best_move"] in list("1234567")
    assert len(data["pv"]) == 8  # type: ignore[arg-type]
    assert data["nodes"] > 0


@pytest.mark.slow  # a long solve to interrupt
def test_ctrl_c_keeps_what_the_store_already_holds(tmp_path: Path) -> None:
    path = tmp_path / "book.sqlite"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PYTHONUNBUFFERED": "1"}
    command = [
        sys.executable,
        "-m",
        "zerosum.cli",
        "solve",
        "connect4",
        "--moves",
        "44534",
        "--no-book",
    ]
    process = subprocess.Popen(
        [*command, "--all", "--hash", "16", "--store", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.startswith("  "):  # the first column is proven and stored
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=HANG_S)
    assert process.returncode == 0, err
    assert "stopped before every move was solved" in out
    assert "Traceback" not in err
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with Store(path) as store:
        assert store.count("connect4") >= 2  # the position and at least one column


@pytest.mark.parametrize("extra", [[], ["--weak"], ["--all"]])
def test_a_stopped_solve_still_prints_plain_json(
    capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    data = run_json(
        capsys, "solve", "connect4", "--moves", "4453", "--no-book", "--time", "0.2", *extra
    )
    assert data["score"] is None and data["value_text"] is None
    assert data["complete"] is False


def test_a_finished_position_answers_from_the_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for extra in ([], ["--all"]):
        data = run_json(capsys, "solve", "connect4", "--moves", "1212121", *extra)
        assert data["score"] == -18 and data["value"] == -1_000_000  # lost at stone 7
        assert data["value_text"] == "loss in 0 plies"
        assert data["best_moves"] == [] and data["complete"] is True
    assert main(["solve", "connect4", "--moves", "1212121", "--all"]) == 0
    out = capsys.readouterr().out
    assert "the game is over" in out and "score -18 (loss in 0 plies)" in out
    store = str(tmp_path / "t.sqlite")
    assert main(["book", "connect4", "--moves", "1212121", "--plies", "2", "--store", store]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zerosum: error: the game is over") and err.count("\n") == 1


def test_a_stopped_solve_of_every_move_says_which_were_not_solved(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(["solve", "connect4", "--moves", "4453", "--no-book", "--all", "--time", "0.2"]) == 0
    )
    out = capsys.readouterr().out
    assert "not solved (stopped): " in out and "not playable" not in out
    data = run_json(
        capsys, "solve", "connect4", "--moves", "4453", "--no-book", "--all", "--time", "0.2"
    )
    assert sorted(data["unsolved"]) == list("1234567")  # type: ignore[arg-type]
    full = run_json(capsys, "solve", "connect4", "--moves", "111111222222333333", "--all")
    assert full["unsolved"] == [] and full["complete"] is True


@pytest.mark.parametrize(
    ("game", "plies"), [("connect4", "-1"), ("connect4", "43"), ("tictactoe", "10")]
)
def test_book_plies_out_of_range_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, plies: str
) -> None:
    store = str(tmp_path / "t.sqlite")
    assert main(["book", game, "--plies", plies, "--store", store]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"zerosum: error: --plies {plies} is out of range: expected 0..")


def test_book_time_limit_covers_listing_the_positions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zerosum.compiled.solver import Solver

    # Listing every position 9 plies deep alone takes ~19 s (idle): a limit of 0.3 s ends
    # the listing itself (it returns None), whatever the machine's load (no wall-clock bound).
    listed: list[bool] = []
    book_layers = Solver.book_layers

    def recorded(self: Solver, *args: Any, **kwargs: Any) -> Any:
        layers = book_layers(self, *args, **kwargs)
        listed.append(layers is not None)
        return layers

    monkeypatch.setattr(Solver, "book_layers", recorded)
    store = str(tmp_path / "b.sqlite")
    data = run_json(capsys, "book", "connect4", "--plies", "9", "--store", store, "--time", "0.3")
    assert data["complete"] is False
    assert listed == [False], "the listing ran to its end: the time limit did not cover it"


@pytest.mark.parametrize("nodes", [1, 3000])
def test_the_compiled_node_limit_overshoots_by_at_most_one_poll(
    capsys: pytest.CaptureFixture[str], nodes: int
) -> None:
    data = run_json(capsys, "analyze", "connect4", "--algorithm", "compiled", "--nodes", str(nodes))
    assert 0 < data["nodes"] <= nodes + 1024  # type: ignore[operator]


def test_compiled_value_text_is_the_value_in_words(
    capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    for moves, score in read_set(data_dir, "Test_L2_R1")[:5]:
        data = run_json(capsys, "solve", "connect4", "--moves", moves)
        assert data["score"] == score
        text = data["value_text"]
        assert isinstance(text, str)
        if score == 0:
            assert text == "draw"
        else:
            assert text.startswith("win in " if score > 0 else "loss in ")
            assert text.endswith(" plies") or text.endswith(" ply")
