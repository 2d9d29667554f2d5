"""The node-count signature: a fixed search over fixed positions, as Stockfish's ``bench``.

Node counts of a deterministic search are a fingerprint of its behaviour: a change to the
search that should not alter what it visits must leave the signature unchanged, and a change
that prunes more shows up as a smaller number. Every search change quotes the signature before
and after. Times and nodes per second are reported too, but they vary with the machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from zerosum.engines import COMPILED, open_engine
from zerosum.game import play_moves
from zerosum.games import GAMES, get_game
from zerosum.search import Limit

DEFAULT_POSITIONS: Final = (("", 4),)
"""What a game named on the command line without bench positions of its own searches."""


@dataclass(frozen=True)
class BenchRow:
    game: str
    moves: str
    depth: int
    algorithm: str
    nodes: int
    time_s: float
    value: int


def bench(games: list[str] | None = None, *, algorithm: str = "engine") -> Iterator[BenchRow]:
    """Search every bench position (:attr:`GameSpec.bench`) of ``games`` with a fresh engine
    each: by default every registered game that has bench positions (and, for ``algorithm``
    ``"compiled"``, a kernel)."""
    if games is None:
        games = [
            name
            for name, spec in GAMES.items()
            if spec.bench and (algorithm != COMPILED or spec.kernel is not None)
        ]
    for name in games:
        spec = get_game(name)
        for moves, depth in spec.bench or DEFAULT_POSITIONS:
            game = spec.new()
            game.evaluate()  # let lazily built tables fill before the clock starts
            play_moves(game, [text for word in moves.split() for text in spec.split_moves(word)])
            with open_engine(spec, algorithm, hash_mb=16) as engine:
                if algorithm == COMPILED:
                    engine.search(game, Limit(depth=1))  # load the compiled code first
                    engine.reset()
                result = engine.search(game, Limit(depth=depth))
            yield BenchRow(
                name,
                moves,
                depth,
                algorithm,
                result.stats.nodes,
                result.stats.time_s,
                result.value,
            )
