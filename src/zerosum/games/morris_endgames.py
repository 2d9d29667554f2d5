"""The endgame databases seen from a morris game: exact results and best moves.

The databases assume the solved game's rules: infinite play is a draw, with no move limit. They
answer for a game of the standard board with flying on whenever nothing is in hand and each side
has 3..6 men (the classes stored). :func:`solve_endgame` always gives the solved game's
answer; the search's probe (:mod:`zerosum.endgames.probe`, which the game imports, so this
module may import the game) answers a game with a move limit only when the moves to the end
fit in what is left of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zerosum.endgames import MAX_MEN
from zerosum.endgames.database import EndgameResult, Endgames, Setup, covered
from zerosum.endgames.mapped import write_probe_file
from zerosum.endgames.probe import MIN_MEN, default_endgames, solved_rules
from zerosum.game import WIN, Outcome, Score
from zerosum.games.morris import Morris

__all__ = [
    "MIN_MEN",
    "Solution",
    "applies",
    "best_of",
    "default_endgames",
    "needed_class",
    "preference",
    "probe",
    "score",
    "setup_of",
    "solve_endgame",
    "solved_rules",
    "standard_rules",
    "write_probe_file",
]


def standard_rules(game: Morris) -> bool:
    """Whether ``game`` plays on the board the databases were built for, flying on."""
    return solved_rules(game.rules)


def setup_of(game: Morris) -> Setup:
    hands = (game.in_hand(0), game.in_hand(1))
    return Setup(game.men(0), game.men(1), game.side_to_move() == 0, hands)


def applies(game: Morris, *, max_men: int = MAX_MEN) -> bool:
    """Whether the databases (up to ``max_men`` a side) decide ``game``'s position."""
    return standard_rules(game) and covered(setup_of(game), max_men=max_men)


def score(result: EndgameResult) -> Score:
    """The result as a score in the project's convention (``WIN - moves`` for a win)."""
    if result.moves_to_end is None:
        return 0
    return int(result.outcome) * (WIN - result.moves_to_end)


def _after_move(result: EndgameResult) -> EndgameResult:
    """The mover's result, given its move leads to ``result`` for the opponent."""
    if result.moves_to_end is None:
        return result
    return EndgameResult(Outcome(-int(result.outcome)), result.moves_to_end + 1)


def preference(result: EndgameResult) -> tuple[int, int]:
    """Orders results as a player prefers them: a sooner win, any win, a draw, a later loss."""
    if result.moves_to_end is None:
        return (0, 0)
    if result.outcome is Outcome.WIN:
        return (1, -result.moves_to_end)
    return (-1, result.moves_to_end)


def best_of(results: list[EndgameResult]) -> EndgameResult:
    """The value of a position whose moves lead to ``results`` (the mover's results after
    each): the best of them, or a loss in 0 moves when there is no move."""
    if not results:
        return EndgameResult(Outcome.LOSS, 0)
    return max(results, key=preference)


@dataclass(frozen=True)
class Solution:
    """A position's exact result with every move's result."""

    result: EndgameResult
    moves: tuple[tuple[Any, EndgameResult], ...]
    """Every legal move with the mover's result after it."""

    @property
    def best_moves(self) -> list[Any]:
        best = self.result
        return [move for move, result in self.moves if result == best]

    @property
    def consistent(self) -> bool:
        """Whether the stored result is the best of the moves' results (one-ply check)."""
        return self.result == best_of([result for _, result in self.moves])


def solve_endgame(game: Morris, endgames: Endgames) -> Solution:
    """The exact result of ``game`` (which :func:`applies`) and of each of its moves, from the
    databases (the classes must be stored; :meth:`Endgames.build` them first)."""
    mover = game.side_to_move()
    result = endgames.lookup(game.men(mover), game.men(mover ^ 1))
    moves = []
    for move in game.legal_moves():
        game.make(move)
        try:
            if game.men(mover ^ 1).bit_count() < MIN_MEN:
                after = EndgameResult(Outcome.WIN, 1)
            else:
                after = _after_move(endgames.lookup(game.men(mover ^ 1), game.men(mover)))
        finally:
            game.undo()
        moves.append((move, after))
    return Solution(result, tuple(moves))


def needed_class(game: Morris) -> tuple[int, int]:
    """The class of the position: the men of the side to move and of its opponent."""
    side = game.side_to_move()
    return game.men(side).bit_count(), game.men(side ^ 1).bit_count()


# -- the probe the search uses at its nodes ---------------------------------------------------


def probe(game: Morris, endgames: Endgames | None = None) -> tuple[Outcome, int] | None:
    """The exact outcome for the side to move and the moves to the end (0 for a draw), or
    ``None`` when the databases do not decide the position under ``game``'s rules: the game's
    own :meth:`~zerosum.games.morris.Morris.probe` (see :mod:`zerosum.endgames.probe`), with
    ``endgames`` instead of the default store if given."""
    return game.probe(endgames)
