"""Every algorithm on every reachable tic-tac-toe position against the reference minimax."""

from __future__ import annotations

import pytest
from test_tictactoe import reachable

from zerosum.game import HEURISTIC_LIMIT, WIN, Score, terminal_score
from zerosum.games.tictactoe import TicTacToe
from zerosum.search import ALGORITHMS, Limit, search, solve

# The slow set: every position, every algorithm (minutes); test_search_properties checks the
# same contracts on random positions in the default set.
pytestmark = pytest.mark.slow

POSITIONS = sorted(reachable().values(), key=lambda game: game.position())
INNER = [game for game in POSITIONS if game.outcome() is None]


def one_ply_deeper(score: Score) -> Score:
    """A node-relative score seen from one ply above, before negation."""
    if score > HEURISTIC_LIMIT:
        return score - 1
    if score < -HEURISTIC_LIMIT:
        return score + 1
    return score


def oracle() -> dict[str, tuple[Score, frozenset[int]]]:
    """Game value and best moves of every position, by a memoized recursion written here."""
    known: dict[str, tuple[Score, frozenset[int]]] = {}

    def value(game: TicTacToe) -> Score:
        position = game.position()
        if position in known:
            return known[position][0]
        outcome = game.outcome()
        if outcome is not None:
            known[position] = (terminal_score(outcome, 0), frozenset())
            return known[position][0]
        scores = {}
        for move in game.legal_moves():
            game.make(move)
            scores[move] = -one_ply_deeper(value(game))
            game.undo()
        best = max(scores.values())
        known[position] = (best, frozenset(m for m, s in scores.items() if s == best))
        return best

    value(TicTacToe())
    return known


ORACLE = oracle()


def test_oracle_knows_the_game() -> None:
    assert len(ORACLE) == 5478
    assert ORACLE[TicTacToe().position()] == (0, frozenset(range(9)))
    # x on a1 and b2, o on b1 and c2: x to move wins at once on c3.
    assert ORACLE[TicTacToe.from_position(".../.xo/xo.").position()] == (WIN - 1, {8})


def test_reference_minimax_counts_the_whole_tree() -> None:
    result = search(TicTacToe(), algorithm="minimax", table=False, limit=Limit(depth=9))
    assert result.stats.nodes == 549_946
    assert result.value == 0


@pytest.mark.parametrize("table", [False, True], ids=["plain", "table"])
@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_every_position_solves_to_the_reference(name: str, table: bool) -> None:
    for game in INNER:
        value, best = ORACLE[game.position()]
        every = search(game, algorithm=name, table=table, all_best=True)
        assert (every.value, set(every.best_moves)) == (value, best), game.position()
        assert every.solved
        one = search(game, algorithm=name, table=table)
        assert one.value == value, game.position()
        assert one.best_move in best, game.position()


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_depth_limited_values_equal_the_reference(depth: int) -> None:
    limit = Limit(depth=depth)
    for game in INNER[::3]:
        reference = search(game, algorithm="minimax", table=False, limit=limit, all_best=True)
        for name in ALGORITHMS:
            for table in (False, True):
                found = search(game, algorithm=name, table=table, limit=limit, all_best=True)
                assert found.value == reference.value, (name, table, game.position())
                assert set(found.best_moves) == set(reference.best_moves), (name, table)


def test_solve_reports_every_first_move() -> None:
    result = solve(TicTacToe())
    assert result.solved and result.value == 0
    assert sorted(result.best_moves) == list(range(9))
    assert sorted(result.move_values) == [(cell, 0) for cell in range(9)]


def test_sooner_wins_are_preferred() -> None:
    # X wins at once on c3; every algorithm must prefer that to any slower win.
    game = TicTacToe.from_position(".../.xo/xo.")
    for name in ALGORITHMS:
        for table in (False, True):
            result = search(game, algorithm=name, table=table, all_best=True)
            assert result.value == WIN - 1
            assert result.best_moves == (game.parse_move("c3"),)
