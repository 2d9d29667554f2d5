"""The specs of the games that ship with zerosum.

They register exactly as a plugin's games do (:func:`zerosum.games.register`), so nothing in
zerosum treats a built-in game differently from one installed from another package: whatever a
front end or an engine knows about a game, it reads from these records.

Building a spec imports no game: the games' classes and functions are :class:`Deferred`
references, imported when a game is first made (python-chess only for chess, so ``zerosum
games`` and ``zerosum play tictactoe`` start without it; ``tests/test_startup.py`` checks).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from importlib.util import find_spec
from typing import Final

from zerosum.games.morris_rules import parse_options
from zerosum.games.spec import Deferred, GameSpec

# Every tic-tac-toe opening here is a draw with perfect play (checked by the tests).
_TICTACTOE_BOOK = (
    ("corner", "a1"),
    ("edge", "b1"),
    ("centre", "b2"),
    ("corner, centre", "a1 b2"),
    ("edge, centre", "b1 b2"),
    ("edge, corner", "b1 a1"),
    ("centre, corner", "b2 a1"),
)

_CONNECT4_BOOK = (
    *((f"column {c}", c) for c in "1234567"),
    ("4 4", "4 4"),
    ("4 3", "4 3"),
    ("4 5", "4 5"),
    ("3 4", "3 4"),
    ("3 3", "3 3"),
    ("5 5", "5 5"),
    ("2 6", "2 6"),
)

# Common chess openings in UCI notation, each a few moves deep.
_CHESS_BOOK = (
    ("Ruy Lopez", "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6"),
    ("Italian Game", "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5"),
    ("Sicilian Defence, Najdorf", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"),
    ("French Defence", "e2e4 e7e6 d2d4 d7d5 b1c3 g8f6"),
    ("Caro-Kann Defence", "e2e4 c7c6 d2d4 d7d5 b1c3 d5e4 c3e4"),
    ("Scandinavian Defence", "e2e4 d7d5 e4d5 d8d5 b1c3 d5a5"),
    ("Queen's Gambit Declined", "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6"),
    ("Slav Defence", "d2d4 d7d5 c2c4 c7c6 g1f3 g8f6"),
    ("King's Indian Defence", "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6"),
    ("Nimzo-Indian Defence", "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4"),
    ("English Opening", "c2c4 e7e5 b1c3 g8f6 g1f3 b8c6"),
    ("London System", "d2d4 d7d5 c1f4 g8f6 e2e3 e7e6 g1f3"),
)


def tictactoe() -> GameSpec:
    return GameSpec(
        name="tictactoe",
        title="Tic-tac-toe",
        new=Deferred("zerosum.games.tictactoe:TicTacToe"),
        from_position=Deferred("zerosum.games.tictactoe:TicTacToe.from_position"),
        position_format="9 of x/o/. row by row from the top left, e.g. 'x.o/.x./..o'",
        sides=("X", "O"),
        levels=(1, 2, 3, 4, 0),
        kernel="zerosum.compiled.tictactoe:GAME",
        perft="zerosum.compiled.perft:tictactoe",
        openings=_TICTACTOE_BOOK,
        bench=(("", 9), ("b2", 8), ("a1 b2", 7), ("b2 a1 c3", 6), ("a1 b1 b2", 4)),
        max_plies=9,
        board="tictactoe",
    )


def connect4() -> GameSpec:
    return GameSpec(
        name="connect4",
        title="Connect four",
        new=Deferred("zerosum.games.connect4:Connect4"),
        from_position=Deferred("zerosum.games.connect4:Connect4.from_position"),
        position_format="the columns played from the empty board, digits 1-7, e.g. '4453'",
        sides=("X", "O"),
        levels=(2, 4, 8, 14, 0),
        default_level=4,
        solver="compiled",
        split_moves=Deferred("zerosum.games.connect4:split_moves"),
        move_names=tuple("1234567"),
        kernel="zerosum.compiled.connect4:GAME",
        perft="zerosum.compiled.perft:connect4",
        openings=_CONNECT4_BOOK,
        bench=(("", 8), ("4 4 5 3", 8), ("4 4 4 4 3 5", 7), ("3 4 4 5 5 2 6", 7)),
        max_plies=42,
        board="connect4",
    )


def morris(options: str = "") -> GameSpec:
    """Nine men's morris, or the variant and rules named by ``options`` (see
    :func:`zerosum.games.morris_rules.parse_options`)."""
    rules = parse_options(options)
    board = f"{rules.size} of W/B/. in the standard point order"
    return GameSpec(
        name=rules.name(),
        title=f"{rules.variant.capitalize()} men's morris",
        new=partial(Deferred("zerosum.games.morris:Morris"), rules),
        from_position=partial(Deferred("zerosum.games.morris:Morris.from_position"), rules=rules),
        position_format=f"'<{board}> <w|b> <white in hand> <black in hand> [<moves without "
        "removal>]'",
        sides=("White", "Black"),
        levels=(1, 3, 5, 7, 9),
        default_level=4,
        options=morris,
        variants=("morris:six", "morris:twelve") if not options else (),
        kernel="zerosum.compiled.morris:GAME",
        perft="zerosum.compiled.perft:morris",
        endgames="zerosum.games.morris_endgames",
        bench=(("", 4),),
        board="morris",
    )


def chess() -> GameSpec:
    return GameSpec(
        name="chess",
        title="Chess",
        new=Deferred("zerosum.games.chess:Chess"),
        from_position=Deferred("zerosum.games.chess:Chess.from_position"),
        position_format="FEN, e.g. 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'",
        sides=("White", "Black"),
        levels=(1, 2, 3, 4, 5),
        default_level=4,
        analyzer="compiled-tactical",
        searcher="zerosum.compiled.chess_engine:CoreSearch",
        perft="zerosum.compiled.perft:chess",
        openings=_CHESS_BOOK,
        bench=(("", 4),),
        board="chess",
        uci=True,
    )


def openspiel() -> GameSpec:
    """OpenSpiel's games (``openspiel:hex(board_size=5)``), with the ``openspiel`` extra."""
    from zerosum.games import openspiel as openspiel_games  # only when the games are listed

    return openspiel_games.spec()


BUILTIN: Final[dict[str, Callable[[], GameSpec]]] = {
    "tictactoe": tictactoe,
    "connect4": connect4,
    "morris": morris,
    "chess": chess,
    **({"openspiel": openspiel} if find_spec("pyspiel") else {}),
}
"""The built-in games by name, each with the function that makes its spec, in the order
``zerosum games`` lists them (``openspiel`` when OpenSpiel is installed: ``pip install
'zerosum[openspiel]'``)."""
