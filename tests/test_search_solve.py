"""The pure-Python solve proves the value as a deepening search does, then the moves it is asked
for: its values equal an exhaustive oracle, and the value costs it what it costs ``search``."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic import Nim

from zerosum.game import HEURISTIC_LIMIT, Score, terminal_score
from zerosum.games.tictactoe import TicTacToe
from zerosum.search import ALGORITHMS, Limit, Mode, search, solve

EXACT_ALGORITHMS = ["engine", "alphabeta", "negamax"]
"""The algorithms the solves below run (plain minimax repeats negamax's tree, more slowly)."""


def one_ply_deeper(score: Score) -> Score:
    """A node-relative score seen from one ply above, before negation."""
    if score > HEURISTIC_LIMIT:
        return score - 1
    if score < -HEURISTIC_LIMIT:
        return score + 1
    return score


def exact_move_values(game: Any) -> dict[Any, Score]:
    """Every root move's exact depth-adjusted value, by a memoized recursion written here."""
    known: dict[str, Score] = {}

    def value(node: Any) -> Score:
        position = node.position()
        if position not in known:
            outcome = node.outcome()
            if outcome is not None:
                known[position] = terminal_score(outcome, 0)
            else:
                scores = []
                for move in node.legal_moves():
                    node.make(move)
                    scores.append(-one_ply_deeper(value(node)))
                    node.undo()
                known[position] = max(scores)
        return known[position]

    values = {}
    for move in game.legal_moves():
        game.make(move)
        values[move] = -one_ply_deeper(value(game))
        game.undo()
    return values


def tictactoe_after(seed: int, plies: int) -> TicTacToe | None:
    """A tic-tac-toe position ``plies`` random moves in, or None if the game ended first."""
    chooser = random.Random(seed)
    game = TicTacToe()
    for _ in range(plies):
        if game.outcome() is not None:
            return None
        game.make(chooser.choice(game.legal_moves()))
    return game if game.outcome() is None else None


def check_against_oracle(game: Any, algorithm: str) -> None:
    values = exact_move_values(game)
    best = max(values.values())
    best_moves = {move for move, value in values.items() if value == best}
    proof = search(game, algorithm=algorithm)

    exact = solve(game, algorithm=algorithm)
    assert exact.solved and exact.complete
    assert exact.value == best
    assert dict(exact.move_values) == values
    assert set(exact.best_moves) == best_moves

    every_best = solve(game, algorithm=algorithm, moves=Mode.ALL)
    assert every_best.solved and every_best.value == best
    assert set(every_best.best_moves) == best_moves

    one = solve(game, algorithm=algorithm, moves=Mode.ONE)
    assert one.solved and one.value == best
    assert one.best_moves == (one.best_move,) and one.best_move in best_moves

    # Step 1 of every solve is the deepening search's proof, node for node (a search with a
    # non-iterative algorithm and no limit does not deepen: it searches every line at once).
    for result in (exact, every_best, one):
        assert result.proof_stats is not None
        if ALGORITHMS[algorithm].iterative:
            assert result.proof_stats.nodes == proof.stats.nodes
    assert one.proof_stats is not None and one.stats.nodes == one.proof_stats.nodes


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(2, 6))
@pytest.mark.parametrize("algorithm", EXACT_ALGORITHMS)
def test_tictactoe_solves_equal_the_oracle(algorithm: str, seed: int, plies: int) -> None:
    game = tictactoe_after(seed, plies)
    if game is not None:
        check_against_oracle(game, algorithm)


@pytest.mark.parametrize("algorithm", EXACT_ALGORITHMS)
@pytest.mark.parametrize("heaps", [(1, 2, 3), (2, 2, 3), (3, 4), (1, 1, 5)])
def test_nim_solves_equal_the_oracle(algorithm: str, heaps: tuple[int, ...]) -> None:
    check_against_oracle(Nim(heaps), algorithm)


def test_a_solve_stopped_after_the_proof_keeps_the_proven_value() -> None:
    game = TicTacToe.from_position("x../.o./...")
    values = exact_move_values(game)
    proof = search(game)
    # Stopped a few nodes into step 2: the value is proven, the moves only partly.
    stopped = solve(game, limit=Limit(nodes=proof.stats.nodes + 300))
    assert stopped.solved and not stopped.complete
    assert stopped.value == max(values.values())
    assert stopped.proof_stats is not None and stopped.proof_stats.nodes == proof.stats.nodes
    assert 1 <= len(stopped.move_values) < len(values)
    assert all(values[move] == value for move, value in stopped.move_values)
    assert stopped.best_move in stopped.best_moves
    assert all(values[move] == stopped.value for move in stopped.best_moves)
    # Stopped before the proof: estimates, not solved.
    early = solve(game, limit=Limit(nodes=proof.stats.nodes // 2))
    assert not early.solved and not early.complete and early.proof_stats is None


def test_the_command_line_says_what_the_value_cost(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from zerosum.cli import main

    position = "x.o/.x./..."
    assert main(["solve", "tictactoe", "--position", position, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    proof = search(TicTacToe.from_position(position))
    assert data["proof_nodes"] == proof.stats.nodes < data["nodes"]
    assert len(data["move_values"]) == 6
    assert main(["solve", "tictactoe", "--position", position]) == 0
    out = capsys.readouterr().out
    assert f"value proven after {proof.stats.nodes:,} nodes" in out


def test_a_solve_whose_depth_limit_ends_step_2_keeps_the_proven_value() -> None:
    game = Nim((3, 4))  # won in 3 plies; the slowest other move's value needs depth 7
    proof = search(game)
    assert proof.solved and proof.depth == 3
    capped = solve(game, limit=Limit(depth=3))
    full = solve(game)
    assert capped.solved and capped.complete and capped.value == full.value
    assert 1 <= len(capped.move_values) < len(full.move_values)
    assert set(capped.move_values) <= set(full.move_values)
    assert capped.proof_stats is not None and capped.proof_stats.nodes == proof.stats.nodes
