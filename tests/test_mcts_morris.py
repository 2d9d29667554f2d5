"""Compiled MCTS on morris: the kernel's move list and outcome are the game's at every ply of
random games, one thread grows the twin's tree, proofs are exact, threads play legal moves."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from zerosum.compiled import morris as kernel
from zerosum.compiled.engine import NO_SCORE
from zerosum.endgames import mapped
from zerosum.endgames import probe as probe_module
from zerosum.endgames.board import NINE_MENS_MORRIS
from zerosum.endgames.database import default_path
from zerosum.endgames.orbits import orbits, table_size
from zerosum.endgames.reduced import lookup_index
from zerosum.engines import MCTS, MctsEngine, open_engine
from zerosum.engines.mcts_compiled import CompiledMctsEngine
from zerosum.game import WIN, Game, Outcome
from zerosum.games import get_game
from zerosum.games.morris import Morris
from zerosum.search import Limit
from zerosum.search import solve as exact_solve

# The slow set: the compiled morris MCTS takes half a minute to compile here; the default set
# checks compiled MCTS on tic-tac-toe, connect four and othello:4.
pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def no_endgames(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No endgame store unless a test makes one (the machine's own would change the trees)."""
    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(tmp_path / "none.sqlite"))


def kernel_state(game: Game[Any]) -> np.ndarray[Any, Any]:
    assert isinstance(game, Morris)
    return np.array(kernel.state_of(game), np.int64)


def kernel_outcome(st: np.ndarray[Any, Any]) -> Outcome | None:
    score = kernel.over(st)
    return None if score == NO_SCORE else Outcome((score > 0) - (score < 0))


def why_over(game: Morris) -> str:
    side = game.side_to_move()
    if game.men(side).bit_count() + game.in_hand(side) < 3:
        return "men"
    if game.outcome() == Outcome.DRAW:
        limit = game.rules.move_limit
        return "moves" if limit and game.moves_without_removal() >= limit else "repetition"
    return "blocked"


VARIANTS = [
    ("morris", 12),
    ("morris:six", 24),
    ("morris:twelve", 6),
    ("morris:repetition=2:moves=30", 24),  # draws come sooner
    ("morris:six:repetition=2:moves=20", 24),
]


def test_the_kernels_moves_and_outcome_are_the_games_at_every_ply() -> None:
    out = np.zeros(kernel.MAX_MOVES, np.int64)
    ends: set[str] = set()
    for name, games in VARIANTS:
        for seed in range(games):
            rng = random.Random(seed)
            game = get_game(name).new()
            assert isinstance(game, Morris)
            forward = kernel_state(game)  # only ever played forward, as MCTS plays its copy
            while True:
                outcome = game.outcome()
                assert kernel_outcome(forward) == kernel_outcome(kernel_state(game)) == outcome
                if outcome is not None:
                    ends.add(why_over(game))
                    break
                count = kernel.legal(forward, out)
                assert [int(code) for code in out[:count]] == game.legal_moves(), game.position()
                move = rng.choice(game.legal_moves())
                game.make(move)
                kernel.play(forward, move)
    assert ends == {"men", "moves", "repetition", "blocked"}  # every way the rules end a game


def random_position(name: str, seed: int, done: Any) -> Game[Any]:
    rng = random.Random(seed)
    while True:
        game = get_game(name).new()
        while game.outcome() is None and not done(game):
            game.make(rng.choice(game.legal_moves()))
        if game.outcome() is None:
            return game
        seed += 1000


def tree(engine: MctsEngine) -> list[tuple[Any, int, float, int | None]]:
    return [(r.move, r.visits, r.value, r.proven) for r in engine.root_stats()]


@pytest.mark.parametrize(
    ("name", "phase", "simulations"),
    [
        ("morris", "placing", 300),
        ("morris", "moving", 300),
        ("morris", "flying", 200),
        ("morris:six", "moving", 300),
    ],
)
def test_one_thread_grows_the_twins_tree(name: str, phase: str, simulations: int) -> None:
    def done(game: Morris) -> bool:
        if phase == "placing":
            return True
        if game.in_hand(0) or game.in_hand(1):
            return False
        return phase == "moving" or min(game.men(0).bit_count(), game.men(1).bit_count()) == 3

    game = random_position(name, 5, done)
    compiled = CompiledMctsEngine(name, seed=7)
    python = MctsEngine(seed=7)
    found = compiled.search(game, Limit(nodes=simulations))
    expected = python.search(game, Limit(nodes=simulations))
    assert tree(compiled) == tree(python)
    assert (found.value, found.best_move, found.pv) == (
        expected.value,
        expected.best_move,
        expected.pv,
    )
    assert compiled.tree_size == python.tree_size
    assert found.best_move in game.legal_moves()


@pytest.mark.parametrize(
    "position",
    # Six men's morris, no flying: the side to move loses in four plies whatever it does.
    ["W..W.....BBBB..W w 0 0", "BBB..B..W.WW.... w 0 0", "B...B...W.B..WWW b 0 0"],
)
def test_proofs_are_the_exact_values(position: str) -> None:
    game = get_game("morris:six").from_position(position)
    found = CompiledMctsEngine("morris:six", seed=1).solve(game, limit=Limit(nodes=50_000))
    exact = exact_solve(game, limit=Limit(depth=5))  # every line ends within the horizon
    assert found.solved and found.value == exact.value < 0
    assert dict(found.move_values) == dict(exact.move_values)


@pytest.mark.parametrize("name", ["morris", "morris:six", "morris:twelve"])
def test_mcts_runs_compiled_with_threads_and_plays_legal_moves(name: str) -> None:
    game = random_position(name, 3, lambda g: g.ply() >= 20)
    with open_engine(name, MCTS, workers=2, seed=1, hash_mb=4) as engine:
        assert isinstance(engine, CompiledMctsEngine) and engine.workers == 2
        for _ in range(3):
            result = engine.search(game, Limit(nodes=3000))
            assert result.best_move in game.legal_moves()
            assert result.solved or result.stats.nodes >= 3000  # a proven root stops early
            game.make(result.best_move)
            if game.outcome() is not None:
                break


class FakeEndgames:
    """A made-up 3-3 database (random entries) in place of the default store, read by the
    game's probe as :meth:`zerosum.endgames.database.Endgames.code` reads a real one."""

    def __init__(self) -> None:
        self.kind = mapped.class_index(3, 3)
        size = table_size(NINE_MENS_MORRIS, 3, 3)
        self.hits = 0
        self.table = np.random.default_rng(1).integers(0, 12, size).astype(np.uint8)

    def code(self, mover: int, other: int) -> int | None:
        if (mover.bit_count(), other.bit_count()) != (3, 3):
            return None
        three = orbits(NINE_MENS_MORRIS, 3)
        count = kernel.OTHER_COUNTS[self.kind]
        perm, binom = kernel.PERM, kernel.BINOM
        index = lookup_index(mover, other, count, three.orbit, three.sym, three.rep, perm, binom)
        self.hits += 1
        return int(self.table[index])


def test_both_twins_take_a_probed_position_as_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeEndgames()
    aux = mapped.array_of({(3, 3): fake.table})
    monkeypatch.setitem(kernel._TABLES, str(default_path()), aux)  # the compiled probe's array
    monkeypatch.setitem(probe_module._OPENED, os.environ["ZEROSUM_ENDGAMES"], fake)

    def done(game: Morris) -> bool:  # three men to move against four: a removal is probed
        side = game.side_to_move()
        men = (game.men(side).bit_count(), game.men(1 - side).bit_count())
        if game.in_hand(0) or game.in_hand(1) or men != (3, 4):
            return False
        return any(move >> 10 for move in game.legal_moves())  # it can remove a man at once

    game = random_position("morris", 2, done)
    compiled, python = CompiledMctsEngine("morris", seed=3), MctsEngine(seed=3)
    found = compiled.search(game, Limit(nodes=400))
    expected = python.search(game, Limit(nodes=400))
    assert tree(compiled) == tree(python)
    assert (found.value, found.pv, found.solved) == (expected.value, expected.pv, expected.solved)
    probed = {r.proven for r in compiled.root_stats()} - {None, WIN - 1, -(WIN - 1)}
    assert fake.hits > 0 and probed  # moves proven by a probe, at its distance
