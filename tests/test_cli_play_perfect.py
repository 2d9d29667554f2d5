"""``play connect4 --level 5``, the perfect player, in a terminal: a status line while it
proves, Ctrl-C stops the proof and the game goes on, and the opening book answers at once."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect

from zerosum.games.connect4 import Connect4
from zerosum.games.connect4_book import opening_book

SRC = str(Path(__file__).resolve().parents[1] / "src")


def spawn(*argv: str) -> pexpect.spawn:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env["TERM"] = "xterm"
    # The first compile of the solver may take minutes on a loaded machine: the waits are
    # for what the program prints, with room for that.
    return pexpect.spawn(
        sys.executable, ["-m", "zerosum", *argv], env=env, encoding="utf-8", timeout=600
    )


def unanswered() -> str:
    """The shallowest position of the centre column the shipped book cannot answer (every
    move's score unknown there): proving it takes the solver minutes."""
    book = opening_book()
    for plies in range(8):
        game = Connect4.from_position("4" * plies)
        if book is None or book.move_scores(game) is None:
            return game.position()
    raise AssertionError("the book answers the whole centre column")


def test_ctrl_c_stops_the_proof_and_the_game_goes_on() -> None:
    moves = unanswered()
    side = "second" if len(moves) % 2 == 0 else "first"  # the computer is to move
    child = spawn(
        "play", "connect4", "--level", "5", "--side", side, *(["--moves", moves] * bool(moves))
    )
    child.expect(r"thinking \(perfect\); Ctrl-C stops it: [\d,]+ nodes")  # the live line
    child.sendintr()
    child.expect("stopped. Enter: think again")
    child.sendline("")  # think again: the proof starts over, with its status line
    child.expect(r"thinking \(perfect\); Ctrl-C stops it: [\d,]+ nodes")
    child.sendintr()
    child.expect("stopped. Enter: think again")
    child.sendline("move")  # move now, after a short search
    child.expect(r"computer plays [1-7]")
    child.expect(r"your move \([XO]\): ")
    child.sendline("quit")
    child.expect("Game abandoned.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_bad_answer_after_ctrl_c_is_asked_again_and_quit_ends_cleanly() -> None:
    moves = unanswered()
    side = "second" if len(moves) % 2 == 0 else "first"
    child = spawn(
        "play", "connect4", "--level", "5", "--side", side, *(["--moves", moves] * bool(moves))
    )
    child.expect(r"Ctrl-C stops it: [\d,]+ nodes")
    child.sendintr()
    child.expect("stopped. Enter")
    child.sendline("banana")
    child.expect("expected Enter, 'move', 'undo' or 'quit'")
    child.sendline("quit")
    child.expect("Game abandoned.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_the_book_answers_the_perfect_player_at_once() -> None:
    """A position whose every move the book knows: the computer plays a best move without a
    proof (the library's test checks it searched no node; here, the game goes on)."""
    book = opening_book()
    assert book is not None
    moves = next(m for m in ("4444", "4443", "4445") if book.move_scores(Connect4.from_position(m)))
    game = Connect4.from_position(moves)
    scored = book.move_scores(game) or []
    best = max(s for _, s in scored)
    labels = "|".join(str(m + 1) for m, s in scored if s == best)
    side = "second" if len(moves) % 2 == 0 else "first"
    child = spawn("play", "connect4", "--level", "5", "--side", side, "--moves", moves)
    child.expect(rf"computer plays ({labels}) \(opening book\)\r?\n")
    child.expect(r"your move \([XO]\): ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
