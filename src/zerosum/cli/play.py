"""``zerosum play``: a game against the computer in the terminal.

The computer (:class:`Computer`) plays with the compiled engine when the game has one, else
with the pure-Python or the tactical engine; at depth 0 it plays perfectly. The human types
moves in the game's notation (or in the notation people read, such as SAN in chess), or
``undo``, ``hint`` or ``quit``; a bad move is explained and asked for again. Moves are shown
as people read them (:func:`zerosum.formatting.move_label`), and the moves played so far are
listed under the board.

While the computer thinks, a status line on stderr (a terminal only) says what it does, its
nodes and the time so far; Ctrl-C stops its thinking and asks the human what to do (think
again, move now after a short search, take back a move, or quit): the game goes on. A perfect
connect four player answers the opening from the book shipped with zerosum
(:mod:`zerosum.games.connect4_book`), without a search.
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from collections.abc import Callable
from typing import Any, Final

from zerosum.capabilities import MoveLabels
from zerosum.cli.common import UsageError, interruptible, load_position, open_store
from zerosum.cli.engines import load_engine
from zerosum.cli.parser import (
    Subcommands,
    duration,
    file_path,
    positive_int,
    whole_number,
    workers_option,
)
from zerosum.cli.progress import Progress
from zerosum.engines import COMPILED, MCTS, Engine, open_engine
from zerosum.engines.mcts import FIRST_ITERATION
from zerosum.engines.warming import WarmingEngine
from zerosum.formatting import describe, line_labels, move_label, move_labels, numbered_line
from zerosum.game import Game, ZerosumError
from zerosum.games import GameSpec
from zerosum.search import Limit
from zerosum.store import Store


def add_parser(commands: Subcommands) -> None:
    """Adds ``play``."""
    play = commands.add_parser("play", help="play against the computer in the terminal")
    play.add_argument("game", help="game name (see 'zerosum games')")
    play.add_argument("--side", default="first", help="first, second or the game's side name")
    play.add_argument("--level", type=positive_int, help="strength, 1 = weakest (default: top)")
    play.add_argument("--seed", type=whole_number, help="seed for the computer's choices")
    play.add_argument(
        "--time",
        type=duration,
        help="seconds the computer thinks per move, at most (its level still caps the depth)",
    )
    play.add_argument("--moves", nargs="+", default=[], metavar="M", help="start after these")
    play.add_argument("--position", metavar="P", help="start from this position")
    play.add_argument(
        "--store",
        metavar="PATH",
        type=file_path("a SQLite file"),
        help="SQLite store of proven results (an opening book)",
    )
    workers_option(play)
    play.set_defaults(run=run)


class Computer:
    """The computer's side of ``play``: the engine the game's spec chooses for playing (the
    compiled engine when it has one). ``depth`` 0 plays perfectly, choosing among all best
    moves with ``rng``.

    A player at a depth answers at once (its Python twin while the compiled engine compiles).
    So does the perfect player (depth 0) where the twin proves the position within a budget
    (tic-tac-toe, a connect four game near its end: see
    :class:`~zerosum.engines.warming.WarmingEngine`); elsewhere it needs the compiled engine
    itself, which loads or compiles its code (seconds under load, a minute on first use). The
    perfect player's engine opens in a thread (:meth:`start_loading`), so that the board and
    the human's first move come at once even where opening it has to wait for the compiled
    code (``ZEROSUM_COMPILE=wait``), and the computer's first search waits for it
    (:meth:`wait_loaded`). Whichever engine proves them, the best moves come in the order of
    the legal moves, so that a seed plays the same game on a cold machine and a warm one."""

    def __init__(
        self,
        spec: GameSpec,
        depth: int,
        rng: random.Random,
        store: Store | None,
        workers: int = 1,
        seconds: float | None = None,
    ) -> None:
        self.depth = depth
        self.rng = rng
        self.seconds = seconds
        """The most a move may take (``None``: as long as the depth needs)."""

        def opened() -> Engine:
            return open_engine(spec, task="play", store=store, workers=workers, instant=True)

        self._open = opened
        self._engine: Engine | None = None if depth == 0 else self._open()
        self._loader: threading.Thread | None = None
        self._load_error: BaseException | None = None
        self._closed = False
        self._lock = threading.Lock()
        """Orders the loader's hand-over of the engine and :meth:`close`."""

    @property
    def engine(self) -> Engine:
        """The computer's engine (waits for it while it loads)."""
        self.wait_loaded()
        if self._engine is None:  # never started loading: open it here
            self._engine = self._open()
            self._engine.warm_up()
        return self._engine

    def start_loading(self) -> bool:
        """Open and load the perfect player's engine in a thread; False, doing nothing, for a
        player at a depth (its engine is open and answers at once)."""
        if self._engine is not None or self._loader is not None:
            return False
        self._loader = threading.Thread(target=self._load, name="zerosum-load", daemon=True)
        self._loader.start()
        return True

    def _load(self) -> None:
        try:
            engine = self._open()
            engine.warm_up()
        except BaseException as error:  # raised again in the thread that waits
            self._load_error = error
            return
        with self._lock:
            if not self._closed:
                self._engine = engine
                return
        engine.close()  # the game ended first

    @property
    def loading(self) -> bool:
        """Whether the engine is still opening or loading."""
        return self._loader is not None and self._loader.is_alive()

    def wait_loaded(self, stop: Callable[[], bool] | None = None) -> None:
        """Wait until the engine is loaded (or ``stop``, Ctrl-C, says to stop waiting);
        raises what stopped the load."""
        while self.loading and not (stop is not None and stop()):
            assert self._loader is not None
            self._loader.join(0.1)
        if self._load_error is not None:
            raise self._load_error

    def best(
        self, game: Game[Any], *, depth: int, stop: Callable[[], bool] | None = None
    ) -> tuple[list[Any], str]:
        """The best moves found at ``depth`` (0: all proven best moves) and their value; every
        best move when the game's probe (an endgame database) decides the position. ``stop``
        (Ctrl-C) may end the thinking early: then no moves, and an empty value."""
        self.wait_loaded(stop)
        if stop is not None and stop():
            return [], ""
        seed = self.rng.randrange(1 << 30)
        if self.seconds is None:
            limit = None if stop is None else Limit(stop=stop)
            found = self.engine.best_moves(game, depth=depth, seed=seed, limit=limit)
        else:
            started, limit = time.perf_counter(), Limit(time=self.seconds, stop=stop)
            found = self.engine.best_moves(game, depth=depth, seed=seed, limit=limit)
            if not found.best_moves and not (stop is not None and stop()):
                # the time ran out before a perfect player knew its moves
                found = self.engine.search(game, limit.since(started))
        if stop is not None and stop() and not found.complete:
            return [], ""
        order = {move: at for at, move in enumerate(game.legal_moves())}
        moves = sorted(found.best_moves, key=lambda move: order.get(move, len(order)))
        return moves, describe(found.value, solved=found.solved)

    def move(self, game: Game[Any], *, stop: Callable[[], bool] | None = None) -> Any | None:
        """The move to play: one of the best moves at the computer's depth, chosen by ``rng``;
        ``None`` when ``stop`` ended the thinking first."""
        moves, _ = self.best(game, depth=self.depth, stop=stop)
        return self.rng.choice(moves) if moves else None

    def quick_move(self, game: Game[Any]) -> Any:
        """A move found at once: the best of a search of :data:`QUICK_S` seconds (not a
        proof), for a human who stopped the computer's thinking and wants it to move."""
        self.wait_loaded()
        found = self.engine.search(game, Limit(time=QUICK_S))
        moves = list(found.best_moves) or game.legal_moves()[:1]
        return self.rng.choice(moves)

    def live_nodes(self) -> int | None:
        """The nodes the running search has visited so far, when the engine can tell (the
        compiled solver counts them as it goes), for the status line."""
        engine = self._engine
        if isinstance(engine, WarmingEngine):
            engine = engine.current()
        solver = getattr(engine, "solver", None)
        count = getattr(solver, "live_nodes", None)
        value = count() if callable(count) else None
        return None if value is None else int(value)

    def waiting(self) -> str:
        """For the status line while the compiled engine compiles or loads ('' otherwise):
        what the perfect player waits for once its twin could not prove the position at
        once; at a depth, that the twin searches meanwhile."""
        engine = self._engine
        if not isinstance(engine, WarmingEngine) or engine.settled:
            return ""
        return engine.status(waiting=self.depth == 0)

    def close(self) -> None:
        """Close the engine (one still loading is closed by its thread once loaded)."""
        with self._lock:
            self._closed = True
            engine = self._engine
        if engine is not None:
            engine.close()


QUICK_S: Final = 1.0
"""How long the computer searches when told to move now after Ctrl-C."""


def _think(game: Game[Any], computer: Computer, strength: str) -> Any | None:
    """The computer's move, with a status line on a terminal's stderr while it thinks (what
    it does, nodes, elapsed); ``None`` when Ctrl-C stopped it first."""

    def nodes() -> str:
        count = computer.live_nodes()
        return f"{count:,} nodes" if count else computer.waiting()

    with interruptible() as stop, Progress("computer") as status:
        if computer.loading:
            status.update("loading the compiled engine (its first use compiles it: about a minute)")
            computer.wait_loaded(stop)
        status.update(f"thinking ({strength}); Ctrl-C stops it", detail=nodes)
        return computer.move(game, stop=stop)


def _in_book(spec: GameSpec, game: Game[Any]) -> bool:
    """Whether the game's opening book knows the score here and a move that keeps it (then
    the perfect player answers from it, without a search)."""
    from zerosum.games.connect4_book import book_for  # connect four's tables: when used

    book = book_for(spec.name)
    return book is not None and bool(book.best_moves(game))


def _after_stop() -> str:
    """Ask the human what to do once Ctrl-C stopped the computer's thinking: ``again``,
    ``move`` (the computer moves after a short search), ``undo`` or ``quit``."""
    while True:
        try:
            text = input(
                "stopped. Enter: think again; 'move': move now (a short search, not a proof); "
                "'undo'; 'quit': "
            )
        except EOFError:
            return "quit"
        choice = text.strip().lower()
        if choice in ("", "again", "go"):
            return "again"
        if choice in ("move", "undo", "quit", "exit", "q"):
            return "quit" if choice in ("exit", "q") else choice
        print(f"{text.strip()!r}: expected Enter, 'move', 'undo' or 'quit'")


def _side(spec: GameSpec, text: str) -> int:
    """The side index named ``text``: ``first``/``second`` or the game's own side names."""
    names = [("first", spec.sides[0].lower()), ("second", spec.sides[1].lower())]
    for index, aliases in enumerate(names):
        if text.lower() in aliases:
            return index
    expected = ", ".join(n for pair in names for n in pair)
    raise UsageError(f"unknown side {text!r} for {spec.name}: expected one of {expected}")


def run(args: argparse.Namespace) -> int:
    """Check the options, open the computer's engine, play until the game ends or the human
    leaves, then close the engine and the store."""
    spec, game = load_position(args)
    levels = spec.levels
    level = args.level if args.level is not None else spec.default_level or len(levels)
    if not 1 <= level <= len(levels):
        raise UsageError(
            f"level {level} is out of range for {spec.name}: expected 1..{len(levels)}"
        )
    human = _side(spec, args.side)
    depth = levels[level - 1]
    if args.store and spec.play_engine != COMPILED:
        raise UsageError(f"--store needs a game with the compiled engine: {spec.name} has none")
    store = open_store(args.store) if args.store else None
    computer: Computer | None = None
    try:
        computer = Computer(spec, depth, random.Random(args.seed), store, args.workers, args.time)
        # Not on the first move's time, nor before the first board: in the background.
        if not computer.start_loading():
            load_engine(computer.engine, args)  # starts a twin's engine, or nothing to load
        return _play(spec, game, human, level, computer)
    finally:
        if computer is not None:
            computer.close()
        if store is not None:
            store.close()


def _play(spec: GameSpec, game: Game[Any], human: int, level: int, computer: Computer) -> int:
    """The game loop: draw the board after each change, let the computer move on its turns
    and read the human's commands on theirs."""
    levels = spec.levels
    depth = levels[level - 1]
    if spec.play_engine == MCTS:  # as the web app words MCTS levels: simulations, not plies
        budget = FIRST_ITERATION * 2 ** (depth - 1)
        strength = "MCTS until proven" if depth == 0 else f"MCTS, {budget:,} simulations"
    else:
        strength = "perfect" if depth == 0 else f"search depth {depth}"
    if computer.seconds is not None:
        strength += f", at most {computer.seconds:g} s a move"
    print(
        f"{spec.title}: you play {spec.sides[human]}, "
        f"the computer plays at level {level} of {len(levels)} ({strength})."
    )
    print("Type a move, 'undo', 'hint' or 'quit'.")
    human_turns: list[int] = []
    """The ply before each of the human's moves, for undo."""
    start = game.copy()
    played: list[Any] = []
    """The moves made from ``start``, for the record under the board."""
    shown = -1
    """The ply of the position last drawn: the board is drawn again only after a change."""
    while True:
        if shown != game.ply():
            print()
            print(game.render())
            if played:
                print(_record(start, played))
            shown = game.ply()
        outcome = game.outcome()
        if outcome is not None:
            mover = game.side_to_move()
            winner = mover if outcome > 0 else mover ^ 1
            if outcome == 0:
                print("Game over: a draw.")
            elif winner == human:
                print("Game over: you win.")
            else:
                print("Game over: the computer wins.")
            return 0
        if game.side_to_move() != human:
            book = depth == 0 and _in_book(spec, game)
            move = _think(game, computer, strength)
            if move is None:  # Ctrl-C: the game goes on, the human decides how
                choice = _after_stop()
                if choice == "quit":
                    print("Game abandoned.")
                    return 0
                if choice == "undo":
                    if _undo_turn(game, played, human_turns):
                        shown = -1
                    continue
                if choice == "again":
                    continue
                move = computer.quick_move(game)
            print(f"computer plays {move_label(game, move)}{' (opening book)' * book}")
            game.make(move)
            played.append(move)
            continue
        try:
            text = input(f"your move ({spec.sides[human]}): ").strip()
        except EOFError:
            print("\nInput ended: game abandoned.")
            return 0
        if text.lower() in ("quit", "exit", "q"):
            print("Game abandoned.")
            return 0
        if text.lower() == "undo":
            if _undo_turn(game, played, human_turns):
                shown = -1
            continue
        if text.lower() == "hint":
            moves, value = computer.best(game, depth=depth)
            print(f"hint: {' '.join(move_labels(game, moves))} ({value})")
            continue
        if not text:
            continue
        try:
            move = game.parse_move(text)
        except ZerosumError as error:
            print(_move_error(game, text, error))
            continue
        human_turns.append(game.ply())
        game.make(move)
        played.append(move)


def _undo_turn(game: Game[Any], played: list[Any], human_turns: list[int]) -> bool:
    """Take back the moves since the human's last turn (``human_turns``: the plies at which the
    human moved); False, with a word to the human, when there is none."""
    if not human_turns:
        print("Nothing to undo.")
        return False
    target = human_turns.pop()
    while game.ply() > target:
        game.undo()
        played.pop()
    return True


def _move_error(game: Game[Any], text: str, error: ZerosumError) -> str:
    """What the human hears about a move they typed that is not legal here: the legal moves
    in the notation people read (SAN in chess), as the board and the record show them."""
    if isinstance(game, MoveLabels) and " is not legal" in str(error):
        labels = " ".join(sorted(move_labels(game, game.legal_moves()))) or "(none)"
        return f"{text} is not legal here: expected one of {labels}"
    return str(error)


RECORD_MOVES = 16
"""The most recent moves the record under the board shows (older ones are elided)."""


def _record(start: Game[Any], played: list[Any]) -> str:
    """The moves played from ``start`` as a numbered record, ``moves: 1. e4 e5 2. Nf3``,
    numbered from the start of the game (after ``--moves``, the record goes on from their
    number, after ``...``); a long game shows its last :data:`RECORD_MOVES` moves only."""
    labels = line_labels(start, played)
    side = start.side_to_move()
    opening = (side + start.ply()) % 2  # who moved first in the game that led to ``start``
    shown = 0
    if len(labels) > RECORD_MOVES:  # an elided record starts on the first player's move
        shown = len(labels) - RECORD_MOVES
        shown += (side + shown) % 2
    record = numbered_line(
        labels[shown:],
        first_side=(side + shown) % 2,
        first_number=1 + (opening + start.ply() + shown) // 2,
    )
    return f"moves: {'... ' if shown or start.ply() else ''}{record}"
