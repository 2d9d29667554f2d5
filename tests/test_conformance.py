"""The conformance suite every registered game must pass (random playouts of each game)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from zerosum.game import HEURISTIC_LIMIT, Game, MoveError, Outcome
from zerosum.games import GAMES, GameSpec, get_game

GAME_SPECS = [
    *GAMES.values(),
    *(get_game(name) for spec in GAMES.values() for name in spec.variants),
]
"""Every registered game and every named variant of one."""
PLAYOUTS = 60


def snapshot(game: Game[Any]) -> tuple[Any, ...]:
    """Everything observable about a position."""
    return (
        game.position(),
        game.key(),
        game.side_to_move(),
        game.ply(),
        game.outcome(),
        game.evaluate(),
        tuple(game.legal_moves()),
    )


def check_position(game: Game[Any]) -> None:
    assert game.key() == game.compute_key(), "incremental key differs from a fresh one"
    assert game.evaluate() == game.compute_evaluation(), "incremental evaluation differs"
    assert -HEURISTIC_LIMIT < game.evaluate() < HEURISTIC_LIMIT
    assert 0 <= game.key() < 1 << 64
    moves = game.legal_moves()
    outcome = game.outcome()
    assert (outcome is None) == bool(moves), "terminal exactly when there is no legal move"
    assert outcome is None or isinstance(outcome, Outcome)
    assert len(set(moves)) == len(moves), "a move is listed twice"
    for move in moves:
        text = game.format_move(move)
        assert game.parse_move(text) == move, f"{text} does not parse back to itself"


@pytest.mark.parametrize("spec", GAME_SPECS, ids=lambda spec: spec.name)
def test_random_playouts(spec: GameSpec) -> None:
    rng = random.Random(2026)
    for _ in range(PLAYOUTS):
        game = spec.new()
        path = [snapshot(game)]
        while True:
            check_position(game)
            moves = game.legal_moves()
            if not moves:
                break
            game.make(rng.choice(moves))
            path.append(snapshot(game))
        while len(path) > 1:
            path.pop()
            game.undo()
            assert snapshot(game) == path[-1], "undo did not restore the position exactly"


@pytest.mark.parametrize("spec", GAME_SPECS, ids=lambda spec: spec.name)
def test_copies_are_independent(spec: GameSpec) -> None:
    rng = random.Random(7)
    game = spec.new()
    for _ in range(3):
        game.make(rng.choice(game.legal_moves()))
    before = snapshot(game)
    twin = game.copy()
    assert snapshot(twin) == before
    twin.make(rng.choice(twin.legal_moves()))
    assert snapshot(game) == before, "playing on a copy changed the original"
    game.undo()
    twin.undo()
    assert snapshot(twin) == before, "undoing on the original changed the copy"


@pytest.mark.parametrize("spec", GAME_SPECS, ids=lambda spec: spec.name)
def test_position_format_round_trips(spec: GameSpec) -> None:
    rng = random.Random(11)
    for _ in range(PLAYOUTS):
        game = spec.new()
        while game.legal_moves():
            again = spec.from_position(game.position())
            assert again.position() == game.position()
            assert again.key() == game.key()
            assert again.outcome() == game.outcome()
            assert sorted(map(str, again.legal_moves())) == sorted(map(str, game.legal_moves()))
            game.make(rng.choice(game.legal_moves()))


@pytest.mark.parametrize("spec", GAME_SPECS, ids=lambda spec: spec.name)
def test_garbage_is_rejected_with_a_message(spec: GameSpec) -> None:
    game = spec.new()
    for text in ("", "zz99", "!", "a1-" * 50):
        with pytest.raises(MoveError) as caught:
            game.parse_move(text)
        assert "expected" in str(caught.value)
