"""Optional capabilities of a game: typed protocols beside :class:`zerosum.game.Game`.

A game written against the bare protocol is searched, solved and played as it is. A game that
knows more (which moves capture, whether a side is in check, an endgame database) says so by
implementing one of these protocols, and an engine that can use the knowledge checks for it by
type, once per search::

    if isinstance(game, Tactical):
        moves = game.tactical_moves() + game.quiet_moves()

Each protocol groups methods that only make sense together: a game implements one fully or
not at all. They are ``runtime_checkable``, so ``isinstance`` tests that every method is
present (not its signature: mypy checks that where a game is used as one, e.g. the checks at
the end of ``zerosum.games.chess``), and the methods' types are what mypy sees after the test.

Trade-off: ``isinstance`` against a runtime protocol costs a few microseconds, far too much for
a node of the search, so engines resolve capabilities once per search into bound methods (see
``zerosum.search.tactical.Capabilities``) and never test at a node.

Which engine uses what:

* :class:`Tactical`, :class:`QuiescenceMoves`, :class:`LosingCaptures`, :class:`Checks`,
  :class:`RuleDraws`, :class:`NullMove`, :class:`CorrectionKey` and :class:`MoveKeys`: the
  tactical search
  (``zerosum.search.tactical``);
  the web app shows :meth:`Checks.in_check`.
* :class:`RandomPlayouts`: MCTS's random playouts (``zerosum.engines.mcts``).
* :class:`MoveLabels`: the front ends (CLI, web app) show moves to people in its notation
  (SAN in chess) and keep :meth:`~zerosum.game.Game.format_move` for machines
  (``zerosum.formatting.move_label``).
* :class:`Probing`: every pure-Python search scores a probed position exactly, and the
  compiled engine's front ends ask it at the root (``zerosum.search.probing``). It is declared
  in ``zerosum.game`` (every search asks for it, and ``zerosum.game.probe_of`` is public) and
  re-exported here, so this module lists every capability.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar, runtime_checkable

from zerosum.game import Outcome, Probe, Probing, probe_of

__all__ = [
    "Checks",
    "CorrectionKey",
    "LosingCaptures",
    "MoveKeys",
    "MoveLabels",
    "NullMove",
    "Probe",
    "Probing",
    "QuiescenceMoves",
    "RandomPlayouts",
    "RuleDraws",
    "Tactical",
    "names_depend_on_position",
    "probe_of",
]

M = TypeVar("M")
M_contra = TypeVar("M_contra", contravariant=True)


@runtime_checkable
class Tactical(Protocol[M]):
    """A game whose moves come in two kinds: tactical (captures, promotions) and quiet.

    The two lists partition :meth:`~zerosum.game.Game.legal_moves` (as sets: the order may
    differ). The tactical search generates them lazily in stages, searches tactical moves past
    the horizon (quiescence) and reduces late quiet moves.
    """

    def tactical_moves(self) -> list[M]:
        """The legal moves that change the material balance, best first (MVV-LVA in chess)."""
        ...

    def quiet_moves(self) -> list[M]:
        """The legal moves that :meth:`tactical_moves` leaves out."""
        ...

    def is_quiet(self, move: M) -> bool:
        """Whether ``move``, legal here, is one of :meth:`quiet_moves`."""
        ...

    def is_legal(self, move: M) -> bool:
        """Whether ``move`` (a move of some position of this game: a table or killer move) is
        legal here; cheaper than looking for it in :meth:`~zerosum.game.Game.legal_moves`."""
        ...


@runtime_checkable
class QuiescenceMoves(Protocol[M]):
    """A :class:`Tactical` game that can leave out tactical moves too small to matter."""

    def quiescence_moves(self, margin: int) -> list[M]:
        """The tactical moves that may gain at least ``margin`` (centi-units) for the side to
        move, in :meth:`Tactical.tactical_moves` order; a subset of those moves."""
        ...


@runtime_checkable
class LosingCaptures(Protocol[M_contra]):
    """A :class:`Tactical` game that tells a capture losing material (by a static exchange
    evaluation in chess)."""

    def loses_material(self, move: M_contra) -> bool:
        """Whether ``move``, legal here, is a tactical move that loses material; the tactical
        search tries such moves after the quiet ones."""
        ...


@runtime_checkable
class Checks(Protocol[M_contra]):
    """A game with checks: a side may be in check, and a move may give one."""

    def in_check(self) -> bool:
        """Whether the side to move is in check (the search then extends and never stands
        pat; the web app shows it)."""
        ...

    def gives_check(self, move: M_contra) -> bool:
        """Whether ``move``, legal here, puts the opponent in check."""
        ...


@runtime_checkable
class RuleDraws(Protocol):
    """A game with draws by rule (repetition, move counters, material) it can tell cheaply.

    A game that has it promises that :meth:`drawn` and running out of moves are the only ways
    a game ends, so the tactical search stops asking :meth:`~zerosum.game.Game.outcome` at
    every node; without it, the search asks ``outcome`` at every node.
    """

    def drawn(self) -> bool:
        """Whether the position is a draw by rule whatever follows (0 for the search)."""
        ...


@runtime_checkable
class NullMove(Protocol):
    """A game where passing is a useful probe for the search (null-move pruning)."""

    def null_move_allowed(self) -> bool:
        """Whether passing here says something about the position (false in zugzwang-prone
        positions, such as king and pawns only in chess)."""
        ...

    def make_null(self) -> None:
        """Pass the move: flip the side to move and the key (search only, never legal)."""
        ...

    def undo_null(self) -> None:
        """Take back :meth:`make_null`, restoring the position and key exactly."""
        ...


@runtime_checkable
class CorrectionKey(Protocol):
    """A game whose positions share how far the evaluation is off by something that changes
    slowly (the pawns, in chess): the search learns a correction of its static evaluation per
    key (correction history, ``Options.correction_history``)."""

    def correction_key(self) -> int:
        """The key of the position's slow part and of its side to move, from 0 to
        ``CORRECTION_ENTRIES - 1`` of ``zerosum.search.tactical``."""
        ...


@runtime_checkable
class MoveKeys(Protocol[M_contra]):
    """A game whose moves have a small key each, such as the piece that moves and where it
    goes: the search learns which replies follow which moves well (continuation history,
    ``Options.continuation_history``)."""

    def move_key(self, move: M_contra) -> int:
        """The key of ``move`` (legal in this position, not yet made), from 0 to
        ``MOVE_KEYS - 1`` of ``zerosum.search.tactical``."""
        ...


@runtime_checkable
class RandomPlayouts(Protocol):
    """A game that plays MCTS's random playouts itself, faster than through the protocol (the
    OpenSpiel bridge: on one pyspiel state, with no state pushed a ply).

    It must play exactly the game MCTS's own loop plays (its slow twin, which the tests hold
    it to): while the game is not over and fewer than ``max_plies`` moves were made, the move
    ``moves[below(len(moves))]`` with ``moves`` the :meth:`~zerosum.game.Game.legal_moves` of
    the position, in their order, calling ``below`` once a move.
    """

    def random_playout(
        self, below: Callable[[int], int], max_plies: int
    ) -> tuple[Outcome | None, int]:
        """The outcome for the side to move where the playout ended (``None``: not over after
        ``max_plies`` moves) and the moves it made; the game is left as it was."""
        ...


@runtime_checkable
class MoveLabels(Protocol[M_contra]):
    """A game with a notation for people beside its machine notation: chess shows ``Nf3``
    where :meth:`~zerosum.game.Game.format_move` writes ``g1f3`` for programs and files.

    A label depends on the position (SAN names a move by what else could reach its square),
    so it is asked for at the position where the move is legal. The game's
    :meth:`~zerosum.game.Game.parse_move` must read its labels back.
    """

    def move_label(self, move: M_contra) -> str:
        """``move``, legal here, in the notation people read (for chess, SAN with ``+``/``#``)."""
        ...


def names_depend_on_position(game: object) -> bool:
    """Whether ``game`` declares that a move's name depends on the position it is written in
    (a class attribute ``position_dependent_names = True``: OpenSpiel's action strings, where
    connect four writes the player's mark). Without the declaration, a move that is legal in
    two positions has one name in both, which ``zerosum.testing.check_game`` checks; with it,
    every front end names the moves of a line at the positions where they are played."""
    return bool(getattr(game, "position_dependent_names", False))
