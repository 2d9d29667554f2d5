"""Properties of every algorithm on random game trees (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic import RandomGame

from zerosum.game import INFINITY, WIN, Score
from zerosum.search import ALGORITHMS, Limit, TranspositionTable, search
from zerosum.search.algorithms import alphabeta, negamax, pvs
from zerosum.search.core import Context

seeds = st.integers(0, 2**32)
depths = st.integers(1, 6)
bounds = st.one_of(
    st.integers(-120, 120),
    st.sampled_from([-INFINITY, INFINITY, WIN - 2, WIN - 5, -(WIN - 3), -(WIN - 6)]),
)


def true_value(game: RandomGame, depth: int) -> Score:
    return negamax(Context(game=game), depth, 0)


@settings(max_examples=300, deadline=None)
@given(seed=seeds, depth=depths, a=bounds, b=bounds, width=st.integers(2, 6))
def test_alphabeta_is_fail_soft(seed: int, depth: int, a: Score, b: Score, width: int) -> None:
    alpha, beta = min(a, b), max(a, b)
    if alpha == beta:
        beta += 1
    game = RandomGame(seed, width=width)
    value = true_value(game, depth)
    for node in (alphabeta, pvs):
        for table in (None, TranspositionTable[int](64)):
            result = node(Context(game=game, table=table), depth, alpha, beta, 0)
            if value <= alpha:
                assert result <= alpha, (node.__name__, table)
            elif value >= beta:
                assert result >= beta, (node.__name__, table)
            else:
                assert result == value, (node.__name__, table)
            assert game.ply() == 0


@settings(max_examples=150, deadline=None)
@given(seed=seeds, depth=depths, width=st.integers(2, 6), moves=st.integers(0, 3))
def test_every_algorithm_equals_minimax(seed: int, depth: int, width: int, moves: int) -> None:
    game = RandomGame(seed, width=width)
    for _ in range(moves):  # start from a random inner node as well as the root
        if not game.legal_moves():
            break
        game.make(game.legal_moves()[-1])
    if game.outcome() is not None:
        return
    limit = Limit(depth=depth)
    reference = search(game, algorithm="minimax", table=False, limit=limit, all_best=True)
    for name in ALGORITHMS:
        for table in (False, True):
            every = search(game, algorithm=name, table=table, limit=limit, all_best=True)
            assert every.value == reference.value, (name, table)
            assert set(every.best_moves) == set(reference.best_moves), (name, table)
            one = search(game, algorithm=name, table=table, limit=limit)
            assert one.value == reference.value, (name, table)
            assert one.best_move in reference.best_moves, (name, table)
            assert len(one.best_moves) == 1


@settings(max_examples=50, deadline=None)
@given(seed=seeds, depth=depths, pick=st.integers(0, 2**16))
def test_seeded_choice_is_reproducible_and_among_the_best(seed: int, depth: int, pick: int) -> None:
    game = RandomGame(seed, width=3)
    first = search(game, limit=Limit(depth=depth), all_best=True, seed=pick)
    again = search(game, limit=Limit(depth=depth), all_best=True, seed=pick)
    assert first.best_move == again.best_move
    assert first.best_move in first.best_moves
    assert first.pv[:1] == (first.best_move,)
