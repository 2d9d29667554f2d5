"""Exact answers at the root from a game's optional probe (an endgame database, say).

The search scores probed positions at its nodes (:func:`zerosum.search.algorithms.leaf`); a
player that does not run that search (the compiled engine) asks :func:`probe_root` first, which
scores every root move one ply deep from the probe and the game's own terminal rule.
"""

from __future__ import annotations

from typing import TypeVar

from zerosum.game import Game, Score, no_moves_error, probe_of, terminal_score
from zerosum.search.core import probed_score

M = TypeVar("M")


def probe_root(game: Game[M]) -> tuple[Score, list[tuple[M, Score]]] | None:
    """The exact value of ``game`` and of every move, from its probe; ``None`` unless the
    probe decides the position and every position a move leads to (or that one is over).

    Raises :class:`~zerosum.game.ProtocolError` when the position has no legal move but is
    not over.
    """
    probe = probe_of(game)
    if probe is None or game.outcome() is not None or probe() is None:
        return None
    moves = game.legal_moves()
    if not moves:
        raise no_moves_error(game)
    scored: list[tuple[M, Score]] = []
    for move in moves:
        game.make(move)
        try:
            outcome = game.outcome()
            if outcome is not None:
                value = terminal_score(outcome, 1)
            else:
                exact = probe()
                if exact is None:
                    return None
                value = probed_score(*exact, 1)
        finally:
            game.undo()
        scored.append((move, -value))
    return max(value for _, value in scored), scored
