"""Limits, stopping, statistics and the bounded transposition table."""

from __future__ import annotations

import time

import pytest
from synthetic import RandomGame
from waiting import HANG_S

from zerosum.game import WIN
from zerosum.games.tictactoe import TicTacToe
from zerosum.search import (
    Bound,
    Limit,
    LimitError,
    TranspositionTable,
    iterate,
    search,
    solve,
)


def test_node_limit_still_gives_a_legal_move_and_restores_the_game() -> None:
    game = RandomGame(3, width=50, max_branching=6)
    before = game.position()
    for nodes in (1, 2, 10, 100, 1000):
        result = search(game, limit=Limit(nodes=nodes))
        assert result.best_move in game.legal_moves()
        assert not result.complete
        assert result.stats.nodes <= nodes
        assert game.position() == before


def test_time_limit_is_kept() -> None:
    game = RandomGame(4, width=1000, max_branching=5)
    started = time.perf_counter()
    result = search(game, algorithm="minimax", table=False, limit=Limit(time=0.3))
    elapsed = time.perf_counter() - started
    assert elapsed < HANG_S  # 0.3 s; the search ignoring it would never end
    # How deep 0.3 s reach is the machine's load: a process starved through them keeps no
    # iteration and answers with a legal move at depth 0.
    assert result.best_move in game.legal_moves()


def test_stop_callback_ends_the_search() -> None:
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) >= 3

    # A tree whose value no iteration settles (a win or a loss within the horizon would end
    # the search: seed 6, which this test used, is lost in 2 plies).
    result = search(RandomGame(16, width=1000, max_branching=5), limit=Limit(stop=stop))
    assert len(calls) == 3 and not result.complete and result.best_move is not None


def test_a_win_within_the_horizon_ends_the_search() -> None:
    """The root wins in 4 plies: the iteration at depth 4 proves it, whatever it evaluated
    beside the winning line, and the search stops there (it went on for ever before)."""
    result = search(RandomGame(5, width=1000, max_branching=5), limit=Limit(nodes=10**6))
    assert (result.value, result.depth, result.solved, result.complete) == (WIN - 4, 4, True, True)


@pytest.mark.parametrize("seed, plies", [(6, 2), (9, 8), (10, 4)])
def test_a_loss_within_the_horizon_ends_the_search(seed: int, plies: int) -> None:
    """The root is lost in ``plies`` plies: the iteration at that depth proves it (every move
    refuted by a proof, the longest defence seen), and the search stops there; it went on
    until an iteration evaluated nothing before. The exact solve agrees."""
    game = RandomGame(seed, width=1000, max_branching=5)
    result = search(game, limit=Limit(nodes=10**6))
    assert (result.value, result.depth, result.solved) == (-(WIN - plies), plies, True)
    assert solve(game, limit=Limit(nodes=10**6)).value == result.value


def test_iterations_deepen_one_ply_at_a_time() -> None:
    depths = [r.depth for r in iterate(RandomGame(6, width=20), limit=Limit(depth=5))]
    assert depths == [1, 2, 3, 4, 5]


def test_depth_only_reference_runs_one_pass() -> None:
    results = list(iterate(RandomGame(6, width=20), algorithm="negamax", limit=Limit(depth=4)))
    assert [r.depth for r in results] == [4]


def test_statistics_are_consistent_and_repeatable() -> None:
    game = TicTacToe()
    first = search(game, limit=Limit(depth=6), all_best=True)
    again = search(game, limit=Limit(depth=6), all_best=True)
    assert first.stats.nodes == again.stats.nodes  # node counts are a signature
    stats = first.stats
    assert stats.tt_hits <= stats.tt_probes and stats.cutoffs > 0 and stats.tt_stores > 0
    assert stats.nps > 0 and stats.time_s > 0


def test_finished_game_has_no_move() -> None:
    game = TicTacToe.from_position("xxx/oo./...")
    result = search(game)
    assert result.best_move is None and result.value == -1_000_000 and result.solved


@pytest.mark.parametrize(
    "limit", [dict(depth=0), dict(nodes=0), dict(time=0.0), dict(time=-2.0), dict(depth=10**6)]
)
def test_bad_limits_are_refused(limit: dict[str, float]) -> None:
    with pytest.raises(LimitError, match="out of range"):
        Limit(**limit)  # type: ignore[arg-type]


def test_table_stays_bounded_and_prefers_depth() -> None:
    table = TranspositionTable[int](100)
    assert table.capacity == 128
    for key in range(10_000):
        table.store(key, key % 7, 0, Bound.EXACT, None)
    assert len(table) <= table.capacity
    table = TranspositionTable[int](1)
    assert table.store(1, depth=5, score=10, bound=Bound.LOWER, move=3)
    assert not table.store(2, depth=4, score=0, bound=Bound.EXACT, move=None)  # shallower
    assert table.probe(1) is not None and table.probe(2) is None
    table.new_search()
    assert table.store(2, depth=1, score=0, bound=Bound.EXACT, move=None)  # old entry ages out
    assert table.probe(2) is not None


def test_table_keeps_the_move_when_a_result_has_none() -> None:
    table = TranspositionTable[int](8)
    table.store(9, 3, 5, Bound.LOWER, 4)
    table.store(9, 4, 2, Bound.UPPER, None)
    entry = table.probe(9)
    assert entry is not None and entry.move == 4 and entry.depth == 4


def test_what_is_left_of_a_limit() -> None:
    import time

    stop = lambda: False  # noqa: E731
    limit = Limit(depth=4, nodes=100, time=1.0, stop=stop)
    left = limit.since(time.perf_counter() - 0.25)
    assert (left.depth, left.nodes, left.stop) == (4, 100, stop) and 0.0 < left.time <= 0.75
    assert limit.since(time.perf_counter() - 5).time == 1e-3  # spent: a millisecond remains
    untimed = Limit(nodes=10)
    assert untimed.since(0.0) is untimed
