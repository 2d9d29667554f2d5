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

from zerosum.compiled import KERNEL_GAMES
from zerosum.game import play_moves
from zerosum.games import GAMES, get_game
from zerosum.search import Limit, SearchResult, search

COMPILED_ENGINE: Final = "compiled"

POSITIONS: Final[dict[str, tuple[tuple[str, int], ...]]] = {
    "tictactoe": (("", 9), ("b2", 8), ("a1 b2", 7), ("b2 a1 c3", 6), ("a1 b1 b2", 4)),
    "connect4": (("", 8), ("4 4 5 3", 8), ("4 4 4 4 3 5", 7), ("3 4 4 5 5 2 6", 7)),
}
"""Per game: (moves from the start, depth). A game not listed is searched from the start."""

DEFAULT_POSITIONS: Final = (("", 4),)


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
    """Search every bench position of ``games`` (all registered games by default) with a
    fresh table each. ``algorithm`` ``"compiled"`` benches the compiled engine on the games
    that have a kernel."""
    if games is None and algorithm == COMPILED_ENGINE:
        games = [name for name in GAMES if name in KERNEL_GAMES]
    for name in games or list(GAMES):
        spec = get_game(name)
        for moves, depth in POSITIONS.get(name, DEFAULT_POSITIONS):
            game = spec.new()
            game.evaluate()  # let lazily built tables fill before the clock starts
            play_moves(game, [text for word in moves.split() for text in spec.split_moves(word)])
            result: SearchResult[object]
            if algorithm == COMPILED_ENGINE:
                from zerosum.compiled.solver import Solver  # numba: only when asked for

                solver = Solver(name, hash_mb=16)
                solver.search(game, limit=Limit(depth=1))  # load the compiled code first
                solver.engine.clear()
                result = solver.search(game, limit=Limit(depth=depth))
            else:
                result = search(game, algorithm=algorithm, limit=Limit(depth=depth))
            yield BenchRow(
                name,
                moves,
                depth,
                algorithm,
                result.stats.nodes,
                result.stats.time_s,
                result.value,
            )
