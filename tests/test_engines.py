"""The engine layer: every (game, engine) pair searches or refuses clearly, one function picks
engines, and the library gets the command line's engines."""

from __future__ import annotations

import random
from typing import Any

import pytest
from synthetic import RandomGame

import zerosum
from zerosum.engines import (
    COMPILED,
    COMPILED_TACTICAL,
    MCTS,
    TACTICAL,
    EngineError,
    choose_engine,
    default_engine,
    engine_names,
    open_engine,
)
from zerosum.game import Game, play_moves
from zerosum.games import GAMES, GameSpec, get_game
from zerosum.search import ALGORITHMS, Limit
from zerosum.search import solve as reference_solve

ALL_ENGINES = [*ALGORITHMS, TACTICAL, COMPILED, MCTS]
SPECS = [
    *GAMES.values(),
    *(get_game(name) for spec in GAMES.values() for name in spec.variants),
]


def midgame(spec: GameSpec, plies: int = 2, seed: int = 1) -> Game[Any]:
    rng = random.Random(seed)
    game = spec.new()
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves or game.outcome() is not None:
            break
        game.make(rng.choice(moves))
    return game


SLOW_MCTS = {"tictactoe", "connect4", "othello", "othello:4", "othello:8"}
SLOW_MCTS |= {"morris", "morris:six", "morris:twelve"}  # with test_mcts_morris
"""Games whose MCTS engine takes 20-50 s here to start (test_mcts_compiled covers them quickly)."""


def engine_cases() -> list[Any]:
    """Every (game, engine) pair, ``ENGINE-GAME``; the slow starts in the slow set."""
    return [
        pytest.param(
            spec,
            name,
            id=f"{name}-{spec.name}",
            marks=[pytest.mark.slow] if name == MCTS and spec.name in SLOW_MCTS else [],
        )
        for name in ALL_ENGINES
        for spec in SPECS
    ]


@pytest.mark.parametrize(("spec", "name"), engine_cases())
def test_every_engine_searches_every_game_or_refuses_clearly(spec: GameSpec, name: str) -> None:
    game = midgame(spec)
    before = game.position()
    if name not in engine_names(spec):
        with pytest.raises(EngineError) as refused:
            open_engine(spec, name)
        message = str(refused.value)
        assert name in message and spec.name in message
        assert all(offered in message for offered in engine_names(spec))
        return
    depth = 2 if name in ("minimax", "negamax") and spec.base == "chess" else 3
    seen: list[int] = []
    with open_engine(spec, name) as engine:
        result = engine.search(
            game, Limit(depth=depth), on_iteration=lambda r: seen.append(r.depth)
        )
    assert game.position() == before, "the search left the game changed"
    assert result.best_move in game.legal_moves()
    assert result.depth >= 1 and seen == sorted(seen) and seen[-1] == result.depth
    assert result.stats.nodes > 0
    if name == MCTS:  # MCTS's depth counts iterations, each doubling the simulations
        assert seen == [1, 2, 3] and result.stats.nodes == 64


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_solve_is_refused_by_engines_that_cannot_solve(spec: GameSpec) -> None:
    assert TACTICAL not in engine_names(spec, task="solve")
    with pytest.raises(EngineError, match="expected one of"):
        choose_engine(spec, TACTICAL, task="solve")


def test_the_spec_chooses_unless_the_caller_names_one() -> None:
    connect4, chess, tictactoe = get_game("connect4"), get_game("chess"), get_game("tictactoe")
    assert default_engine(connect4, "solve") == COMPILED
    assert default_engine(connect4, "play") == COMPILED
    assert default_engine(chess, "analyze") == COMPILED_TACTICAL
    assert default_engine(chess, "play") == COMPILED_TACTICAL
    assert default_engine(tictactoe, "analyze") == "engine"
    assert default_engine(None, "solve") == "engine"
    assert choose_engine(connect4, "alphabeta", task="solve") == "alphabeta"
    with pytest.raises(EngineError, match="unknown algorithm 'fast'"):
        choose_engine(tictactoe, "fast")
    with pytest.raises(
        EngineError, match="game 'chess' has no compiled engine: expected one of minimax"
    ):
        choose_engine(chess, COMPILED)


def test_library_solve_uses_the_compiled_engine_for_connect4() -> None:
    """The issue's example: the CLI solves it in 0.05 s, the pure-Python search took minutes."""
    game = get_game("connect4").from_position("274552224131661")
    result = zerosum.solve(game)
    assert result.solved and result.stats.evaluations == 0
    assert result.value == 0
    values = dict(result.move_values)
    assert set(values) == set(game.legal_moves())
    assert set(result.best_moves) == {m for m, v in values.items() if v == result.value}


@pytest.mark.parametrize("plies", [0, 1, 2, 3])
def test_compiled_and_pure_python_solves_agree_on_tictactoe(plies: int) -> None:
    for seed in range(6):
        game = midgame(get_game("tictactoe"), plies, seed)
        fast = zerosum.solve(game, algorithm=COMPILED)
        slow = reference_solve(game)
        assert fast.solved and slow.solved
        assert fast.value == slow.value
        assert dict(fast.move_values) == dict(slow.move_values)
        assert set(fast.best_moves) == set(slow.best_moves)


def test_library_search_uses_the_compiled_tactical_engine_for_chess() -> None:
    game = get_game("chess").new()
    play_moves(game, ["e2e4", "e7e5"])
    found = zerosum.search(game, limit=Limit(depth=3))
    same = zerosum.search(game, algorithm=COMPILED_TACTICAL, limit=Limit(depth=3))
    assert (found.value, found.best_move, found.stats.nodes) == (
        same.value,
        same.best_move,
        same.stats.nodes,
    )


@pytest.mark.parametrize("name", ["engine", COMPILED])
def test_best_moves_at_depth_0_are_every_exact_best_move(name: str) -> None:
    game = get_game("tictactoe").new()
    play_moves(game, ["a1"])
    with open_engine(get_game("tictactoe"), name) as engine:
        found = engine.best_moves(game, depth=0)
    exact = reference_solve(game)
    assert found.solved and set(found.best_moves) == set(exact.best_moves)
    assert found.value == exact.value


def test_an_unregistered_game_gets_the_pure_python_engine() -> None:
    game = RandomGame(5, width=5)
    result = zerosum.solve(game)
    assert result.solved
    assert (result.value, result.stats.nodes) == (
        reference_solve(game).value,
        reference_solve(game).stats.nodes,
    )


def test_a_game_workers_cannot_receive_is_named_before_any_worker_starts() -> None:
    from zerosum.game import ProtocolError
    from zerosum.games.tictactoe import TicTacToe

    class Local(TicTacToe):  # defined in a function: pickle cannot find it by name
        pass

    with (
        open_engine(get_game("tictactoe"), "engine", workers=2) as engine,
        pytest.raises(ProtocolError, match="cannot be sent to worker processes"),
    ):
        engine.search(Local(), Limit(depth=2))


@pytest.mark.parametrize("name", ["engine", TACTICAL])
def test_a_shared_table_is_the_one_the_engine_fills(name: str) -> None:
    """A caller's table (a UCI engine's ``Hash``, a player's between moves) is used, not a
    fresh one."""
    from zerosum.search import TranspositionTable

    table: TranspositionTable[Any] = TranspositionTable(1 << 12)
    game = get_game("chess").new()
    with open_engine(get_game("chess"), name, shared_table=table) as engine:
        engine.search(game, Limit(depth=2))
    assert len(table) > 0
    table.clear()
    zerosum.search(get_game("tictactoe").new(), limit=Limit(depth=3), shared_table=table)
    assert len(table) > 0
