"""Any game's board as SVG, for notebooks and reports: the built-in games draw their boards,
a plugin game gets the board its spec names (``GameSpec.board``) or its text drawing.

>>> from zerosum import get_game
>>> from zerosum.games.display import draw
>>> drawing = draw(get_game("connect4").from_position("4453"))
>>> drawing.svg.startswith("<svg")
True

In Jupyter a :class:`Drawing` shows itself as its SVG; the built-in game states need no
wrapper (they have ``_repr_svg_``), :func:`draw` is for games that do not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zerosum.game import Game
from zerosum.games import spec_of
from zerosum.games.boards import BoardState, draw_board


@dataclass(frozen=True)
class Drawing:
    """An SVG document that Jupyter displays."""

    svg: str
    """The SVG document."""
    label: str
    """What it shows, for its ``repr``."""

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return f"<Drawing of {self.label}>"


def board_svg(game: Game[Any]) -> str:
    """The board of ``game`` as SVG: the game's own ``_repr_svg_`` if it has one, else the
    drawer of its registered spec's board kind, else its ``render()`` text in a box."""
    own = getattr(game, "_repr_svg_", None)
    if callable(own):
        return str(own())
    spec = spec_of(game)
    name = spec.name if spec is not None else str(getattr(game, "name", type(game).__name__))
    state = BoardState(
        game=name,
        position=game.position(),
        text=game.render(),
        sides=spec.sides if spec is not None else ("first player", "second player"),
    )
    return draw_board(spec.board if spec is not None else "generic", state)


def draw(game: Game[Any]) -> Drawing:
    """The board of ``game`` (see :func:`board_svg`) as a value Jupyter displays."""
    spec = spec_of(game)
    title = spec.title if spec is not None else type(game).__name__
    return Drawing(board_svg(game), f"{title} {game.position()!r}")


__all__ = ["Drawing", "board_svg", "draw"]
