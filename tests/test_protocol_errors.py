"""A game that breaks the protocol gets a ProtocolError naming the rule, from every search."""

from __future__ import annotations

import random
import re

import pytest
from synthetic import RandomGame, StuckGame

from zerosum.game import Outcome, ProtocolError, ZerosumError, random_playout
from zerosum.search import Limit, search, solve
from zerosum.search.compare import compare
from zerosum.search.driver import ALGORITHMS
from zerosum.search.explain import explain
from zerosum.search.parallel import SearchPool
from zerosum.search.probing import probe_root
from zerosum.search.tactical import EXACT_OPTIONS, Options, TacticalSearch

RULE = "has no legal moves but is not over: a position with no legal moves must be over"


def stuck_below(seed: int = 3) -> StuckGame:
    """A game that is fine at the root and its children but stuck two plies down."""
    game = StuckGame(seed, stuck_at=2)
    assert game.legal_moves() and game.outcome() is None
    return game


def message_of(game: StuckGame) -> str:
    """What the error must say: the game, a position where it is stuck, and the rule."""
    return rf"the stuck position '[0-9/]+' {re.escape(RULE)} \(a pass is a move\)"


def test_the_error_is_a_zerosum_error_naming_the_game_position_and_rule() -> None:
    game = StuckGame(1, stuck_at=0)
    with pytest.raises(ProtocolError) as raised:
        search(game)
    assert isinstance(raised.value, ZerosumError)
    assert str(raised.value) == (f"the stuck position '0' {RULE} (a pass is a move)")


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
@pytest.mark.parametrize("table", [False, True])
def test_every_algorithm_raises_it_below_the_root(algorithm: str, table: bool) -> None:
    game = stuck_below()
    with pytest.raises(ProtocolError, match=message_of(game)):
        search(game, algorithm=algorithm, limit=Limit(depth=3), table=table)
    assert game.ply() == 0  # the game is left as it was


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_solve_raises_it_instead_of_an_impossible_value(algorithm: str) -> None:
    with pytest.raises(ProtocolError, match=message_of(stuck_below())):
        solve(stuck_below(), algorithm=algorithm)
    with pytest.raises(ProtocolError, match=message_of(stuck_below())):
        solve(StuckGame(5, stuck_at=0), algorithm=algorithm)


def test_search_at_a_stuck_root_raises_it_instead_of_an_index_error() -> None:
    for limit in (Limit(depth=1), Limit(nodes=1)):
        with pytest.raises(ProtocolError):
            search(StuckGame(2, stuck_at=0), limit=limit)


@pytest.mark.parametrize("options", [Options(), EXACT_OPTIONS])
def test_the_tactical_search_raises_it(options: Options) -> None:
    game = stuck_below()
    with pytest.raises(ProtocolError, match=message_of(game)):
        TacticalSearch(game, options=options).search(Limit(depth=3))
    assert game.ply() == 0
    with pytest.raises(ProtocolError):
        TacticalSearch(StuckGame(2, stuck_at=0), options=options).search(Limit(depth=1))


def test_the_tactical_search_still_says_a_finished_game_has_no_move() -> None:
    game = RandomGame(4)
    while game.outcome() is None:
        game.make(game.legal_moves()[0])
    with pytest.raises(ValueError, match="the game is over"):
        TacticalSearch(game).search(Limit(depth=1))


def test_explain_and_compare_raise_it() -> None:
    with pytest.raises(ProtocolError, match=message_of(stuck_below())):
        explain(stuck_below(), 3)
    with pytest.raises(ProtocolError, match=message_of(stuck_below())):
        explain(stuck_below(), 3, algorithm="minimax")
    with pytest.raises(ProtocolError):
        list(compare(stuck_below(), [3]))


class ProbedStuck(StuckGame):
    """A stuck game whose probe claims to know its root."""

    def probe(self) -> tuple[Outcome, int] | None:
        return (Outcome.DRAW, 0) if self.ply() == 0 else None


def test_the_root_probe_raises_it() -> None:
    with pytest.raises(ProtocolError):
        probe_root(ProbedStuck(1, stuck_at=0))


def test_a_random_playout_raises_it() -> None:
    with pytest.raises(ProtocolError):
        random_playout(StuckGame(1, stuck_at=0), random.Random(1))


def test_the_parallel_search_raises_it_at_the_root_and_reports_it_from_a_worker() -> None:
    with SearchPool(2) as pool:
        with pytest.raises(ProtocolError):
            search(StuckGame(2, stuck_at=0), limit=Limit(depth=3), pool=pool)
        pool.split_depth = 1  # the principal variation is split in this process
        with pytest.raises(ProtocolError, match=message_of(stuck_below())):
            search(stuck_below(), limit=Limit(depth=3), pool=pool)
        pool.split_depth = 100  # the workers search every move: they name the error
        with pytest.raises(RuntimeError, match="a search worker failed: ProtocolError: "):
            search(stuck_below(), limit=Limit(depth=3), pool=pool)
