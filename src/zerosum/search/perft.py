"""Perft: the number of move sequences of a given length, the classic check of a move generator.

:func:`perft` counts through the game protocol alone (``legal_moves``, ``make``, ``undo``), so
it works for every registered game, plugins included, and is the slow twin that the compiled
perfts of :mod:`zerosum.compiled.perft` are tested against. A game over (by any of its rules)
has no moves, so a line ends there: for chess that is standard perft except where a draw by
rule (threefold repetition, fifty moves, too little material) ends a line first.
"""

from __future__ import annotations

from typing import Any

from zerosum.game import Game


def perft(game: Game[Any], depth: int) -> int:
    """The number of legal move sequences of ``depth`` plies from ``game`` (1 for depth 0);
    the game is left as it was. Raises ``ValueError`` for a negative depth."""
    if depth < 0:
        raise ValueError(f"perft depth {depth} is out of range: expected 0 or more")
    if depth == 0:
        return 1
    moves = game.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        game.make(move)
        try:
            total += perft(game, depth - 1)
        finally:
            game.undo()
    return total
