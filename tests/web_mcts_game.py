"""A game whose player is MCTS, registered at run time by importing this module: tic-tac-toe
under another name with ``player="mcts"``, for the web app's tests of the play engine (the
search processes import this module too, as they import every module that registered a game)."""

from __future__ import annotations

import dataclasses

from zerosum.games import get_game, register
from zerosum.games.tictactoe import TicTacToe


class MctsToe(TicTacToe):
    name = "mctstoe"


SPEC = register(
    dataclasses.replace(
        get_game("tictactoe"),
        name="mctstoe",
        title="Tic-tac-toe played by MCTS",
        new=MctsToe,
        from_position=MctsToe.from_position,
        kernel=None,
        player="mcts",
        levels=(1, 3, 0),
        default_level=2,
        openings=(),
        bench=(),
        board="generic",
    ),
    replace=True,
)
