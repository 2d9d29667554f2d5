"""The game protocol: what a game must offer for zerosum to play, search and solve it.

A game is a mutable position with a move history. The search drives it with ``make`` and
``undo`` only, so a game can keep its Zobrist key (and, if it likes, its evaluation)
incrementally, as the seeds' ``AdvBoard`` / ``ExtendedBoard`` do.

Conventions (``mission.md``):

* Every score is from the point of view of the side to move.
* A won terminal position scores ``WIN - ply``, a lost one ``-(WIN - ply)``, a draw 0, where
  ``ply`` is the distance from the root of the search, so sooner wins score higher and later
  losses score higher than sooner ones. The search applies this adjustment; a game only reports
  its :class:`Outcome`.
* Heuristic scores (:meth:`Game.evaluate`) stay strictly inside ``(-HEURISTIC_LIMIT,
  HEURISTIC_LIMIT)``, so they never look like a proven result.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import Any, Final, Protocol, Self, TypeVar, runtime_checkable

Score = int
"""A score in centi-units from the side to move's point of view."""

WIN: Final[Score] = 1_000_000
"""The score of an immediate win; a win ``n`` plies away scores ``WIN - n``."""

MAX_PLY: Final[int] = 1_000
"""No search goes deeper than this many plies."""

HEURISTIC_LIMIT: Final[Score] = WIN - MAX_PLY
"""Heuristic scores lie strictly inside ``(-HEURISTIC_LIMIT, HEURISTIC_LIMIT)``."""

INFINITY: Final[Score] = WIN + 1
"""Larger than every score: the initial window is ``(-INFINITY, INFINITY)``."""


class Outcome(IntEnum):
    """The result of a finished game for the side to move."""

    LOSS = -1
    DRAW = 0
    WIN = 1


def terminal_score(outcome: Outcome, ply: int) -> Score:
    """The depth-adjusted score of a finished position ``ply`` plies below the root."""
    return int(outcome) * (WIN - ply)


def is_proven(score: Score) -> bool:
    """Whether ``score`` is a proven win or loss rather than a heuristic estimate."""
    return abs(score) >= HEURISTIC_LIMIT


class ZerosumError(Exception):
    """Base of every error that zerosum raises for bad input."""


class MoveError(ZerosumError, ValueError):
    """A move that is malformed or not legal in the position."""


class PositionError(ZerosumError, ValueError):
    """A position string that is malformed or describes an impossible position."""


class ProtocolError(ZerosumError):
    """A game that breaks the protocol: the message names the game, the position and the rule
    of :class:`Game` it broke."""


M = TypeVar("M")


class Game(Protocol[M]):
    """A two-player zero-sum game of perfect information, seen from the side to move.

    ``M`` is the game's move type (an ``int`` for tic-tac-toe). The search drives a game with
    :meth:`make` and :meth:`undo` only and trusts it to keep these rules, which the
    conformance suite (``zerosum.testing.check_game``) checks on random playouts of every
    registered game; the search raises :class:`ProtocolError` where it meets a broken one.

    1. **Over exactly when stuck.** :meth:`legal_moves` is empty exactly when :meth:`outcome`
       is not ``None``: a position with no legal moves is over, so a game where a player may
       have to pass must offer the pass as a move.
    2. **Make and undo.** :meth:`make` of a legal move increments :meth:`ply` and flips
       :meth:`side_to_move`; :meth:`undo` restores :meth:`position`, :meth:`key`, the side to
       move and the ply exactly.
    3. **Keys.** :meth:`key` equals :meth:`compute_key` after every make and undo.
    4. **Evaluation.** :meth:`evaluate` equals :meth:`compute_evaluation` and lies strictly
       inside ``(-HEURISTIC_LIMIT, HEURISTIC_LIMIT)``.
    5. **Moves.** Moves are hashable and compare equal when they are the same move (the search
       keeps them in tables); ``parse_move(format_move(m)) == m`` for every legal ``m``, and a
       malformed or illegal text raises :class:`MoveError`.
    6. **Positions.** :meth:`position` round-trips through the game's registered
       ``from_position`` (same position, side to move and key).
    7. **Copies.** :meth:`copy` is independent of the original: moves made on one leave the
       other as it was.
    8. **Pickling.** The game object pickles, and its class is importable by module name:
       worker processes receive the game that way.

    Optional capabilities (:mod:`zerosum.capabilities`: tactical moves, checks, rule draws,
    the null move, an endgame :class:`Probing`) let an engine do more; a game without them is
    searched all the same.
    """

    name: str
    """The registry name, e.g. ``"tictactoe"``."""

    def legal_moves(self) -> list[M]:
        """Every legal move, in the game's natural order; empty exactly when the game is over."""
        ...

    def make(self, move: M) -> None:
        """Play ``move``, which must be legal (unchecked: this is the search's hot path)."""
        ...

    def undo(self) -> None:
        """Take back the last move made; restores the position, key, side and ply exactly."""
        ...

    def side_to_move(self) -> int:
        """0 if the first player is to move, 1 for the second."""
        ...

    def outcome(self) -> Outcome | None:
        """The result for the side to move if the game is over, else ``None``."""
        ...

    def evaluate(self) -> Score:
        """A heuristic score from the side to move, inside ``(-HEURISTIC_LIMIT, HEURISTIC_LIMIT)``.

        A game that keeps its evaluation incrementally returns it here in O(1); the search calls
        only this method.
        """
        ...

    def compute_evaluation(self) -> Score:
        """The same value as :meth:`evaluate`, computed from scratch (the test oracle)."""
        ...

    def key(self) -> int:
        """The 64-bit Zobrist key of the position, maintained incrementally by make/undo."""
        ...

    def compute_key(self) -> int:
        """The same key as :meth:`key`, computed from scratch (the test oracle)."""
        ...

    def copy(self) -> Self:
        """An independent copy of the position and its history."""
        ...

    def ply(self) -> int:
        """How many moves have been made since the start of the game."""
        ...

    def parse_move(self, text: str) -> M:
        """The legal move written ``text`` in the game's notation.

        Raises :class:`MoveError` naming the move and what was expected when ``text`` is
        malformed or not legal here.
        """
        ...

    def format_move(self, move: M) -> str:
        """``move`` in the game's notation."""
        ...

    def position(self) -> str:
        """The position in the game's position format (round-trips through the registered
        ``from_position``)."""
        ...

    def render(self) -> str:
        """A multi-line drawing of the board for a terminal."""
        ...


Probe = Callable[[], tuple[Outcome, int] | None]
"""An exact oracle for the position: its outcome for the side to move and the plies to the end
(0 for a draw), or ``None`` when it does not know."""


@runtime_checkable
class Probing(Protocol):
    """The optional capability of a game with an exact oracle for some positions (an endgame
    database, say); the others are in :mod:`zerosum.capabilities`.

    The search scores every position the probe answers instead of searching below it, as
    ``terminal_score`` scores a finished one. It must be exact under the game's own rules, and
    cheap when it does not know: it is asked at every node.
    """

    def probe(self) -> tuple[Outcome, int] | None:
        """The outcome for the side to move and the plies to the end (0 for a draw), or
        ``None`` when the probe does not decide the position."""
        ...


def probe_of(game: Game[Any]) -> Probe | None:
    """The game's :meth:`Probing.probe`, or ``None`` for a game without one."""
    return game.probe if isinstance(game, Probing) else None


def no_moves_error(game: Game[Any]) -> ProtocolError:
    """The error for a position with no legal moves that is not over (rule 1 of :class:`Game`).

    The search raises it where it finds an empty move list at a node it did not find over, so
    the check costs nothing on the search's hot path.
    """
    return ProtocolError(
        f"the {game.name} position {game.position()!r} has no legal moves but is not over: "
        "a position with no legal moves must be over (a pass is a move)"
    )


def outcome_without_moves(game: Game[Any]) -> Outcome:
    """The outcome of ``game`` at a position where it has no legal move, which must be over.

    Raises :class:`ProtocolError` (see :func:`no_moves_error`) when the game says it is not.
    """
    outcome = game.outcome()
    if outcome is None:
        raise no_moves_error(game)
    return outcome


def play_moves(game: Game[M], texts: Sequence[str]) -> None:
    """Play moves written in the game's notation, checking each one.

    Raises :class:`MoveError` naming the first bad move and its position in the sequence.
    """
    for index, text in enumerate(texts, start=1):
        try:
            move = game.parse_move(text)
        except MoveError as error:
            raise MoveError(f"move {index} ({text!r}): {error}") from None
        game.make(move)


def random_playout(game: Game[M], rng: random.Random, max_plies: int = MAX_PLY) -> int:
    """Play random legal moves until the game ends; returns the number of moves made.

    Raises :class:`ProtocolError` at a position with no legal moves that is not over.
    """
    made = 0
    while made < max_plies and game.outcome() is None:
        moves = game.legal_moves()
        if not moves:
            raise no_moves_error(game)
        game.make(rng.choice(moves))
        made += 1
    return made
