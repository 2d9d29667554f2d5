"""OpenSpiel's games as zerosum games: ``openspiel:NAME(params)``, e.g. ``openspiel:hex``.

Every game registered in ``pyspiel`` that is two-player, zero-sum, deterministic, sequential and
of perfect information becomes a zerosum game through :class:`OpenSpielGame`; any other is
refused in one line naming what it lacks (:func:`load_rules`). ``pyspiel`` is imported on first
use, so the registry lists ``openspiel`` without loading it.

Design, and the trade-offs it makes:

* **Turns, not actions.** In some pyspiel games a player acts twice in a row (a checkers jump
  that goes on, a morris removal, a box completed in dots and boxes, amazons' move then shot);
  negamax needs every move to pass the turn. For those games (:data:`TURN_GAMES`) a zerosum move
  is a whole turn: the tuple of actions a player makes before the other one is to move (or the
  game ends), enumerated by cloning. In the others a move is one action, a plain ``int``. A game
  missing from the list shows as a move that does not pass the turn, which ``check_game`` names
  (the conformance test walks every registered pyspiel game).
* **Undo by a stack of states.** ``pyspiel``'s ``undo_action`` is missing for some games
  (hex, connect four) and leaves state behind in others (checkers, dots and boxes, chess), so
  :meth:`OpenSpielGame.make` pushes a clone with the turn applied and ``undo`` pops it. A pushed
  state is never changed again, so a copy of the game shares them. Clone and apply cost about
  1 µs more than ``apply_action``/``undo_action`` in place, which the games of
  :data:`UNDO_GAMES` use, their undo held to the clone by the conformance test: there the
  plies the game made share one state it owns (a copy clones it), and the caches of a ply are
  dropped when the state takes another position there.
* **Keys.** pyspiel states have no hash, and a key must identify the position, not the path
  (an incremental key over the actions played would tell transpositions apart, or worse, join
  different positions). The key is a 64-bit BLAKE2b digest of pyspiel's own text of the state
  (``str(state)``, the board, which for a perfect-information game is also what its
  observation string holds), the player to move and the number of actions played, computed
  lazily: the first :meth:`~OpenSpielGame.key` of a position pays a few µs, later ones read it
  back, and the many positions a search never asks for a key (finished ones, leaves) pay
  nothing. The action count keeps positions apart that differ only in how far the game has
  run (games that stop after ``max_game_length`` actions); it costs the transpositions between
  plies of different parity, which are rare. What pyspiel's text leaves out of the state (a
  no-progress counter, the repetition history of chess) is not in the key either: two
  positions that differ only there share a table entry.
* **Notation.** A move is written as pyspiel's action string at the position where it is
  played (``a1`` in hex, ``x0`` in connect four), whitespace written ``_``, a turn's actions
  joined by ``+``; an action whose string is ambiguous in the position is written ``@`` and its
  number (``@17``), which :meth:`~OpenSpielGame.parse_move` always reads too. These names
  depend on the position (connect four writes the player's mark), so the game declares
  :attr:`~OpenSpielGame.position_dependent_names` and every front end names a line's moves at
  the positions where they are played.
* **Positions.** :meth:`~OpenSpielGame.position` is the action history, numbers separated by
  spaces (``''`` is the start): it reads back exactly, pickles small, and lets a worker process
  rebuild the game from its name.
* **Evaluation.** pyspiel offers none, so :meth:`~OpenSpielGame.evaluate` is 0 and such games are
  played by MCTS (``player="mcts"`` in the spec). A plugin gives one game a heuristic with
  :func:`register_evaluation`; the game is then played by the alpha-beta engine.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any, Final, Self

from zerosum.game import (
    HEURISTIC_LIMIT,
    MoveError,
    Outcome,
    PositionError,
    Score,
    ZerosumError,
)
from zerosum.games.spec import GameSpec

if TYPE_CHECKING:
    import pyspiel

Move = int | tuple[int, ...]
"""A pyspiel action; in a game where a player may act twice in a row (:data:`TURN_GAMES`), a
whole turn: the tuple of actions one player makes in a row."""

Evaluation = Callable[["pyspiel.State", int], Score]
"""A heuristic for one game: ``(state, player) -> score`` for ``player``, the pyspiel player to
move (0 or 1), strictly inside ``(-HEURISTIC_LIMIT, HEURISTIC_LIMIT)``."""

DEFAULT_GAME: Final = "tic_tac_toe"
"""The pyspiel game that plain ``openspiel`` names."""

TURN_GAMES: Final = frozenset(
    {
        "amazons",
        "checkers",
        "chinese_checkers",
        "cursor_go",
        "dots_and_boxes",
        "mancala",
        "nine_mens_morris",
        "ultimate_tic_tac_toe",
    }
)
"""pyspiel games in which a player may act twice in a row (their moves are whole turns)."""

UNDO_GAMES: Final = frozenset({"breakthrough", "mnk", "nim", "tic_tac_toe"})
"""pyspiel games whose ``undo_action`` restores a state exactly (the conformance test holds
them to the clone, move by move): the bridge applies and undoes their moves in place. In
open-spiel 2.0.2 most games have no ``undo_action`` (hex, connect four, othello, ...), and
clobber's leaves its move counter behind."""

_EVALUATIONS: dict[str, Evaluation] = {}


class IneligibleGameError(ZerosumError, ValueError):
    """A pyspiel game that zerosum cannot search (not two-player, zero-sum, deterministic,
    sequential and of perfect information), or one pyspiel does not know."""


def _pyspiel() -> Any:
    try:
        return importlib.import_module("pyspiel")
    except ImportError:
        raise ZerosumError(
            "OpenSpiel is not installed: expected pip install 'zerosum[openspiel]'"
        ) from None


def register_evaluation(game: str, evaluation: Evaluation) -> None:
    """Give the pyspiel game ``game`` (its short name, ``"breakthrough"``) a heuristic, for every
    parameter set of it. Worker processes import the function's module, so call this at the top
    level of an importable module (a plugin's)."""
    from zerosum.runtime.workers import MAIN_SCRIPT, WORKER_IMPORTS  # multiprocessing: here

    _EVALUATIONS[game] = evaluation
    module = getattr(evaluation, "__module__", None)
    if module and module not in WORKER_IMPORTS and module not in MAIN_SCRIPT:
        WORKER_IMPORTS.append(module)
    load_rules.cache_clear()
    spec.cache_clear()


def unregister_evaluation(game: str) -> None:
    """Forget the heuristic of ``game`` (tests), and its module in the worker processes'
    imports unless another heuristic still comes from it."""
    from zerosum.runtime.workers import WORKER_IMPORTS  # multiprocessing: only here

    evaluation = _EVALUATIONS.pop(game, None)
    module = getattr(evaluation, "__module__", None)
    still_used = any(getattr(e, "__module__", None) == module for e in _EVALUATIONS.values())
    if module in WORKER_IMPORTS and not still_used:
        WORKER_IMPORTS.remove(module)
    load_rules.cache_clear()
    spec.cache_clear()


@dataclass(frozen=True, eq=False)
class Rules:
    """One loaded pyspiel game and what the bridge knows about it."""

    text: str
    """The game string as written after ``openspiel:`` (``hex(board_size=5)``)."""
    name: str
    """The zerosum name, ``openspiel:`` and :attr:`text` (plain ``openspiel`` for the default)."""
    game: Any
    """The ``pyspiel.Game``."""
    turns: bool
    """Whether a move is a whole turn of several actions (see :data:`TURN_GAMES`)."""
    first: int
    """The player to move at the start."""
    in_place: bool
    """Whether moves are applied and undone in place (see :data:`UNDO_GAMES`)."""
    evaluation: Evaluation | None

    @property
    def short_name(self) -> str:
        return str(self.game.get_type().short_name)


def lacks(game_type: Any, num_players: int) -> list[str]:
    """What a pyspiel game type lacks to be a zerosum game, in words (empty: nothing)."""
    spiel = _pyspiel()
    kind = spiel.GameType
    missing = []
    if num_players != 2:
        missing.append(f"two players (it has {num_players})")
    if game_type.utility != kind.Utility.ZERO_SUM:
        missing.append(f"zero-sum utility (it is {game_type.utility.name.lower()})")
    if game_type.chance_mode != kind.ChanceMode.DETERMINISTIC:
        missing.append("determinism (it has chance events)")
    if game_type.dynamics != kind.Dynamics.SEQUENTIAL:
        missing.append("sequential moves (its players move simultaneously)")
    if game_type.information != kind.Information.PERFECT_INFORMATION:
        missing.append("perfect information")
    return missing


MAX_ACTIONS: Final = 1 << 16
"""The most distinct actions a pyspiel game may have (shogi, the largest default, has 13,689):
the parameters of a board game choose its size, and ``hex(board_size=100000)`` asked pyspiel for
a board of ten billion cells."""
CHECK_MEMORY: Final = 2 << 30
"""The address space (bytes) of the child that tries a parameter set first."""
CHECK_TIME_S: Final = 120.0
"""How long that child may take (an import of pyspiel and a few plies: about a second alone)."""
CHECK_PLIES: Final = 16
"""The plies of a random game the child plays from the start."""
_CHECK = """
import random, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[4]), int(sys.argv[4])))
import pyspiel
game = pyspiel.load_game(sys.argv[1])
actions = game.num_distinct_actions()
if actions > int(sys.argv[2]):
    print(f"it has {actions:,} distinct actions: expected at most {int(sys.argv[2]):,}")
    sys.exit(3)
state = game.new_initial_state()
rng = random.Random(0)
for _ in range(int(sys.argv[3])):
    str(state)
    if state.is_terminal():
        break
    legal = state.legal_actions()
    if not legal:
        print("a position of a random game has no legal action but is not over")
        sys.exit(3)
    state = state.child(rng.choice(legal))
print("ok")
"""
"""What the child runs (pyspiel alone, no zerosum): bound its address space, load the game,
count its actions, create the start and play a few random plies."""
_checking = threading.Lock()


def _check_in_child(game_string: str) -> None:
    """Try ``game_string`` in a child process first, bounded in memory and time: pyspiel
    believes its parameters, and some make it crash the whole process (``connect_four(rows=0)``:
    a segmentation fault) or allocate without bound. Raises :class:`IneligibleGameError` naming
    what went wrong. One child at a time."""
    command = [
        sys.executable,
        "-c",
        _CHECK,
        game_string,
        str(MAX_ACTIONS),
        str(CHECK_PLIES),
        str(CHECK_MEMORY),  # the child bounds itself: no preexec_fn in a threaded server
    ]
    refused = f"OpenSpiel cannot load {game_string!r}"
    with _checking:
        try:
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=CHECK_TIME_S,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise IneligibleGameError(
                f"{refused}: setting it up took more than {CHECK_TIME_S:.0f} s (expected "
                "smaller parameters)"
            ) from None
    said = (done.stdout.strip().splitlines() or [""])[-1]
    if done.returncode == 0 and said == "ok":
        return
    if done.returncode == 3:
        raise IneligibleGameError(f"{refused}: {said} (expected other parameters)")
    if done.returncode < 0:
        reason = f"it crashed pyspiel ({signal.Signals(-done.returncode).name})"
    else:
        errors = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        last = errors[-1]
        if "MemoryError" in last or "bad_alloc" in done.stderr or "max_size" in last:
            reason = f"it needs more than {CHECK_MEMORY >> 30} GB"
        else:
            reason = last[:200]
    raise IneligibleGameError(f"{refused}: {reason} (expected other parameters)")


def _parameters(game_string: str) -> str:
    """The parameters of ``game_string`` (``"rows=4"`` of ``breakthrough(rows=4)``)."""
    return game_string.partition("(")[2].rstrip().removesuffix(")").strip()


@lru_cache(maxsize=64)
def load_rules(text: str) -> Rules:
    """The pyspiel game ``text`` (``""``: the default game), checked once; raises
    :class:`IneligibleGameError` naming what it lacks. A game with parameters is tried in a
    child process first (:func:`_check_in_child`)."""
    spiel = _pyspiel()
    game_string = text or DEFAULT_GAME
    name = f"openspiel:{text}" if text else "openspiel"
    short = game_string.partition("(")[0]
    if short not in spiel.registered_names():
        raise IneligibleGameError(
            f"OpenSpiel has no game {short!r}: expected openspiel:NAME or "
            "openspiel:NAME(param=value,...) with a NAME that pyspiel.registered_names() lists"
        )
    if _parameters(game_string):
        _check_in_child(game_string)
    try:
        with _quiet_stderr():  # pyspiel prints each error on stderr before raising it
            game = spiel.load_game(game_string)
    except Exception as error:  # pyspiel raises its own SpielError, or RuntimeError
        lines = str(error).strip().splitlines() or [repr(error)]
        raise IneligibleGameError(
            f"OpenSpiel cannot load {game_string!r}: {lines[0]} (expected "
            "openspiel:NAME(param=value,...))"
        ) from None
    missing = lacks(game.get_type(), game.num_players())
    if missing:
        raise IneligibleGameError(
            f"{name} is not a two-player zero-sum game of perfect information: it lacks "
            + ", ".join(missing)
        )
    if game.num_distinct_actions() > MAX_ACTIONS:  # a default game (no parameters): never
        raise IneligibleGameError(
            f"{name} has {game.num_distinct_actions():,} distinct actions: expected at most "
            f"{MAX_ACTIONS:,}"
        )
    start = game.new_initial_state()
    if start.is_terminal():
        raise IneligibleGameError(f"{name} is over at the start: expected a game with a move")
    return Rules(
        text=text,
        name=name,
        game=game,
        turns=short in TURN_GAMES,
        first=start.current_player(),
        in_place=short in UNDO_GAMES and short not in TURN_GAMES,
        evaluation=_EVALUATIONS.get(short),
    )


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Standard error (file descriptor 2, where pyspiel's C++ writes) sent to /dev/null."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


_SPACE = re.compile(r"\s+")


class OpenSpielGame:
    """A pyspiel game behind the :class:`zerosum.game.Game` protocol (see the module header)."""

    position_dependent_names: Final = True
    """Move names are pyspiel's action strings, which depend on the position (the player's mark
    in connect four): name a line's moves at the positions where they are played."""

    __slots__ = ("_keys", "_names", "_owned", "_states", "_turns", "_undo", "name", "rules")

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.name = rules.name
        self._states: list[Any] = [rules.game.new_initial_state()]
        """The state after each ply, from the start: never changed once pushed."""
        # What is worked out about a position on demand, by ply, with the state it holds for:
        # an entry counts only while that state is on the stack at that ply, so make and
        # undo need not touch the caches.
        self._keys: dict[int, tuple[Any, int]] = {}
        self._names: dict[int, tuple[Any, dict[Move, str]]] = {}
        self._turns: dict[int, tuple[Any, dict[Move, Any]]] = {}
        # In place (UNDO_GAMES): consecutive plies share the one state this game owns, and
        # _undo holds, for each ply above the start, what undo_action needs (None: the ply's
        # state is a clone of the one below, nothing to undo).
        self._owned: Any = None
        self._undo: list[tuple[int, int] | None] = []

    @classmethod
    def start(cls, text: str) -> OpenSpielGame:
        """The start of the pyspiel game ``text`` (raises :class:`IneligibleGameError`)."""
        return cls(load_rules(text))

    @classmethod
    def from_history(cls, text: str, position: str) -> OpenSpielGame:
        """The pyspiel game ``text`` after the actions of ``position`` (numbers separated by
        spaces); raises :class:`PositionError` for a malformed or illegal history."""
        game = cls.start(text)
        words = position.replace(",", " ").split()
        if words == ["-"]:
            words = []
        actions: list[int] = []
        for word in words:
            if not word.lstrip("-").isdigit():
                raise PositionError(
                    f"{game.name} position {position!r}: {word!r} is not an action number "
                    "(expected the actions played from the start, separated by spaces)"
                )
            actions.append(int(word))
        state = game._states[0]
        turn: list[int] = []
        for index, action in enumerate(actions):
            if state.is_terminal() or action not in state.legal_actions():
                raise PositionError(
                    f"{game.name} position {position!r}: action {index + 1} ({action}) is not "
                    "legal there"
                )
            player = state.current_player()
            state = state.clone()
            state.apply_action(action)
            turn.append(action)
            if state.is_terminal() or state.current_player() != player:
                game._states.append(state)
                if game.rules.in_place:
                    game._undo.append(None)
                turn = []
        if turn:
            raise PositionError(
                f"{game.name} position {position!r}: it ends inside a turn (expected a "
                "history that ends when the other player is to move)"
            )
        return game

    @property
    def state(self) -> Any:
        """The pyspiel state of the position (do not change it: the game shares it)."""
        return self._states[-1]

    # -- the protocol ---------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        state = self._states[-1]
        if state.is_terminal():
            return []
        if not self.rules.turns:
            return state.legal_actions()  # type: ignore[no-any-return]
        return list(self._turn_states())

    def _turn_states(self) -> dict[Move, Any]:
        """Every whole turn of the side to move and the state after it (turn games)."""
        state = self._states[-1]
        ply = len(self._states) - 1
        cached = self._turns.get(ply)
        if cached is not None and cached[0] is state:
            return cached[1]
        found: dict[tuple[int, ...], Any] = {}
        player = state.current_player()
        pending: list[tuple[tuple[int, ...], Any]] = [((), state)]
        while pending:
            prefix, at = pending.pop()
            for action in at.legal_actions():
                child = at.clone()
                child.apply_action(action)
                move = (*prefix, action)
                if child.is_terminal() or child.current_player() != player:
                    found[move] = child
                else:
                    pending.append((move, child))
        turns: dict[Move, Any] = dict(sorted(found.items()))
        self._turns[ply] = (state, turns)
        return turns

    def make(self, move: Move) -> None:
        if self.rules.turns:
            self._states.append(self._turn_states()[move])
            return
        if not self.rules.in_place:
            child = self._states[-1].clone()
            child.apply_action(move)
            self._states.append(child)
            return
        state = self._states[-1]
        if state is self._owned:
            self._undo.append((state.current_player(), move))  # type: ignore[arg-type]  # an int here
        else:  # a state others may hold (the start, a copy's): take a clone of our own
            state = self._owned = state.clone()
            self._undo.append(None)
        state.apply_action(move)
        self._states.append(state)
        ply = len(self._states) - 1
        self._keys.pop(ply, None)  # the same object held another position at this ply before
        self._names.pop(ply, None)

    def undo(self) -> None:
        if len(self._states) == 1:
            raise MoveError(f"{self.name}: no move to take back at the start")
        state = self._states.pop()
        if self.rules.in_place:
            step = self._undo.pop()
            if step is not None:
                state.undo_action(*step)

    def side_to_move(self) -> int:
        """0 when the player who moved first is to move, else 1 (pyspiel's chess numbers
        white, who moves first, 1); at the end, the side that would move next. Read from
        pyspiel, so a game not in :data:`TURN_GAMES` whose player acts twice shows here
        (check_game's rule that every move passes the turn)."""
        player = self._states[-1].current_player()
        if player >= 0:
            return (int(player) - self.rules.first) % 2
        return (len(self._states) - 1) % 2

    def player(self) -> int:
        """The pyspiel player to move (at the end: who would move next)."""
        return (self.rules.first + self.side_to_move()) % 2

    def ply(self) -> int:
        return len(self._states) - 1

    def outcome(self) -> Outcome | None:
        state = self._states[-1]
        if not state.is_terminal():
            return None
        value = state.returns()[self.player()]
        return Outcome.WIN if value > 0 else Outcome.LOSS if value < 0 else Outcome.DRAW

    def evaluate(self) -> Score:
        evaluation = self.rules.evaluation
        if evaluation is None:
            return 0
        return evaluation(self._states[-1], self.player())

    def random_playout(
        self, below: Callable[[int], int], max_plies: int
    ) -> tuple[Outcome | None, int]:
        """MCTS's random playout from here (:class:`zerosum.capabilities.RandomPlayouts`):
        on one clone of the state, with no state pushed or key dropped a ply, where the
        protocol's ``make`` and ``undo`` cost a clone (or an undo record) and two list
        operations a ply. A game of turns plays its turns through the protocol."""
        if self.rules.turns:
            return self._protocol_playout(below, max_plies)
        state = self._states[-1]
        made = 0
        if not state.is_terminal():
            state = state.clone()
            while made < max_plies:
                moves = state.legal_actions()
                state.apply_action(moves[below(len(moves))])
                made += 1
                if state.is_terminal():
                    break
            else:
                return None, made
        # The side to move at the end, as side_to_move reads it at a finished position.
        player = (self.rules.first + len(self._states) - 1 + made) % 2
        value = state.returns()[player]
        return (Outcome.WIN if value > 0 else Outcome.LOSS if value < 0 else Outcome.DRAW), made

    def _protocol_playout(
        self, below: Callable[[int], int], max_plies: int
    ) -> tuple[Outcome | None, int]:
        """:meth:`random_playout` through ``legal_moves``, ``make`` and ``undo``."""
        made = 0
        while made < max_plies and self.outcome() is None:
            moves = self.legal_moves()
            self.make(moves[below(len(moves))])
            made += 1
        outcome = self.outcome()
        for _ in range(made):
            self.undo()
        return outcome, made

    def compute_evaluation(self) -> Score:
        return self.evaluate()

    def key(self) -> int:
        state = self._states[-1]
        ply = len(self._states) - 1
        cached = self._keys.get(ply)
        if cached is not None and cached[0] is state:
            return cached[1]
        key = self.compute_key()
        self._keys[ply] = (state, key)
        return key

    def compute_key(self) -> int:
        state = self._states[-1]
        return _digest(f"{self.side_to_move()}|{state.move_number()}|{state}")

    def copy(self) -> Self:
        twin = object.__new__(type(self))
        twin.rules = self.rules
        twin.name = self.name
        twin._states = list(self._states)
        twin._keys = dict(self._keys)
        twin._names = {}
        twin._turns = {}
        twin._owned = None
        twin._undo = list(self._undo)
        owned = self._owned
        if owned is not None and any(state is owned for state in twin._states):
            twin._owned = owned.clone()  # the copy's plies in place share a state of its own
            twin._states = [twin._owned if state is owned else state for state in twin._states]
        return twin

    def __reduce__(self) -> tuple[Any, ...]:
        return (OpenSpielGame.from_history, (self.rules.text, self.position()))

    # -- notation -------------------------------------------------------------------------

    def _move_names(self) -> dict[Move, str]:
        """The name of every legal move here (see the module header)."""
        state = self._states[-1]
        ply = len(self._states) - 1
        cached = self._names.get(ply)
        if cached is not None and cached[0] is state:
            return cached[1]
        written: dict[Move, str] = {}
        if self.rules.turns:
            for move in self._turn_states():
                at, parts = state, []
                for action in actions(move):
                    parts.append(_SPACE.sub("_", at.action_to_string(at.current_player(), action)))
                    at = at.child(action)
                written[move] = "+".join(parts)
        elif not state.is_terminal():
            player = state.current_player()
            for action in state.legal_actions():
                written[action] = _SPACE.sub("_", state.action_to_string(player, action))
        seen: dict[str, int] = {}
        for name in written.values():
            seen[name] = seen.get(name, 0) + 1
        names = {
            move: name if name and seen[name] == 1 and not name.startswith("@") else _numbered(move)
            for move, name in written.items()
        }
        self._names[ply] = (state, names)
        return names

    def format_move(self, move: Move) -> str:
        name = self._move_names().get(move)
        return name if name is not None else _numbered(move)

    def parse_move(self, text: str) -> Move:
        names = self._move_names()
        word = text.strip()
        if word.startswith("@"):
            try:
                numbers = tuple(int(part) for part in word[1:].split("+"))
            except ValueError:
                numbers = ()
            move: Move = numbers if self.rules.turns or len(numbers) != 1 else numbers[0]
            if move in names:
                return move
        for known, name in names.items():
            if name == word:
                return known
        if not names:
            raise MoveError(f"{word!r}: the game is over, no move is legal")
        listed = " ".join(list(names.values())[:20])
        more = " ..." if len(names) > 20 else ""
        raise MoveError(f"{word!r} is not a legal move here: expected one of {listed}{more}")

    def position(self) -> str:
        return " ".join(map(str, self._states[-1].history()))

    def render(self) -> str:
        return str(self._states[-1]).rstrip()

    def __repr__(self) -> str:
        return f"OpenSpielGame({self.name!r}, {self.position()!r})"


MCTS_LEVELS: Final = (4, 6, 8, 10, 12)
"""The levels of a game played by MCTS: iterations, each doubling the simulations (see
:mod:`zerosum.engines.mcts`)."""
SEARCH_LEVELS: Final = (1, 2, 4, 6, 8)
"""The levels of a game with an evaluation: alpha-beta depths."""


@lru_cache(maxsize=64)
def spec(options: str = "") -> GameSpec:
    """The spec of ``openspiel:OPTIONS``: the pyspiel game string ``OPTIONS``
    (``hex(board_size=5)``); plain ``openspiel`` is tic-tac-toe. Raises
    :class:`IneligibleGameError` for a game zerosum cannot search. The plain spec does not load
    pyspiel, so listing the games stays fast."""
    text = options.strip()
    if text == DEFAULT_GAME:
        text = ""
    rules = load_rules(text) if text else None
    played_by_mcts = rules is None or rules.evaluation is None
    first = rules.first if rules is not None else 0
    return GameSpec(
        name=f"openspiel:{text}" if text else "openspiel",
        title=f"OpenSpiel {text}" if text else "OpenSpiel games (plain: tic_tac_toe)",
        new=partial(OpenSpielGame.start, text),
        from_position=partial(OpenSpielGame.from_history, text),
        position_format="the pyspiel actions played from the start, numbers separated by "
        "spaces ('' is the start), e.g. '4 12 5'",
        sides=(f"Player {first}", f"Player {1 - first}"),
        levels=MCTS_LEVELS if played_by_mcts else SEARCH_LEVELS,
        default_level=3,
        options=spec,
        variants=("openspiel:hex(board_size=3)", "openspiel:breakthrough(rows=4,columns=4)")
        if not text
        else (),
        player="mcts" if played_by_mcts else None,
        max_plies=int(rules.game.max_game_length()) if rules is not None else 9,
    )


def actions(move: Move) -> tuple[int, ...]:
    return move if isinstance(move, tuple) else (move,)


def _numbered(move: Move) -> str:
    """A move by its action numbers: ``@17``, a turn ``@3+5``."""
    return "@" + "+".join(map(str, actions(move)))


def clamp(score: float) -> Score:
    """A heuristic score brought strictly inside ``(-HEURISTIC_LIMIT, HEURISTIC_LIMIT)``."""
    return max(-HEURISTIC_LIMIT + 1, min(HEURISTIC_LIMIT - 1, int(score)))


__all__ = [
    "DEFAULT_GAME",
    "TURN_GAMES",
    "UNDO_GAMES",
    "Evaluation",
    "IneligibleGameError",
    "Move",
    "OpenSpielGame",
    "Rules",
    "actions",
    "clamp",
    "lacks",
    "load_rules",
    "register_evaluation",
    "spec",
    "unregister_evaluation",
]
