"""Opening books for matches: a few short, sound openings per game so that games differ.

A match plays each opening twice, once with each player moving first, so an opening that
favours one side favours both players equally. Games without a built-in book get openings made
of seeded random legal moves (:func:`random_openings`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from zerosum.games import get_game


@dataclass(frozen=True)
class Opening:
    """A named sequence of moves from the start, in the game's notation."""

    name: str
    moves: tuple[str, ...]


START = Opening("start", ())
"""No opening: every game starts from the initial position."""


def random_openings(game: str, count: int, *, plies: int = 2, seed: int = 0) -> list[Opening]:
    """``count`` distinct openings of ``plies`` random legal moves (fewer when the game has
    fewer), none of them ending the game; the same ``seed`` gives the same openings."""
    spec = get_game(game)
    rng = random.Random(f"openings/{game}/{seed}")
    found: dict[tuple[str, ...], None] = {}
    for _ in range(count * 20):
        position = spec.new()
        moves: list[str] = []
        while len(moves) < plies and position.outcome() is None:
            move = rng.choice(position.legal_moves())
            moves.append(position.format_move(move))
            position.make(move)
        if position.outcome() is None:
            found.setdefault(tuple(moves))
        if len(found) == count:
            break
    return [Opening(f"random {' '.join(moves)}", moves) for moves in found]


def openings_for(game: str, *, book: bool = True, seed: int = 0) -> list[Opening]:
    """The openings a match of ``game`` cycles through: its spec's book if it has one,
    else eight random ones; only the start position when ``book`` is false."""
    if not book:
        return [START]
    entries = get_game(game).openings
    if entries:
        return [Opening(name, tuple(moves.split())) for name, moves in entries]
    return random_openings(game, 8, seed=seed) or [START]
