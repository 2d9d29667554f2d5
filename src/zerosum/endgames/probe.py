"""The probe a morris search asks at every node: the databases' exact result, when they decide.

This is the part of the endgames that the game itself needs (``Morris.probe``, the game's
:class:`~zerosum.game.Probing` capability), so it imports no game module: the dependencies go
one way, ``games.morris_endgames`` (results and best moves for a ``Morris``) ->
``games.morris`` -> ``endgames.probe`` -> ``endgames.database``. The rules type is imported
for mypy only, from ``games.morris_rules``.

Trade-off: the databases need numpy and SQLite, which a game should not pay for at import
(``zerosum games`` lists the games without numpy). So :mod:`zerosum.endgames.database` is
imported when a probe first needs the store, and positions the databases never decide (men in
hand, more than ``MAX_MEN`` a side, another board) are refused before that.

The databases assume the solved game's rules: infinite play is a draw, with no move limit.
Repetition draws never change a database result (the winner's line never repeats a position
and any deviation of the loser loses sooner), and a move limit changes none whose end comes
within it; so :func:`probe_men` answers a game with a move limit only when the moves to the end
fit in what is left of it.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Final

from zerosum.endgames import ENV_STORE, MAX_MEN
from zerosum.endgames.board import NINE_MENS_MORRIS
from zerosum.endgames.probe_file import announce_unusable
from zerosum.game import Outcome

if TYPE_CHECKING:
    from zerosum.endgames.database import Endgames
    from zerosum.games.morris_rules import Rules

MIN_MEN: Final = 3


def solved_rules(rules: Rules) -> bool:
    """Whether ``rules`` are those the databases were built for (the board, flying on)."""
    return (
        rules.flying
        and rules.points == NINE_MENS_MORRIS.points
        and sorted(rules.mills) == sorted(NINE_MENS_MORRIS.mill_masks)
        and rules.adjacent == NINE_MENS_MORRIS.neighbours
    )


_OPENED: dict[str | None, Endgames | None] = {}
_STANDARD: dict[int, tuple[Rules, bool]] = {}
"""Per rules object (by identity, kept alive here): whether it is the databases' game."""


def default_endgames() -> Endgames | None:
    """The databases in the default store, opened once per process (and per value of
    ``$ZEROSUM_ENDGAMES``); ``None`` when there is no store file (the search never builds), or
    when the file cannot be read (reported once: :func:`.probe_file.announce_unusable`)."""
    chosen = os.environ.get(ENV_STORE)
    if chosen not in _OPENED:
        # Imported here, not above: numpy and SQLite only once a probe needs the store.
        from zerosum.endgames.database import EndgameError, Endgames, default_path

        path = default_path()
        try:
            _OPENED[chosen] = Endgames(path, create=False)
        except EndgameError as error:
            _OPENED[chosen] = None
            if path.exists():  # there, but damaged or unreadable: said, then left out
                announce_unusable(path, str(error))
    return _OPENED[chosen]


def _unreadable(endgames: Endgames, error: Exception) -> None:
    """The default store ``endgames`` failed while a probe read it: left out from now on
    (reported once), the probe answering as if it had no store."""
    for chosen, opened in list(_OPENED.items()):
        if opened is endgames:
            _OPENED[chosen] = None
    detail = str(error).splitlines()[0] if str(error) else type(error).__name__
    announce_unusable(endgames.path, f"cannot read {endgames.path}: {detail}")
    with contextlib.suppress(Exception):
        endgames.close()


def probe_men(
    rules: Rules,
    mine: int,
    theirs: int,
    moves_without_removal: int,
    endgames: Endgames | None = None,
) -> tuple[Outcome, int] | None:
    """The exact outcome for the side to move and the moves to the end (0 for a draw), or
    ``None`` when the databases do not decide the position under ``rules``.

    The position has nothing in hand: the side to move has the men ``mine`` (a bitboard), its
    opponent ``theirs``, after ``moves_without_removal`` moves in a row without a removal. Uses
    ``endgames`` or else the default store (never building anything). Called at every node of
    a morris search, so the common refusals come first and cost little.
    """
    x, y = mine.bit_count(), theirs.bit_count()
    if x < MIN_MEN or x > MAX_MEN or y < MIN_MEN or y > MAX_MEN:
        return None
    known = _STANDARD.get(id(rules))
    if known is None or known[0] is not rules:
        known = _STANDARD[id(rules)] = (rules, solved_rules(rules))
    if not known[1]:
        return None
    if endgames is None:
        endgames = default_endgames()
        if endgames is None:
            return None
        try:
            code = endgames.code(mine, theirs)
        except Exception as error:  # a damaged table of the default store: searched without it
            _unreadable(endgames, error)
            return None
    else:
        code = endgames.code(mine, theirs)
    if code is None:
        return None
    if code == 0:
        return Outcome.DRAW, 0
    moves = code - 1
    limit = rules.move_limit
    if limit is not None and moves_without_removal + moves > limit:
        return None
    return (Outcome.WIN if moves % 2 else Outcome.LOSS), moves
