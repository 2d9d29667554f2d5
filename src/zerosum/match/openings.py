"""Opening books for matches: a few short, sound openings per game so that games differ.

A match plays each opening twice, once with each player moving first, so an opening that
favours one side favours both players equally. Games without a built-in book get openings made
of seeded random legal moves (:func:`random_openings`).

Sequential tests (``zerosum match --sprt``) need many more openings, each close to level, so
that a pair of games measures the players rather than the opening: chess ships such a book,
``data/openings.epd`` (:func:`balanced_openings`), made by ``benchmarks/make_openings.py``
from moves Stockfish rates near its best and final positions it scores within half a pawn of
equality (see docs/matches.md). Its lines are EPD with the moves from the start in the ``c0``
field, which is what a match replays.
"""

from __future__ import annotations

import random
import shlex
from dataclasses import dataclass
from importlib import resources

from zerosum.game import ZerosumError
from zerosum.games import get_game

BALANCED_BOOKS = {"chess": "openings.epd"}
"""The balanced book of each game that has one, a file in ``zerosum/match/data``."""


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


class BookError(ZerosumError, ValueError):
    """An opening book line that cannot be read."""


def parse_epd_book(text: str, *, source: str = "book") -> list[Opening]:
    """The openings of an EPD book whose lines carry their moves from the start in ``c0``
    (UCI notation) and their name in ``id``; blank lines and ``#`` comments are skipped.
    The positions themselves are not read: the moves are what a match replays."""
    openings = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = {}
        for operation in line.split(";"):
            words = shlex.split(operation)
            if len(words) >= 2:
                fields[words[-2]] = words[-1]
        if "c0" not in fields:
            raise BookError(f"{source} line {number}: expected the moves in a c0 field")
        name = fields.get("id", f"{source} {number}")
        openings.append(Opening(name, tuple(fields["c0"].split())))
    return openings


def balanced_openings(game: str, *, seed: int = 0) -> list[Opening]:
    """The openings of a sequential test of ``game``, in an order drawn from ``seed``: its
    shipped balanced book (chess), else its ordinary openings (:func:`openings_for`)."""
    name = BALANCED_BOOKS.get(get_game(game).name)
    if name is None:
        openings = openings_for(game, seed=seed)
    else:
        text = resources.files("zerosum.match").joinpath("data", name).read_text(encoding="utf-8")
        openings = parse_epd_book(text, source=name)
    random.Random(f"balanced/{game}/{seed}").shuffle(openings)
    return openings
