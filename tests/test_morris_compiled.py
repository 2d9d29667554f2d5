"""The morris kernel against the pure-Python rules and search (its oracles)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from zerosum.compiled import morris as kernel
from zerosum.compiled.engine import NO_SCORE
from zerosum.compiled.solver import Solver
from zerosum.game import WIN
from zerosum.games import get_game
from zerosum.games.morris import Morris
from zerosum.games.morris_rules import NINE, parse_options
from zerosum.search import Limit, search

VARIANTS = ("morris", "morris:six", "morris:twelve")


def kernel_state(game: Morris) -> np.ndarray[Any, Any]:
    return np.array(kernel.state_of(game), np.int64)


def check_same(state: np.ndarray[Any, Any], game: Morris, out: np.ndarray[Any, Any]) -> list[int]:
    """The kernel and the game agree on this position; returns the legal moves."""
    legal = game.legal_moves()
    decided = kernel.decided(state)
    if decided != NO_SCORE:
        assert legal == [], game.position()
        assert (decided == 0) == (game.outcome() == 0), game.position()
        return legal
    count = kernel.moves(state, out)
    assert sorted(out[:count]) == sorted(legal), game.position()
    if not legal:
        assert kernel.no_moves(state) < 0 and game.outcome() == -1
        return legal
    assert kernel.evaluate(state) == game.evaluate(), game.position()
    assert kernel.key(state) == kernel.state_of(game)[kernel.KEY]
    return legal


@pytest.mark.parametrize("name", [*VARIANTS, "morris:repetition=2:moves=30"])
def test_random_playouts_agree_with_the_rules(name: str) -> None:
    rng = random.Random(17)
    out = np.zeros(kernel.MAX_MOVES, np.int64)
    for _ in range(25):
        game = get_game(name).new()
        assert isinstance(game, Morris)
        state = kernel_state(game)
        made = []
        while legal := check_same(state, game, out):
            move = rng.choice(legal)
            kernel.play(state, move)
            game.make(move)
            made.append(move)
        for move in reversed(made[-30:]):  # undo restores the state exactly
            kernel.undo(state, move)
            game.undo()
            fresh = kernel_state(game)  # the rings past the current ply keep old entries
            assert np.array_equal(state[: kernel.KEYS], fresh[: kernel.KEYS]), game.position()


def test_repetitions_and_the_move_limit_draw_in_the_kernel() -> None:
    start = "W.....W.........W.B...BB w 0 0"  # a7 c5 e3 against d6-less shuffling men
    shuffle = ("a7-a4", "b2-d2", "a4-a7", "d2-b2")
    for options, plies in (("", 8), ("repetition=2", 4), ("repetition=none:moves=6", 6)):
        game = Morris.from_position(start, replace(parse_options(options), flying=False))
        state = kernel_state(game)
        for index in range(plies):
            assert kernel.decided(state) == NO_SCORE
            move = game.parse_move(shuffle[index % 4])
            game.make(move)
            kernel.play(state, move)
        assert game.outcome() == 0 and kernel.decided(state) == 0, options


def test_history_before_the_root_counts_for_repetitions() -> None:
    game = Morris.from_position("W.....W.........W.B...BB w 0 0", replace(NINE, flying=False))
    for text in ("a7-a4", "b2-d2", "a4-a7", "d2-b2", "a7-a4", "b2-d2", "a4-a7"):
        game.make(game.parse_move(text))
    state = kernel_state(game)
    move = game.parse_move("d2-b2")
    kernel.play(state, move)
    assert kernel.decided(state) == 0


@pytest.mark.parametrize("name", VARIANTS)
def test_fixed_depth_values_match_alphabeta(name: str) -> None:
    """The kernel's evaluation is the game's, so fixed-depth values must be identical."""
    solver = Solver(name, hash_mb=4)
    rng = random.Random(23)
    compared = 0
    while compared < 12:
        game = get_game(name).new()
        for _ in range(rng.randrange(0, 50)):
            if not game.legal_moves():
                break
            game.make(rng.choice(game.legal_moves()))
        if game.outcome() is not None:
            continue
        game = get_game(name).from_position(game.position())
        for depth in (1, 2, 3):
            solver.engine.clear()
            ours = solver.search(game, limit=Limit(depth=depth))
            reference = search(game, algorithm="alphabeta", table=False, limit=Limit(depth=depth))
            assert ours.value == reference.value, (game.position(), depth)
            assert ours.best_move in game.legal_moves()
        compared += 1


def test_a_forced_win_is_found_with_its_distance() -> None:
    # White closes a mill and Black, down to two men, loses: a win in one ply.
    game = Morris.from_position("WW" + "." * 12 + "W" + "." * 6 + "BBB w 0 0")
    solver = Solver("morris", hash_mb=4)
    result = solver.search(game, limit=Limit(depth=4))
    assert result.value == WIN - 1 and result.solved
    assert game.format_move(result.best_move).split("x")[0].endswith("g7")
    reference = search(game, algorithm="alphabeta", table=False, limit=Limit(depth=3))
    assert reference.value == result.value


def test_iterative_deepening_under_a_time_limit_returns_a_legal_move() -> None:
    solver = Solver("morris", hash_mb=8)
    game = get_game("morris").new()
    result = solver.search(game, limit=Limit(time=0.3))
    # How deep 0.3 s reach depends on the machine's load (depth 0, a legal move, when the
    # process is starved through them all).
    assert result.best_move in game.legal_moves() and not result.complete


def test_exact_solves_are_refused_with_a_clear_error() -> None:
    from zerosum.compiled import NotCompiledError

    solver = Solver("morris:six", hash_mb=1)
    with pytest.raises(NotCompiledError, match="cannot solve morris:six exactly"):
        solver.solve(get_game("morris:six").new())


@st.composite
def positions(draw: st.DrawFn) -> Morris:
    """Any legal position of any variant: men on random points, random men in hand."""
    name = draw(st.sampled_from(VARIANTS))
    rules = parse_options(name.partition(":")[2])
    cells = ["."] * rules.size
    points = draw(st.permutations(range(rules.size)))
    counts = [draw(st.integers(0, rules.men)), draw(st.integers(0, rules.men))]
    hands = [draw(st.integers(0, rules.men - count)) for count in counts]
    for side, symbol in enumerate("WB"):
        for point in points[sum(counts[:side]) : sum(counts[: side + 1])]:
            cells[point] = symbol
    side = draw(st.sampled_from("wb"))
    last = "wb".index(side) ^ 1
    assume(cells.count("WB"[last]) + hands[last] >= 3)
    return Morris.from_position(f"{''.join(cells)} {side} {hands[0]} {hands[1]}", rules)


@settings(max_examples=200, deadline=None)
@given(positions())
def test_random_positions_agree_with_the_rules(game: Morris) -> None:
    out = np.zeros(kernel.MAX_MOVES, np.int64)
    assert game.evaluate() == game.compute_evaluation()
    legal = check_same(kernel_state(game), game, out)
    assert all(game.parse_move(game.format_move(move)) == move for move in legal)


def test_a_search_deeper_than_the_stack_is_searched_to_its_depth() -> None:
    # Morris can go on for ever: a search asked for more plies than the stack holds (the
    # kernel's max_ply) searches max_ply plies, as deep as any line can go here (it overran
    # the stack before, and the process crashed).
    limit = Limit(nodes=20_000)
    found = []
    for depth in (kernel.MAX_PLY, 200):
        solver = Solver("morris", hash_mb=1)
        found.append(solver.engine.search(solver.state(Morris()), depth, limit=limit))
    assert found[0].stats == replace(found[1].stats, time_s=found[0].stats.time_s)
    assert (found[0].score, found[0].best_move) == (found[1].score, found[1].best_move)
