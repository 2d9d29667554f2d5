"""The command line: every command, its JSON, terminal games and bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

import pexpect
import pytest
from waiting import HANG_S

from zerosum.cli import main
from zerosum.games import GAMES

ZEROSUM = [sys.executable, "-m", "zerosum.cli"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    return json.loads(out)


def test_games_and_algorithms(capsys: pytest.CaptureFixture[str]) -> None:
    names = [g["name"] for g in run_json(capsys, "games")["games"]]
    # the built-in games first, then those of installed plugins (CI installs the example)
    assert names[:4] == ["tictactoe", "connect4", "morris", "chess"]
    assert names == list(GAMES)
    names = [a["name"] for a in run_json(capsys, "algorithms")["algorithms"]]
    assert names == [
        "minimax",
        "negamax",
        "alphabeta",
        "engine",
        "compiled",
        "tactical",
        "compiled-tactical",
        "mcts",
    ]


def test_legal(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "legal", "tictactoe", "--moves", "b2", "a1")
    assert status == 0
    assert out.split() == ["c1", "a3", "c3", "b1", "a2", "c2", "b3"]
    data = run_json(capsys, "legal", "tictactoe", "--position", "xxo/oo./x..")
    assert data["moves"] == ["c1", "b1", "c2"]


def test_analyze_json_fields(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "analyze", "tictactoe", "--moves", "b2", "--depth", "3", "--all-best")
    for field in ("value", "best_move", "best_moves", "pv", "depth", "nodes", "time_s", "nps"):
        assert field in data
    assert data["depth"] == 3 and data["best_move"] in data["best_moves"]
    assert data["best_moves"] == ["a1", "c1", "a3", "c3"]
    assert data["pv"][0] == data["best_move"]


def test_analyze_text_and_limits(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "analyze", "tictactoe", "--nodes", "50", "--algorithm", "minimax")
    assert status == 0
    for label in ("value", "best move", "pv", "depth", "nodes", "time", "nodes/s"):
        assert f"\n{label} " in f"\n{out}"
    # the search ends when it has solved the game; the time only caps it (60 s: a loaded
    # machine's delays cannot reach it, so the value is always the proven draw)
    status, out, _ = run(capsys, "analyze", "tictactoe", "--time", "60")
    assert "value      draw (0)" in out


def test_seeded_choice_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("analyze", "tictactoe", "--depth", "9", "--all-best", "--seed", "3")
    picks = {run_json(capsys, *argv)["best_move"] for _ in range(3)}
    assert len(picks) == 1


def test_solve(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", "tictactoe")
    assert status == 0
    assert out.startswith("value draw (0)")
    assert out.count("draw") == 10  # the value and each of the nine first moves
    data = run_json(capsys, "solve", "tictactoe", "--moves", "a1", "b1")
    assert data["value"] == 1_000_000 - 5 and data["solved"]
    assert set(data["best_moves"]) == {"a2", "b2", "a3"}
    assert len(data["move_values"]) == 7


def test_compare(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "compare", "tictactoe", "--moves", "b2", "--depth", "4")
    *rows, mcts = data["rows"]
    assert len(rows) == 16
    assert {row["value"] for row in rows} == {rows[0]["value"]}
    # MCTS last, on as many simulations as the engine search visited nodes
    engine = [
        r for r in rows if (r["algorithm"], r["table"], r["best"]) == ("engine", "table", "one")
    ]
    assert mcts["algorithm"] == "mcts" and mcts["nodes"] == engine[0]["nodes"]
    assert set(mcts["best_moves"]) <= {"a1", "a3", "c1", "c3", "a2", "b1", "b3", "c2"}
    every = [set(row["best_moves"]) for row in rows if row["best"] == "all"]
    assert all(moves == every[0] for moves in every)
    plain = {(row["algorithm"], row["table"]): row["nodes"] for row in rows if row["best"] == "one"}
    assert plain["alphabeta", "none"] < plain["minimax", "none"]
    assert plain["minimax", "memo"] < plain["minimax", "none"]
    status, out, _ = run(capsys, "compare", "tictactoe", "--depth", "2")
    assert "algorithm" in out and "cutoffs" in out and status == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        # the known games in name order (an installed plugin may follow morris)
        (["legal", "go"], "unknown game 'go': expected one of chess, connect4, morris"),
        (["legal", "tictactoe", "--moves", "b2", "b2"], "move 2 ('b2'): b2 is already taken"),
        (["legal", "tictactoe", "--moves", "d4"], "'d4' is not a tic-tac-toe cell: expected"),
        (["legal", "tictactoe", "--position", "xxxx"], "is not a tic-tac-toe position"),
        (["analyze", "tictactoe", "--algorithm", "uct"], "unknown algorithm 'uct'"),
        (
            ["analyze", "tictactoe", "--algorithm", "bogus"],
            "unknown algorithm 'bogus': expected one of minimax, negamax, alphabeta, engine, "
            "compiled, tactical",
        ),
        (
            ["solve", "tictactoe", "--algorithm", "tactical"],
            "algorithm 'tactical' is not available for solve: expected one of minimax, negamax, "
            "alphabeta, engine, compiled",
        ),
        (
            ["bench", "tictactoe", "--algorithm", "tactical"],
            "algorithm 'tactical' is not available for bench: expected one of minimax, negamax, "
            "alphabeta, engine, compiled",
        ),
        (["bench", "tictactoe", "--algorithm", "nope"], "unknown algorithm 'nope': expected"),
        (["analyze", "tictactoe", "--depth", "0"], "--depth: 0 is out of range: expected 1..1000"),
        (["analyze", "tictactoe", "--depth", "two"], "'two' is not a whole number"),
        (
            ["analyze", "tictactoe", "--workers", "-1"],
            "-1 workers is out of range: expected 0, auto or a number of workers 1..",
        ),
        (["solve", "tictactoe", "--workers", "300"], "expected 0, auto or a number of workers"),
        (["analyze", "tictactoe", "--time", "-1"], "out of range: expected seconds > 0"),
        (["analyze", "tictactoe", "--depth", "5000"], "5000 is out of range: expected 1..1000"),
        (["analyze", "tictactoe", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["compare", "tictactoe"], "the following arguments are required: --depth"),
        (["play", "tictactoe", "--side", "purple"], "unknown side 'purple'"),
        (["play", "tictactoe", "--level", "9"], "level 9 is out of range"),
        (["conquer"], "invalid choice: 'conquer'"),
        # issue 24: an empty path meant "no store" (or no PGN) silently
        (["solve", "tictactoe", "--store", ""], "--store: '' is an empty path: expected the pa"),
        (["book", "tictactoe", "--store", ""], "'' is an empty path: expected the path of a SQ"),
        (["build-endgames", "morris", "--store", " "], "' ' is an empty path: expected the pa"),
        (["play", "tictactoe", "--store", ""], "--store: '' is an empty path: expected the pat"),
        (["solve", "tictactoe", "--positions", ""], "expected the path of a test-set file"),
        (["match", "chess", "--pgn", ""], "--pgn: '' is an empty path: expected the path of"),
        ([], "the following arguments are required: command"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv: list[str], message: str) -> None:
    done = subprocess.run(ZEROSUM + argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("zerosum: error: ")
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize("cores", [1, 2, 16])
def test_workers_are_bounded_by_the_cores(
    cores: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 24: ``--workers`` took up to 256 processes on a two-core machine (150 took the
    load to 141); now at most 4 a core, with a one-line error past it (exit 2)."""
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    most = 4 * cores
    for command in (["solve", "tictactoe"], ["analyze", "tictactoe", "--depth", "1"]):
        assert main([*command, "--workers", str(most + 1)]) == 2
        _, err = capsys.readouterr()
        expected = f"{most + 1} workers is out of range: expected 0, auto or a number of workers"
        assert expected in err and f"1..{most} (4 a core of this machine's {cores})" in err, err
        assert err.startswith("zerosum: error: ") and err.count("\n") == 1
    assert main(["legal", "tictactoe"]) == 0  # the parser is built with the bound
    from zerosum.cli.parser import worker_count

    assert worker_count(str(most)) == most and worker_count("auto") == cores


def scripted_game(*argv: str) -> str:
    """Play through a pipe: b2 twice, then every cell in turn (taken ones are refused)."""
    cells = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    script = "\n".join(["hint", "undo", "b2", "b2", *cells, *cells])
    done = subprocess.run(
        [*ZEROSUM, "play", "tictactoe", *argv],
        input=script + "\n",
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("side", ["x", "o"])
def test_scripted_game_never_lost_by_the_computer(side: str) -> None:
    out = scripted_game("--side", side, "--seed", "1")
    assert "hint: " in out and "Nothing to undo." in out
    assert "is already taken" in out
    assert "Game over: a draw." in out or "Game over: the computer wins." in out


def test_weak_level_game_finishes() -> None:
    out = scripted_game("--level", "1", "--seed", "2")
    assert "Game over:" in out


def test_interactive_terminal_session() -> None:
    child = pexpect.spawn(
        sys.executable, ["-m", "zerosum.cli", "play", "tictactoe", "--seed", "5"], timeout=HANG_S
    )
    child.expect(r"your move \(X\): ")
    child.sendline("b2")
    child.expect(r"computer plays ([abc][123])")
    child.expect(r"your move \(X\): ")
    child.sendline("undo")
    child.expect(r"your move \(X\): ")
    child.sendline("hint")
    child.expect("hint: .*draw")
    child.sendline("zz")
    child.expect("expected a1..c3")
    child.sendline("quit")
    child.expect("Game abandoned.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_ctrl_c_stops_analysis_and_reports() -> None:
    argv = ["analyze", "tictactoe", "--algorithm", "minimax", "--no-table", "--time", "60"]
    child = pexpect.spawn(sys.executable, ["-m", "zerosum.cli", *argv], timeout=HANG_S)
    child.expect("depth   3")  # the search is under way
    child.sendintr()
    child.expect("stopped early")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_bench_signature_is_repeatable(capsys: pytest.CaptureFixture[str]) -> None:
    first = run_json(capsys, "bench", "tictactoe")
    again = run_json(capsys, "bench", "tictactoe")
    assert first["signature"] == again["signature"] > 0
    assert first["signature"] == sum(row["nodes"] for row in first["rows"])
    status, out, _ = run(capsys, "bench", "tictactoe", "--algorithm", "alphabeta")
    assert status == 0 and "signature" in out


def test_a_closed_pipe_ends_quietly() -> None:
    """``zerosum legal ... | head -0``: the reader has gone; no traceback is printed."""
    reader, writer = os.pipe()
    os.close(reader)  # before the child writes: its first write fails with EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "zerosum", "legal", "connect4"],
            stdout=writer,
            stderr=subprocess.PIPE,
            timeout=HANG_S,
        )
    finally:
        os.close(writer)
    assert done.returncode == 128 + signal.SIGPIPE
    errors = done.stderr.decode()
    assert "Traceback" not in errors and "Exception" not in errors


def _stopping_after_first_row(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make ``compare`` raise Ctrl-C once its first row has been handed out."""
    import zerosum.cli.compare as command

    real = command.compare
    handed: list[str] = []

    def stopping(*args: Any, **kwargs: Any) -> Any:
        for row in real(*args, **kwargs):
            handed.append(row.algorithm)
            yield row
            raise KeyboardInterrupt

    monkeypatch.setattr(command, "compare", stopping)
    return handed


def test_compare_streams_rows_and_keeps_them_on_ctrl_c(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    handed = _stopping_after_first_row(monkeypatch)
    status, out, _ = run(capsys, "compare", "tictactoe", "--depth", "2")
    assert status == 130 and len(handed) == 1
    lines = out.splitlines()
    assert "algorithm" in lines[1] and lines[3].startswith(handed[0])
    assert lines[4] == "stopped after 1 row" and len(lines) == 5


def test_compare_json_on_ctrl_c_says_incomplete(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stopping_after_first_row(monkeypatch)
    status, out, _ = run(capsys, "compare", "tictactoe", "--depth", "2", "--json")
    data = json.loads(out)
    assert status == 130 and data["complete"] is False and len(data["rows"]) == 1
    monkeypatch.undo()
    assert run_json(capsys, "compare", "tictactoe", "--depth", "1")["complete"] is True


@pytest.mark.slow  # a whole game at a time limit
def test_play_time_caps_each_computer_move() -> None:
    """At the top level connect four's computer solves exactly, which from the opening takes
    minutes; ``--time`` caps each move, and the computer plays the best move it found."""
    done = subprocess.run(
        [*ZEROSUM, "play", "connect4", "--level", "5", "--time", "0.3", "--seed", "2"],
        input="4\nquit\n",
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    assert "level 5 of 5 (perfect, at most 0.3 s a move)" in done.stdout
    assert "computer plays 4" in done.stdout  # the reply the opening's search prefers


def test_the_command_clock_starts_with_the_process() -> None:
    # This test's process started before now; a window too short for it gives now instead.
    import time

    from zerosum.cli.common import program_started

    before = time.perf_counter()
    assert program_started(window=1e9) <= before
    assert program_started(window=0.0) >= before


def test_analyze_takes_the_start_up_out_of_its_time() -> None:
    import argparse
    import time

    from zerosum.cli.analyze import _limit

    args = argparse.Namespace(depth=None, nodes=None, time=2.0)
    started = time.perf_counter() - 0.5  # the command started half a second ago
    limit = _limit(args, lambda: False, started=started)
    assert limit.time is not None and limit.time <= 1.5
    depth = argparse.Namespace(depth=3, nodes=None, time=None)
    default = _limit(depth, lambda: False, started=started - 9)
    assert default.time is None and default.depth == 3
