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


def _book(*entries: tuple[str, str]) -> tuple[Opening, ...]:
    return tuple(Opening(name, tuple(moves.split())) for name, moves in entries)


BOOKS: dict[str, tuple[Opening, ...]] = {
    # Every tic-tac-toe opening here is a draw with perfect play (checked by the tests).
    "tictactoe": _book(
        ("corner", "a1"),
        ("edge", "b1"),
        ("centre", "b2"),
        ("corner, centre", "a1 b2"),
        ("edge, centre", "b1 b2"),
        ("edge, corner", "b1 a1"),
        ("centre, corner", "b2 a1"),
    ),
    "connect4": _book(
        *((f"column {c}", c) for c in "1234567"),
        ("4 4", "4 4"),
        ("4 3", "4 3"),
        ("4 5", "4 5"),
        ("3 4", "3 4"),
        ("3 3", "3 3"),
        ("5 5", "5 5"),
        ("2 6", "2 6"),
    ),
    # Common chess openings in UCI notation, each a few moves deep.
    "chess": _book(
        ("Ruy Lopez", "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6"),
        ("Italian Game", "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5"),
        ("Sicilian Defence, Najdorf", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"),
        ("French Defence", "e2e4 e7e6 d2d4 d7d5 b1c3 g8f6"),
        ("Caro-Kann Defence", "e2e4 c7c6 d2d4 d7d5 b1c3 d5e4 c3e4"),
        ("Scandinavian Defence", "e2e4 d7d5 e4d5 d8d5 b1c3 d5a5"),
        ("Queen's Gambit Declined", "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6"),
        ("Slav Defence", "d2d4 d7d5 c2c4 c7c6 g1f3 g8f6"),
        ("King's Indian Defence", "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6"),
        ("Nimzo-Indian Defence", "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4"),
        ("English Opening", "c2c4 e7e5 b1c3 g8f6 g1f3 b8c6"),
        ("London System", "d2d4 d7d5 c1f4 g8f6 e2e3 e7e6 g1f3"),
    ),
}
"""The built-in books, by game name."""

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
    """The openings a match of ``game`` cycles through: the built-in book if there is one,
    else eight random ones; only the start position when ``book`` is false."""
    if not book:
        return [START]
    if game in BOOKS:
        return list(BOOKS[game])
    return random_openings(game, 8, seed=seed) or [START]
