"""A game whose engine takes seconds to load, as a compiled engine does on its first use:
tic-tac-toe under another name, registered at run time by importing this module. The search
processes of the web app import this module too (as they import every module that registered
a game), and there its engine's load (``zerosum.web.jobs._load``) sleeps ``LOAD_SECONDS``."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from zerosum.games import get_game, register
from zerosum.games.tictactoe import TicTacToe
from zerosum.web import jobs

LOAD_SECONDS = 5.0


class SlowToe(TicTacToe):
    name = "slowtoe"


SPEC = register(
    dataclasses.replace(
        get_game("tictactoe"),
        name="slowtoe",
        title="Tic-tac-toe with a slow engine",
        new=SlowToe,
        from_position=SlowToe.from_position,
        kernel=None,
        openings=(),
        bench=(),
        board="generic",
    ),
    replace=True,
)

_load = jobs._load


def _slow_load(engine: Any, game: Any) -> None:
    if getattr(game, "name", None) == "slowtoe":
        time.sleep(LOAD_SECONDS)
    _load(engine, game)


jobs._load = _slow_load  # in the search processes: this game's engine loads slowly
