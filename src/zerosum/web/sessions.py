"""The games the browser tabs play: one session per tab, kept in memory.

A session is a registered game, the position it was loaded from (``None``: the game's start)
and the moves played since, in the game's notation. Every change is checked once here and
raises a :class:`~zerosum.game.ZerosumError` naming what was wrong; the app turns those into
4xx answers. The store forgets the least recently used sessions past ``max_sessions``.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from zerosum.capabilities import Checks
from zerosum.game import Game, MoveError, Outcome, ZerosumError, play_moves
from zerosum.games import GameSpec, get_game
from zerosum.games.chess import Chess

MAX_SESSIONS = 1_000


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

    def play(self, text: str) -> None:
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
        for index, text in enumerate(split(self.spec, moves), start=1):
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
    """The live sessions by id, least recently used first."""

    def __init__(self, max_sessions: int = MAX_SESSIONS) -> None:
        self.max_sessions = max_sessions
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def create(self, game: str, start: str | None, moves: Sequence[str]) -> Session:
        spec = get_game(game)
        session = Session(secrets.token_hex(8), spec, None, [], spec.new())
        session.load(start, moves)
        with self._lock:
            self._sessions[session.id] = session
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        return session

    def get(self, session_id: str) -> Session:
        with self._lock:
            try:
                session = self._sessions[session_id]
            except KeyError:
                raise UnknownSessionError(
                    f"unknown session {session_id!r}: expected an id from POST /api/sessions"
                ) from None
            self._sessions.move_to_end(session_id)
            return session
