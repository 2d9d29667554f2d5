"""Matches: N games between players A and B, colours swapped, spread over an executor.

Game ``i`` (0-based) plays opening ``(i // 2) mod len(openings)`` with A moving first when ``i``
is even and B when it is odd, so every opening is played from both sides. Each game is an
independent task: it carries everything it needs (players, opening, time control, seed), and a
player's random choices are seeded by the match seed and the game's number alone, so a match of
deterministic players gives the same games whichever process plays which game, and in whatever
order. Players live as long as the process that plays (one per role and process), so UCI
engines start once per worker rather than once per game.

A match under a sequential test (:class:`~zerosum.match.sprt.SprtSettings`) plays the same
games, games ``2k`` and ``2k + 1`` being pair ``k`` (one opening, colours swapped), and stops
as soon as the test decides. Its games are handed out a few at a time in index order; as they
finish, in any order, the test is fed the pairs of the longest run of finished pairs from the
first, in index order, so it decides after the same pair whichever process played which game
and whenever: the result counts exactly the games of the pairs up to that one (games of later
pairs that finished meanwhile are dropped), and a match of deterministic players gives the
same result on one process, on many, and on Ray.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from zerosum.game import MoveError, ZerosumError
from zerosum.games import get_game
from zerosum.match.elo import EloEstimate, estimate
from zerosum.match.openings import Opening, balanced_openings, openings_for
from zerosum.match.players import (
    Player,
    PlayerError,
    PlayerFailure,
    PlayerSpec,
    Turn,
    UciPlayer,
    UciSettings,
    check_player,
    open_player,
)
from zerosum.match.referee import Ending, check_moves, chess_pgn, referee_for
from zerosum.match.sprt import Pentanomial, SequentialTest, SprtSettings, SprtState, run_test
from zerosum.runtime.executor import POLL_S, Executor, ProcessExecutor, SerialExecutor
from zerosum.search.core import MAX_NODES

DEFAULT_MAX_PLIES = 1000
"""A game still going after this many plies is adjudicated a draw."""


class TimeControlError(ZerosumError, ValueError):
    """A time control with an impossible value."""


@dataclass(frozen=True)
class TimeControl:
    """How long players may think: a fixed time per move, or a clock (base + increment) that
    is kept for each side, where running out loses the game. Neither: players use their own
    limits (UCI engines then get 1 s per move)."""

    move_time: float | None = None
    """Seconds per move."""
    base: float | None = None
    """Seconds on each clock at the start."""
    increment: float = 0.0
    """Seconds added to a clock after each move its side makes."""
    nodes: int | None = None
    """Nodes per move instead of a time: a search budget that does not depend on the machine's
    load, so that a match on a busy machine plays the same games as on an idle one."""

    def __post_init__(self) -> None:
        if sum(x is not None for x in (self.move_time, self.base, self.nodes)) > 1:
            raise TimeControlError("give a time per move, a clock or nodes per move, not two")
        if self.nodes is not None and not 0 < self.nodes <= MAX_NODES:
            raise TimeControlError(f"nodes per move {self.nodes}: expected 1..{MAX_NODES}")
        if self.move_time is not None and not 0 < self.move_time < float("inf"):
            raise TimeControlError(f"time per move {self.move_time}: expected seconds > 0")
        if self.base is not None and not 0 < self.base < float("inf"):
            raise TimeControlError(f"clock {self.base}: expected seconds > 0")
        if not 0 <= self.increment < float("inf"):
            raise TimeControlError(f"increment {self.increment}: expected seconds >= 0")
        if self.increment and self.base is None:
            raise TimeControlError("an increment needs a clock")

    @classmethod
    def clock(cls, text: str) -> TimeControl:
        """A clock written ``BASE+INC`` or ``BASE`` in seconds, e.g. ``60+0.6``."""
        base, plus, increment = text.partition("+")
        try:
            return cls(base=float(base), increment=float(increment) if plus else 0.0)
        except ValueError:
            raise TimeControlError(
                f"bad clock {text!r}: expected BASE+INC in seconds, e.g. 60+0.6"
            ) from None

    def describe(self) -> str:
        if self.move_time is not None:
            return f"{self.move_time:g} s per move"
        if self.base is not None:
            return f"{self.base:g} s + {self.increment:g} s per move"
        if self.nodes is not None:
            return f"{self.nodes} nodes per move"
        return "no time control"

    def pgn(self) -> str:
        """The PGN ``TimeControl`` tag (``-`` for none or a fixed time per move)."""
        if self.base is None:
            return "-"
        return f"{self.base:g}+{self.increment:g}" if self.increment else f"{self.base:g}"


@dataclass(frozen=True)
class GameTask:
    """One game of a match, complete enough to be played in any process."""

    index: int
    game: str
    opening: Opening
    a: PlayerSpec
    b: PlayerSpec
    a_first: bool
    time_control: TimeControl = TimeControl()
    seed: int = 0
    max_plies: int = DEFAULT_MAX_PLIES
    names: tuple[str, str] = ("A", "B")
    """The names of A and B, for the PGN."""


@dataclass(frozen=True)
class GameRecord:
    """One finished game."""

    index: int
    """0-based; the PGN's round is ``index + 1``."""
    opening: Opening
    a_first: bool
    """True when A moved first (played white)."""
    moves: tuple[str, ...]
    """Every move from the start, the opening's included, in the game's notation."""
    ending: Ending
    seconds: tuple[float, float]
    """Thinking time used by A and by B."""
    pgn: str | None = None
    """The game as PGN (chess only)."""

    @property
    def winner(self) -> str | None:
        """``"A"``, ``"B"`` or ``None`` for a draw."""
        if self.ending.winner is None:
            return None
        return "A" if (self.ending.winner == 0) == self.a_first else "B"

    @property
    def score(self) -> float:
        """A's points from this game: 1, 1/2 or 0."""
        return {"A": 1.0, None: 0.5, "B": 0.0}[self.winner]

    @property
    def result(self) -> str:
        """The result from the first player's side, as PGN writes it: 1-0, 1/2-1/2, 0-1."""
        if self.ending.winner is None:
            return "1/2-1/2"
        return "1-0" if self.ending.winner == 0 else "0-1"

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "round": self.index + 1,
            "opening": self.opening.name,
            "first": "A" if self.a_first else "B",
            "result": self.result,
            "winner": self.winner,
            "score_a": self.score,
            "termination": self.ending.reason,
            "moves": list(self.moves),
            "seconds_a": round(self.seconds[0], 3),
            "seconds_b": round(self.seconds[1], 3),
        }
        if self.pgn is not None:
            data["pgn"] = self.pgn
        return data


@dataclass(frozen=True)
class MatchResult:
    """A finished match: its games in order and A's result."""

    game: str
    names: tuple[str, str]
    """The names of A and B."""
    time_control: TimeControl
    games: tuple[GameRecord, ...]
    sprt: SprtState | None = None
    """The sequential test over the games' pairs, if the match ran one."""

    @property
    def elo(self) -> EloEstimate:
        """A's W/D/L and Elo advantage over B with its 95% interval."""
        winners = [record.winner for record in self.games]
        return estimate(winners.count("A"), winners.count(None), winners.count("B"))

    @property
    def pentanomial(self) -> Pentanomial:
        """A's points in each complete pair of games (``2k`` and ``2k + 1``), counted."""
        return Pentanomial.of_pairs(pair_points(self.games))

    @property
    def pair_elo(self) -> EloEstimate:
        """A's W/D/L and Elo with the 95% interval of the pairs (see :mod:`.sprt`)."""
        elo = self.elo
        return self.pentanomial.elo(elo.wins, elo.draws, elo.losses)

    def pgn(self) -> str:
        """Every chess game as PGN, separated by blank lines (empty for other games)."""
        return "\n\n".join(record.pgn for record in self.games if record.pgn) + "\n"

    def as_dict(self) -> dict[str, Any]:
        elo = self.elo
        bound = [None if abs(x) == float("inf") else round(x, 1) for x in (elo.low, elo.high)]
        return {
            "game": self.game,
            "a": self.names[0],
            "b": self.names[1],
            "time_control": self.time_control.describe(),
            "games": len(self.games),
            "wins": elo.wins,
            "draws": elo.draws,
            "losses": elo.losses,
            "score": elo.points,
            "score_fraction": round(elo.score, 4),
            "elo": None if elo.elo is None else round(elo.elo, 1),
            "elo_low": bound[0],
            "elo_high": bound[1],
            "elo_text": elo.describe(),
            "los": round(elo.los, 4),
            **({} if self.sprt is None else {"sprt": self._sprt_dict()}),
            "records": [record.as_dict() for record in self.games],
        }

    def _sprt_dict(self) -> dict[str, Any]:
        assert self.sprt is not None
        pair = self.pair_elo
        bound = [None if abs(x) == float("inf") else round(x, 1) for x in (pair.low, pair.high)]
        return {
            **self.sprt.as_dict(),
            "elo": None if pair.elo is None else round(pair.elo, 1),
            "elo_low": bound[0],
            "elo_high": bound[1],
            "elo_text": pair.describe(),
        }


def pair_points(records: Sequence[GameRecord]) -> list[float]:
    """A's points in each pair of the first complete pairs of ``records`` (any order), in pair
    order: the pairs ``0 .. k-1`` when pair ``k`` is the first that is not complete."""
    by_index = {record.index: record for record in records}
    points: list[float] = []
    while 2 * len(points) in by_index and 2 * len(points) + 1 in by_index:
        pair = len(points)
        points.append(by_index[2 * pair].score + by_index[2 * pair + 1].score)
    return points


def settle(records: Sequence[GameRecord], settings: SprtSettings) -> tuple[SprtState, int]:
    """The test over the first complete pairs of ``records``, stopped where it decides: its
    state and how many pairs it counted (what a match stopped early reports)."""
    return run_test(settings, pair_points(records))


# -- one game ---------------------------------------------------------------------------------


def play_game(task: GameTask, a: Player, b: Player) -> GameRecord:
    """Play ``task`` between the live players ``a`` and ``b``, keeping the clocks.

    A player that cannot start, raises :class:`PlayerFailure`, answers with an illegal move or
    oversteps its clock loses the game; a game longer than ``task.max_plies`` is a draw."""
    referee = referee_for(task.game)
    for text in task.opening.moves:
        referee.play(text)
    seats = (a, b) if task.a_first else (b, a)
    roles = ("A", "B") if task.a_first else ("B", "A")
    ending = referee.ending()
    for side, player in enumerate(seats):
        try:
            player.new_game(task.game, f"{task.seed}/{task.index}")
        except PlayerError as error:  # an engine that cannot start again after a crash
            ending = ending or Ending(1 - side, f"player failed: {roles[side]}: {error}")
    control = task.time_control
    clocks = None if control.base is None else [control.base, control.base]
    used = [0.0, 0.0]
    while ending is None:
        if len(referee.moves) >= task.max_plies:
            ending = Ending(None, f"move limit: {task.max_plies} plies")
            break
        side = referee.side_to_move()
        turn = Turn(
            tuple(referee.moves),
            side,
            move_time=control.move_time,
            nodes=control.nodes,
            clocks=None if clocks is None else (clocks[0], clocks[1]),
            increment=control.increment,
        )
        started = time.perf_counter()
        try:
            text = seats[side].choose(turn)
        except PlayerFailure as failure:
            ending = Ending(1 - side, f"player failed: {roles[side]}: {failure}")
            break
        elapsed = time.perf_counter() - started
        used[side] += elapsed
        if clocks is not None:
            clocks[side] -= elapsed
            if clocks[side] < 0:
                ending = referee.flag(side)
                break
            clocks[side] += control.increment
        try:
            referee.play(text)
        except MoveError as error:
            ending = Ending(1 - side, f"illegal move by {roles[side]}: {error}")
            break
        ending = referee.ending()
    seconds = (used[0], used[1]) if task.a_first else (used[1], used[0])
    pgn = None
    if get_game(task.game).uci:  # chess as PGN knows it
        white, black = task.names if task.a_first else task.names[::-1]
        pgn = chess_pgn(
            referee.moves,
            white=white,
            black=black,
            ending=ending,
            round_number=task.index + 1,
            opening=task.opening.name,
            book_plies=len(task.opening.moves),
            time_control=control.pgn(),
            event=f"zerosum match, {control.describe()}",
        )
    return GameRecord(
        task.index, task.opening, task.a_first, tuple(referee.moves), ending, seconds, pgn
    )


# -- the players of this process --------------------------------------------------------------

_players: dict[tuple[str, str, PlayerSpec], Player] = {}
"""The live players of this process by (role, game, spec), kept between games."""
_isolate_engines = True
"""Start UCI engines in their own process group (not in workers, whose group holds them)."""


def _player(role: str, game: str, spec: PlayerSpec) -> Player:
    key = (role, game, spec)
    if key not in _players:
        _players[key] = open_player(spec, game, isolate=_isolate_engines)
    return _players[key]


def run_task(task: GameTask) -> GameRecord:
    """Play ``task`` with this process's players (the function executors run)."""
    return play_game(task, _player("A", task.game, task.a), _player("B", task.game, task.b))


def close_players() -> None:
    """Close every player of this process (engines quit, or are killed); run by workers as
    they stop. Every player is closed even if closing one raises (a second Ctrl-C): the
    error is raised once the last player is closed."""
    with contextlib.ExitStack() as stack:
        while _players:
            _, player = _players.popitem()
            stack.callback(player.close)


def kill_players() -> None:
    """End every UCI engine of this process at once, from any thread, even while a game is
    being played (its players then fail); :func:`close_players` still follows."""
    for player in list(_players.values()):
        if isinstance(player, UciPlayer):
            player.kill()


def enter_worker() -> None:
    """Prepare a worker process: its UCI engines stay in its own process group."""
    global _isolate_engines
    _isolate_engines = False


def worker_executor(workers: int) -> Executor:
    """The executor for ``workers`` local processes (this process itself for 1)."""
    if workers <= 1:
        return SerialExecutor()
    return ProcessExecutor(workers, initializer=enter_worker, teardown=close_players)


# -- the match --------------------------------------------------------------------------------


def engine_name(spec: PlayerSpec) -> str:
    """The player's name: a UCI engine is started to ask it (and to check its command and
    options, raising :class:`PlayerError`); a zerosum player is named by its settings."""
    if not isinstance(spec, UciSettings):
        return spec.label()
    player = UciPlayer(spec)
    try:
        player.start()
        name = player.name
    finally:
        player.close()
    options = ", ".join(f"{n}={v}" for n, v in spec.options)
    return f"{name} ({options})" if options else name


@dataclass
class Match:
    """A match between ``a`` and ``b`` at ``game`` (see the module docstring)."""

    game: str
    a: PlayerSpec
    b: PlayerSpec
    games: int = 10
    time_control: TimeControl = field(default_factory=TimeControl)
    openings: Sequence[Opening] | None = None
    """``None``: the game's built-in book (:func:`~zerosum.match.openings.openings_for`)."""
    seed: int = 0
    max_plies: int = DEFAULT_MAX_PLIES
    sprt: SprtSettings | None = None
    """Stop as soon as this test decides (``games`` is then the most it may take, even);
    without ``openings``, the game's balanced book in an order drawn from ``seed``."""

    def tasks(self, names: tuple[str, str] = ("A", "B")) -> list[GameTask]:
        """Every game of the match, checked: players, openings and counts."""
        if self.games < 1:
            raise ZerosumError(f"{self.games} games: expected 1 or more")
        if self.sprt is not None and self.games % 2:
            raise ZerosumError(f"{self.games} games: a sequential test plays pairs, expected even")
        for spec in (self.a, self.b):
            check_player(spec, self.game)
        openings = list(self.openings) if self.openings is not None else None
        if openings is None and self.sprt is not None:
            openings = balanced_openings(self.game, seed=self.seed)
        elif openings is None:
            openings = openings_for(self.game, seed=self.seed)
        if not openings:
            raise ZerosumError("no openings: expected at least one (the start position)")
        for opening in openings:
            try:
                check_moves(self.game, opening.moves)
            except MoveError as error:
                raise MoveError(f"opening {opening.name!r}: {error}") from None
        return [
            GameTask(
                index,
                self.game,
                openings[(index // 2) % len(openings)],
                self.a,
                self.b,
                a_first=index % 2 == 0,
                time_control=self.time_control,
                seed=self.seed,
                max_plies=self.max_plies,
                names=names,
            )
            for index in range(self.games)
        ]

    def names(self) -> tuple[str, str]:
        """A's and B's names after every check: UCI engines are started to ask theirs."""
        self.tasks()  # check everything before starting any process
        return engine_name(self.a), engine_name(self.b)

    def play(
        self,
        *,
        workers: int = 1,
        executor: Executor | None = None,
        on_game: Callable[[GameRecord], None] | None = None,
        on_pair: Callable[[SprtState], None] | None = None,
        names: tuple[str, str] | None = None,
    ) -> MatchResult:
        """Play every game, over ``executor`` if given, else over ``workers`` local processes
        started for this match and stopped when it ends (also by Ctrl-C or an error).

        ``on_game`` sees each game as it finishes (in finishing order); the result lists them
        in order. Under a sequential test ``on_pair`` sees the test after each pair it counts
        (in pair order), and the result holds the games it counted and its final state.
        ``names`` are A's and B's names (default: :meth:`names`). Raises
        :class:`PlayerError` when a UCI engine cannot start."""
        if names is None:
            names = self.names()
        tasks = self.tasks(names)
        own = executor is None
        runner = worker_executor(min(workers, len(tasks))) if executor is None else executor
        records: dict[int, GameRecord] = {}
        state = None
        try:
            if self.sprt is None:
                for index, record in runner.map_unordered(run_task, tasks):
                    records[index] = record
                    if on_game is not None:
                        on_game(record)
            else:
                state = _play_sequential(runner, tasks, self.sprt, records, on_game, on_pair)
        finally:
            try:
                if own:
                    runner.close()
            finally:
                close_players()
        played = len(tasks) if state is None else 2 * state.run_pairs
        return MatchResult(
            self.game,
            names,
            self.time_control,
            tuple(records[i] for i in range(played)),
            state,
        )


def _pair_done(records: dict[int, GameRecord], pair: int) -> bool:
    return 2 * pair in records and 2 * pair + 1 in records


def _play_sequential(
    runner: Executor,
    tasks: Sequence[GameTask],
    settings: SprtSettings,
    records: dict[int, GameRecord],
    on_game: Callable[[GameRecord], None] | None,
    on_pair: Callable[[SprtState], None] | None,
) -> SprtState:
    """Play ``tasks`` in pairs until ``settings``' test decides (see the module docstring),
    keeping the finished games in ``records``; the test's final state."""
    test = SequentialTest(settings)
    window = 2 * max(runner.workers, 1)
    """Games handed out and not yet finished: enough to keep every worker busy."""
    pending: dict[Any, int] = {}
    handed = 0
    counted = 0
    try:
        while test.state.decision is None:
            # Step 1. Hand out games in index order, a few ahead of those finished.
            while handed < len(tasks) and len(pending) < window:
                pending[runner.submit(run_task, tasks[handed])] = handed
                handed += 1
            if not pending:
                break  # every game played: the test ends undecided
            # Step 2. Take the games that finished, in whatever order.
            for future in sorted(runner.wait(pending, POLL_S), key=pending.__getitem__):
                index = pending.pop(future)
                records[index] = runner.result(future, index)
                if on_game is not None:
                    on_game(records[index])
            # Step 3. Feed the test the pairs now complete from the first, in order.
            while test.state.decision is None and _pair_done(records, counted):
                test.add(records[2 * counted].score + records[2 * counted + 1].score)
                counted += 1
                if on_pair is not None:
                    on_pair(test.state)
    finally:
        for future in pending:
            runner.cancel(future)
    return test.state


__all__ = [
    "GameRecord",
    "GameTask",
    "Match",
    "MatchResult",
    "PlayerError",
    "TimeControl",
    "pair_points",
    "play_game",
    "settle",
]
