"""Matches between players of any registered game, and UCI engines at chess.

* :mod:`.runner`: :class:`Match` (N games, colours swapped, openings from a book, clocks),
  :class:`MatchResult` (W/D/L, Elo, the games), :class:`TimeControl`.
* :mod:`.players`: zerosum's search under chosen settings, or a UCI engine; the text syntax
  the command line reads (:func:`parse_player`).
* :mod:`.elo`: the Elo difference and its 95% interval (formulas in its docstring).
* :mod:`.sprt`: the sequential probability ratio test on game pairs (``Match(sprt=...)``).
* :mod:`.openings`: the built-in books, and the balanced book of sequential tests.
* :mod:`.referee`: the rules keeper of a game (python-chess for chess) and PGN.

Where the games run is :mod:`zerosum.runtime`'s: this process, worker processes, or Ray actors
that keep their players (``zerosum match --cluster``); its executor names are re-exported here.

>>> from zerosum.match import Match, parse_player
>>> result = Match("tictactoe", parse_player("level=5"), parse_player("level=5"), games=2).play()
>>> result.elo.draws
2
"""

from zerosum.match.elo import EloEstimate, elo_from_score, estimate, score_from_elo
from zerosum.match.openings import Opening, balanced_openings, openings_for
from zerosum.match.players import (
    EngineSettings,
    PlayerError,
    PlayerSpec,
    UciSettings,
    parse_player,
)
from zerosum.match.runner import GameRecord, Match, MatchResult, TimeControl, TimeControlError
from zerosum.match.sprt import Pentanomial, SprtError, SprtSettings, SprtState, llr
from zerosum.runtime.executor import Executor, ProcessExecutor, SerialExecutor, WorkerError

__all__ = [
    "EloEstimate",
    "EngineSettings",
    "Executor",
    "GameRecord",
    "Match",
    "MatchResult",
    "Opening",
    "Pentanomial",
    "PlayerError",
    "PlayerSpec",
    "ProcessExecutor",
    "SerialExecutor",
    "SprtError",
    "SprtSettings",
    "SprtState",
    "TimeControl",
    "TimeControlError",
    "UciSettings",
    "WorkerError",
    "balanced_openings",
    "elo_from_score",
    "estimate",
    "llr",
    "openings_for",
    "parse_player",
    "score_from_elo",
]
