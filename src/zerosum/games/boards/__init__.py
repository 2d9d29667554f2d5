"""Boards drawn as SVG, as the web app draws them: what a game state shows in Jupyter.

A drawer turns a :class:`BoardState` (the game's name, its position in the game's own position
format, the last move) into a standalone SVG document. Drawers are found by a game's
``GameSpec.board`` kind, the same key the web app picks its board script by, so a plugin whose
positions are written like a built-in game's can name that game's board. ``generic`` (and any
kind without a drawer here) draws the game's text rendering.

The drawers read only the position text, never a game object: they stay below the game modules
(which call them from ``_repr_svg_``) and draw any position a front end can name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from zerosum.games.boards import connect4, generic, morris, tictactoe


@dataclass(frozen=True)
class BoardState:
    """What a board drawing shows."""

    game: str
    """The game's registry name, variant options included (``morris:six``)."""
    position: str
    """The position in the game's position format."""
    text: str = ""
    """The game's own text drawing (``render()``), for the generic board."""
    last_move: str | None = None
    """The move that led here, in the game's notation (marked on the board), if known."""
    sides: tuple[str, str] = ("White", "Black")
    """The players' names."""


Drawer = Callable[[BoardState], str]


def _chess(state: BoardState) -> str:
    from zerosum.games.boards import chess  # python-chess: only to draw a chess board

    return chess.draw(state.position, last=state.last_move)


BOARDS: Final[dict[str, Drawer]] = {
    "tictactoe": lambda s: tictactoe.draw(s.position, last=s.last_move),
    "connect4": lambda s: connect4.draw(s.position),
    "morris": lambda s: morris.draw(s.position, game=s.game, last=s.last_move, sides=s.sides),
    "chess": _chess,
    "generic": lambda s: generic.draw(s.text or s.position, label=f"{s.game} board"),
}
"""The drawer of each board kind (``GameSpec.board``)."""


def draw_board(kind: str, state: BoardState) -> str:
    """The SVG of ``state`` drawn as a ``kind`` board (the generic text board for a kind with
    no drawer)."""
    return BOARDS.get(kind, BOARDS["generic"])(state)


__all__ = ["BOARDS", "BoardState", "Drawer", "draw_board"]
