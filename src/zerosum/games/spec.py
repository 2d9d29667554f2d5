"""The record of one game: everything zerosum knows about it, in one place.

A :class:`GameSpec` is what a game package hands to :func:`zerosum.games.register` (or exposes
through the ``zerosum.games`` entry-point group). Only the first seven fields are required; the
rest default to "the game does not offer this", and every front end, engine and tool reads them
from here instead of keeping a table of its own or testing a game's name.

Fields that name code in a layer above the games (the compiled kernel, the endgame databases)
are ``"module:attribute"`` references, resolved only by the layer that uses them: the games stay
below the engines, a spec stays cheap to build and to pickle, and naming a kernel does not
import numba. The callables a spec holds may be :class:`Deferred` references as well: the
built-in specs name their game classes that way, so that listing the games, or playing
tic-tac-toe, does not import python-chess.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zerosum.game import Game, ZerosumError

Reference = str
"""Code named as ``"package.module:attribute"`` (the attribute may be dotted), as entry points
name it, or a whole module as ``"package.module"``; loaded with :func:`resolve`."""


@dataclass(frozen=True)
class GameSpec:
    """How to create, notate, play and search one game."""

    name: str
    """The registry name used on the command line (lower case; a variant's spec adds its
    options after a colon, ``morris:six``)."""
    title: str
    """A human-readable title."""
    new: Callable[[], Game[Any]]
    """The starting position."""
    from_position: Callable[[str], Game[Any]]
    """The position written in the game's position format (raises PositionError)."""
    position_format: str
    """One line that describes the position format, for help and error messages."""
    sides: tuple[str, str]
    """The names of the first and the second player."""
    levels: tuple[int, ...]
    """Search depth of each playing strength, weakest first; 0 means a perfect (solving) player."""
    split_moves: Callable[[str], list[str]] = str.split
    """Splits one command-line word into move texts (connect four reads ``4453`` as 4 moves)."""
    move_names: tuple[str, ...] = ()
    """Every move a position may offer, for tables that also show the unavailable ones."""
    default_level: int = 0
    """The level ``play`` starts at (1-based; 0 means the top level)."""
    solver: str = "engine"
    """The engine ``zerosum solve`` uses unless told otherwise."""
    options: Callable[[str], GameSpec] | None = None
    """The spec of a variant, from the options after ``name:`` (``morris:six``); raises a
    :class:`ZerosumError` naming a bad option. ``None``: the game has no options."""
    variants: tuple[str, ...] = ()
    """Named variants (full game names) that the conformance suite runs as well."""
    analyzer: str = "engine"
    """The engine ``zerosum analyze`` and the library's ``search`` use unless told otherwise."""
    player: str | None = None
    """The engine that plays (``play``, ``match``, the web app's computer); ``None``: the
    compiled engine when the game has a kernel, else :attr:`analyzer`."""
    kernel: Reference | None = None
    """The game's compiled kernel mapping, a :class:`zerosum.compiled.engine.CompiledGame`
    (e.g. ``"zerosum.compiled.connect4:GAME"``); ``None``: no compiled engine."""
    searcher: Reference | None = None
    """The game's compiled tactical search, a class like
    :class:`zerosum.compiled.chess_engine.CoreSearch` (``(game, *, hash_mb, threads, table,
    options)``, the interface of :class:`zerosum.search.tactical.SearchDriver`); it offers the
    ``compiled-tactical`` engine. ``None``: no such engine."""
    perft: Reference | None = None
    """The game's fast perft, a function ``(game, depth) -> count`` that counts what
    :func:`zerosum.search.perft.perft` counts (e.g. ``"zerosum.compiled.perft:chess"``);
    ``None``: ``zerosum perft`` counts through the protocol."""
    endgames: Reference | None = None
    """The module of the game's exact endgame databases (``Endgames``, ``applies``,
    ``needed_class``, ``solve_endgame``, ``score``, as :mod:`zerosum.games.morris_endgames`):
    ``solve`` answers from it where it applies, ``build-endgames`` builds it."""
    openings: tuple[tuple[str, str], ...] = ()
    """A match's opening book: (name, moves from the start separated by spaces); empty: the
    match makes seeded random openings."""
    bench: tuple[tuple[str, int], ...] = ()
    """The node-count signature's positions: (moves from the start, depth). Only games with
    positions here are in ``zerosum bench`` unless named."""
    max_plies: int | None = None
    """The most plies a game can last, when the rules bound it (a board's cells)."""
    board: str = "generic"
    """The web app's board renderer; ``generic`` draws the text board and a button per move."""
    uci: bool = False
    """Standard chess as UCI engines and PGN know it: matches may seat UCI engines, referee the
    game with python-chess's draw claims and write PGN."""

    def __post_init__(self) -> None:
        if not self.base or self.name != self.name.strip().lower() or " " in self.name:
            raise ZerosumError(
                f"game name {self.name!r} is not valid: expected a lower-case word "
                "(a variant adds ':options')"
            )
        if not self.levels:
            raise ZerosumError(f"game {self.name!r} has no levels: expected at least one depth")
        if not 0 <= self.default_level <= len(self.levels):
            raise ZerosumError(
                f"game {self.name!r}: default level {self.default_level} is out of range: "
                f"expected 0..{len(self.levels)}"
            )

    @property
    def base(self) -> str:
        """The game's name without its variant options (``morris`` for ``morris:six``)."""
        return self.name.partition(":")[0]

    @property
    def play_engine(self) -> str:
        """The engine that plays this game (see :attr:`player`)."""
        if self.player is not None:
            return self.player
        return "compiled" if self.kernel is not None else self.analyzer


def resolve(reference: Reference) -> Any:
    """The object that ``"module:attribute"`` names (the module for ``"module"``); raises
    :class:`ZerosumError` saying which reference failed and why."""
    module_name, colon, attribute = reference.partition(":")
    if not module_name or (colon and not attribute):
        raise ZerosumError(f"reference {reference!r} is malformed: expected 'module:attribute'")
    try:
        found: Any = importlib.import_module(module_name)
        for part in attribute.split(".") if attribute else ():
            found = getattr(found, part)
    except (ImportError, AttributeError) as error:
        raise ZerosumError(f"cannot load {reference!r}: {error}") from error
    return found


class Deferred:
    """A callable named by a :data:`Reference` and imported at its first call: a spec's
    ``new=Deferred("zerosum.games.chess:Chess")`` builds the game as ``new=Chess`` would,
    without importing the game's module (and python-chess) until a game is made.

    Two of them are equal when they name the same code; one pickles as its reference. A bad
    reference raises :class:`ZerosumError` at the first call (:func:`resolve`).
    """

    __slots__ = ("_target", "reference")

    def __init__(self, reference: Reference) -> None:
        self.reference: Reference = reference
        """What the callable is."""
        self._target: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        target = self._target
        if target is None:
            target = self._target = resolve(self.reference)
        return target(*args, **kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deferred) and other.reference == self.reference

    def __hash__(self) -> int:
        return hash(self.reference)

    def __reduce__(self) -> tuple[type[Deferred], tuple[Reference]]:
        return Deferred, (self.reference,)

    def __repr__(self) -> str:
        return f"Deferred({self.reference!r})"
