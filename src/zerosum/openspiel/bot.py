"""zerosum's engines as OpenSpiel bots: :class:`Bot` is a ``pyspiel.Bot``.

``Bot(game, engine="compiled", limit=Limit(time=0.5))`` plays any pyspiel game that zerosum
can search (two-player, zero-sum, deterministic, sequential, perfect information) with any of
zerosum's engines, so OpenSpiel's own tools (``evaluate_bots``) seat it beside ``MCTSBot``.

Which zerosum game plays the pyspiel one:

* the built-in game with the same rules where there is one (:data:`BUILTIN`): ``tic_tac_toe``
  is ``tictactoe``, ``connect_four`` (7x6, four in a row) is ``connect4``, ``chess`` (not 960)
  is ``chess``, ``nine_mens_morris`` is ``morris:repetition=none:moves=none`` (zerosum's morris
  without its draw rules, which OpenSpiel's has not: the one rule left apart is OpenSpiel's
  cap on a game's length, a draw the engine does not see coming): the compiled engines then
  play it. Actions are mapped through the two games' notations at each position; in morris a
  removal is an action of its own in pyspiel and part of the move in zerosum, so a zerosum
  move is a whole pyspiel turn there, planned at its first action as in the bridge;
* else the bridge, ``openspiel:GAME(params)`` (:mod:`zerosum.games.openspiel`): in a game where
  a player acts twice in a row, the bot plans the whole turn at its first action and plays the
  rest of the plan at the next calls.

Each :meth:`Bot.step` brings the bot's own position up to the state's action history (the
actions played since its last step, or the whole history rebuilt when the game is another)
and searches it under the bot's limit. The engine stays open between steps, until
:meth:`Bot.close`: its table is kept, and MCTS finds the position of the new step in the tree
of the last one (the bot keeps one game object, which is what MCTS's tree reuse follows),
so what it learnt about the moves played is not thrown away.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import pyspiel

from zerosum.engines import open_engine
from zerosum.game import Game, ZerosumError
from zerosum.games import GameSpec, get_game
from zerosum.games.openspiel import OpenSpielGame, actions, load_rules
from zerosum.search.core import Limit


@dataclass(frozen=True)
class Translation:
    """How one pyspiel game maps onto a built-in zerosum game with the same rules."""

    game: str
    """The zerosum game."""
    parameters: dict[str, Any]
    """The pyspiel parameters the rules agree for (others go through the bridge)."""
    text: Callable[[Any, tuple[int, ...]], str]
    """``(state, turn) -> the turn in the zerosum game's notation`` at ``state``: the actions
    one player makes in a row (one, but for morris's removal)."""


def _tictactoe(state: Any, turn: tuple[int, ...]) -> str:
    row, column = divmod(turn[0], 3)  # pyspiel's row 0 is the top row, zerosum's rank 3
    return f"{'abc'[column]}{3 - row}"


def _connect4(state: Any, turn: tuple[int, ...]) -> str:
    return str(turn[0] + 1)


def _chess(state: Any, turn: tuple[int, ...]) -> str:
    return str(state.action_to_string(state.current_player(), turn[0]))  # SAN, which chess reads


_MORRIS_ROWS: Final = (
    (7, "adg"),
    (6, "bdf"),
    (5, "cde"),
    (4, "abcefg"),
    (3, "cde"),
    (2, "bdf"),
    (1, "adg"),
)
MORRIS_POINTS: Final = tuple(f"{file}{rank}" for rank, files in _MORRIS_ROWS for file in files)
"""pyspiel's morris points 0..23 (row by row from the top left, as zerosum's position string
lists them), by zerosum's names."""


def _morris(state: Any, turn: tuple[int, ...]) -> str:
    # pyspiel: actions 0..23 place on (or remove from) a point, 24 + 24 * from + to move a man.
    first, *removal = turn
    if first < len(MORRIS_POINTS):
        text = MORRIS_POINTS[first]
    else:
        start, end = divmod(first - len(MORRIS_POINTS), len(MORRIS_POINTS))
        text = f"{MORRIS_POINTS[start]}-{MORRIS_POINTS[end]}"
    return text + "".join(f"x{MORRIS_POINTS[point]}" for point in removal)


BUILTIN: Final[dict[str, Translation]] = {
    "tic_tac_toe": Translation("tictactoe", {}, _tictactoe),
    "connect_four": Translation("connect4", {"rows": 6, "columns": 7, "x_in_row": 4}, _connect4),
    "chess": Translation("chess", {"chess960": False}, _chess),
    "nine_mens_morris": Translation("morris:repetition=none:moves=none", {}, _morris),
}
"""pyspiel games played as built-in zerosum games, by pyspiel short name."""


def translation(game: Any) -> Translation | None:
    """The built-in translation of the pyspiel ``game``, if its rules agree with one."""
    found = BUILTIN.get(game.get_type().short_name)
    if found is None:
        return None
    parameters = game.get_parameters()
    if any(parameters.get(name, value) != value for name, value in found.parameters.items()):
        return None
    if "fen" in parameters:  # a chess game from another start
        return None
    return found


class Bot(pyspiel.Bot):  # type: ignore[misc]  # pyspiel has no type information
    """A zerosum engine as a ``pyspiel.Bot`` (see the module docstring).

    ``game`` is the ``pyspiel.Game`` (or its game string); ``engine`` one of zerosum's engine
    names (``None``: the one the game's spec plays with); ``limit`` bounds each move's search
    (default: half a second). ``seed`` picks among equally good moves. Raises
    :class:`~zerosum.game.ZerosumError` for a game zerosum cannot search or an engine the game
    does not offer.
    """

    def __init__(
        self,
        game: Any,
        engine: str | None = None,
        limit: Limit | None = None,
        *,
        seed: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if isinstance(game, str):
            game = pyspiel.load_game(game)
        self.pyspiel_game = game
        self.limit = limit or Limit(time=0.5)
        self.rng = random.Random(seed)
        self.translation = translation(game)
        if self.translation is not None:
            self.spec: GameSpec = get_game(self.translation.game)
            self._text = ""
        else:
            self._text = str(game)
            self.spec = get_game(load_rules(self._text).name)
        self.engine = open_engine(
            self.spec, engine, task="play", all_best=True, seed=seed, **options
        )
        self._game: OpenSpielGame | None = None
        """The bridge's position of the last step (bridge games), which later steps extend."""
        self._history: list[int] = []
        """The pyspiel actions :attr:`_game` holds."""
        self._plan: tuple[list[int], list[int]] | None = None
        """A turn's actions still to play (turn games): (the history they follow, actions)."""

    # -- pyspiel.Bot ----------------------------------------------------------------------

    def step(self, state: Any) -> int:
        """The action the engine chooses at ``state``, which is not over."""
        history = list(state.history())
        if self._plan is not None:
            before, rest = self._plan
            done = history[len(before) :]
            following = history[: len(before)] == before and rest[: len(done)] == done
            if following and len(done) < len(rest):
                return rest[len(done)]
            self._plan = None
        if self.translation is not None:
            return self._step_builtin(state)
        return self._step_bridge(state, history)

    def restart(self) -> None:
        self._plan = None

    def restart_at(self, state: Any) -> None:
        self._plan = None

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to do: each step reads the whole history."""

    def inform_actions(self, state: Any, actions: list[int]) -> None:
        """Nothing to do: each step reads the whole history."""

    def provides_policy(self) -> bool:
        return False

    def is_clonable(self) -> bool:
        return False

    def close(self) -> None:
        """Close the engine (its worker processes or threads, if any)."""
        self.engine.close()

    # -- the two ways -----------------------------------------------------------------------

    def _choose(self, game: Game[Any]) -> Any:
        found = self.engine.search(game, self.limit)
        moves = list(found.best_moves) or game.legal_moves()[:1]
        return self.rng.choice(moves)

    def _step_builtin(self, state: Any) -> int:
        assert self.translation is not None
        text = self.translation.text
        game = self.spec.new()
        history = [int(action) for action in state.history()]
        # Replay the history turn by turn (a turn: the actions one player makes in a row),
        # up to the start of the turn under way, which may have begun before this call.
        replay = self.pyspiel_game.new_initial_state()
        turn: list[int] = []
        start = replay
        for action in history:
            if not turn:
                start = replay.clone()
            player = replay.current_player()
            replay.apply_action(action)
            turn.append(action)
            if replay.is_terminal() or replay.current_player() != player:
                game.make(game.parse_move(text(start, tuple(turn))))
                turn = []
        if not turn:
            start = state
        move = self._choose(game)
        for actions_of_turn in _turns(start):
            if list(actions_of_turn[: len(turn)]) != turn:
                continue
            if game.parse_move(text(start, actions_of_turn)) == move:
                rest = [int(action) for action in actions_of_turn[len(turn) :]]
                self._plan = (history, rest)
                return rest[0]
        raise ZerosumError(
            f"{self.spec.name}: the move {game.format_move(move)!r} has no pyspiel action at "
            f"{state.history()!r}"
        )

    def _step_bridge(self, state: Any, history: list[int]) -> int:
        # The turn may have begun before this call (a restart in the middle of one): search
        # from its start and keep to the actions already made.
        player = state.current_player()
        start = len(history)
        replay = [self.pyspiel_game.new_initial_state()]
        for action in history:
            replay.append(replay[-1].child(action))
        while start > 0 and replay[start - 1].current_player() == player:
            start -= 1
        made = history[start:]
        game = self._position(history[:start], replay)
        turn = list(actions(self._choose(game)))
        if turn[: len(made)] != made:  # the engine's turn does not begin as this one did
            turn = next(
                list(actions(move))
                for move in game.legal_moves()
                if list(actions(move))[: len(made)] == made
            )
        rest = [int(action) for action in turn[len(made) :]]
        self._plan = (history, rest)
        return rest[0]

    def _position(self, history: list[int], replay: list[Any]) -> OpenSpielGame:
        """The bridge's game at ``history`` (which ends between turns; ``replay[i]`` the
        pyspiel state after its first ``i`` actions): the game of the last step with the turns
        played since made on it, so the engine sees the same game object move on; a history
        that does not extend the last one starts a new game."""
        game, known = self._game, self._history
        if game is None or history[: len(known)] != known:
            game = OpenSpielGame.from_history(self._text, " ".join(map(str, history)))
        else:
            turn: list[int] = []
            for index in range(len(known), len(history)):
                turn.append(history[index])
                after = replay[index + 1]
                if after.is_terminal() or after.current_player() != replay[index].current_player():
                    game.make(tuple(turn) if game.rules.turns else turn[0])
                    turn = []
            assert not turn  # the history ends between turns
        self._game, self._history = game, list(history)
        return game


def _turns(state: Any) -> list[tuple[int, ...]]:
    """Every turn of the player to move at ``state``: the actions they make in a row before
    the other player is to move or the game ends."""
    player = state.current_player()
    found: list[tuple[int, ...]] = []
    pending: list[tuple[tuple[int, ...], Any]] = [((), state)]
    while pending:
        prefix, at = pending.pop()
        for action in at.legal_actions():
            child = at.child(action)
            turn = (*prefix, int(action))
            if child.is_terminal() or child.current_player() != player:
                found.append(turn)
            else:
                pending.append((turn, child))
    return found


__all__ = ["BUILTIN", "MORRIS_POINTS", "Bot", "Translation", "translation"]
