"""zerosum: play and solve two-player zero-sum games with the classic game-tree search family."""

from zerosum.engines import Engine, EngineError, open_engine, perft, search, solve
from zerosum.game import (
    HEURISTIC_LIMIT,
    MAX_PLY,
    WIN,
    Game,
    MoveError,
    Outcome,
    PositionError,
    ProtocolError,
    ZerosumError,
    play_moves,
)
from zerosum.games import GAMES, GameSpec, UnknownGameError, get_game, register
from zerosum.search import (
    ALGORITHMS,
    Limit,
    LimitError,
    SearchResult,
    Stats,
    UnknownAlgorithmError,
)

__version__ = "0.1.0"

__all__ = [
    "ALGORITHMS",
    "GAMES",
    "HEURISTIC_LIMIT",
    "MAX_PLY",
    "WIN",
    "Engine",
    "EngineError",
    "Game",
    "GameSpec",
    "Limit",
    "LimitError",
    "MoveError",
    "Outcome",
    "PositionError",
    "ProtocolError",
    "SearchResult",
    "Stats",
    "UnknownAlgorithmError",
    "UnknownGameError",
    "ZerosumError",
    "get_game",
    "open_engine",
    "perft",
    "play_moves",
    "register",
    "search",
    "solve",
]
