"""The command line on chess: legal, analyze (the tactical engine) and play."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys

import pytest
from waiting import HANG_S

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
    assert data["best_move_san"] == "Qg6" and data["pv"][0] == "g3g6"  # UCI for machines
    # the line is the engine's choice among Black's replies; it ends in mate three plies on
    assert data["pv_san"][0] == "Qg6" and data["pv_san"][-1].endswith("#")
    assert len(data["pv_san"]) == 3 and data["best_moves_san"] == ["Qg6"]
    status, out, _ = run(capsys, "analyze", "chess", "--position", WAC_001, "--depth", "4")
    assert status == 0 and re.search(
        r"^depth   \d  value win in 3 plies  pv Qg6 \S+ \S+#$", out, re.M
    )
    assert "best move  Qg6\n" in out and re.search(r"^pv         Qg6 \S+ \S+#$", out, re.M)
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
    script = "e4\nKe3\nd1h5\ne2e5\nundo\nd4\nquit\n"
    done = subprocess.run(
        [sys.executable, "-m", "zerosum", "play", "chess", "--level", "1", "--seed", "3"],
        input=script,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "\u2654" in out and "\u265a" in out  # the board in Unicode pieces
    # SAN for people: the computer's moves and the record under the board (SAN and UCI read).
    san = r"[NBRQK]?[a-h]?[1-8]?x?[a-h][1-8](?:=[NBRQ])?[+#]?"
    replies = re.findall(rf"computer plays ({san})\n", out)
    assert len(replies) == 3  # after e4, Qh5 and d4
    assert f"moves: 1. e4 {replies[0]} 2. Qh5 {replies[1]}\n" in out
    assert f"moves: 1. e4 {replies[0]} 2. d4 {replies[2]}\n" in out  # Qh5 was taken back
    assert "e2e5 is not legal" in out
    # an illegal SAN move gets the legal moves in SAN
    refused = next(line for line in out.splitlines() if "Ke3 is not legal" in line) + " "
    assert " Nf3 " in refused and " Ke2 " in refused and "g1f3" not in refused
    assert "Game abandoned." in out


@pytest.mark.parametrize(
    ("fen", "plies", "opening"),
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 20, "moves: ... 3. "),
        ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", 19, "moves: ... 3. "),
        ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", 3, "moves: 1... "),
    ],
)
def test_play_record_keeps_the_last_moves_numbered(fen: str, plies: int, opening: str) -> None:
    from zerosum.cli.play import RECORD_MOVES, _record
    from zerosum.games import get_game

    start = get_game("chess").from_position(fen)
    game, played = start.copy(), []
    rng = random.Random(1)
    for _ in range(plies):  # random legal moves (no game this short ends with this seed)
        move = rng.choice(game.legal_moves())
        played.append(move)
        game.make(move)
    record = _record(start, played)
    assert record.startswith(opening), record
    assert len(record.split()) - 1 <= RECORD_MOVES * 3 // 2 + 2  # labels and numbers only


def test_play_record_after_moves_goes_on_from_their_number() -> None:
    from zerosum.cli.play import _record
    from zerosum.game import play_moves
    from zerosum.games import get_game

    start = get_game("chess").new()
    play_moves(start, ["e4", "e5", "Nf3"])
    game = start.copy()
    played = [game.parse_move("Nc6")]
    game.make(played[0])
    played.append(game.parse_move("Bb5"))
    assert _record(start, played) == "moves: ... 2... Nc6 3. Bb5"
