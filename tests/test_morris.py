"""Morris rules against the public data (Sanmill's legal-move lists and perft counts, OpenSpiel's
perft) and against the rules as the issue states them."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from zerosum.game import MoveError, Outcome, PositionError
from zerosum.games import get_game
from zerosum.games.morris import (
    Morris,
    encode,
    move_removed,
    perft,
    perft_steps,
)
from zerosum.games.morris_rules import NINE, SIX, TWELVE, OptionError, Rules, parse_options

ENDLESS = replace(NINE, repetition=None, move_limit=None)
"""Nine men's morris without draw rules: Sanmill's and OpenSpiel's move lists ignore them."""
RINGS = (
    ("d5", "e5", "e4", "e3", "d3", "c3", "c4", "c5"),
    ("d6", "f6", "f4", "f2", "d2", "b2", "b4", "b6"),
    ("d7", "g7", "g4", "g1", "d1", "a1", "a4", "a7"),
)
"""Sanmill's FEN rings, inner/middle/outer, in its point order."""


def from_sanmill(fen: str) -> tuple[str, bool]:
    """Our position for a Sanmill FEN, and whether a removal is pending in it."""
    board, side, _phase, action, _w_on, w_hand, _b_on, b_hand, *_ = fen.split()
    symbols = {}
    for ring, text in zip(RINGS, board.split("/"), strict=True):
        for point, char in zip(ring, text, strict=True):
            symbols[point] = {"O": "W", "@": "B", "*": "."}[char]
    cells = "".join(symbols[point] for point in NINE.points)
    return f"{cells} {side} {w_hand} {b_hand}", action == "r"


def turns(steps: list[str]) -> list[str]:
    """Sanmill's steps joined into our moves: a removal ``xd1`` belongs to the step before."""
    moves: list[str] = []
    for step in steps:
        if step.startswith("x"):
            moves[-1] += step
        else:
            moves.append(step)
    return moves


def step_names(game: Morris) -> set[str]:
    """The legal placements and moves without their removals, as Sanmill lists them."""
    return {game.format_move(move & 1023) for move in game.legal_moves()}


@pytest.fixture(scope="module")
def sanmill(data_dir: Path) -> Any:
    return json.loads((data_dir / "morris" / "sanmill_legacy_oracle_nmm_0.json").read_text())


def test_perft_from_the_empty_board(sanmill: Any) -> None:
    game = Morris(ENDLESS)
    for depth, count in sanmill["perft"][:4]:
        assert perft_steps(game, depth) == count, depth
    assert perft(game, 3) == 12144  # no mill can close in three placements


def test_every_legal_move_list_of_the_sanmill_games(sanmill: Any) -> None:
    checked = 0
    for trajectory in sanmill["trajectories"]:
        game = Morris(ENDLESS)
        pending: int | None = None
        for step in trajectory["steps"]:
            position, removing = from_sanmill(step["fen"])
            expected = set(step["legal_uci"])
            picked = step["picked_uci"]
            if removing:
                assert pending is not None, step["fen"]
                removals = {
                    "x" + NINE.points[move_removed(move)]
                    for move in game.legal_moves()
                    if move & 1023 == pending
                }
                assert removals == expected, step["fen"]
                game.make(game.parse_move(game.format_move(pending) + picked))
                pending = None
            else:
                assert game.position().split()[:4] == position.split(), step["ply"]
                assert step_names(game) == expected, step["fen"]
                assert step_names(Morris.from_position(position, ENDLESS)) == expected
                step_moves = [m for m in game.legal_moves() if game.format_move(m & 1023) == picked]
                if move_removed(step_moves[0]) == -1:
                    game.make(step_moves[0])
                else:
                    pending = step_moves[0] & 1023
            checked += 1
        if trajectory["final_phase_tag"] == 4:  # Sanmill's game over: the loser is to move
            assert game.outcome() == Outcome.LOSS
        else:
            assert game.outcome() is None
    assert checked == 1142


def test_openspiel_perft_from_thirteen_positions(data_dir: Path) -> None:
    path = data_dir / "morris" / "perft_openspiel_from_sanmill_trajectories.json"
    cases = json.loads(path.read_text())
    assert len(cases) == 13
    for case in cases:
        position, removing = from_sanmill(case["sanmill_fen"])
        moves = turns(case["moves_from_start"])
        game = Morris(ENDLESS)
        pending = None
        if removing:  # the last move closed a mill; its removal is the first step counted
            *moves, last = moves
        for text in moves:
            game.make(game.parse_move(text))
        if removing:
            pending = next(
                m & 1023 for m in game.legal_moves() if game.format_move(m & 1023) == last
            )
            move = next(m for m in game.legal_moves() if m & 1023 == pending)
            game.make(move)  # with some removal: put the removed man back to compare
            board = list(game.position().split()[0])
            board[move_removed(move)] = "WB"[game.side_to_move()]
            assert "".join(board) == position.split()[0]
            assert game.position().split()[2:4] == position.split()[2:4]
            game.undo()
        else:
            assert game.position().split()[:4] == position.split()
        counts = [perft_steps(game, depth, pending=pending) for depth in (1, 2, 3)]
        assert counts == case["perft"], case["sanmill_fen"]


# -- the rules as the issue states them -------------------------------------------------------


def pos(white: str, black: str, tail: str, rules: Rules = NINE) -> str:
    """A position string with White's and Black's men on the named points."""
    cells = ["."] * rules.size
    for names, symbol in ((white, "W"), (black, "B")):
        for name in names.split():
            cells[rules.points.index(name)] = symbol
    return "".join(cells) + " " + tail


SHUFFLE = ("a7-a4", "d6-d7", "a4-a7", "d7-d6")
"""Four moves that come back to :data:`START`."""
START = pos("a7 c5 e3", "d6 b2 g1", "w 0 0")


def test_one_removal_even_when_two_mills_close() -> None:
    # White's d7 closes a7-d7-g7 and d7-d6-d5 at once: each move removes exactly one man.
    game = Morris.from_position(pos("a7 g7 d6 d5", "g1 c3", "w 3 6"), ENDLESS)
    closing = [game.format_move(m) for m in game.legal_moves() if m & 31 == game.point("d7")]
    assert closing == ["d7xc3", "d7xg1"]


def test_men_in_mills_are_protected_unless_all_are() -> None:
    # Black's a1-d1-g1 is a mill, d3 and b2 are not: only those two can be removed.
    game = Morris.from_position(pos("a7 d7", "d3 b2 a1 d1 g1", "w 7 2"), NINE)
    assert game.parse_move("g7xb2") == encode(game.point("g7"), removed=game.point("b2"))
    with pytest.raises(MoveError, match="cannot be removed"):
        game.parse_move("g7xa1")
    # Every black man in a mill: any of them may go.
    game = Morris.from_position(pos("a7 d7", "a1 d1 g1", "w 7 6"), NINE)
    assert {game.format_move(m) for m in game.legal_moves() if move_removed(m) >= 0} == {
        "g7xa1",
        "g7xd1",
        "g7xg1",
    }


def test_fewer_than_three_men_loses_counting_men_in_hand() -> None:
    game = Morris.from_position(pos("a7 d7 g7", "g1", "b 0 1"), NINE)
    assert game.outcome() == Outcome.LOSS and game.legal_moves() == []
    game = Morris.from_position(pos("a7 d7 g7", "g1", "b 0 2"), NINE)
    assert game.outcome() is None  # one on the board and two in hand: three men


def test_no_legal_move_loses() -> None:
    # Black's men on a7, d7 and g7 are walled in by a4, d6 and g4.
    rules = replace(NINE, flying=False)
    game = Morris.from_position(pos("a4 d6 g4", "a7 d7 g7", "b 0 0"), rules)
    assert game.legal_moves() == [] and game.outcome() == Outcome.LOSS
    flying = Morris.from_position(game.position(), NINE)
    assert len(flying.legal_moves()) == 3 * 18


def test_flying_with_three_men() -> None:
    game = Morris.from_position(pos("a7 d7 g7", "a1 d1 g1", "b 0 0"), NINE)
    assert len(game.legal_moves()) == 3 * 18  # no move of Black's closes a mill here
    grounded = Morris.from_position(game.position(), replace(NINE, flying=False))
    assert {grounded.format_move(m) for m in grounded.legal_moves()} == {
        "a1-a4",
        "d1-d2",
        "g1-g4",
    }


def test_threefold_repetition_draws_and_can_be_switched_off() -> None:
    game = Morris.from_position(START, NINE)
    for text in SHUFFLE * 2:
        assert game.outcome() is None
        game.make(game.parse_move(text))
    assert game.outcome() == Outcome.DRAW and game.legal_moves() == []
    game.undo()
    assert game.outcome() is None
    endless = Morris.from_position(START, ENDLESS)
    for text in SHUFFLE * 5:
        endless.make(endless.parse_move(text))
    assert endless.outcome() is None
    twice = Morris.from_position(START, parse_options("repetition=2"))
    for text in SHUFFLE:
        twice.make(twice.parse_move(text))
    assert twice.outcome() == Outcome.DRAW


def test_moves_without_removal_draw_and_can_be_switched_off() -> None:
    rules = parse_options("moves=10:repetition=none")
    game = Morris.from_position(START + " 6", rules)
    assert game.moves_without_removal() == 6 and game.position().endswith(" 6")
    for text in SHUFFLE[:3]:
        game.make(game.parse_move(text))
        assert game.outcome() is None
    game.make(game.parse_move(SHUFFLE[3]))
    assert game.moves_without_removal() == 10 and game.outcome() == Outcome.DRAW
    assert Morris.from_position(game.position(), ENDLESS).outcome() is None


def test_a_removal_resets_the_move_counter() -> None:
    game = Morris.from_position(pos("a4 d1 g1", "d7 f4 b2", "w 0 0 40"), NINE)
    game.make(game.parse_move("a4-a1xd7"))
    assert game.moves_without_removal() == 0 and len(game.position().split()) == 4
    game.undo()
    assert game.moves_without_removal() == 40


def test_the_defaults() -> None:
    assert (NINE.men, NINE.flying, NINE.repetition, NINE.move_limit) == (9, True, 3, 100)
    assert (SIX.men, SIX.size, len(SIX.mills), SIX.flying) == (6, 16, 8, False)
    assert (TWELVE.men, TWELVE.size, len(TWELVE.mills), TWELVE.full_board_draw) == (
        12,
        24,
        20,
        True,
    )
    assert len(NINE.mills) == 16
    assert sum(bin(a).count("1") for a in NINE.adjacent) == 2 * 32
    assert sum(bin(a).count("1") for a in TWELVE.adjacent) == 2 * 40
    assert sum(bin(a).count("1") for a in SIX.adjacent) == 2 * 20


def test_twelve_men_fill_the_board_to_a_draw() -> None:
    full = "WB" * 6 + "BW" * 6 + " w 0 0"
    assert Morris.from_position(full, TWELVE).outcome() == Outcome.DRAW
    blocked = Morris.from_position(full, replace(TWELVE, full_board_draw=False))
    assert blocked.outcome() == Outcome.LOSS


def test_twelve_has_diagonal_mills_and_six_has_no_mill_on_the_spokes() -> None:
    position = pos("a7 b6", "g1", "w 10 11")
    twelve = Morris.from_position(position, TWELVE)
    assert twelve.format_move(twelve.parse_move("c5xg1")) == "c5xg1"
    nine = Morris.from_position(position, replace(NINE, men=12))
    assert nine.format_move(nine.parse_move("c5")) == "c5"
    six = Morris.from_position(pos("d6 f6", "g1", "w 4 5", SIX), SIX)
    assert six.format_move(six.parse_move("d7")) == "d7"  # d7-d6 is a spoke, not a mill
    assert six.format_move(six.parse_move("b6xg1")) == "b6xg1"


def test_notation_round_trips_and_errors() -> None:
    game = get_game("morris").new()
    for text in ("d2", "D2", " d2 "):
        assert game.format_move(game.parse_move(text)) == "d2"
    for text, message in (
        ("a1-a4", "still has men in hand"),
        ("h1", "not a morris move"),
        ("d4", "not a point"),
        ("d2xg7", "closes no mill"),
    ):
        with pytest.raises(MoveError, match=message):
            game.parse_move(text)
    game = Morris.from_position(pos("a7 d7", "d3 b2 a1 d1 g1", "w 7 2"), NINE)
    with pytest.raises(MoveError, match="closes a mill: expected a removal"):
        game.parse_move("g7")
    moving = Morris.from_position(START, replace(NINE, flying=False))
    with pytest.raises(MoveError, match="no men in hand"):
        moving.parse_move("d2")
    with pytest.raises(MoveError, match="not a legal move"):
        moving.parse_move("a7-g7")


def test_position_format_errors() -> None:
    for text, message in (
        ("", "not a morris position"),
        ("W" * 24 + " w 0 0", "impossible"),
        ("." * 23 + " w 9 9", "the board has 23 characters"),
        ("." * 24 + " x 9 9", "expected w or b"),
        ("." * 24 + " w 9 -1", "whole numbers"),
        ("." * 24 + " w 9 1", "fewer than 3"),
        ("." * 24 + " w 9 9 4", "movement phase only"),
    ):
        with pytest.raises(PositionError, match=message):
            Morris.from_position(text, NINE)
    example = Morris.from_position("WB.....W...............B b 7 7")
    assert example.side_to_move() == 1
    assert [example.rules.points[p] for p in range(24) if example.men(0) >> p & 1] == ["a7", "d5"]
    assert [example.rules.points[p] for p in range(24) if example.men(1) >> p & 1] == ["d7", "g1"]


def test_options_name_the_game() -> None:
    assert get_game("morris").name == "morris"
    assert get_game("morris:nine").name == "morris"
    assert get_game("morris:six").title == "Six men's morris"
    spec = get_game("morris:Twelve,repetition=none,moves=none,flying=off")
    assert spec.name == "morris:twelve:flying=off:repetition=none:moves=none"
    assert get_game(spec.name).name == spec.name
    for bad in ("six:nine", "moves=0", "repetition=1", "flying=maybe", "eleven"):
        with pytest.raises(OptionError, match="expected"):
            parse_options(bad)


def test_the_board_is_drawn_as_in_the_mission() -> None:
    game = Morris.from_position("WB.....W...............B b 7 7")
    lines = game.render().splitlines()
    assert lines[0] == "W------------B------------g7"
    assert lines[4] == "|   |   c5---W----e5  |   |"
    assert lines[12] == "a1-----------d1-----------B "
    assert "Black to move" in lines[13]
    assert "/" in get_game("morris:twelve").new().render()
    assert len(get_game("morris:six").new().render().splitlines()) == 10


def test_evaluation_twins_agree_in_every_phase() -> None:
    for name in ("morris", "morris:six", "morris:twelve"):
        rng = random.Random(5)
        for _ in range(20):
            game = get_game(name).new()
            while game.legal_moves():
                assert game.evaluate() == game.compute_evaluation(), game.position()
                game.make(rng.choice(game.legal_moves()))


def test_a_bad_board_character_is_named_with_its_point() -> None:
    with pytest.raises(PositionError, match=r"'Q' at point g7 \(3rd\) is not W, B or \."):
        Morris.from_position("WBQ....W...............B b 7 7")
    with pytest.raises(PositionError, match=r"'X' at point a1 \(22nd\)"):
        Morris.from_position("WB...................XB. b 7 7")
    with pytest.raises(PositionError, match="the board has 11 characters"):
        Morris.from_position("WB.....W..B b 7 7")
    assert Morris.from_position("WB.....W...............B b 7 7").position().startswith("WB.....W")


@pytest.mark.parametrize(
    "text", ["flying=on:flying=off", "moves=10,moves=10", "six:repetition=3:repetition=none"]
)
def test_a_repeated_option_is_rejected(text: str) -> None:
    key = text.split(":")[-1].split(",")[-1].partition("=")[0]
    with pytest.raises(OptionError, match=f"give {key} twice: expected it once"):
        parse_options(text)
    assert parse_options("six:flying=on:moves=none").flying
