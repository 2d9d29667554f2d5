"""``zerosum uci``: the chess engine over the Universal Chess Interface.

The front end owns the clock and the protocol; the search only polls a stop condition. The
``Engine`` option chooses it: ``compiled-tactical`` (the default, the game's engine for
analysis: :mod:`zerosum.compiled.chess_engine`; ``Hash`` sizes its table in MB, ``Threads``
its Lazy SMP threads, ``info`` lines carry nodes, nps and hashfull) or ``tactical`` (the
pure-Python tactical search it is the compiled twin of, :mod:`zerosum.search.tactical`;
``Hash`` sizes its table, ``Threads`` its worker processes). Commands are read on the main
thread while a search runs in a worker thread, so ``isready``, ``stop`` and ``quit`` are
answered at once during a search.

Compilation is never on the clock, nor on ``readyok``: the engine is opened right after
``uciok`` (and again at ``isready`` or ``go`` after an option closed it) as a
:class:`~zerosum.engines.warming.WarmingEngine`, which loads the compiled search in a
background thread, first compiling it in a child process if numba's disk cache lacks it (a
first use: about a minute). Until it is loaded, ``go`` searches with its pure-Python twin
(weaker, within the same time) and says so in an ``info string``; ``readyok`` never waits.
With ``ZEROSUM_COMPILE=wait`` in the environment, ``isready`` (or the first ``go``) loads or
compiles it instead, as before. Nor does ``uciok`` wait for imports: this module imports
python-chess, the chess game and the tactical searches where they are first used (the engine
that ``uciok`` starts opening, the first ``position``), so that ``uciok`` costs only the
interpreter's start and the command line's (``tests/test_startup.py`` checks).

Time is counted from the moment a command arrives, as the GUI counts it: ``zerosum uci`` reads
standard input in a thread that notes when each line came (:func:`timed_lines`), and a ``go``
(or ``ponderhit``) that waited behind a slower command (the first ``position`` imports the
chess machinery; python-chess sends ``position`` and ``go`` together) starts its clock when it
came, not when it was obeyed. The same process imports python-chess in the background right
after ``uciok`` (``UciEngine(preload=True)``), while the GUI reads the options, so the first
``position`` rarely waits for it, and ``isready`` waits for it (a GUI that asks is then ready
for its first ``go`` in every respect). The child that compiles the compiled search runs at
the lowest priority from its start (:data:`zerosum.compiled.warm.BACKGROUND_NICE`), so on a
busy machine it takes next to nothing from the first searches.

Robustness: a malformed or illegal command is answered with ``info string`` naming what was
wrong and what was expected, and changes nothing (a ``position`` with a bad FEN or an illegal
move keeps the previous position; a bad ``setoption`` keeps the old value). ``bestmove`` is
always a legal move of the position searched (``(none)`` when there is none).

Time management (:func:`plan_time`): with ``movetime`` the search uses all that time less the
overhead; with a clock it plans a soft target after which no new iteration starts, about
``remaining / moves_to_go + increment`` less an overhead for every move to go (moves to go: the
GUI's ``movestogo`` or 16), and a hard limit of three times that, never more than a fifth of
the clock left plus 3/4 increment, nor more than the clock less the overhead and a reserve. The
overhead is the larger of the ``Move Overhead`` option and the lag measured on this GUI
(:class:`LagMeter`: what its clock charged the last moves beyond this engine's own measure),
so on a loaded machine the engine keeps more in hand, and a clock that only the increment
refills settles well above the reserve instead of draining to it.

Numbers past what the engine holds are clamped, as UCI engines do, and said so in an ``info
string``: ``go nodes`` to 2^63 - 1 (the compiled search counts nodes in 64 bits), ``go depth``
and ``go mate`` to the deepest search, times and ``movestogo`` to ``GO_MOST``; the search then
runs and its ``bestmove`` is a move it searched. A word of the command echoed in an ``info
string`` is cut to ``ECHO_CHARS`` characters.

Bounded searches: only ``go infinite`` (and ``go ponder`` until ``ponderhit``) searches until
``stop``. A ``go`` whose limits are all missing or bad (``go depth -1``, a clock given only for
the side not to move) says so in an ``info string`` and searches at most
``DEFAULT_MOVETIME`` ms, so a GUI that sent one bad limit still gets its ``bestmove`` in time.

Commands during a search: ``stop``, ``quit``, ``isready``, ``ponderhit``, ``debug`` and ``d``
are answered at once; ``position`` and the options MultiPV and Move Overhead take effect at
the next ``go`` (the running search keeps its own copy of the position); ``go``,
``ucinewgame`` and the options Hash, Threads, Contempt and Clear Hash first stop the running
search, which sends its ``bestmove`` as after ``stop``, then are obeyed.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, TextIO

from zerosum import __version__
from zerosum.compiled.warm import compiling_in_background
from zerosum.engines import COMPILED_TACTICAL, TACTICAL, Engine, TacticalEngine, open_engine
from zerosum.engines.warming import WarmingEngine
from zerosum.game import HEURISTIC_LIMIT, WIN, MoveError, PositionError, Score
from zerosum.games import get_game
from zerosum.search.core import MAX_NODES, MAX_TIME_S, Limit, number_text
from zerosum.search.tactical import MAX_DEPTH

if TYPE_CHECKING:  # the chess machinery is imported after uciok (see the module's header)
    import chess

    from zerosum.games.chess import Chess
    from zerosum.search.tactical import Report

ENGINE_NAME: Final = f"zerosum {__version__}"
HASH_DEFAULT, HASH_MAX = 16, 1024
ENTRY_BYTES: Final = 256
"""Approximate memory of one entry of the pure-Python table, to turn Hash into entries."""
ENGINES: Final = (COMPILED_TACTICAL, TACTICAL)
"""The values of the ``Engine`` option, the default first."""
MULTIPV_MAX: Final = 64
THREADS_MAX: Final = os.cpu_count() or 1
"""Threads: Lazy SMP threads of the compiled search, sharing its table."""
OVERHEAD_DEFAULT: Final = 50
"""Move Overhead (ms): the time kept back per move for the GUI and the pipe."""
CLOCK_RESERVE_MS: Final = 100
"""Time on the clock never planned for (ms), besides the Move Overhead: what the engine does
not control on a loaded machine (scheduling, a collection pause, answering ``bestmove``)."""
TWIN_SHARE: Final = 0.8
"""The share of its hard time limit the pure-Python twin searches while the compiled engine
loads: the loader thread holds the GIL in long stretches (a tenth of a second seen) and a
compiling child takes a core, so the twin's stop is seen later than the compiled engine's."""
CONTEMPT_DEFAULT, CONTEMPT_MAX = 0, 100
"""Contempt (centipawns): what a repetition or other rule draw is worth less than 0 to the
engine (``tactical.Options.contempt``); negative values seek draws."""
MOVES_TO_GO: Final = 16
"""Moves assumed left on the clock when the GUI does not say."""
DEFAULT_MOVETIME: Final = 10_000
"""The most a ``go`` without a valid limit searches (ms)."""
ECHO_CHARS: Final = 60
"""The most characters of a command's word quoted back in an ``info string``."""
INFO_CHARS: Final = 1000
"""The longest ``info string`` text sent (longer ones are cut)."""
COMMANDS: Final = (
    "uci isready ucinewgame setoption position go stop ponderhit quit debug register d"
)


class UciError(ValueError):
    """A command the engine cannot obey; the message goes back as ``info string``."""


@dataclass
class GoParams:
    """The parameters of one ``go`` command."""

    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    infinite: bool = False
    ponder: bool = False
    searchmoves: list[str] = field(default_factory=list)


GO_NUMBERS: Final = (
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "mate",
)
_MOST_MS: Final = int(MAX_TIME_S * 1000)
GO_MOST: Final = {
    "wtime": _MOST_MS,
    "btime": _MOST_MS,
    "winc": _MOST_MS,
    "binc": _MOST_MS,
    "movestogo": 1_000_000,
    "movetime": _MOST_MS,
    "depth": MAX_DEPTH,
    "nodes": MAX_NODES,
    "mate": MAX_DEPTH,
}
"""The largest value of each number of ``go`` (larger ones are clamped to it): the deepest
search, the compiled engine's 64-bit node counter, ``MAX_TIME_S`` in milliseconds."""


def echo(text: str) -> str:
    """``repr(text)`` cut to about :data:`ECHO_CHARS` characters, for a message."""
    if len(text) <= ECHO_CHARS:
        return repr(text)
    return f"{text[:ECHO_CHARS]!r}... ({len(text):,} chars)"


def _whole_number(text: str) -> int | None:
    """``text`` as a whole number, or None; one of more digits than Python reads (4,300) is
    taken as the largest or smallest number there is, which :data:`GO_MOST` then clamps."""
    try:
        return int(text)
    except ValueError:
        digits = text.removeprefix("-").removeprefix("+")
        if not digits.isascii() or not digits.isdigit():
            return None
        return -(1 << 64) if text.startswith("-") else 1 << 64


def parse_go(words: list[str]) -> tuple[GoParams, list[str]]:
    """The parameters of ``go``, and a message for each word that was not understood."""
    params = GoParams()
    problems: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word in GO_NUMBERS:
            text = words[index] if index < len(words) else ""
            value = _whole_number(text)
            if value is None:
                problems.append(f"go {word} {echo(text)} ignored: expected a whole number")
                if text and text not in (*GO_NUMBERS, "infinite", "ponder", "searchmoves"):
                    index += 1  # the bad value itself: one message is enough
                continue
            index += 1
            shown = text if len(text) <= ECHO_CHARS else f"of {len(text):,} digits"
            least = 1 if word in ("depth", "nodes", "mate") else 0
            if value < least and word not in ("wtime", "btime"):
                problems.append(f"go {word} {shown} ignored: expected {least} or more")
                continue
            if value > GO_MOST[word]:
                value = GO_MOST[word]
                problems.append(
                    f"go {word} {shown}: searching with {word} {value} (the most it takes)"
                )
            setattr(params, word, value)
        elif word == "infinite":
            params.infinite = True
        elif word == "ponder":
            params.ponder = True
        elif word == "searchmoves":
            while index < len(words) and words[index] not in (*GO_NUMBERS, "infinite", "ponder"):
                params.searchmoves.append(words[index])
                index += 1
        else:
            problems.append(
                f"go: unknown word {echo(word)} ignored: expected wtime, btime, winc, binc, "
                "movestogo, movetime, depth, nodes, mate, infinite, ponder or searchmoves"
            )
    return params, problems


def bounded(params: GoParams, white: bool) -> bool:
    """Whether ``go`` with ``params`` ends by itself or on the GUI's word: a depth, node,
    mate or time limit, a clock for the side to move, ``infinite`` or ``ponder`` with a
    clock (a GUI that ponders ends it with ``stop`` or ``ponderhit``)."""
    clock = params.wtime if white else params.btime
    limits = (params.depth, params.nodes, params.mate, params.movetime, clock)
    return params.infinite or any(limit is not None for limit in limits)


def plan_time(
    params: GoParams, white: bool, overhead_ms: int, *, lag_ms: int = 0
) -> tuple[float | None, float | None]:
    """``(soft, hard)`` seconds for this move from ``go``'s parameters (``None``: no limit).

    Soft: after it no new iteration starts; hard: the search stops at once. ``lag_ms`` is the
    time the GUI was seen to charge a move beyond the engine's own measure of it
    (:class:`LagMeter`); the larger of it and ``overhead_ms`` (the Move Overhead option) is
    the *overhead*, the cost of one move besides its search. With a clock:

    * the time of the moves to go (``movestogo``, or :data:`MOVES_TO_GO`) is the clock plus
      their increments less an overhead for each of them and two more, less the reserve
      (:data:`CLOCK_RESERVE_MS` and one overhead); soft is its share for this move, so every
      future move's overhead is paid for now and a clock that only the increment refills
      settles at about ``MOVES_TO_GO`` overheads instead of draining to the reserve;
    * hard is three times soft, never more than a fifth of the spendable clock plus 3/4 of the
      increment, nor more than the spendable clock itself: the clock less the overhead and the
      reserve (so a move stopped at hard still leaves two overheads and the reserve on it).
    """
    overhead = max(overhead_ms, lag_ms)
    if params.movetime is not None:  # the whole time is for this move: no soft stop
        return None, max(0.005, (params.movetime - overhead) / 1000)
    left = params.wtime if white else params.btime
    if left is None:
        return None, None
    increment = params.winc if white else params.binc
    reserve = CLOCK_RESERVE_MS + overhead
    spendable = max(0.0, (left - overhead - reserve) / 1000)
    moves = max(1, params.movestogo if params.movestogo else MOVES_TO_GO)
    horizon = left + increment * (moves - 1) - overhead * (moves + 2) - reserve
    soft = min(max(0.0, horizon / 1000 / moves), spendable)
    hard = max(min(3 * soft, spendable / 5 + 0.75 * increment / 1000, spendable), 0.005)
    return min(soft, hard), hard


LAG_SAMPLES: Final = 16
"""The moves over which :class:`LagMeter` keeps the worst lag."""
LAG_MOST_MS: Final = 2000
"""A lag beyond this (either way) is no lag but another game or a new time period: ignored."""


@dataclass
class _Move:
    """What :class:`LagMeter` keeps of the engine's last move on the clock."""

    white: bool
    left_ms: int
    increment_ms: int
    elapsed_s: float


class LagMeter:
    """What the GUI's clock charges a move beyond the time the engine meant it to take.

    The engine means a move to take from the arrival of ``go`` until its search chooses to stop
    or reaches its hard limit; the GUI's clock also counts how late a stopped search sees its
    stop and answers, the pipe both ways, the time before this process is scheduled to read
    ``go`` (and the reader thread to note it) and to write ``bestmove``, and the GUI's own
    delays: on a loaded machine tens to hundreds of milliseconds a move. The next ``go`` of the
    same side says what was charged: its clock is the clock before, plus the increment, less
    the charge. :attr:`lag_ms` is the worst excess seen over the last :data:`LAG_SAMPLES`
    moves; it is kept across games (it belongs to the machine and the GUI), while a new game
    forgets the last move (no pair across games).
    """

    def __init__(self) -> None:
        self._samples: deque[int] = deque(maxlen=LAG_SAMPLES)
        self._last: _Move | None = None

    @property
    def lag_ms(self) -> int:
        """The worst lag of the last moves (ms, 0 before any was seen)."""
        return max(self._samples, default=0)

    def went(self, params: GoParams, white: bool) -> None:
        """A ``go`` for ``white`` arrived: pair it with the same side's last move."""
        last, self._last = self._last, None
        left = params.wtime if white else params.btime
        if last is None or left is None or last.white != white or params.movetime is not None:
            return
        charged = last.left_ms + last.increment_ms - left
        lag = charged - last.elapsed_s * 1000
        if -LAG_MOST_MS <= lag <= LAG_MOST_MS:
            self._samples.append(max(0, round(lag)))

    def moved(self, params: GoParams, white: bool, elapsed_s: float) -> None:
        """The move of that ``go`` was meant to take ``elapsed_s`` from its arrival (by this
        process's clock). A move without a clock, or pondered on, is not paired."""
        left = params.wtime if white else params.btime
        if left is None or params.ponder or params.infinite or params.movetime is not None:
            self._last = None
            return
        increment = params.winc if white else params.binc
        self._last = _Move(white, left, increment, elapsed_s)

    def new_game(self) -> None:
        """Forget the last move (the next ``go`` is no continuation of it)."""
        self._last = None


def score_text(value: Score) -> str:
    """``cp N`` or ``mate N`` (moves, negative when the side to move is mated)."""
    if abs(value) >= HEURISTIC_LIMIT:
        plies = WIN - abs(value)
        moves = (plies + 1) // 2
        return f"mate {moves if value > 0 else -moves}"
    return f"cp {value}"


class UciEngine:
    """The protocol state machine; ``handle`` takes one line, ``send`` writes one line.

    The position and the options change only through complete, valid commands.
    """

    def __init__(self, send: Callable[[str], None], *, preload: bool = False) -> None:
        self._send_raw = send
        self._preload = preload
        """Whether ``uci`` imports the chess machinery in a thread after ``uciok`` (which
        ``isready`` then waits for)."""
        self._preloader: threading.Thread | None = None
        self._received: float | None = None
        """When the command being obeyed arrived (``time.perf_counter()``; ``None``: now)."""
        self._lock = threading.Lock()
        self.spec = get_game("chess")  # the game UCI speaks
        self._game: Chess | None = None
        self.hash_mb = HASH_DEFAULT
        self.multipv = 1
        self.overhead_ms = OVERHEAD_DEFAULT
        self.contempt = CONTEMPT_DEFAULT
        self.threads = 1
        self.engine_name: str = ENGINES[0]
        """The ``Engine`` option: which search ``go`` runs."""
        self.engine: Engine | None = None
        """The search engine with its table, opened by ``isready`` or the first ``go`` after
        Engine, Hash or Threads changed."""
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._active = threading.Event()
        self._pondering = threading.Event()
        self._clock_start = 0.0
        self._soft: float | None = None
        self._hard: float | None = None
        self.lag = LagMeter()
        """What the GUI's clock was seen to charge a move beyond this engine's measure."""

    @property
    def game(self) -> Chess:
        """The position of the last valid ``position`` command (the start until then)."""
        if self._game is None:
            self._game = _start()
        return self._game

    @game.setter
    def game(self, game: Chess) -> None:
        self._game = game

    def send(self, line: str) -> None:
        with self._lock:
            self._send_raw(line)

    def info(self, text: str) -> None:
        """Send ``text`` as an ``info string`` (cut to :data:`INFO_CHARS` characters)."""
        if len(text) > INFO_CHARS:
            text = text[: INFO_CHARS - 20] + f"... ({len(text):,} chars)"
        self.send(f"info string {text}")

    @property
    def searching(self) -> bool:
        """A search runs and has not sent its bestmove yet (the thread may still be ending:
        the GUI may send the next command as soon as it reads bestmove)."""
        return self._active.is_set()

    # -- commands -----------------------------------------------------------------------

    def handle(self, line: str, *, received: float | None = None) -> bool:
        """Obey one command line; returns False after ``quit``. Never raises. ``received``:
        when the line arrived (``time.perf_counter()``), where the clock of a ``go`` starts
        (default: now)."""
        self._received = received
        words = line.split()
        if not words:
            return True
        command, rest = words[0], words[1:]
        try:
            if command == "quit":
                self.stop()
                self.close()
                return False
            handler = getattr(self, f"cmd_{command}", None) if command in COMMANDS.split() else None
            if handler is None:
                raise UciError(f"unknown command {echo(command)}: expected one of {COMMANDS}")
            handler(rest)
        except (UciError, MoveError, PositionError) as error:
            self.info(str(error))
        except Exception as error:  # the front end's last line of defence: stay alive
            self.info(f"internal error on {echo(line.strip())}: {type(error).__name__}: {error}")
        return True

    def cmd_uci(self, words: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send("id author the zerosum developers")
        self.send(f"option name Hash type spin default {HASH_DEFAULT} min 1 max {HASH_MAX}")
        self.send(f"option name Threads type spin default 1 min 1 max {THREADS_MAX}")
        self.send(f"option name MultiPV type spin default 1 min 1 max {MULTIPV_MAX}")
        self.send(f"option name Move Overhead type spin default {OVERHEAD_DEFAULT} min 0 max 5000")
        self.send(
            f"option name Contempt type spin default {CONTEMPT_DEFAULT}"
            f" min {-CONTEMPT_MAX} max {CONTEMPT_MAX}"
        )
        self.send("option name Ponder type check default false")
        self.send("option name Clear Hash type button")
        choices = " ".join(f"var {name}" for name in ENGINES)
        self.send(f"option name Engine type combo default {ENGINES[0]} {choices}")
        self.send("uciok")
        if not self.searching and compiling_in_background():
            self._open_engine()  # start loading the compiled search now, off every clock
        if self._preload and self._game is None and self._preloader is None:
            self._preloader = threading.Thread(target=_preload, name="zerosum-preload", daemon=True)
            self._preloader.start()

    def cmd_isready(self, words: list[str]) -> None:
        try:
            if not self.searching:
                self._open_engine()  # load the compiled search now rather than on the clock
            if self._preloader is not None:  # python-chess: ready for the first position
                self._preloader.join()
        finally:
            self.send("readyok")  # the GUI waits for it whatever happened

    def cmd_debug(self, words: list[str]) -> None:
        pass

    def cmd_register(self, words: list[str]) -> None:
        pass

    def cmd_d(self, words: list[str]) -> None:
        for row in self.game.render().splitlines():
            self.info(row)
        self.info(f"fen {self.game.position()}")

    def cmd_ucinewgame(self, words: list[str]) -> None:
        self._busy("ucinewgame")
        self._clear_hash()
        self.lag.new_game()
        self.game = _start()

    def cmd_setoption(self, words: list[str]) -> None:
        if not words or words[0] != "name":
            raise UciError("setoption: expected 'setoption name <name> [value <value>]'")
        if "value" in words:
            at = words.index("value")
            name, value = " ".join(words[1:at]), " ".join(words[at + 1 :])
        else:
            name, value = " ".join(words[1:]), ""
        key = name.lower()
        if key in ("hash", "threads", "multipv", "move overhead", "contempt"):
            limits = {
                "hash": (1, HASH_MAX),
                "threads": (1, THREADS_MAX),
                "multipv": (1, MULTIPV_MAX),
                "move overhead": (0, 5000),
                "contempt": (-CONTEMPT_MAX, CONTEMPT_MAX),
            }[key]
            try:
                number = int(value)
            except ValueError:
                raise UciError(
                    f"setoption {name}: {echo(value)} is not a whole number: expected "
                    f"{limits[0]}..{limits[1]}; kept the old value"
                ) from None
            if not limits[0] <= number <= limits[1]:
                raise UciError(
                    f"setoption {name}: {number_text(number)} is out of range: expected "
                    f"{limits[0]}..{limits[1]}; kept the old value"
                )
            if key == "hash":
                self._busy("setoption Hash")
                self.hash_mb = number
                self._close_engine()
            elif key == "threads":
                self._busy("setoption Threads")
                self.threads = number
                self._close_engine()
            elif key == "multipv":
                self.multipv = number
            elif key == "contempt":
                self._busy("setoption Contempt")
                self.contempt = number
                self._close_engine()
            else:
                self.overhead_ms = number
        elif key == "clear hash":
            self._busy("Clear Hash")
            self._clear_hash()
        elif key == "engine":
            chosen = value.strip().lower()
            if chosen not in ENGINES:
                raise UciError(
                    f"setoption Engine: {echo(value)} is not an engine: expected "
                    f"{' or '.join(ENGINES)}; kept {self.engine_name}"
                )
            if chosen != self.engine_name:
                self._busy("setoption Engine")
                self.engine_name = chosen
                self._close_engine()
        elif key == "ponder":
            pass
        else:
            raise UciError(
                f"setoption: unknown option {echo(name)}: expected Hash, Threads, MultiPV, "
                "Move Overhead, Contempt, Ponder, Clear Hash or Engine"
            )

    def cmd_position(self, words: list[str]) -> None:
        if not words or words[0] not in ("startpos", "fen"):
            raise UciError(
                "position: expected 'position startpos [moves ...]' or "
                "'position fen <FEN> [moves ...]'; kept the previous position"
            )
        at = words.index("moves") if "moves" in words else len(words)
        if words[0] == "startpos":
            if at != 1:
                raise UciError(
                    f"position startpos: unexpected {echo(' '.join(words[1:at]))}: expected "
                    "'moves' or nothing; kept the previous position"
                )
            game = _start()
        else:
            from zerosum.games.chess import Chess

            try:
                game = Chess.from_position(" ".join(words[1:at]))
            except PositionError as error:
                raise UciError(f"position: {error}; kept the previous position") from None
        import chess

        for number, text in enumerate(words[at + 1 :], start=1):
            try:
                move = chess.Move.from_uci(text)
            except ValueError:
                raise UciError(
                    f"position: move {number} {echo(text)} is not UCI notation: expected e.g. e2e4 "
                    "or e7e8q; kept the previous position"
                ) from None
            if not move or not game.is_legal(move):
                raise UciError(
                    f"position: move {number} {text} is illegal in {game.position()}; "
                    "kept the previous position"
                )
            game.make(move)
        self.game = game

    def cmd_go(self, words: list[str]) -> None:
        self._busy("go")
        params, problems = parse_go(words)
        for problem in problems:
            self.info(problem)
        game = self.game.copy()
        if not bounded(params, game.board.turn):
            params.movetime = DEFAULT_MOVETIME
            self.info(
                f"go: no valid limit: searching at most {DEFAULT_MOVETIME} ms (expected depth, "
                "nodes, mate, movetime, the clock of the side to move, or infinite)"
            )
        roots = []
        for text in params.searchmoves:
            try:
                roots.append(game.parse_move(text))
            except MoveError as error:
                self.info(f"go searchmoves: {error}; ignored")
        if self._thread is not None:  # the last search sent its bestmove: let it end
            self._thread.join()
        self.lag.went(params, game.board.turn)
        soft, hard = plan_time(params, game.board.turn, self.overhead_ms, lag_ms=self.lag.lag_ms)
        self._soft, self._hard = soft, hard
        self._stop.clear()
        self._clock_start = self._arrival()
        if params.ponder:
            self._pondering.set()
        else:
            self._pondering.clear()
        self._active.set()
        self._thread = threading.Thread(
            target=self._search, args=(game, params, roots), name="zerosum-search", daemon=True
        )
        self._thread.start()

    def cmd_stop(self, words: list[str]) -> None:
        self.stop()

    def cmd_ponderhit(self, words: list[str]) -> None:
        self._clock_start = self._arrival()
        self._pondering.clear()

    def _arrival(self) -> float:
        """When the command being obeyed arrived (now, if the caller did not say)."""
        now = time.perf_counter()
        return now if self._received is None else min(self._received, now)

    def stop(self) -> None:
        """Stop the running search (it then sends its bestmove) and wait for it."""
        self._stop.set()
        self._pondering.clear()
        thread = self._thread
        if thread is not None:
            thread.join()
            self._thread = None

    def close(self) -> None:
        """Free the engine and its table (after ``quit``)."""
        self._close_engine()

    def _close_engine(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None

    def _clear_hash(self) -> None:
        from zerosum.engines.compiled_tactical import CompiledTacticalEngine

        if isinstance(self.engine, WarmingEngine):
            self.engine.reset()
            compiled = self.engine.compiled
            if isinstance(compiled, CompiledTacticalEngine):
                compiled.clear()
        elif isinstance(self.engine, CompiledTacticalEngine):
            self.engine.clear()
        elif isinstance(self.engine, TacticalEngine) and self.engine.shared_table is not None:
            self.engine.shared_table.clear()
            self.engine.reset()  # and the history its searcher passes on
        else:
            self._close_engine()

    def _open_engine(self) -> Engine:
        """The chess engine of the options (kept between searches: its table persists); a
        compiled one starts loading in the background (a :class:`WarmingEngine`), or with
        ``ZEROSUM_COMPILE=wait`` is loaded before it is returned."""
        if self.engine is None:
            if self.engine_name == TACTICAL:
                from zerosum.search.table import TranspositionTable

                entries = max(1024, self.hash_mb * (1 << 20) // ENTRY_BYTES)
                table: TranspositionTable[chess.Move] = TranspositionTable(entries)
                engine = open_engine(self.spec, TACTICAL, workers=self.threads, shared_table=table)
            else:
                engine = open_engine(
                    self.spec,
                    self.engine_name,
                    hash_mb=self.hash_mb,
                    workers=self.threads,
                    instant=True,
                )
                engine.warm_up()  # a WarmingEngine starts loading; the others load now
            self.engine = engine
        return self.engine

    def _searcher(self) -> TacticalEngine:
        """The engine that searches now (the twin of a compiled engine still loading, saying
        so in an ``info string``), with the Contempt option."""
        engine = self._open_engine()
        searcher = engine
        if isinstance(engine, WarmingEngine):
            status = engine.status()  # before current(): empty only once the compiled answers
            searcher = engine.current()
            if searcher is engine.twin:  # not the loaded compiled engine: say so
                self.info(f"{status} (weaker)")
        assert isinstance(searcher, TacticalEngine)
        from zerosum.search.tactical import Options

        searcher.options = Options(contempt=self.contempt)
        searcher.keep_history = True  # every position is a new game object: keep the history
        return searcher

    def _busy(self, what: str) -> None:
        """Before ``what``, which needs the engine idle: stop the running search (it sends
        its bestmove, as after ``stop``)."""
        if self.searching or self._thread is not None:
            self.stop()

    # -- the search thread ---------------------------------------------------------------

    def _should_stop(self) -> bool:
        if self._stop.is_set():
            return True
        if self._pondering.is_set() or self._hard is None:
            return False
        return time.perf_counter() - self._clock_start >= self._hard

    def _search(self, game: Chess, params: GoParams, roots: list[chess.Move]) -> None:
        from zerosum.search.tactical import MAX_DEPTH

        best: chess.Move | None = None
        ponder: chess.Move | None = None
        try:
            moves = game.tactical_moves() + game.quiet_moves()
            if not moves:
                self.send("info depth 0 score " + ("mate 0" if game.in_check() else "cp 0"))
            elif len(moves) == 1 and self._hard is not None and params.movetime is None:
                best = moves[0]  # a forced move on the clock: keep the time for later moves
                self.info(f"the only legal move {best.uci()}: played at once")
            else:
                best = moves[0]
                depth = None if params.depth is None else min(params.depth, MAX_DEPTH)
                if params.mate is not None:
                    depth = min(2 * params.mate + 1, MAX_DEPTH) if depth is None else depth
                limit = Limit(depth=depth, nodes=params.nodes, stop=self._should_stop)
                engine = self._searcher()
                warming = self.engine if isinstance(self.engine, WarmingEngine) else None
                twin = warming is not None and engine is warming.twin
                on_clock: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
                if warming is not None and twin and self._hard is not None:
                    self._hard *= TWIN_SHARE
                    if not params.ponder:  # no loading on this clock (it would take the GIL)
                        on_clock = warming.hold()
                # The lines asked for at go: a MultiPV set during the search counts from the
                # next go (its lines would otherwise lose their tags mid-search).
                multipv = self.multipv
                lines = min(multipv, len(roots) or len(moves))
                sent: Report[chess.Move] | None = None
                with on_clock:
                    reports = engine.reports(game, limit, multipv=multipv, root_moves=roots)
                    for report in reports:
                        if report.complete or sent is None or report.pv != sent.pv:
                            self.send(self._info(report, tagged=multipv > 1))
                        sent = report
                        if report.line == 1:
                            best = report.pv[0]
                            ponder = report.pv[1] if len(report.pv) > 1 else None
                        if report.line == lines and self._done(report, params):
                            break
        except Exception as error:  # keep the protocol going whatever happened
            self.info(f"search failed: {type(error).__name__}: {error}")
        # In infinite and ponder mode the GUI expects bestmove only after stop (or ponderhit).
        while (params.infinite or self._pondering.is_set()) and not self._stop.is_set():
            self._stop.wait(0.01)
        if best is None:
            line = "bestmove (none)"
        elif ponder is not None:
            line = f"bestmove {best.uci()} ponder {ponder.uci()}"
        else:
            line = f"bestmove {best.uci()}"
        with self._lock:
            self._active.clear()
            # What the move was meant to take: until the search chose to stop, or its hard
            # limit; a late stop (a loaded machine) counts as lag, as the clock charges it.
            meant = time.perf_counter() - self._clock_start
            self.lag.moved(
                params, game.board.turn, meant if self._hard is None else min(meant, self._hard)
            )
            self._send_raw(line)

    def _done(self, report: Report[chess.Move], params: GoParams) -> bool:
        """Whether to stop after this finished iteration."""
        mate = params.mate
        if (
            mate is not None
            and report.value >= HEURISTIC_LIMIT
            and (WIN - report.value + 1) // 2 <= mate
        ):
            return True
        if self._pondering.is_set() or self._soft is None:
            return False
        return time.perf_counter() - self._clock_start > 0.55 * self._soft

    def _info(self, report: Report[chess.Move], *, tagged: bool) -> str:
        """The ``info`` line of ``report`` (with its ``multipv`` number when ``tagged``)."""
        from zerosum.engines.compiled_tactical import CompiledTacticalEngine

        milliseconds = max(1, round(report.time_s * 1000))
        nps = round(report.nodes / (milliseconds / 1000))
        multipv = f" multipv {report.line}" if tagged else ""
        pv = " ".join(move.uci() for move in report.pv)
        engine = self.engine
        if isinstance(engine, WarmingEngine):
            engine = engine.current()
        hashfull = (
            f" hashfull {engine.hashfull()}" if isinstance(engine, CompiledTacticalEngine) else ""
        )
        return (
            f"info depth {max(report.depth, 1)} seldepth {max(report.seldepth, report.depth, 1)}"
            f"{multipv} score {score_text(report.value)} nodes {report.nodes} nps {nps} "
            f"time {milliseconds}{hashfull} pv {pv}"
        )


def _start() -> Chess:
    """The starting position of chess (the first one made imports python-chess)."""
    from zerosum.games.chess import Chess

    return Chess()


def _preload() -> None:
    """Import python-chess and the chess game (what the first ``position`` needs)."""
    import zerosum.games.chess  # noqa: F401  # imported for its side effect: the module cache


def timed_lines(stream: Iterable[str]) -> Iterator[tuple[float, str]]:
    """The lines of ``stream``, each with the ``time.perf_counter()`` at which it was read: a
    daemon thread reads ahead, so a line's time is its arrival even while the consumer is busy
    with an earlier one."""
    arrived: queue.SimpleQueue[tuple[float, str] | None] = queue.SimpleQueue()

    def read() -> None:
        try:
            for line in stream:
                arrived.put((time.perf_counter(), line))
        finally:
            arrived.put(None)

    threading.Thread(target=read, name="zerosum-stdin", daemon=True).start()
    while (item := arrived.get()) is not None:
        yield item


def run(lines: Iterable[str], out: TextIO, *, timed: bool = False) -> int:
    """Serve UCI on ``lines`` until ``quit`` or the end of input. ``timed``: read ``lines``
    ahead in a thread and start each ``go``'s clock when its line arrived (a pipe from a GUI),
    and import the chess machinery in the background after ``uciok``; without it a line's
    time is when it is obeyed (a script)."""

    def send(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    engine = UciEngine(send, preload=timed)
    stamped = timed_lines(lines) if timed else ((None, line) for line in lines)
    for received, line in stamped:
        if not engine.handle(line, received=received):
            return 0
    engine.stop()
    engine.close()
    return 0


def main() -> int:
    """``zerosum uci``: serve the protocol on standard input and output."""
    return run(sys.stdin, sys.stdout, timed=True)
