"""The rules keeper of a match game: legal moves, the end of the game and its record.

Chess is refereed by python-chess (``chess.Board``), which knows every draw rule: checkmate,
stalemate, insufficient material, and threefold repetition and the fifty-move rule, which the
referee claims on a player's behalf as match tools do. Every other game is refereed by its
registered :class:`~zerosum.game.Game`. Chess games also become PGN.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import chess
import chess.pgn

from zerosum.game import Game, MoveError, Outcome
from zerosum.games import get_game


@dataclass(frozen=True)
class Ending:
    """How a game ended."""

    winner: int | None
    """The side that won (0 moved first, 1 second), or ``None`` for a draw."""
    reason: str
    """Why, in a few words: ``checkmate``, ``threefold repetition``, ``time forfeit``..."""


class Referee(Protocol):
    """One game's position as the match sees it."""

    moves: list[str]
    """Every move made, in the game's notation."""

    def side_to_move(self) -> int: ...

    def play(self, text: str) -> None:
        """Make the move written ``text``; raises :class:`MoveError` if it is not legal."""
        ...

    def ending(self) -> Ending | None:
        """How the game ended, or ``None`` while it goes on."""
        ...

    def flag(self, side: int) -> Ending:
        """The ending when ``side``'s clock runs out."""
        ...


class GameReferee:
    """A registered game's own rules."""

    def __init__(self, game: str) -> None:
        spec = get_game(game)
        self.sides = spec.sides
        self.game: Game[Any] = spec.new()
        self.moves: list[str] = []

    def side_to_move(self) -> int:
        return self.game.side_to_move()

    def play(self, text: str) -> None:
        move = self.game.parse_move(text)
        self.moves.append(self.game.format_move(move))
        self.game.make(move)

    def ending(self) -> Ending | None:
        outcome = self.game.outcome()
        if outcome is None:
            return None
        mover = self.game.side_to_move()
        if outcome is Outcome.DRAW:
            return Ending(None, "draw")
        winner = mover if outcome is Outcome.WIN else 1 - mover
        return Ending(winner, f"{self.sides[winner]} wins")

    def flag(self, side: int) -> Ending:
        return Ending(1 - side, "time forfeit")


class ChessReferee:
    """Chess on python-chess; moves in UCI notation."""

    def __init__(self) -> None:
        self.board = chess.Board()
        self.moves: list[str] = []

    def side_to_move(self) -> int:
        return 0 if self.board.turn == chess.WHITE else 1

    def play(self, text: str) -> None:
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            raise MoveError(f"{text!r} is not a move in UCI notation (e.g. e2e4, e7e8q)") from None
        if move not in self.board.legal_moves:
            raise MoveError(f"{text} is not legal in {self.board.fen()}")
        self.moves.append(move.uci())
        self.board.push(move)

    def ending(self) -> Ending | None:
        outcome = self.board.outcome(claim_draw=True)
        if outcome is None:
            return None
        reason = outcome.termination.name.lower().replace("_", " ")
        return Ending(None if outcome.winner is None else 1 - int(outcome.winner), reason)

    def flag(self, side: int) -> Ending:
        opponent = chess.BLACK if side == 0 else chess.WHITE
        if self.board.has_insufficient_material(opponent):
            return Ending(None, "time forfeit against insufficient material")
        return Ending(1 - side, "time forfeit")


def referee_for(game: str) -> Referee:
    """The referee of ``game``: python-chess for chess as UCI engines play it (its spec's
    ``uci``), else the registered game's own rules."""
    return ChessReferee() if get_game(game).uci else GameReferee(game)


def check_moves(game: str, moves: Sequence[str]) -> None:
    """Raise :class:`MoveError` naming the first move of ``moves`` not legal from the start."""
    referee = referee_for(game)
    for index, text in enumerate(moves, start=1):
        try:
            referee.play(text)
        except MoveError as error:
            raise MoveError(f"move {index} ({text!r}): {error}") from None


def _termination(reason: str) -> str:
    """The PGN ``Termination`` tag of an ending's reason."""
    if reason.startswith("time forfeit"):
        return "time forfeit"
    if reason.startswith("move limit"):
        return "adjudication"
    if reason.startswith(("illegal move", "player failed")):
        return "rules infraction"
    return "normal"


def chess_pgn(
    moves: Sequence[str],
    *,
    white: str,
    black: str,
    ending: Ending,
    round_number: int,
    event: str = "zerosum match",
    opening: str = "",
    book_plies: int = 0,
    time_control: str = "-",
    date: datetime.date | None = None,
) -> str:
    """One chess game as PGN text (the Seven Tag Roster plus TimeControl, Termination and
    Opening); the last book move and the way the game ended are comments."""
    game = chess.pgn.Game()
    result = "1/2-1/2" if ending.winner is None else ("1-0" if ending.winner == 0 else "0-1")
    game.headers.update(
        {
            "Event": event,
            "Site": "?",
            "Date": (date or datetime.date.today()).strftime("%Y.%m.%d"),
            "Round": str(round_number),
            "White": white,
            "Black": black,
            "Result": result,
            "TimeControl": time_control,
            "Termination": _termination(ending.reason),
        }
    )
    if opening:
        game.headers["Opening"] = opening
    node: chess.pgn.GameNode = game
    for ply, text in enumerate(moves, start=1):
        node = node.add_variation(chess.Move.from_uci(text))
        if ply == book_plies:
            node.comment = "end of book"
    node.comment = (node.comment + "; " if node.comment else "") + ending.reason
    return str(game)
