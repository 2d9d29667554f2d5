"""A game registered at run time by importing this module (not through an entry point): tic-tac-toe
under another name, as a program that defines its own game would register it."""

from __future__ import annotations

import dataclasses

from zerosum.games import get_game, register
from zerosum.games.tictactoe import TicTacToe


class Noughts(TicTacToe):
    name = "noughts"


SPEC = register(
    dataclasses.replace(
        get_game("tictactoe"),
        name="noughts",
        title="Noughts and crosses",
        new=Noughts,
        from_position=Noughts.from_position,
        kernel=None,
        openings=(),
        bench=(),
        board="generic",
    ),
    replace=True,
)
