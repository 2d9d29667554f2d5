"""zerosum: play and solve two-player zero-sum games with the classic game-tree search family."""

import sys
import types
from typing import TYPE_CHECKING, Any

from zerosum.engines import Engine, EngineError, open_engine, perft, solve
from zerosum.engines import search as _search
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


class _CallablePackage(types.ModuleType):
    """The package ``zerosum.search``, which is also ``zerosum.search(game, ...)``, the
    library's search (:func:`zerosum.engines.search`).

    The function and the package share a name: binding the function over the package's
    attribute of ``zerosum`` broke ``import zerosum.search.perft as perft`` (which reads the
    attribute) and everything that walks dotted names from ``zerosum``. Calling the package
    instead keeps both spellings working.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _search(*args, **kwargs)


if TYPE_CHECKING:
    search = _search
else:
    search = sys.modules["zerosum.search"]
    search.__class__ = _CallablePackage
    search.__wrapped__ = _search  # inspect.signature(zerosum.search) is the function's

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
