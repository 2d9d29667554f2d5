"""The command line with morris: legal, analyze, compare, play, variants and bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pexpect
import pytest
from waiting import HANG_S

from zerosum.cli import main

ZEROSUM = [sys.executable, "-m", "zerosum.cli"]
EXAMPLE = "WB.....W...............B b 7 7"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_legal_moves_in_notation(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "legal", "morris", "--moves", "d2", "a1", "d1", "a4")
    assert status == 0 and len(out.split()) == 21
    assert {"d3xa1", "d3xa4"} <= set(out.split()) and "d3" not in out.split()
    status, out, _ = run(capsys, "legal", "morris", "--position", EXAMPLE, "--json")
    data = json.loads(out)
    assert data["game"] == "morris" and data["position"] == EXAMPLE and len(data["moves"]) == 20


def test_variants_are_options_of_the_game_name(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "legal", "morris:six", "--json")
    assert status == 0 and len(json.loads(out)["moves"]) == 16
    status, out, _ = run(capsys, "legal", "morris:twelve", "--moves", "a7", "d7", "b6", "g7")
    assert status == 0 and "c5xd7" in out.split()  # the diagonal a7-b6-c5


def test_analyze_with_both_engines(capsys: pytest.CaptureFixture[str]) -> None:
    for algorithm in ("engine", "compiled"):
        status, out, err = run(
            capsys, "analyze", "morris", "--position", EXAMPLE, "--depth", "3", "--json",
            "--algorithm", algorithm,
        )  # fmt: skip
        assert status == 0, err
        data = json.loads(out)
        assert data["depth"] == 3 and data["best_move"] in data["best_moves"]
        assert data["pv"][0] == data["best_move"]
    status, out, _ = run(capsys, "analyze", "morris:six", "--algorithm", "compiled", "--depth", "5")
    assert status == 0 and "best move" in out


def test_compare(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "compare", "morris", "--position", EXAMPLE, "--depth", "2")
    assert status == 0, err
    assert "Nine men's morris, depth 2" in out and "alphabeta" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["legal", "morris:eleven"], "unknown morris option 'eleven'"),
        (["legal", "tictactoe:six"], "has no options"),
        (["legal", "morris", "--moves", "a1-a4"], "still has men in hand"),
        (["legal", "morris", "--position", "WB b 7 7"], "the board has 2 characters"),
        (["legal", "morris", "--moves", "d2", "a1", "d1", "a4", "d3"], "closes a mill"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv: list[str], message: str) -> None:
    done = subprocess.run([*ZEROSUM, *argv], capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 2
    assert done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith("zerosum: error: ") and message in done.stderr


def test_a_game_in_the_terminal() -> None:
    child = pexpect.spawn(
        sys.executable, ["-m", "zerosum.cli", "play", "morris", "--seed", "5"], timeout=HANG_S
    )
    child.expect("a7-----------d7-----------g7")
    child.expect(r"your move \(White\): ")
    child.sendline("d2")
    child.expect(r"computer plays ([a-g][1-7])")
    child.expect(r"W-------")  # White's man drawn on d2
    child.expect(r"your move \(White\): ")
    child.sendline("a1-a4")
    child.expect("still has men in hand")
    child.sendline("hint")
    child.expect(r"hint: [a-g][1-7]")
    child.sendline("undo")
    child.expect(r"your move \(White\): ")
    child.sendline("quit")
    child.expect("Game abandoned.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
