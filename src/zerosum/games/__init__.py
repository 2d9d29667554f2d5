"""The registry of games: front ends list and build games only through it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zerosum.game import Game, ZerosumError
from zerosum.games.chess import Chess
from zerosum.games.connect4 import Connect4, split_moves
from zerosum.games.tictactoe import TicTacToe


class UnknownGameError(ZerosumError, KeyError):
    """A game name that is not in the registry."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class GameSpec:
    """How to create one registered game."""

    name: str
    """The registry name used on the command line."""
    title: str
    """A human-readable title."""
    new: Callable[[], Game[Any]]
    """The starting position."""
    from_position: Callable[[str], Game[Any]]
    """The position written in the game's position format (raises PositionError)."""
    position_format: str
    """One line that describes the position format, for help and error messages."""
    sides: tuple[str, str]
    """The names of the first and the second player."""
    levels: tuple[int, ...]
    """Search depth of each playing strength, weakest first; 0 means a perfect (solving) player."""
    split_moves: Callable[[str], list[str]] = str.split
    """Splits one command-line word into move texts (connect four reads ``4453`` as 4 moves)."""
    move_names: tuple[str, ...] = ()
    """Every move a position may offer, for tables that also show the unavailable ones."""
    default_level: int = 0
    """The level ``play`` starts at (1-based; 0 means the top level)."""
    solver: str = "engine"
    """The algorithm ``zerosum solve`` uses unless told otherwise."""
    analyzer: str = "engine"
    """The algorithm ``zerosum analyze`` and ``play`` use unless told otherwise."""
    """Every move a position may offer, for tables that also show the unavailable ones."""


GAMES: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        GameSpec(
            name="tictactoe",
            title="Tic-tac-toe",
            new=TicTacToe,
            from_position=TicTacToe.from_position,
            position_format="9 of x/o/. row by row from the top left, e.g. 'x.o/.x./..o'",
            sides=("X", "O"),
            levels=(1, 2, 3, 4, 0),
        ),
        GameSpec(
            name="connect4",
            title="Connect four",
            new=Connect4,
            from_position=Connect4.from_position,
            position_format="the columns played from the empty board, digits 1-7, e.g. '4453'",
            sides=("X", "O"),
            levels=(2, 4, 8, 14, 0),
            default_level=4,
            solver="compiled",
            split_moves=split_moves,
            move_names=tuple("1234567"),
        ),
        GameSpec(
            name="chess",
            title="Chess",
            new=Chess,
            from_position=Chess.from_position,
            position_format=(
                "FEN, e.g. 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'"
            ),
            sides=("White", "Black"),
            levels=(1, 2, 3, 4, 5),
            default_level=4,
            analyzer="tactical",
        ),
    )
}


def get_game(name: str) -> GameSpec:
    """The registered game ``name``; raises :class:`UnknownGameError` listing the known ones."""
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise UnknownGameError(f"unknown game {name!r}: expected one of {known}") from None
