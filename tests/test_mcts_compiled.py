"""Compiled MCTS against its pure-Python twin: the same trees on one thread (visits, values,
proofs, a full tree, tree reuse), exact proofs with threads, stopping, the memory budget, and
the engine layer's choice."""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import numpy as np
import pytest
from synthetic import Nim

from zerosum.engines import MCTS, EngineError, MctsEngine, open_engine
from zerosum.engines.mcts import decisive_moves
from zerosum.engines.mcts_compiled import CompiledMctsEngine, has_compiled_mcts
from zerosum.game import Game, play_moves
from zerosum.games import GameSpec, get_game
from zerosum.search import Limit
from zerosum.search import solve as exact_solve


def position(name: str, moves: str | list[str]) -> Game[Any]:
    game = get_game(name).new()
    play_moves(game, list(moves) if isinstance(moves, str) else moves)
    return game


def random_position(name: str, plies: int, seed: int) -> Game[Any]:
    rng = random.Random(seed)
    while True:
        game = get_game(name).new()
        while game.outcome() is None and game.ply() < plies:
            game.make(rng.choice(game.legal_moves()))
        if game.outcome() is None:
            return game


def tree(engine: MctsEngine) -> list[tuple[Any, int, float, int | None]]:
    return [(r.move, r.visits, r.value, r.proven) for r in engine.root_stats()]


def twins(name: str, **options: Any) -> tuple[CompiledMctsEngine, MctsEngine]:
    """The compiled engine and its twin with the compiled engine's options (its defaults for
    ``name`` included)."""
    compiled = CompiledMctsEngine(name, **options)
    twin = MctsEngine(
        exploration=compiled.exploration,
        playout=compiled.playout,
        bias=compiled.bias,
        expand_after=compiled.expand_after,
        max_nodes=compiled.max_nodes,
        seed=compiled.seed,
    )
    return compiled, twin


RANDOM: dict[str, Any] = {"playout": "random"}
DECISIVE: dict[str, Any] = {"playout": "decisive"}
CASES = [
    ("tictactoe", [], 1500, 1, {}),
    ("tictactoe", ["a1"], 700, 2, DECISIVE),  # the kernel has no decisive: moves played
    ("tictactoe", ["b2", "a1", "c2"], 300, 3, {"expand_after": 3}),
    ("connect4", [], 3000, 4, RANDOM),
    ("connect4", list("4453"), 3000, 5, RANDOM | {"expand_after": 5}),
    ("connect4", list("44444326"), 600, 6, {}),  # the default: decisive, the kernel's
    ("connect4", list("4453"), 1000, 12, {"expand_after": 4}),
    ("othello:4", [], 1500, 7, {}),
    ("othello:4", ["b4"], 200, 10, DECISIVE | {"expand_after": 2}),
    pytest.param("othello:8", [], 400, 8, {}, marks=pytest.mark.slow),  # its own compile
]


@pytest.mark.parametrize(("name", "moves", "simulations", "seed", "options"), CASES)
def test_one_thread_grows_the_twins_tree(
    name: str, moves: list[str], simulations: int, seed: int, options: dict[str, Any]
) -> None:
    game = position(name, moves)
    compiled, python = twins(name, seed=seed, **options)
    found, expected = (
        compiled.search(game, Limit(nodes=simulations)),
        python.search(game, Limit(nodes=simulations)),
    )
    assert tree(compiled) == tree(python)
    assert (found.value, found.best_move, found.pv, found.solved) == (
        expected.value,
        expected.best_move,
        expected.pv,
        expected.solved,
    )
    assert found.stats.nodes == expected.stats.nodes and compiled.tree_size == python.tree_size


@pytest.mark.parametrize(
    ("name", "moves"), [("tictactoe", ["a1"]), ("connect4", list("4444433322")), ("othello:4", [])]
)
def test_one_thread_proves_what_the_twin_proves(name: str, moves: list[str]) -> None:
    game = random_position(name, 30, seed=9) if name == "connect4" else position(name, moves)
    compiled, python = twins(name, seed=11)
    found, expected = compiled.solve(game), python.solve(game)
    assert found.solved and expected.solved
    assert tree(compiled) == tree(python)
    exact = exact_solve(game)
    assert found.value == expected.value == exact.value
    assert dict(found.move_values) == dict(expected.move_values) == dict(exact.move_values)
    assert set(found.best_moves) == set(exact.best_moves)


def test_the_connect4_kernel_lists_the_decisive_moves_the_twin_lists() -> None:
    from zerosum.compiled import connect4

    out = np.zeros(connect4.KERNEL.max_moves, np.int64)
    rng = random.Random(5)
    checked = 0
    for _ in range(60):
        game = get_game("connect4").new()
        while game.outcome() is None:
            moves = game.legal_moves()
            expected = [game.format_move(m) for m in decisive_moves(game, moves)]
            count = connect4.decisive(np.array([*connect4.state_of(game), 0], np.int64), out)
            assert [str(int(col) + 1) for col in out[:count]] == expected, game.position()
            checked += len(expected) < len(moves)
            game.make(rng.choice(moves))
    assert checked > 100  # positions where a win, a block or a threat narrowed the choice


def test_connect4_plays_decisive_playouts_by_default() -> None:
    default = CompiledMctsEngine("connect4")
    assert (default.playout, default.expand_after) == ("decisive", 8)
    othello = CompiledMctsEngine("othello:4")
    assert (othello.playout, othello.expand_after) == ("random", 1)
    chosen = CompiledMctsEngine("connect4", playout="random", expand_after=2)
    assert (chosen.playout, chosen.expand_after) == ("random", 2)


def test_evaluation_playouts_and_bias_match_where_the_evaluations_agree() -> None:
    game = position("tictactoe", ["b2"])
    compiled, python = twins("tictactoe", seed=2, playout="evaluation", bias=0.7)
    found = compiled.search(game, Limit(nodes=600))
    expected = python.search(game, Limit(nodes=600))
    assert tree(compiled) == tree(python)
    assert found.stats.evaluations == expected.stats.evaluations > 600


def test_a_full_tree_goes_on_from_its_leaves_as_the_twin_does() -> None:
    game = position("connect4", "")
    compiled, python = twins("connect4", seed=3, max_nodes=100, **RANDOM)
    compiled.search(game, Limit(nodes=1000))
    python.search(game, Limit(nodes=1000))
    assert tree(compiled) == tree(python) and compiled.tree_size == 100
    unbounded = CompiledMctsEngine("connect4", max_nodes=100, expand_after=1).search(game)
    assert not unbounded.complete and unbounded.stats.nodes == 99  # one node more per simulation
    assert unbounded.best_move in game.legal_moves()


def test_the_tree_is_reused_as_the_twin_reuses_it() -> None:
    game = position("connect4", "")
    compiled, python = twins("connect4", seed=4, expand_after=2, **RANDOM)
    first = compiled.search(game, Limit(nodes=2000))
    python.search(game, Limit(nodes=2000))
    play_moves(game, [game.format_move(m) for m in first.pv[:2]])
    compiled.search(game, Limit(nodes=300))
    python.search(game, Limit(nodes=300))
    assert tree(compiled) == tree(python)
    assert sum(r.visits for r in compiled.root_stats()) > 300  # the kept subtree's visits
    assert compiled.tree_size == python.tree_size


@pytest.mark.parametrize("name", ["tictactoe", "connect4"])
def test_threads_prove_exact_values(name: str) -> None:
    if name == "tictactoe":
        games = [position(name, m) for m in ([], ["a1"], ["b2", "c3"], ["a1", "b2", "c3"])]
    else:
        games = [random_position(name, 32, seed) for seed in range(4)]
    engine = CompiledMctsEngine(name, workers=2, seed=1, hash_mb=16)  # 4x what they need
    for game in games:
        found = engine.solve(game)
        exact = exact_solve(game)
        assert found.solved, game.position()
        assert found.value == exact.value
        assert dict(found.move_values) == dict(exact.move_values)
        assert set(found.best_moves) == set(exact.best_moves)
        searched = engine.search(game, Limit(nodes=2000))
        assert searched.best_move in game.legal_moves()
        if searched.solved:
            assert searched.value == exact.value and searched.best_move in exact.best_moves


def test_threads_search_under_a_budget_with_a_legal_move() -> None:
    game = position("connect4", "")
    engine = CompiledMctsEngine("connect4", workers=2, hash_mb=1)
    seen: list[int] = []
    result = engine.search(game, Limit(depth=6), on_iteration=lambda r: seen.append(r.depth))
    assert result.best_move in game.legal_moves() and result.complete
    assert seen[-1] == 6 and seen == sorted(seen)
    assert result.stats.nodes >= 16 << 5
    assert sum(r.visits for r in engine.root_stats()) >= 16 << 5


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stop_at_once_returns_a_legal_move(workers: int) -> None:
    game = position("connect4", "44")
    engine = CompiledMctsEngine("connect4", workers=workers)
    result = engine.search(game, Limit(stop=lambda: True))
    assert result.best_move in game.legal_moves() and not result.complete
    if workers == 1:  # the first simulation, then the stop
        assert result.stats.nodes == 1
    else:  # the stop is seen before the threads start: they begin no simulation
        assert result.stats.nodes == 0


def test_a_report_read_while_threads_expand_a_node_sees_its_linked_children() -> None:
    # A thread links a new child before its move leaves the node's untried count. A report
    # read at that moment (CI once caught one) must list the node from its children; a tree
    # at rest must still agree with its counts.
    from zerosum.compiled import mcts as kernel_mcts

    game = position("connect4", "32")
    engine = CompiledMctsEngine("connect4", workers=2, seed=3)
    engine.search(game, Limit(nodes=300))
    rest = engine._root_view(game)
    engine._nodes[0, kernel_mcts.UNTRIED] += 1  # the child linked, the count not yet lowered
    engine._threads_running = True
    try:
        live = engine._root_view(game)
    finally:
        engine._threads_running = False
    assert [c.move for c in live.children] == [c.move for c in rest.children]
    assert live.untried == rest.untried
    with pytest.raises(AssertionError, match="untried count disagrees"):
        engine._root_view(game)


def test_a_report_that_raises_stops_the_threads_and_the_engine_searches_again() -> None:
    game = position("connect4", "44")
    engine = CompiledMctsEngine("connect4", workers=2, seed=1)
    before = threading.active_count()

    def report(result: Any) -> None:
        raise KeyboardInterrupt  # as a Ctrl-C in a front end's report

    with pytest.raises(KeyboardInterrupt):
        engine.search(game, Limit(time=600), on_iteration=report)
    assert threading.active_count() == before  # joined, not left running for 600 s
    result = engine.search(game, Limit(nodes=500))
    assert result.best_move in game.legal_moves() and result.stats.nodes == 500


def test_the_tree_is_sized_from_the_memory_budget() -> None:
    engine = CompiledMctsEngine("connect4", hash_mb=2, expand_after=1)
    assert engine.memory_bytes <= 2 << 20 and engine.max_nodes > 20_000
    engine.search(position("connect4", ""), Limit(nodes=engine.max_nodes + 500))
    assert engine.tree_size == engine.max_nodes
    with pytest.raises(EngineError, match="hash_mb 0 is out of range"):
        CompiledMctsEngine("connect4", hash_mb=0)
    with pytest.raises(EngineError, match="game 'chess' has no kernel for compiled MCTS"):
        CompiledMctsEngine("chess")
    with pytest.raises(EngineError, match="searches othello:4 positions: got a othello position"):
        CompiledMctsEngine("othello:4").search(position("othello", []), Limit(nodes=10))


def test_the_engine_layer_compiles_mcts_where_a_kernel_offers_it() -> None:
    assert has_compiled_mcts("connect4") and has_compiled_mcts("othello:4")
    assert has_compiled_mcts("othello:8") and has_compiled_mcts("morris:twelve")
    assert not has_compiled_mcts("chess")
    with open_engine("connect4", MCTS, hash_mb=1, workers=2, seed=3) as engine:
        assert isinstance(engine, CompiledMctsEngine) and engine.workers == 2
    with open_engine("chess", MCTS) as engine:
        assert type(engine) is MctsEngine


def test_a_game_can_make_mcts_its_player_and_levels_count_iterations() -> None:
    """A game without a useful evaluation names MCTS its player: ``play``'s levels then give
    MCTS budgets (depth d: d doublings of 16 simulations; 0: solve)."""
    spec = GameSpec(
        name="nim",
        title="Nim",
        new=lambda: Nim((3, 4, 2)),
        from_position=lambda text: Nim((3, 4, 2)),
        position_format="",
        sides=("first", "second"),
        levels=(1, 3, 0),
        player=MCTS,
    )
    game = spec.new()
    with open_engine(spec, task="play") as engine:
        assert type(engine) is MctsEngine  # no kernel: the pure-Python engine
        weak = engine.best_moves(game, depth=spec.levels[0], seed=1)
        assert weak.stats.nodes == 16 and weak.best_move in game.legal_moves()
        engine.reset()
        medium = engine.best_moves(game, depth=spec.levels[1], seed=1)
        assert medium.stats.nodes <= 64
        perfect = engine.best_moves(game, depth=0, seed=1)
        assert perfect.solved and set(perfect.best_moves) == set(exact_solve(game).best_moves)


def test_cli_analyze_sizes_the_compiled_tree_and_runs_threads(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from zerosum.cli import main

    argv = ["analyze", "connect4", "--algorithm", "mcts", "--nodes", "3000", "--json"]
    status = main([*argv, "--hash", "1", "--workers", "2"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["nodes"] >= 3000
    assert sum(root["visits"] for root in data["root_moves"]) >= 3000
    status = main(["analyze", "connect4", "--algorithm", "engine", "--depth", "2", "--hash", "1"])
    assert status == 2 and "--hash sizes a compiled engine's table or the MCTS tree" in (
        capsys.readouterr().err
    )


def test_threads_fill_the_tree_and_go_on_and_see_a_first_simulation_before_the_clock() -> None:
    game = position("connect4", "")
    engine = CompiledMctsEngine("connect4", workers=2, max_nodes=100)
    result = engine.search(game, Limit(nodes=2000))
    assert result.stats.nodes == 2000 and engine.tree_size == 100
    assert sum(r.visits for r in engine.root_stats()) == 2000  # visits are counted atomically
    out_of_time = CompiledMctsEngine("connect4", workers=2).search(game, Limit(time=1e-9))
    assert out_of_time.stats.nodes >= 1 and out_of_time.best_move in game.legal_moves()
