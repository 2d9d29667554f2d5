"""Monte Carlo tree search with a solver: its proven values against the exact solver, its
limits, reproducibility, tree reuse and memory bound, and its wiring through the engine layer."""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any

import pytest
from synthetic import Nim, RandomGame

import zerosum
from zerosum.engines import MCTS, EngineError, MctsEngine, engine_names, open_engine
from zerosum.engines.mcts import FIRST_ITERATION, Node, decisive_moves, up
from zerosum.game import WIN, Game, is_proven, play_moves
from zerosum.games import get_game
from zerosum.search import Limit, SearchResult
from zerosum.search import solve as exact_solve


def tictactoe_positions() -> dict[str, Game[Any]]:
    """Every reachable tic-tac-toe position that is not over, by position string."""
    found: dict[str, Game[Any]] = {}

    def walk(game: Game[Any]) -> None:
        if game.outcome() is not None or game.position() in found:
            return
        found[game.position()] = game.copy()
        for move in game.legal_moves():
            game.make(move)
            walk(game)
            game.undo()

    walk(get_game("tictactoe").new())
    return found


@cache
def exact_tictactoe() -> dict[str, SearchResult[Any]]:
    return {text: exact_solve(game) for text, game in tictactoe_positions().items()}


def assert_exact(found: SearchResult[Any], exact: SearchResult[Any]) -> None:
    assert found.value == exact.value
    assert dict(found.move_values) == dict(exact.move_values)
    assert set(found.best_moves) == set(exact.best_moves)


def test_up_is_the_negamax_step_of_the_score_convention() -> None:
    assert up(-WIN) == WIN - 1  # the child is lost at once: the parent wins in one ply
    assert up(WIN - 3) == -(WIN - 4)
    assert up(0) == 0


@pytest.mark.slow  # every reachable position
def test_every_proven_tictactoe_value_is_exact() -> None:
    """Each of the 4,520 positions, solved by a fresh engine within 2,000 simulations, and
    searched by another: what it proves equals the exact solver's; what it does not prove it
    does not claim."""
    positions, exact = tictactoe_positions(), exact_tictactoe()
    assert len(positions) == 4520
    solved = searched = 0
    for text, game in positions.items():
        found = MctsEngine(seed=1).solve(game, limit=Limit(nodes=2000))
        if found.solved:
            solved += 1
            assert_exact(found, exact[text])
        else:
            assert found.stats.nodes == 2000 and not found.complete
        result = MctsEngine(seed=2).search(game, Limit(nodes=300))
        if result.solved:
            searched += 1
            assert result.value == exact[text].value
            assert result.best_move in exact[text].best_moves
        elif is_proven(result.value):  # a proven bound: won or lost, within those plies
            assert (result.value > 0) == (exact[text].value > 0)
            assert abs(result.value) <= abs(exact[text].value)
    # only the positions near the start need more than the budget
    assert solved >= 4500 and searched >= 4000


def test_the_empty_board_solves_to_a_draw() -> None:
    game = get_game("tictactoe").new()
    found = MctsEngine().solve(game)
    assert_exact(found, exact_tictactoe()[game.position()])
    assert found.solved and found.value == 0 and found.complete


def connect4_endings(count: int, empty: int, seed: int) -> list[Game[Any]]:
    """``count`` random connect four positions with ``empty`` empty cells, not over."""
    rng = random.Random(seed)
    endings: list[Game[Any]] = []
    while len(endings) < count:
        game = get_game("connect4").new()
        while game.outcome() is None and game.ply() < 42 - empty:
            game.make(rng.choice(game.legal_moves()))
        if game.outcome() is None:
            endings.append(game)
    return endings


def test_proven_connect4_endings_are_exact() -> None:
    for game in connect4_endings(6, empty=9, seed=4):
        found = MctsEngine(seed=3).solve(game, limit=Limit(nodes=4000))
        assert found.solved, game.position()
        assert_exact(found, exact_solve(game))


@pytest.mark.parametrize("heaps", [(3,), (4,), (2, 3), (1, 4, 2), (3, 3, 1)])
def test_nim_proves_the_known_result(heaps: tuple[int, ...]) -> None:
    game = Nim(heaps)
    found = MctsEngine(seed=5).solve(game)
    assert found.solved
    assert (found.value > 0) == game.first_player_wins()
    assert_exact(found, exact_solve(game))


@pytest.mark.parametrize("seed", range(12))
def test_random_trees_with_draws_are_proven_exactly(seed: int) -> None:
    game = RandomGame(seed, width=6)
    found = MctsEngine(seed=seed).solve(game, limit=Limit(nodes=20_000))
    assert found.solved
    assert_exact(found, exact_solve(game))


def test_a_winning_move_is_played_however_few_its_visits() -> None:
    game = get_game("tictactoe").new()
    play_moves(game, ["b2", "a1", "c2", "b1"])  # X wins at a2 at once
    result = MctsEngine().search(game, Limit(nodes=200))
    assert result.solved and result.value == WIN - 1
    assert game.format_move(result.best_move) == "a2" and result.complete
    assert result.stats.nodes < 200  # the proof ends the search


def test_same_seed_and_simulations_give_the_same_visits() -> None:
    game = get_game("connect4").new()

    def visits(seed: int) -> list[tuple[Any, int, float]]:
        engine = MctsEngine(seed=seed)
        engine.search(game, Limit(nodes=500))
        return [(root.move, root.visits, root.value) for root in engine.root_stats()]

    assert visits(7) == visits(7)
    assert visits(7) != visits(8)
    assert sum(visits for _, visits, _ in visits(7)) == 500


def test_depth_counts_iterations_that_double_the_simulations() -> None:
    game = get_game("connect4").new()
    seen: list[SearchResult[Any]] = []
    result = MctsEngine().search(game, Limit(depth=4), on_iteration=seen.append)
    assert [r.depth for r in seen] == [1, 2, 3, 4]
    assert [r.stats.nodes for r in seen] == [FIRST_ITERATION << k for k in range(4)]
    assert result.complete and result.stats.nodes == FIRST_ITERATION * 8
    assert result.pv[0] == result.best_move and not result.solved


def test_a_stop_ends_the_search_with_a_legal_best_move() -> None:
    game = get_game("chess").new()
    polls: list[int] = []

    def stop() -> bool:
        polls.append(1)
        return len(polls) > 3

    result = MctsEngine().search(game, Limit(stop=stop))
    # the first simulation runs before the first poll, then one more per poll answered no
    assert result.stats.nodes == 4 and not result.complete and not result.solved
    assert result.best_move in game.legal_moves()
    assert game.position() == get_game("chess").new().position()


def test_the_tree_is_reused_after_the_moves_of_the_same_game() -> None:
    game = get_game("connect4").new()
    engine = MctsEngine()
    first = engine.search(game, Limit(nodes=2000))
    game.make(first.pv[0])
    game.make(first.pv[1])
    engine.search(game, Limit(nodes=1))
    kept = sum(root.visits for root in engine.root_stats())
    assert kept > 1  # the subtree's earlier visits
    fresh = MctsEngine()
    fresh.search(game, Limit(nodes=1))
    assert sum(root.visits for root in fresh.root_stats()) == 1
    other = game.copy()  # another game object: a new tree
    engine.search(other, Limit(nodes=1))
    assert sum(root.visits for root in engine.root_stats()) == 1


def test_the_tree_stays_within_max_nodes() -> None:
    game = get_game("connect4").new()
    engine = MctsEngine(max_nodes=100)
    result = engine.search(game, Limit(nodes=1000))
    assert result.stats.nodes == 1000 and engine.tree_size == 100
    unbounded = MctsEngine(max_nodes=100).search(game)  # no budget: stops once full
    assert not unbounded.complete and not unbounded.solved
    assert unbounded.best_move in game.legal_moves()


def test_evaluation_playouts_and_progressive_bias_count_evaluations() -> None:
    game = get_game("connect4").new()
    plain = MctsEngine(playout="evaluation").search(game, Limit(nodes=300))
    assert plain.stats.evaluations == 300
    biased = MctsEngine(playout="evaluation", bias=1.0).search(game, Limit(nodes=300))
    assert biased.stats.evaluations == 600  # the playout's and the new node's
    random_playouts = MctsEngine(bias=0.5).search(game, Limit(nodes=300))
    assert random_playouts.stats.evaluations == 300
    for result in (plain, biased, random_playouts):
        assert result.best_move in game.legal_moves()


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        ("445566", ["3"]),  # two wins at once: the first in the legal order (4 3 5 2 6 1 7)
        ("14151", ["1"]),  # no win: block the column the opponent would win in
        ("44556", ["4", "3", "5", "2", "6", "1", "7"]),  # two threats: every move loses
        ("4433", ["4", "3", "5", "2", "6", "1", "7"]),  # nothing at stake: every move
        ("1227144", ["4", "5", "2", "6", "1", "7"]),  # never under the threat 3 (row 2)
    ],
)
def test_decisive_playouts_win_at_once_else_never_hand_over_a_win(
    moves: str, expected: list[str]
) -> None:
    game = get_game("connect4").new()
    play_moves(game, list(moves))
    before = game.position()
    found = decisive_moves(game, game.legal_moves())
    assert [game.format_move(m) for m in found] == expected and game.position() == before


def test_decisive_playouts_search_and_solve_exactly() -> None:
    game = get_game("tictactoe").new()
    play_moves(game, ["b2", "a1"])
    engine = MctsEngine(playout="decisive", seed=3)
    assert engine.search(game, Limit(nodes=300)).best_move in game.legal_moves()
    assert_exact(MctsEngine(playout="decisive", seed=3).solve(game), exact_solve(game))


def test_expand_after_grows_a_node_only_after_its_visits_and_stays_exact() -> None:
    game = get_game("connect4").new()
    plain, patient = MctsEngine(seed=2), MctsEngine(seed=2, expand_after=4)
    plain.search(game, Limit(nodes=2000))
    patient.search(game, Limit(nodes=2000))
    assert plain.tree_size == 2001 and patient.tree_size < 2001 // 2
    root = patient._root
    assert root is not None and len(root.children) == 7
    stack: list[Node] = list(root.children)
    while stack:  # below the root, a node with children has had expand_after visits
        node = stack.pop()
        assert not node.children or node.visits >= 4 + len(node.children) - 1
        stack.extend(node.children)
    tictactoe = get_game("tictactoe").new()
    play_moves(tictactoe, ["a1"])
    found = MctsEngine(seed=1, expand_after=3).solve(tictactoe)
    assert found.solved
    assert_exact(found, exact_solve(tictactoe))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"exploration": -1.0}, "exploration -1.0 is out of range"),
        (
            {"playout": "heavy"},
            "unknown playout 'heavy': expected one of random, decisive, evaluation",
        ),
        ({"expand_after": 0}, r"expand_after 0 is out of range: expected .* in \[1, 1000000\]"),
        ({"bias": float("nan")}, "bias nan is out of range"),
        ({"max_nodes": 1}, "max_nodes 1 is out of range"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(EngineError, match=message):
        MctsEngine(**options)


def test_the_engine_layer_offers_and_builds_mcts() -> None:
    spec = get_game("tictactoe")
    assert MCTS in engine_names(spec) and MCTS in engine_names(spec, task="solve")
    assert MCTS not in engine_names(spec, task="bench")
    with open_engine(spec, MCTS, seed=3, exploration=0.5, playout="evaluation") as engine:
        assert isinstance(engine, MctsEngine)
        assert (engine.exploration, engine.playout, engine.seed) == (0.5, "evaluation", 3)
    with open_engine(spec, MCTS, compiled=False, expand_after=3) as engine:
        assert type(engine) is MctsEngine and engine.expand_after == 3
    with pytest.raises(EngineError, match="runs in one thread"):
        open_engine(spec, MCTS, workers=2, compiled=False)
    with pytest.raises(EngineError, match="runs in one thread"):
        open_engine(get_game("chess"), MCTS, workers=2)
    with pytest.raises(EngineError, match="game 'chess' has no kernel for compiled mcts"):
        open_engine(get_game("chess"), MCTS, compiled=True)
    game = spec.new()
    play_moves(game, ["b2", "a1", "c2"])
    found = zerosum.search(game, algorithm=MCTS)  # no limit: until proven
    assert found.solved and game.format_move(found.best_move) == "a2"
    assert_exact(zerosum.solve(game, algorithm=MCTS), exact_solve(game))


def test_best_moves_at_depth_0_are_every_exact_best_move() -> None:
    game = get_game("tictactoe").new()
    play_moves(game, ["a1"])
    found = MctsEngine().best_moves(game, depth=0)
    exact = exact_tictactoe()[game.position()]
    assert found.solved and set(found.best_moves) == set(exact.best_moves)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from zerosum.cli import main

    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_cli_analyze_reports_simulations_and_root_moves(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["analyze", "connect4", "--algorithm", "mcts", "--nodes", "64", "--seed", "3"]
    status, out, _ = run_cli(capsys, *argv)
    assert status == 0
    lines = out.splitlines()
    assert [line.split()[1] for line in lines[:3]] == ["16", "32", "64"]
    assert "nodes      64 (simulations)" in out
    status, out, _ = run_cli(capsys, *argv, "--json", "--playout", "evaluation")
    data = json.loads(out)
    assert status == 0 and data["algorithm"] == "mcts" and data["nodes"] == 64
    assert sum(root["visits"] for root in data["root_moves"]) == 64
    assert {root["move"] for root in data["root_moves"]} == set("1234567")
    assert data["root_moves"][0]["move"] == data["best_move"] and data["evaluations"] == 64


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--algorithm", "engine", "--exploration", "2"], "--exploration is an option of MCTS"),
        (["--playout", "evaluation"], "--playout is an option of MCTS"),
        (["--algorithm", "mcts", "--all-best"], "--all-best is not available with the mcts"),
        (["--algorithm", "mcts", "--workers", "2"], "runs in one thread"),
    ],
)
def test_cli_analyze_refuses_options_mcts_does_not_take(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    # chess: MCTS in Python (no kernel), so --workers is refused too
    status, _, err = run_cli(capsys, "analyze", "chess", "--nodes", "10", *argv)
    assert status == 2 and message in err


def test_cli_solve_with_mcts_is_exact(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(
        capsys, "solve", "tictactoe", "--moves", "b2", "--algorithm", "mcts", "--json"
    )
    data = json.loads(out)
    game = get_game("tictactoe").new()
    play_moves(game, ["b2"])
    exact = exact_solve(game)
    assert status == 0 and data["solved"] and data["value"] == exact.value
    expected = {game.format_move(m): v for m, v in exact.move_values}
    assert data["move_values"] == expected


def test_cli_match_seats_an_mcts_player(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", "tictactoe", "--a", "algorithm=mcts,nodes=300", "--b", "level=1"]
    status, out, _ = run_cli(capsys, *argv, "--games", "2", "--json")
    data = json.loads(out)
    assert status == 0 and data["games"] == 2 and data["complete"] is True
    assert all(record["moves"] for record in data["records"])
