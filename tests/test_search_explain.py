"""The recorded tree against the real algorithms: same value, best move, nodes and cutoffs."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic import RandomGame

from zerosum.game import Game, random_playout
from zerosum.games import get_game
from zerosum.search import Limit, search
from zerosum.search.explain import (
    ExplainError,
    Kind,
    Tree,
    TreeNode,
    TreeTooLargeError,
    explain,
)


def walk(node: TreeNode[Any]) -> list[TreeNode[Any]]:
    found = [node]
    for child in node.children:
        found.extend(walk(child))
    return found


def check_against_real(game: Game[Any], depth: int, algorithm: str) -> Tree[Any]:
    position = game.position() if hasattr(game, "position") else None
    tree = explain(game, depth, algorithm=algorithm, max_nodes=10**6)
    real = search(game, algorithm=algorithm, limit=Limit(depth=depth), table=False)
    assert tree.value == real.value
    assert tree.nodes == real.stats.nodes
    assert tree.cutoffs == real.stats.cutoffs
    if real.best_move is not None:
        assert tree.best_move == real.best_move
    visited = [n for n in walk(tree.root) if n.kind is not Kind.PRUNED]
    assert len(visited) == tree.nodes
    assert len(walk(tree.root)) - len(visited) == tree.pruned
    if position is not None:
        assert game.position() == position  # the game is left as it was
    return tree


@pytest.mark.parametrize("name", ["tictactoe", "connect4"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_tree_matches_the_real_algorithms(name: str, depth: int) -> None:
    rng = random.Random(depth)
    for _ in range(6):
        game = get_game(name).new()
        random_playout(game, rng, max_plies=rng.randrange(0, 6))
        if game.outcome() is not None:
            continue
        ab = check_against_real(game, depth, "alphabeta")
        mm = check_against_real(game, depth, "minimax")
        assert mm.cutoffs == 0 and mm.pruned == 0
        assert ab.nodes <= mm.nodes
        # alpha-beta's root value is exact: the same as minimax's.
        assert ab.value == mm.value


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), depth=st.integers(1, 5))
def test_tree_on_random_games(seed: int, depth: int) -> None:
    game = RandomGame(seed)
    ab = check_against_real(game, depth, "alphabeta")
    mm = check_against_real(game, depth, "minimax")
    assert ab.value == mm.value


def test_windows_cutoffs_and_chosen_path() -> None:
    game = get_game("tictactoe").new()
    tree = explain(game, 3)
    root = tree.root
    assert root.maximizing and root.chosen and root.move is None
    assert (root.alpha, root.beta) == (-1_000_001, 1_000_001)
    for node in walk(root):
        if node.kind is Kind.PRUNED:
            assert node.value is None
            continue
        assert node.alpha is not None and node.beta is not None
        assert node.alpha < node.beta
        for child in node.children:
            assert child.maximizing != node.maximizing
        if node.cutoff:
            # the cutting child's value lies outside the node's window: a refutation
            assert node.children[-1].kind is Kind.PRUNED
    # the chosen path spells the PV, one chosen child per chosen node down to a leaf
    line, node = [], root
    while True:
        chosen = [child for child in node.children if child.chosen]
        if not chosen:
            break
        assert len(chosen) == 1 and chosen[0].value == root.value
        node = chosen[0]
        line.append(node.move)
    assert tuple(line) == tree.pv and len(line) == 3
    assert tree.pruned > 0 and tree.cutoffs > 0


def test_bad_requests() -> None:
    game = get_game("tictactoe").new()
    with pytest.raises(TreeTooLargeError, match="more than 100 nodes"):
        explain(game, 4, max_nodes=100)
    assert game.ply() == 0
    with pytest.raises(ExplainError, match="expected one of alphabeta, minimax"):
        explain(game, 2, algorithm="engine")
    with pytest.raises(ExplainError, match="depth 0"):
        explain(game, 0)


def test_finished_position() -> None:
    game = get_game("tictactoe").from_position("xxx/oo./...")
    tree = explain(game, 2)
    assert tree.nodes == 1 and tree.root.kind is Kind.TERMINAL and tree.best_move is None


@pytest.mark.parametrize("name", ["tictactoe", "connect4"])
@pytest.mark.parametrize("algorithm", ["alphabeta", "minimax"])
def test_tree_with_its_table_matches_the_real_search_with_its_table(
    name: str, algorithm: str
) -> None:
    depth = 5 if name == "tictactoe" else 4
    settled = 0
    for seed in range(4):
        game = get_game(name).new()
        rng = random.Random(seed)
        random_playout(game, rng, max_plies=rng.randrange(0, 4))
        if game.outcome() is not None:
            continue
        tree = explain(game, depth, algorithm=algorithm, table=True, max_nodes=10**6)
        real = search(game, algorithm=algorithm, limit=Limit(depth=depth), table=True)
        assert (tree.value, tree.nodes, tree.cutoffs, tree.table_hits) == (
            real.value,
            real.stats.nodes,
            real.stats.cutoffs,
            real.stats.tt_hits,
        )
        assert tree.best_move == real.best_move and tree.table
        table_nodes = [n for n in walk(tree.root) if n.kind is Kind.TABLE]
        assert all(not n.children for n in table_nodes)
        settled += len(table_nodes)
    assert settled > 0  # transpositions do happen at these depths
