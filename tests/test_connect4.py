"""Connect four: the rules, the notation, Pons's scores, and exact values against his test sets."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from zerosum.game import HEURISTIC_LIMIT, WIN, MoveError, Outcome, PositionError
from zerosum.games import get_game
from zerosum.games.connect4 import (
    WINDOWS,
    Connect4,
    pons_score,
    split_moves,
    value_from_pons,
)
from zerosum.search import solve

DRAWN_FULL_BOARD = "444444333333555555122222266666611111777777"
"""Columns 1-7 filled so that no four line up (found by a depth-first search, checked below)."""

L2_QUICK = (2, 12, 13, 20, 21, 25, 26, 28, 31, 50)
"""Lines of Test_L2_R1 that pure-Python alpha-beta solves in under 0.06 s each."""


def mirror(moves: str) -> str:
    return "".join(str(8 - int(char)) for char in moves)


def read_test_set(data_dir: Path, name: str) -> list[tuple[str, int]]:
    lines = (data_dir / "connect4" / name).read_text().split("\n")
    return [(moves, int(score)) for moves, score in (line.split() for line in lines if line)]


# -- rules ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "moves",
    [
        "4545454",  # vertical
        "1122334",  # horizontal
        "12233434544",  # diagonal up to the right
        mirror("12233434544"),  # diagonal up to the left
        "2233445",  # horizontal away from the edge
        "12233445",  # the second player wins
    ],
)
def test_four_in_a_row_ends_the_game(moves: str) -> None:
    game = Connect4()
    for index, char in enumerate(moves):
        assert game.outcome() is None, f"over before move {index + 1}"
        column = game.parse_move(char)
        assert game.is_winning_move(column) == (index == len(moves) - 1)
        game.make(column)
    assert game.outcome() == Outcome.LOSS
    assert game.side_to_move() == len(moves) % 2
    assert game.legal_moves() == []
    with pytest.raises(MoveError, match="the game is over"):
        game.parse_move("1")


def test_a_full_board_without_four_is_a_draw() -> None:
    game = Connect4()
    for char in DRAWN_FULL_BOARD:
        assert game.outcome() is None
        game.make(game.parse_move(char))
    assert game.ply() == 42
    assert game.outcome() == Outcome.DRAW
    assert game.legal_moves() == []
    assert not any(window & stones == window for window in WINDOWS for stones in game.stones())


def test_legal_moves_centre_first_and_full_columns() -> None:
    game = Connect4()
    assert [game.format_move(m) for m in game.legal_moves()] == list("4352617")
    game = Connect4.from_position("444444")
    assert [game.format_move(m) for m in game.legal_moves()] == list("352617")
    with pytest.raises(MoveError, match="column 4 is full: expected one of 1 2 3 5 6 7"):
        game.parse_move("4")


@pytest.mark.parametrize("text", ["", "0", "8", "a", "44", "-1", "4.", "zz99"])
def test_malformed_moves(text: str) -> None:
    with pytest.raises(MoveError, match="is not a column: expected a digit 1-7"):
        Connect4().parse_move(text)


def test_moves_parse_with_surrounding_space() -> None:
    assert Connect4().parse_move(" 7 ") == 6


def test_split_moves() -> None:
    assert split_moves("4453") == ["4", "4", "5", "3"]
    assert split_moves(" 4 4\t5 ") == ["4", "4", "5"]
    assert get_game("connect4").split_moves(" 4 4\t5 ") == ["4", "4", "5"]  # imported on use


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4a53", r"move 2 \('a'\) is not a column"),
        ("4450", r"move 4 \('0'\) is not a column"),
        ("4 4", r"move 2 \(' '\) is not a column"),
        ("4444444", r"move 7 \(4\) is in a full column"),
        ("45454541", r"move 8 \(1\) comes after the game was won"),
    ],
)
def test_bad_positions(text: str, expected: str) -> None:
    with pytest.raises(PositionError, match=expected):
        Connect4.from_position(text)


def test_position_round_trip() -> None:
    rng = random.Random(4)
    for _ in range(50):
        game = Connect4()
        while True:
            again = Connect4.from_position(game.position())
            assert again.position() == game.position()
            assert again.key() == game.key()
            assert again.evaluate() == game.evaluate()
            assert again.outcome() == game.outcome()
            if not game.legal_moves():
                break
            game.make(rng.choice(game.legal_moves()))
    assert Connect4.from_position("").position() == ""
    assert Connect4.from_position(" 4453\n").position() == "4453"


def test_same_stones_same_key_whatever_the_order() -> None:
    assert Connect4.from_position("4453").key() == Connect4.from_position("5344").key()
    assert Connect4.from_position("4453").key() == Connect4.from_position("4354").key()
    assert Connect4.from_position("4453").key() != Connect4.from_position("4435").key()


def test_evaluation_is_symmetric_and_from_the_side_to_move() -> None:
    assert Connect4().evaluate() == 0
    assert Connect4.from_position("4").evaluate() < 0  # O to move, X holds the centre
    rng = random.Random(9)
    for _ in range(30):
        game = Connect4()
        while game.legal_moves():
            game.make(rng.choice(game.legal_moves()))
            twin = Connect4.from_position(mirror(game.position()))
            assert twin.evaluate() == game.evaluate()
            assert twin.outcome() == game.outcome()
            assert -HEURISTIC_LIMIT < game.evaluate() < HEURISTIC_LIMIT


def test_render_shape() -> None:
    picture = Connect4.from_position("4453").render().split("\n")
    assert len(picture) == 8
    assert picture[5] == "| . . O X X . . |"
    assert picture[4] == "| . . . O . . . |"
    assert picture[0] == "| . . . . . . . |"
    assert picture[6] == "+---------------+"
    assert picture[7] == "  1 2 3 4 5 6 7"


def test_registry_entry() -> None:
    spec = get_game("connect4")
    assert spec.sides == ("X", "O")
    assert spec.from_position("4453").position() == "4453"
    assert spec.new().position() == ""


# -- Pons's scores --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "ply", "expected"),
    [
        (0, 20, 0),
        (WIN - 1, 6, 18),  # X's 4th stone wins: 22 - 4
        (WIN - 1, 7, 18),  # O's 4th stone wins: 22 - 4 (not (43 - 8) // 2 = 17)
        (-(WIN - 2), 6, -18),  # O wins with the 8th stone
        (-(WIN - 2), 5, -18),  # X wins with the 7th stone
        (WIN - 1, 40, 1),  # X's 21st stone
        (WIN - 1, 41, 1),  # O's 21st stone, the last of the board
        (WIN - 3, 0, 20),  # X's 2nd stone: impossible in play, but the formula holds
    ],
)
def test_pons_score(value: int, ply: int, expected: int) -> None:
    assert pons_score(value, ply) == expected
    assert value_from_pons(expected, ply) == value


def test_pons_score_round_trips_every_proven_value() -> None:
    for ply in range(42):
        for plies in range(1, 43 - ply):
            sign = 1 if plies % 2 else -1  # the side to move plays the odd plies
            value = sign * (WIN - plies)
            assert value_from_pons(pons_score(value, ply), ply) == value


@pytest.mark.parametrize(("value", "ply"), [(12, 10), (WIN - 5, 40), (-(WIN - 1), 42), (0, -1)])
def test_pons_score_rejects_what_is_not_a_finished_game(value: int, ply: int) -> None:
    with pytest.raises(ValueError, match="expected"):
        pons_score(value, ply)


# -- exact values against Pons's test sets (tests/data/connect4) -----------------------------


@pytest.mark.parametrize("algorithm", ["engine", "alphabeta"])
def test_end_game_values(data_dir: Path, algorithm: str) -> None:
    for moves, score in read_test_set(data_dir, "Test_L3_R1")[::20]:
        game = Connect4.from_position(moves)
        result = solve(game, algorithm=algorithm)
        assert result.solved
        assert pons_score(result.value, game.ply()) == score, moves
        assert game.position() == moves


def test_middle_game_values(data_dir: Path) -> None:
    test_set = read_test_set(data_dir, "Test_L2_R1")
    for moves, score in (test_set[index] for index in L2_QUICK):
        game = Connect4.from_position(moves)
        result = solve(game, algorithm="alphabeta")
        assert pons_score(result.value, game.ply()) == score, moves
