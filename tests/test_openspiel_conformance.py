"""Every pyspiel game zerosum can search passes the conformance suite, and the small ones solve to
OpenSpiel's own values.

The list of games is pyspiel's registry, read when the tests are collected: a game a new
OpenSpiel release adds is checked without a change here (at its default parameters, unless
:data:`SMALL` names smaller ones).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import minimax  # noqa: E402

from zerosum import get_game, solve  # noqa: E402
from zerosum.games.openspiel import UNDO_GAMES, OpenSpielGame, lacks  # noqa: E402
from zerosum.testing import check_game  # noqa: E402

SMALL = {
    "amazons": "amazons(board_size=6)",
    "breakthrough": "breakthrough(rows=4,columns=4)",
    "clobber": "clobber(rows=4,columns=4)",
    "dots_and_boxes": "dots_and_boxes(num_rows=2,num_cols=2)",
    "go": "go(board_size=5)",
    "gomoku": "gomoku(size=5,connect=4)",
    "havannah": "havannah(board_size=3)",
    "hex": "hex(board_size=4)",
    "mnk": "mnk(m=4,n=4,k=3)",
    "quoridor": "quoridor(board_size=5)",
    "twixt": "twixt(board_size=5)",
    "y": "y(board_size=5)",
}
"""Smaller parameters for games whose default board makes a slow test."""

SKIPPED = {
    "cursor_go": "a turn is a walk of up to 100 cursor moves: its whole turns cannot be listed",
}
"""Eligible games the suite leaves out, with the reason."""

ELIGIBLE = sorted(
    game.short_name
    for game in pyspiel.registered_games()
    if not lacks(game, 2 if game.min_num_players <= 2 <= game.max_num_players else 0)
)


def test_the_registry_walk_finds_the_games_zerosum_knows() -> None:
    assert {"hex", "breakthrough", "chess", "connect_four", "dots_and_boxes"} <= set(ELIGIBLE)
    assert "kuhn_poker" not in ELIGIBLE and "goofspiel" not in ELIGIBLE


@pytest.mark.parametrize("short", ELIGIBLE)
def test_every_eligible_pyspiel_game_conforms(short: str) -> None:
    if short in SKIPPED:
        pytest.skip(SKIPPED[short])
    check_game(get_game(f"openspiel:{SMALL.get(short, short)}"), playouts=3, max_plies=60, seed=3)


SOLVABLE = [
    "tic_tac_toe",
    "hex(board_size=3)",
    "nim(pile_sizes=1;2;3)",
    "mnk(m=3,n=4,k=3)",
    "clobber(rows=3,columns=3)",
    "clobber(rows=2,columns=4)",
    "breakthrough(rows=3,columns=3)",
    "dots_and_boxes(num_rows=1,num_cols=2)",
]
"""Games OpenSpiel's alpha-beta solves in well under a second (default nim takes it 2 minutes)."""


@pytest.mark.parametrize("name", SOLVABLE)
def test_small_games_solve_to_openspiels_values(name: str) -> None:
    game = pyspiel.load_game(name)
    value, _ = minimax.alpha_beta_search(game, maximizing_player_id=0)
    ours = solve(get_game(f"openspiel:{name}").new())
    assert ours.solved
    assert (ours.value > 0) - (ours.value < 0) == value


@pytest.mark.slow
@pytest.mark.parametrize("name", ["breakthrough(rows=4,columns=4)", "nim"])
def test_larger_games_solve_to_their_known_values(name: str) -> None:
    """Values OpenSpiel's alpha-beta takes minutes over (nim: 113 s here); known results."""
    expected = {"breakthrough(rows=4,columns=4)": 1, "nim": -1}[name]
    ours = solve(get_game(f"openspiel:{name}").new())
    assert ours.solved and (ours.value > 0) - (ours.value < 0) == expected


def _lockstep(fast: Any, slow: Any, depth: int) -> int:
    """Walk every line to ``depth`` in both games at once; both must agree at every node."""
    assert fast.position() == slow.position()
    assert fast.render() == slow.render() and fast.key() == slow.key()
    assert fast.legal_moves() == slow.legal_moves() and fast.outcome() == slow.outcome()
    if depth == 0 or fast.outcome() is not None:
        return 1
    total = 0
    for move in fast.legal_moves():
        fast.make(move)
        slow.make(move)
        total += _lockstep(fast, slow, depth - 1)
        fast.undo()
        slow.undo()
    return total


@pytest.mark.parametrize("short", sorted(UNDO_GAMES))
def test_games_undone_in_place_agree_with_the_clone(short: str) -> None:
    spec = get_game(f"openspiel:{SMALL.get(short, short)}")
    fast = spec.new()
    assert fast.rules.in_place
    slow = OpenSpielGame(dataclasses.replace(fast.rules, in_place=False))
    assert _lockstep(fast, slow, 3) > 100
    # A copy taken in the middle of a line owns its state: the two go on independently.
    for move in fast.legal_moves()[:1]:
        fast.make(move)
        slow.make(move)
    twin = fast.copy()
    twin.make(twin.legal_moves()[0])
    assert _lockstep(fast, slow, 2) > 1
    twin.undo()
    twin.undo()
    assert twin.position() == "" and twin.render() == spec.new().render()
    check_game(spec, playouts=5, max_plies=80, seed=5)
