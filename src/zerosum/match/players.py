"""Match players: zerosum's own search under chosen settings, or any UCI chess engine.

A player is described by a small frozen value (:class:`EngineSettings` or :class:`UciSettings`)
that can be sent to another process; :func:`open_player` turns it into a live :class:`Player`
there. A player is told every move made so far (in the game's notation) and the clocks, and
answers with its move; it keeps no other link to the match.

Text syntax (:func:`parse_player`, used by ``zerosum match --a/--b``):

* ``uci:COMMAND`` -- a UCI engine started with ``COMMAND``, split as a shell would
  (``uci:/usr/games/stockfish``, ``"uci:zerosum uci"``); options come separately as
  ``NAME=VALUE`` (``UCI_Elo=1350``). Chess only.
* ``KEY=VALUE[,KEY=VALUE...]`` -- zerosum's search with these settings: ``level`` (1 = weakest,
  as ``zerosum play``), ``depth`` (plies; 0 = perfect play by an exact solve), ``time`` (seconds
  per move), ``nodes``, ``algorithm`` (see ``zerosum algorithms``; default: the compiled engine
  for games that have one, else the game's own choice, e.g. ``compiled-tactical`` for chess),
  ``hash`` (MB, the compiled engines) and ``seed``.
  ``zerosum`` alone (or an empty string) takes the defaults.

How a zerosum player limits its search: ``depth``/``level``, ``nodes`` and ``time`` as given;
given none of them it thinks for the time the match's time control allots (a fixed time per
move, or a share of its clock), and without a time control it plays at the game's default level.
It picks uniformly among all the best moves it finds, with a generator seeded by its ``seed``
and the game's number, so a depth-limited player is deterministic.
"""

from __future__ import annotations

import contextlib
import os
import random
import shlex
import signal
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from zerosum.compiled import MAX_HASH_MB
from zerosum.engines import COMPILED, COMPILED_TACTICAL, Engine, choose_engine, open_engine
from zerosum.engines.base import at_depth
from zerosum.game import MAX_PLY, Game, ZerosumError
from zerosum.games import get_game
from zerosum.search import Limit
from zerosum.search.core import MAX_NODES, MAX_TIME_S

if TYPE_CHECKING:
    import chess.engine


UCI_PREFIX = "uci:"
DEFAULT_UCI_MOVE_TIME = 1.0
"""Seconds per move for a UCI engine when the match has no time control."""
UCI_TIMEOUT = 30.0
"""Seconds a UCI engine may take to start or to answer beyond its thinking time."""
QUIT_TIMEOUT = 5.0
"""Seconds a UCI engine is given to obey ``quit`` before it is killed."""
KILL_TIMEOUT = 30.0
"""Seconds to wait for a killed engine's process to be reaped (bounds a hang only)."""
LOAD_TIMEOUT = 600.0
"""Seconds an engine may take to answer its first ``isready``: a search compiled on first use
(zerosum's compiled chess search from an empty numba cache) loads then, about a minute on a
loaded machine, which a match must wait for rather than count as a dead engine."""


class PlayerError(ZerosumError, ValueError):
    """A player description that is malformed, or a player that cannot start."""


_HEARD_LINES = 3
"""The lines of a program that failed to start as a UCI engine quoted in the error."""


def _watched_uci(heard: list[str]) -> Any:
    """python-chess's UCI protocol, keeping the first lines the program prints in ``heard``
    (for the error if it fails to start) and failing at once when it prints ``uci`` back
    before ``uciok``: an echo (``/bin/cat``) is no engine, and would otherwise be waited for
    until the timeout."""
    import chess.engine

    class WatchedUci(chess.engine.UciProtocol):
        def line_received(self, line: str) -> None:
            if len(heard) < _HEARD_LINES:
                heard.append(line if len(line) <= 80 else line[:80] + "...")
            if not self.initialized and line.strip() == "uci" and self.command is not None:
                self.command._handle_exception(
                    chess.engine.EngineError("it printed 'uci' back (an echo, not an engine)")
                )
            super().line_received(line)

    return WatchedUci


def _printed(heard: list[str]) -> str:
    """What the program printed, for an error message."""
    if not heard:
        return "it printed nothing"
    return (
        "it printed "
        + ", ".join(repr(line) for line in heard)
        + (", ..." if len(heard) >= _HEARD_LINES else "")
    )


class PlayerFailure(Exception):
    """A player that failed during a game (an engine that crashed or stopped answering): it
    loses that game."""


@dataclass(frozen=True)
class EngineSettings:
    """A zerosum player: the search and its limits (see the module docstring)."""

    level: int | None = None
    depth: int | None = None
    """Plies per move; 0 plays perfectly (an exact solve)."""
    time: float | None = None
    """Seconds per move."""
    nodes: int | None = None
    algorithm: str | None = None
    """``None``: the compiled engine for games that have one, else ``engine``."""
    hash_mb: float = 16
    """The compiled engines' table size in MB."""
    seed: int = 0

    def label(self) -> str:
        parts = [
            f"{name}={value}"
            for name, value in (
                ("level", self.level),
                ("depth", self.depth),
                ("time", self.time),
                ("nodes", self.nodes),
                ("algorithm", self.algorithm),
                ("seed", self.seed or None),
            )
            if value is not None
        ]
        return f"zerosum {','.join(parts)}" if parts else "zerosum"


@dataclass(frozen=True)
class UciSettings:
    """A UCI chess engine: its command line and the options set after it starts."""

    command: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    """``(name, value)`` pairs, sent with ``setoption`` in this order."""

    def label(self) -> str:
        program = self.command[0].rsplit("/", 1)[-1]
        shown = " ".join([program, *self.command[1:]])
        if self.options:
            shown += " (" + ", ".join(f"{n}={v}" for n, v in self.options) + ")"
        return shown


PlayerSpec = EngineSettings | UciSettings


@dataclass(frozen=True)
class Turn:
    """What a player is told when it is its turn."""

    moves: tuple[str, ...]
    """Every move made since the start, in the game's notation (chess: UCI)."""
    side: int
    """The side to move: 0 moves first (white), 1 second."""
    move_time: float | None = None
    """Seconds per move, under a fixed-time-per-move control."""
    clocks: tuple[float, float] | None = None
    """Seconds left on each side's clock, under a clock control."""
    increment: float = 0.0
    """Seconds added to a clock after each of its moves."""
    nodes: int | None = None
    """Nodes to search, under a nodes-per-move control (a player's own limits come first)."""


class Player(Protocol):
    """A live player in one process; reused for every game that process plays."""

    name: str
    """The name shown in results (for UCI engines, the name the engine reports)."""

    def new_game(self, game: str, seed: str) -> None:
        """Forget the previous game; ``seed`` seeds this game's random choices."""
        ...

    def choose(self, turn: Turn) -> str:
        """The move to play; raises :class:`PlayerFailure` when the player cannot answer."""
        ...

    def close(self) -> None:
        """Release every resource (engine processes); safe to call twice."""
        ...


# -- parsing ----------------------------------------------------------------------------------

_SETTING_KEYS = ("level", "depth", "time", "nodes", "algorithm", "hash", "seed")


def parse_player(text: str, options: Sequence[str] = ()) -> PlayerSpec:
    """The player written ``text``, with UCI ``options`` as ``NAME=VALUE`` (module docstring)."""
    text = text.strip()
    if text.startswith(UCI_PREFIX):
        try:
            command = tuple(shlex.split(text[len(UCI_PREFIX) :]))
        except ValueError as error:
            raise PlayerError(f"bad UCI command {text!r}: {error}") from None
        if not command:
            raise PlayerError(f"{text!r} names no command: expected uci:COMMAND")
        return UciSettings(command, tuple(_option(option) for option in options))
    if options:
        raise PlayerError(
            f"UCI options ({', '.join(options)}) given for {text or 'zerosum'!r}, which is not"
            " a UCI engine: expected uci:COMMAND"
        )
    return _engine_settings(text)


def _option(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise PlayerError(f"bad UCI option {text!r}: expected NAME=VALUE, e.g. UCI_Elo=1350")
    return name.strip(), value.strip()


def _engine_settings(text: str) -> EngineSettings:
    if text in ("", "zerosum", "default"):
        return EngineSettings()
    values: dict[str, Any] = {}
    for item in text.split(","):
        key, equals, value = (part.strip() for part in item.partition("="))
        if not equals or key not in _SETTING_KEYS:
            raise PlayerError(
                f"bad player setting {item.strip()!r} in {text!r}: expected KEY=VALUE with KEY"
                f" one of {', '.join(_SETTING_KEYS)}, or uci:COMMAND"
            )
        if key in values:
            raise PlayerError(f"player setting {key!r} given twice in {text!r}")
        values[key] = _setting_value(key, value)
    if "hash" in values:
        values["hash_mb"] = values.pop("hash")
    return EngineSettings(**values)


def _setting_value(key: str, value: str) -> Any:
    if key == "algorithm":
        if not value:
            raise PlayerError("algorithm= needs a name: see 'zerosum algorithms'")
        return value
    shown = value if len(value) <= 40 else value[:40] + "..."
    try:
        number: float = float(value) if key in ("time", "hash") else int(value)
    except ValueError:
        kind = "a number of seconds" if key == "time" else "a whole number"
        raise PlayerError(f"player setting {key}={shown!r}: expected {kind}") from None
    lowest, highest = _SETTING_RANGES[key]
    if not lowest <= number <= highest:
        raise PlayerError(
            f"player setting {key}={shown}: out of range: expected {lowest:g}..{highest:g}"
            if key in ("time", "hash")
            else f"player setting {key}={shown}: out of range: expected {lowest}..{highest}"
        )
    if key == "time" and number == 0:
        raise PlayerError(f"player setting time={shown}: expected seconds > 0")
    return number


_SETTING_RANGES: dict[str, tuple[float, float]] = {
    "level": (1, 1_000),
    "depth": (0, MAX_PLY),
    "time": (0, MAX_TIME_S),
    "nodes": (1, MAX_NODES),
    "hash": (1, MAX_HASH_MB),
    "seed": (-(1 << 62), 1 << 62),
}
"""The numbers a player setting may take: what a :class:`~zerosum.search.Limit` and the
compiled engines (64-bit counters and seeds) hold."""


def check_player(spec: PlayerSpec, game: str) -> None:
    """Raise :class:`PlayerError` (or the registry's error) unless ``spec`` can play ``game``.

    Checks everything that can be checked without starting a process; :func:`open_player`
    starts UCI engines and reports commands that fail."""
    game_spec = get_game(game)
    if isinstance(spec, UciSettings):
        if not game_spec.uci:
            raise PlayerError(f"UCI engines play chess only, not {game!r}")
        return
    if spec.level is not None and not 1 <= spec.level <= len(game_spec.levels):
        raise PlayerError(
            f"level {spec.level} is out of range for {game}: expected 1..{len(game_spec.levels)}"
        )
    if spec.level is not None and spec.depth is not None:
        raise PlayerError("give a player level= or depth=, not both")
    algorithm = _algorithm(spec, game)
    choose_engine(game_spec, algorithm, task="play")


def _algorithm(spec: EngineSettings, game: str) -> str:
    """The player's algorithm: as given, else the compiled engine for games that have one,
    else the one ``zerosum analyze`` uses for the game."""
    if spec.algorithm is not None:
        return spec.algorithm
    return get_game(game).play_engine


def open_player(spec: PlayerSpec, game: str, *, isolate: bool = True) -> Player:
    """A live player for ``game``. ``isolate`` starts UCI engines in their own process group,
    so a Ctrl-C meant for this process does not kill them before they are closed cleanly."""
    check_player(spec, game)
    if isinstance(spec, UciSettings):
        return UciPlayer(spec, isolate=isolate)
    return ZerosumPlayer(spec, game)


# -- zerosum's own search ---------------------------------------------------------------------


def time_budget(turn: Turn) -> float | None:
    """Seconds to think under the turn's time control, ``None`` without one: the fixed time
    per move, or a 30th of the clock plus most of the increment, never over half the clock."""
    if turn.move_time is not None:
        return turn.move_time
    if turn.clocks is None:
        return None
    left = max(turn.clocks[turn.side], 0.0)
    return max(min(left / 30 + 0.75 * turn.increment, left / 2), 0.001)


class ZerosumPlayer:
    """zerosum's search on the registered game, following the game move by move."""

    def __init__(self, settings: EngineSettings, game: str) -> None:
        self.settings = settings
        self.spec = get_game(game)
        self.algorithm = _algorithm(settings, game)
        self.name = settings.label()
        self.position: Game[Any] = self.spec.new()
        self.rng = random.Random(0)
        self.engine: Engine | None = None

    def new_game(self, game: str, seed: str) -> None:
        self.position = self.spec.new()
        self.rng = random.Random(f"{self.settings.seed}/{seed}")
        # A fresh engine per game: its table and move-ordering history live for one game, and
        # a game's moves do not depend on the games played before.
        self.close()
        self.engine = open_engine(
            self.spec,
            self.algorithm,
            task="play",
            all_best=True,
            hash_mb=self.settings.hash_mb
            if self.algorithm in (COMPILED, COMPILED_TACTICAL)
            else None,
        )

    def choose(self, turn: Turn) -> str:
        position = self.position
        for text in turn.moves[position.ply() :]:
            position.make(position.parse_move(text))
        moves = self._best_moves(turn)
        return position.format_move(self.rng.choice(moves))

    def _depth(self) -> int | None:
        settings = self.settings
        if settings.depth is not None:
            return settings.depth
        if settings.level is not None:
            return self.spec.levels[settings.level - 1]
        return None

    def _best_moves(self, turn: Turn) -> list[Any]:
        settings, position = self.settings, self.position
        if self.engine is None:
            self.new_game(self.spec.name, "")
        assert self.engine is not None
        depth, seconds = self._depth(), settings.time
        nodes = settings.nodes
        if depth is None and nodes is None and seconds is None:
            seconds, nodes = time_budget(turn), turn.nodes
            if seconds is None and nodes is None:
                levels = self.spec.levels
                depth = levels[(self.spec.default_level or len(levels)) - 1]
        limit = Limit(time=seconds, nodes=nodes)
        if depth == 0:
            found = self.engine.best_moves(position, depth=0, limit=limit)
            if found.best_moves:
                return list(found.best_moves)
            depth = None  # out of time: fall back on the search below
        found = self.engine.search(position, at_depth(limit, depth or None))
        if found.best_moves:
            return list(found.best_moves)
        return position.legal_moves()[:1]

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None


# -- UCI engines ------------------------------------------------------------------------------


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back until the block ends, then deliver them.

    python-chess starts an engine from a background thread; an exception that interrupts the
    start leaves that thread and the engine running with nothing to close them, and the process
    then never exits. Starting is short, so a Ctrl-C waits for it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def hold(signum: int, frame: object) -> None:
        held.append(signum)

    kinds = (signal.SIGINT, signal.SIGTERM)
    previous = [signal.signal(kind, hold) for kind in kinds]
    try:
        yield
    finally:
        for kind, handler in zip(kinds, previous, strict=True):
            signal.signal(kind, handler)
        for signum in held:
            signal.raise_signal(signum)


def _end(engine: chess.engine.SimpleEngine, *, group: bool) -> None:
    """Make sure ``engine``'s process has ended: if it still runs, SIGKILL to its process group
    (``group``: it leads one, which holds whatever it started) or to itself; then wait until
    it is gone (at most :data:`KILL_TIMEOUT` seconds, a bound on a hang only). Only a process
    that asyncio has not seen exit is signalled (its id is not free for another process)."""
    pid = engine.transport.get_pid()
    if not engine.returncode.done() and engine.transport.get_returncode() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if group:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
    engine.close()  # ends python-chess's event loop (and kills the process if still there)
    with contextlib.suppress(Exception):
        engine.returncode.result(timeout=KILL_TIMEOUT)


@dataclass
class UciPlayer:
    """A UCI engine driven through python-chess, started on first use and again after a crash."""

    settings: UciSettings
    isolate: bool = True
    name: str = ""
    engine: chess.engine.SimpleEngine | None = field(default=None, repr=False)
    game_token: object = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.name = self.settings.label()

    def start(self) -> None:
        """Start the engine and set its options; raises :class:`PlayerError` on failure."""
        import chess.engine

        self.close()
        command = list(self.settings.command)
        heard: list[str] = []
        try:
            with _interrupts_deferred():
                self.engine = chess.engine.SimpleEngine.popen(
                    _watched_uci(heard), command, setpgrp=self.isolate, timeout=UCI_TIMEOUT
                )
        except (OSError, chess.engine.EngineError, TimeoutError) as error:
            self.engine = None
            reason = str(error) or type(error).__name__
            if isinstance(error, TimeoutError):
                reason = f"no 'uciok' within {UCI_TIMEOUT:g} s; {_printed(heard)}"
            elif isinstance(error, chess.engine.EngineTerminatedError):
                reason = f"{reason}; {_printed(heard)}"
            raise PlayerError(
                f"cannot start UCI engine {shlex.join(command)!r}: {reason}: expected a UCI "
                "engine, which answers 'uci' with 'uciok'"
            ) from None
        try:
            self.name = str(self.engine.id.get("name", self.name))
            for option, value in self.settings.options:
                self.engine.configure({option: value})
            # isready now: an engine that loads its search then (zerosum's compiled one) does
            # so before the first game's clock runs, not inside its first move
            self.engine.timeout = LOAD_TIMEOUT
            try:
                self.engine.ping()
            finally:
                self.engine.timeout = UCI_TIMEOUT
        except TimeoutError:
            self.close()
            raise PlayerError(
                f"UCI engine {shlex.join(command)!r} did not answer isready within "
                f"{LOAD_TIMEOUT:g} s: expected readyok once it has loaded"
            ) from None
        except (chess.engine.EngineError, ValueError) as error:
            self.close()
            raise PlayerError(f"UCI engine {shlex.join(command)!r}: {error}") from None

    def new_game(self, game: str, seed: str) -> None:
        if self.engine is None:
            self.start()
        self.game_token = object()  # a new token makes python-chess send ucinewgame

    def choose(self, turn: Turn) -> str:
        import chess
        import chess.engine

        if self.engine is None:
            raise PlayerFailure("the engine is not running")
        board = chess.Board()
        for text in turn.moves:
            board.push_uci(text)
        if turn.clocks is not None:
            white, black = turn.clocks
            limit = chess.engine.Limit(
                white_clock=max(white, 0.0),
                black_clock=max(black, 0.0),
                white_inc=turn.increment,
                black_inc=turn.increment,
            )
        elif turn.nodes is not None:
            limit = chess.engine.Limit(nodes=turn.nodes)
        else:
            limit = chess.engine.Limit(time=turn.move_time or DEFAULT_UCI_MOVE_TIME)
        try:
            result = self.engine.play(board, limit, game=self.game_token)
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as error:
            self.close()
            raise PlayerFailure(f"engine error: {error}") from None
        except TimeoutError:
            self.close()
            raise PlayerFailure("the engine stopped answering") from None
        if result.move is None:
            raise PlayerFailure("the engine returned no move")
        return result.move.uci()

    def kill(self) -> None:
        """End the engine process at once, from any thread (a move it is thinking about fails
        with :class:`PlayerFailure`); :meth:`close` still has to be called."""
        engine = self.engine
        if engine is None:
            return
        with contextlib.suppress(Exception):  # gone already, or never had a process
            os.kill(engine.transport.get_pid(), signal.SIGKILL)

    def close(self) -> None:
        """Ask the engine to quit (for :data:`QUIT_TIMEOUT` seconds), then make sure its
        process has ended, on every path: an engine that does not quit, an error, or a Ctrl-C
        while it quits is killed (with everything in its process group when it leads one), and
        a Ctrl-C or SIGTERM during the kill waits for it. Safe to call twice."""
        engine, self.engine = self.engine, None
        if engine is None:
            return
        try:
            engine.timeout = QUIT_TIMEOUT
            with contextlib.suppress(Exception):
                engine.quit()
        finally:
            with _interrupts_deferred():
                _end(engine, group=self.isolate)
