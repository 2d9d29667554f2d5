"""The games the browser tabs play: one session per tab, kept in memory.

A session is a registered game, the position it was loaded from (``None``: the game's start)
and the moves played since, in the game's notation. Every change is checked once here and
raises a :class:`~zerosum.game.ZerosumError` naming what was wrong; the app turns those into
4xx answers.

Memory is bounded whatever clients do: a session holds at most ``MAX_MOVES`` moves, and the
store forgets the least recently used sessions past ``max_sessions`` sessions or
``max_total_moves`` moves in all, and any session unused for ``max_idle`` seconds. A page
whose session was forgotten makes a new one from the moves it shows (``POST /api/sessions``
with ``game``, ``position`` and ``moves``).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from zerosum.capabilities import Checks
from zerosum.game import Game, MoveError, Outcome, ZerosumError, play_moves
from zerosum.games import GameSpec, get_game
from zerosum.games.chess import Chess

MAX_SESSIONS = 1_000
MAX_MOVES = 2_000
"""The most moves one session holds (a long morris game without its draw rules)."""
MAX_TOTAL_MOVES = 100_000
"""The most moves all sessions hold together: ~30 MB of game histories (morris, measured)."""
MAX_IDLE = 3_600.0
"""Seconds after which an unused session is forgotten."""


class UnknownSessionError(ZerosumError, KeyError):
    """A session id that the server does not know (never made, or forgotten)."""

    def __str__(self) -> str:
        return str(self.args[0])


def split(spec: GameSpec, moves: Sequence[str]) -> list[str]:
    """Move words as typed (``b2 a1``, connect four's ``4453``) split into single moves."""
    return [text for word in moves for text in spec.split_moves(word)]


def build(spec: GameSpec, start: str | None, moves: Sequence[str]) -> Game[Any]:
    """The position ``start`` (the game's start if ``None``) after ``moves``, all checked."""
    game = spec.new() if start is None else spec.from_position(start)
    play_moves(game, split(spec, moves))
    return game


@dataclass
class Session:
    """One tab's game. Callers hold ``lock`` while they read or change it."""

    id: str
    spec: GameSpec
    start: str | None
    moves: list[str]
    game: Game[Any]
    lock: threading.Lock = field(default_factory=threading.Lock)

    used: float = field(default_factory=time.monotonic)
    """When a request last used the session (``time.monotonic``)."""

    def play(self, text: str) -> None:
        if len(self.moves) >= MAX_MOVES:
            raise ZerosumError(
                f"the session holds {len(self.moves):,} moves, the most it may: expected a new "
                "session from the position reached (POST /api/sessions with position)"
            )
        move = self.game.parse_move(text)
        self.moves.append(self.game.format_move(move))
        self.game.make(move)

    def undo(self, count: int) -> None:
        if count > len(self.moves):
            raise ZerosumError(
                f"cannot undo {count} moves: expected at most {len(self.moves)} "
                "(the moves played since the position was loaded)"
            )
        for _ in range(count):
            self.game.undo()
            self.moves.pop()

    def load(self, start: str | None, moves: Sequence[str]) -> None:
        """Replace the game by ``start`` after ``moves``; unchanged if either is bad."""
        game = build(self.spec, start, [])
        spelled = []
        texts = split(self.spec, moves)
        if len(texts) > MAX_MOVES:
            raise ZerosumError(
                f"{len(texts):,} moves: expected at most {MAX_MOVES:,} (a longer game can start "
                "from a position)"
            )
        for index, text in enumerate(texts, start=1):
            try:
                move = game.parse_move(text)
            except MoveError as error:
                raise MoveError(f"move {index} ({text!r}): {error}") from None
            spelled.append(game.format_move(move))
            game.make(move)
        self.game, self.start, self.moves = game, start, spelled

    def state(self) -> dict[str, Any]:
        """Everything a page needs to draw the position and offer the legal moves."""
        game, spec = self.game, self.spec
        outcome = game.outcome()
        mover = game.side_to_move()
        result = None
        if outcome is not None:
            winner = None if outcome == Outcome.DRAW else mover if outcome > 0 else mover ^ 1
            text = "a draw" if winner is None else f"{spec.sides[winner]} wins"
            result = {"winner": winner, "text": text}
        return {
            "id": self.id,
            "game": spec.name,
            "title": spec.title,
            "sides": list(spec.sides),
            "start": self.start,
            "moves": list(self.moves),
            "position": game.position(),
            "ply": game.ply(),
            "side_to_move": mover,
            "legal": [game.format_move(move) for move in game.legal_moves()],
            "result": result,
            "in_check": game.in_check() if isinstance(game, Checks) else None,
            "san": _san(game),
            "render": game.render(),
        }


def _san(game: Game[Any]) -> list[str] | None:
    """The moves played since the start position in standard algebraic notation (chess only:
    ``None`` for the other games, whose ``moves`` are their display notation already)."""
    if not isinstance(game, Chess):
        return None
    board = game.board.root()
    names = []
    for move in game.board.move_stack:
        names.append(board.san(move))
        board.push(move)
    return names


class Sessions:
    """The live sessions by id, least recently used first, within the bounds above (the
    session a request just used is never the one forgotten)."""

    def __init__(
        self,
        max_sessions: int = MAX_SESSIONS,
        *,
        max_total_moves: int = MAX_TOTAL_MOVES,
        max_idle: float = MAX_IDLE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_sessions = max_sessions
        self.max_total_moves = max_total_moves
        self.max_idle = max_idle
        self._clock = clock
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def moves(self) -> int:
        """The moves all sessions hold."""
        with self._lock:
            return sum(len(session.moves) for session in self._sessions.values())

    def create(self, game: str, start: str | None, moves: Sequence[str]) -> Session:
        spec = get_game(game)
        session = Session(secrets.token_hex(8), spec, None, [], spec.new())
        session.load(start, moves)
        with self._lock:
            session.used = self._clock()
            self._sessions[session.id] = session
            self._trim()
        return session

    def get(self, session_id: str) -> Session:
        with self._lock:
            try:
                session = self._sessions[session_id]
            except KeyError:
                raise UnknownSessionError(
                    f"unknown session {session_id!r}: expected an id from POST /api/sessions "
                    "(sessions unused for a while are forgotten: make a new one)"
                ) from None
            session.used = self._clock()
            self._sessions.move_to_end(session_id)
            self._trim()
            return session

    def _trim(self) -> None:
        """Forget the least recently used sessions past the bounds, the newest kept."""
        sessions = self._sessions
        total = sum(len(session.moves) for session in sessions.values())
        idle_since = self._clock() - self.max_idle
        while len(sessions) > 1:
            oldest = next(iter(sessions.values()))
            if (
                len(sessions) <= self.max_sessions
                and total <= self.max_total_moves
                and oldest.used >= idle_since
            ):
                break
            total -= len(oldest.moves)
            del sessions[oldest.id]
