"""zerosum: play and solve two-player zero-sum games with the classic game-tree search family.

Importing the package imports none of its modules: each name below is loaded the first time it
is used (``zerosum.search``, ``zerosum.get_game``, ...), and a submodule as any package's
(``import zerosum.games``). So ``python -m zerosum`` and the ``zerosum`` program install their
Ctrl-C handling before the command line's modules load (:mod:`zerosum.startup`), and a
library user pays only for what it uses.

``zerosum.search`` is both the package of the searches and ``zerosum.search(game, ...)``, the
library's search (:func:`zerosum.engines.search`; see :mod:`zerosum.search`).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a few ms at start-up)
__version__ = "0.1.0"

_FROM: dict[str, str] = {
    **dict.fromkeys(["Engine", "EngineError", "open_engine", "perft", "solve"], "zerosum.engines"),
    **dict.fromkeys(
        [
            "HEURISTIC_LIMIT",
            "MAX_PLY",
            "WIN",
            "Game",
            "MoveError",
            "Outcome",
            "PositionError",
            "ProtocolError",
            "ZerosumError",
            "play_moves",
        ],
        "zerosum.game",
    ),
    **dict.fromkeys(
        ["GAMES", "GameSpec", "UnknownGameError", "get_game", "register"], "zerosum.games"
    ),
    **dict.fromkeys(
        ["ALGORITHMS", "Limit", "LimitError", "SearchResult", "Stats", "UnknownAlgorithmError"],
        "zerosum.search",
    ),
}
"""Each name of :data:`__all__` but ``search``, with the module it comes from."""

if TYPE_CHECKING:
    from typing import Any

    from zerosum.engines import Engine, EngineError, open_engine, perft, solve
    from zerosum.engines import search as search
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


def __getattr__(name: str) -> Any:
    """A name of :data:`__all__` (kept once loaded), or a submodule not yet imported."""
    if name == "search":
        return importlib.import_module("zerosum.search")
    source = _FROM.get(name)
    if source is None:
        if name.startswith("__"):
            raise AttributeError(f"module 'zerosum' has no attribute {name!r}")
        try:
            return importlib.import_module(f"zerosum.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"zerosum.{name}":
                raise
            raise AttributeError(f"module 'zerosum' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
