"""The command line on chess: legal, analyze (the tactical engine) and play."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from zerosum.cli import main

WAC_001 = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_legal_in_uci_and_san(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "legal", "chess", "--moves", "e4", "e7e5", "Nf3", "--json")
    data = json.loads(out)
    assert status == 0 and len(data["moves"]) == 29 and "b8c6" in data["moves"]
    assert data["position"].startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/")


def test_analyze_finds_the_mate(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "analyze", "chess", "--position", WAC_001, "--depth", "4", "--json"
    )
    data = json.loads(out)
    assert status == 0
    assert data["algorithm"] == "compiled-tactical" and data["best_move"] == "g3g6"
    assert data["value_text"] == "win in 3 plies"
    status, out, _ = run(capsys, "analyze", "chess", "--depth", "2", "--algorithm", "engine")
    assert status == 0 and "best move" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["legal", "chess", "--position", "8/8/8 w"], "is not a FEN position"),
        (["legal", "chess", "--moves", "e5"], "move 1 ('e5')"),
        (["analyze", "chess", "--moves", "e2e5"], "e2e5 is not legal"),
        (["analyze", "chess", "--all-best"], "--all-best is not available with the compiled-"),
        (["analyze", "chess", "--all-best", "--algorithm", "tactical"], "with the tactical"),
    ],
)
def test_bad_chess_input(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("zerosum: error:") and message in err and len(err.splitlines()) == 1


def test_play_chess_in_the_terminal() -> None:
    script = "e4\nQh5\ne2e5\nundo\nd4\nquit\n"
    done = subprocess.run(
        [sys.executable, "-m", "zerosum", "play", "chess", "--level", "1", "--seed", "3"],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "\u2654" in out and "\u265a" in out  # the board in Unicode pieces
    assert len(re.findall(r"computer plays [a-h][1-8][a-h][1-8]", out)) == 3  # e4, Qh5, d4
    assert "e2e5 is not legal" in out
    assert "Game abandoned." in out
