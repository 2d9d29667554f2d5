"""The algorithms side by side: every row agrees on the value; stop ends the rows."""

from __future__ import annotations

import pytest

from zerosum.games import get_game
from zerosum.search import ALGORITHMS, UnknownAlgorithmError
from zerosum.search.compare import compare


def test_rows_for_every_algorithm_and_depth() -> None:
    game = get_game("tictactoe").new()
    game.make(game.parse_move("b2"))
    rows = list(compare(game, [1, 2, 3]))
    assert len(rows) == 3 * len(ALGORITHMS) * 4
    for depth in (1, 2, 3):
        at_depth = [row for row in rows if row.depth == depth]
        assert len({row.value for row in at_depth}) == 1
        assert all(row.complete for row in at_depth)
    minimax = {
        r.depth: r.stats.nodes for r in rows if r.algorithm == "minimax" and r.table == "none"
    }
    assert minimax[1] < minimax[2] < minimax[3]


def test_stop_ends_the_rows() -> None:
    game = get_game("connect4").new()
    rows = list(compare(game, [9], algorithms=["minimax"], stop=lambda: True))
    assert len(rows) == 1 and not rows[0].complete


def test_unknown_algorithm() -> None:
    with pytest.raises(UnknownAlgorithmError):
        list(compare(get_game("tictactoe").new(), [1], algorithms=["nope"]))
