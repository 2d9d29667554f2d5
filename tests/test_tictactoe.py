"""Tic-tac-toe against the published figures (tests/data/README.md) and its notation."""

from __future__ import annotations

import pytest

from zerosum.game import MoveError, Outcome, PositionError
from zerosum.games.tictactoe import TicTacToe


def reachable() -> dict[int, TicTacToe]:
    """Every position reachable from the empty board, by Zobrist key."""
    seen: dict[int, TicTacToe] = {}
    stack = [TicTacToe()]
    while stack:
        game = stack.pop()
        if game.key() in seen:
            continue
        seen[game.key()] = game
        for move in game.legal_moves():
            child = game.copy()
            child.make(move)
            stack.append(child)
    return seen


def test_reachable_and_terminal_positions() -> None:
    positions = reachable()
    assert len(positions) == 5478
    assert sum(game.outcome() is not None for game in positions.values()) == 958
    assert len({game.position() for game in positions.values()}) == 5478


def test_game_tree_and_complete_games() -> None:
    counts = {"nodes": 0, "x": 0, "o": 0, "draw": 0}

    def walk(game: TicTacToe) -> None:
        counts["nodes"] += 1
        outcome = game.outcome()
        if outcome is not None:
            if outcome == Outcome.DRAW:
                counts["draw"] += 1
            else:  # the side to move has lost
                counts["o" if game.side_to_move() == 0 else "x"] += 1
            return
        for move in game.legal_moves():
            game.make(move)
            walk(game)
            game.undo()

    walk(TicTacToe())
    assert counts == {"nodes": 549_946, "x": 131_184, "o": 77_904, "draw": 46_080}


def test_position_round_trip() -> None:
    for game in reachable().values():
        again = TicTacToe.from_position(game.position())
        assert again.position() == game.position()
        assert again.key() == game.key()
        assert again.outcome() == game.outcome()
        assert again.evaluate() == game.evaluate()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("xx", "9 of"),
        ("xxx/ooo/...", "impossible"),
        ("xxx/oo./o..", "impossible"),
        ("ooo/xx./xx.", "impossible"),
        ("xxx/xo./ooo", "impossible"),
        ("x.x/.../...", "impossible"),
        ("abc/def/ghi", "9 of"),
    ],
)
def test_bad_positions(text: str, expected: str) -> None:
    with pytest.raises(PositionError, match=expected):
        TicTacToe.from_position(text)


def test_double_line_win_is_accepted() -> None:
    game = TicTacToe.from_position("xxx/xoo/xoo")
    assert game.outcome() == Outcome.LOSS
    assert game.side_to_move() == 1


@pytest.mark.parametrize(
    ("text", "expected"), [("d1", "expected a1..c3"), ("b", "expected a1..c3"), ("", "a1..c3")]
)
def test_malformed_moves(text: str, expected: str) -> None:
    with pytest.raises(MoveError, match=expected):
        TicTacToe().parse_move(text)


def test_occupied_cell_and_finished_game() -> None:
    game = TicTacToe()
    game.make(game.parse_move("B2"))
    with pytest.raises(MoveError, match="already taken"):
        game.parse_move("b2")
    won = TicTacToe.from_position("xxx/oo./...")
    with pytest.raises(MoveError, match="game is over"):
        won.parse_move("c2")


def test_render_shows_stones_and_coordinates() -> None:
    game = TicTacToe.from_position("x.o/.x./...")
    picture = game.render()
    assert " 3  X |   | O" in picture
    assert "a   b   c" in picture
