"""The endgame databases seen from a morris game: exact results, best moves, the search probe.

The databases assume the solved game's rules: infinite play is a draw, with no move limit. They
answer for a game of the standard board with flying on whenever nothing is in hand and each side
has 3..4 men. Repetition draws never change a database result (the winner's line never repeats
a position and any deviation of the loser loses sooner), and a move limit changes none whose
end comes within it; so :func:`probe` answers a game with a move limit only when the moves to
the end fit in what is left of it, and :func:`solve_endgame` always gives the solved game's answer.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Final

from zerosum.endgames import MAX_MEN
from zerosum.endgames.board import NINE_MENS_MORRIS
from zerosum.endgames.database import (
    ENV_STORE,
    EndgameError,
    EndgameResult,
    Endgames,
    Setup,
    covered,
    default_path,
)
from zerosum.game import WIN, Outcome, Score
from zerosum.games.morris import Morris
from zerosum.games.morris_rules import Rules

MIN_MEN: Final = 3


def standard_rules(game: Morris) -> bool:
    """Whether ``game`` plays on the board the databases were built for, flying on."""
    return _standard(game.rules)


def _standard(rules: Rules) -> bool:
    return solved_rules(rules)


def solved_rules(rules: Rules) -> bool:
    """Whether ``rules`` are those the databases were built for (the board, flying on)."""
    return (
        rules.flying
        and rules.points == NINE_MENS_MORRIS.points
        and sorted(rules.mills) == sorted(NINE_MENS_MORRIS.mill_masks)
        and rules.adjacent == NINE_MENS_MORRIS.neighbours
    )


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

_OPENED: dict[str | None, Endgames | None] = {}
_STANDARD: dict[int, tuple[Rules, bool]] = {}
"""Per rules object (by identity, kept alive here): whether it is the databases' game."""


def default_endgames() -> Endgames | None:
    """The databases in the default store, opened once per process (and per value of
    ``$ZEROSUM_ENDGAMES``); ``None`` when there is no store file (the search never builds)."""
    chosen = os.environ.get(ENV_STORE)
    if chosen not in _OPENED:
        try:
            _OPENED[chosen] = Endgames(default_path(), create=False)
        except EndgameError:
            _OPENED[chosen] = None
    return _OPENED[chosen]


def probe(game: Morris, endgames: Endgames | None = None) -> tuple[Outcome, int] | None:
    """The exact outcome for the side to move and the moves to the end (0 for a draw), or
    ``None`` when the databases do not decide the position under ``game``'s rules.

    Uses ``endgames`` or else the default store (never building anything). Called at every
    node of a morris search, so the common refusals come first and cost little.
    """
    if game.in_hand(0) or game.in_hand(1):
        return None
    side = game.side_to_move()
    mine, theirs = game.men(side), game.men(side ^ 1)
    x, y = mine.bit_count(), theirs.bit_count()
    if x < MIN_MEN or x > MAX_MEN or y < MIN_MEN or y > MAX_MEN:
        return None
    rules = game.rules
    known = _STANDARD.get(id(rules))
    if known is None or known[0] is not rules:
        known = _STANDARD[id(rules)] = (rules, _standard(rules))
    if not known[1]:
        return None
    if endgames is None:
        endgames = default_endgames()
        if endgames is None:
            return None
    code = endgames.code(mine, theirs)
    if code is None:
        return None
    if code == 0:
        return Outcome.DRAW, 0
    moves = code - 1
    limit = rules.move_limit
    if limit is not None and game.quiet_moves() + moves > limit:
        return None
    return (Outcome.WIN if moves % 2 else Outcome.LOSS), moves
