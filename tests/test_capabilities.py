"""Optional capabilities are typed protocols checked by type, and every built-in game runs
under the tactical search whichever capabilities it has."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

from zerosum.capabilities import (
    Checks,
    NullMove,
    Probing,
    QuiescenceMoves,
    RuleDraws,
    Tactical,
    probe_of,
)
from zerosum.game import Game
from zerosum.games import GAMES, GameSpec, get_game
from zerosum.games.chess import Chess
from zerosum.games.connect4 import Connect4
from zerosum.games.morris import Morris
from zerosum.games.tictactoe import TicTacToe
from zerosum.search import Limit, search
from zerosum.search.tactical import EXACT_OPTIONS, Capabilities, Options, TacticalSearch
from zerosum.web.sessions import Session

SPECS = [
    *GAMES.values(),
    *(get_game(name) for spec in GAMES.values() for name in spec.variants),
]
EVERY_CAPABILITY = (Tactical, QuiescenceMoves, Checks, RuleDraws, NullMove, Probing)


def test_each_game_has_the_capabilities_it_implements() -> None:
    assert all(isinstance(Chess(), capability) for capability in EVERY_CAPABILITY[:-1])
    assert not isinstance(Chess(), Probing)
    morris = Morris()
    assert isinstance(morris, Probing) and probe_of(morris) == morris.probe
    assert not any(isinstance(morris, capability) for capability in EVERY_CAPABILITY[:-1])
    for plain in (TicTacToe(), Connect4()):
        assert not any(isinstance(plain, capability) for capability in EVERY_CAPABILITY)
        assert probe_of(plain) is None


class CountingTicTacToe(TicTacToe):
    """Methods whose names collide with capabilities but mean something else: a count of
    quiet moves and a list of tactical ones, without the rest of :class:`Tactical`."""

    def quiet_moves(self) -> int:
        return 0

    def tactical_moves(self) -> list[int]:
        return []

    def in_check(self) -> bool:  # half of Checks: no gives_check
        raise AssertionError("in_check alone is not the Checks capability")


def test_a_half_implemented_capability_is_not_used() -> None:
    game = CountingTicTacToe()
    assert not isinstance(game, Tactical) and not isinstance(game, Checks)
    caps = Capabilities(game)
    assert caps.quiet_moves() == game.legal_moves() and caps.tactical_moves() == []
    assert not caps.knows_quiet and not caps.in_check() and caps.outcome_each_node
    found = TacticalSearch(game).search(Limit(depth=9))
    assert found.value == 0 and found.best_move in game.legal_moves()  # a draw
    assert Session("s", get_game("tictactoe"), None, [], game).state()["in_check"] is None


def test_the_web_state_shows_check_for_a_game_with_checks() -> None:
    game = Chess.from_position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    state = Session("s", get_game("chess"), None, [], game).state()
    assert state["in_check"] is True and state["result"] is not None  # fool's mate
    assert Session("s", get_game("chess"), None, [], Chess()).state()["in_check"] is False


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_the_tactical_search_runs_on_every_game(spec: GameSpec) -> None:
    game: Game[object] = spec.new()
    for options in (Options(), EXACT_OPTIONS):
        found = TacticalSearch(game, options=options).search(Limit(depth=3))
        assert found.best_move in game.legal_moves() and found.pv[0] == found.best_move
        assert game.ply() == 0
    # With nothing selective, a game without tactical capabilities gets the minimax value.
    if not isinstance(game, Tactical):
        exact = TacticalSearch(game, options=EXACT_OPTIONS).search(Limit(depth=2))
        assert exact.value == search(game, algorithm="alphabeta", limit=Limit(depth=2)).value


def test_analyze_morris_with_the_tactical_search() -> None:
    """It ended in a TypeError when the search took morris's count of quiet moves for a list."""
    argv = ["analyze", "morris", "--algorithm", "tactical", "--depth", "3", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "zerosum", *argv], capture_output=True, text=True, timeout=HANG_S
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    legal = {Morris().format_move(move) for move in Morris().legal_moves()}
    assert data["depth"] == 3 and data["best_move"] in legal


def runtime_imports(path: Path) -> set[str]:
    """The modules a source file imports when it runs: at its top level, outside ``if
    TYPE_CHECKING:`` blocks (imports inside functions are listed too)."""
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                continue
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
            for field in ("body", "orelse", "finalbody", "handlers"):
                visit(getattr(node, field, []))

    visit(ast.parse(path.read_text()).body)
    return found


def test_the_game_and_its_endgame_probe_import_each_other_one_way() -> None:
    """``games.morris_endgames`` -> ``games.morris`` -> ``endgames.probe`` -> ``endgames.database``
    (the last one lazily, for numpy's start-up): no module imports one that imports it."""
    import zerosum.endgames.probe
    import zerosum.games.morris
    import zerosum.games.morris_endgames

    def of(module: object) -> set[str]:
        return runtime_imports(Path(str(getattr(module, "__file__", ""))))

    assert "zerosum.endgames.probe" in of(zerosum.games.morris)
    assert not any(
        name.startswith("zerosum.games.morris_endgames") for name in of(zerosum.games.morris)
    )
    assert not any(name.startswith("zerosum.games") for name in of(zerosum.endgames.probe))
    assert "zerosum.games.morris" in of(zerosum.games.morris_endgames)
    code = "import sys, zerosum.games.morris; print('numpy' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_S
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
