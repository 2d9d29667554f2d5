"""Games as plugins: registered at run time or through the ``zerosum.games`` entry points, they
reach every front end and worker process; a plugin that fails to load is named, not fatal."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from zerosum.engines import open_engine
from zerosum.game import ZerosumError
from zerosum.games import GAMES, GameSpec, PluginWarning, get_game, register, unregister
from zerosum.match import Match, ProcessExecutor, parse_player
from zerosum.runtime import WORKER_IMPORTS
from zerosum.search import Limit

TESTS = Path(__file__).parent


@pytest.fixture
def noughts() -> Iterator[GameSpec]:
    """The game of ``plugin_game``, registered by importing that module."""
    import plugin_game

    register(plugin_game.SPEC, replace=True)
    try:
        yield plugin_game.SPEC
    finally:
        unregister("noughts")


def test_a_registered_game_is_a_game_like_any_other(noughts: GameSpec) -> None:
    assert "noughts" in GAMES and get_game("noughts") is noughts
    assert "plugin_game" in WORKER_IMPORTS
    game = noughts.new()
    with open_engine(noughts) as engine:
        assert engine.solve(game).value == 0


def test_spawned_match_workers_know_a_game_registered_at_run_time(noughts: GameSpec) -> None:
    """The workers start with ``spawn``: they import zerosum afresh, then the modules that
    registered games (``WORKER_IMPORTS``), and find the game by its name."""
    match = Match("noughts", parse_player("level=5"), parse_player("level=1"), games=2)
    with ProcessExecutor(2) as executor:
        result = match.play(executor=executor)
    assert len(result.games) == 2
    assert all(record.moves for record in result.games)


def test_a_game_unregistered_is_no_longer_imported_by_workers(noughts: GameSpec) -> None:
    """A worker imports the module of every registered game, and no more: a module left behind
    by a game that is gone would be imported by every later worker (a Ray worker, whose path
    is not the program's, then fails on it). A module stays while a game still comes from it."""
    other = register(dataclasses_replace(noughts, name="crosses"))
    try:
        unregister("noughts")
        assert "plugin_game" in WORKER_IMPORTS  # crosses still comes from it
        register(noughts, replace=True)
        register(noughts, replace=True)  # again: the module is listed once
        assert WORKER_IMPORTS.count("plugin_game") == 1
    finally:
        unregister(other.name)
    assert "plugin_game" in WORKER_IMPORTS
    unregister("noughts")
    assert "plugin_game" not in WORKER_IMPORTS
    register(noughts, replace=True)  # for the fixture, which unregisters it
    assert "plugin_game" in WORKER_IMPORTS


def test_a_name_taken_by_another_game_is_refused() -> None:
    with pytest.raises(ZerosumError, match="already registered"):
        register(dataclasses_replace(get_game("tictactoe"), title="another"))
    with pytest.raises(ZerosumError, match="a variant is reached through its game's options"):
        register(dataclasses_replace(get_game("tictactoe"), name="tictactoe:big"))


def dataclasses_replace(spec: GameSpec, **changes: object) -> GameSpec:
    import dataclasses

    return dataclasses.replace(spec, **changes)  # type: ignore[arg-type]


def _distribution(tmp_path: Path, name: str, entry_points: str, modules: dict[str, str]) -> str:
    """A package installed nowhere but ``tmp_path``: its ``.dist-info`` declares entry points;
    returns the path to put on ``PYTHONPATH``."""
    info = tmp_path / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for module, source in modules.items():
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
    return str(tmp_path)


def test_entry_point_plugins_load_and_a_broken_one_is_named(tmp_path: Path) -> None:
    """Three entry points: a spec, a callable returning one, and one that raises on import.
    The CLI lists the two that work and warns about the third."""
    path = _distribution(
        tmp_path,
        "zerosum_test_plugins",
        """
        [zerosum.games]
        crosses = crosses_plugin:spec
        circles = crosses_plugin:make_spec
        stuck = crosses_plugin:stuck
        broken = broken_plugin:spec
        """,
        {
            "crosses_plugin": """
                import dataclasses
                from zerosum.games import get_game
                from zerosum.games.tictactoe import TicTacToe

                class Crosses(TicTacToe):
                    name = "crosses"

                class Circles(TicTacToe):
                    name = "circles"

                base = get_game("tictactoe")
                spec = dataclasses.replace(
                    base, name="crosses", title="Crosses", new=Crosses,
                    from_position=Crosses.from_position, kernel=None, board="generic")

                class Stuck(TicTacToe):  # no legal moves after two plies, yet not over
                    name = "stuck"

                    def legal_moves(self):
                        return [] if self.ply() >= 2 else super().legal_moves()

                stuck = dataclasses.replace(
                    spec, name="stuck", title="Stuck", new=Stuck,
                    from_position=Stuck.from_position)

                def make_spec():
                    return dataclasses.replace(
                        spec, name="circles", title="Circles", new=Circles,
                        from_position=Circles.from_position)
            """,
            "broken_plugin": "raise ImportError('this plugin is broken on purpose')\n",
        },
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([path, *sys.path])}
    listed = subprocess.run(
        [sys.executable, "-m", "zerosum", "games"], capture_output=True, text=True, env=env
    )
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert {"tictactoe", "connect4", "morris", "chess", "crosses", "circles"} <= set(names)
    assert "broken" in listed.stderr and "this plugin is broken on purpose" in listed.stderr
    assert "Traceback" not in listed.stderr
    solved = subprocess.run(
        [sys.executable, "-m", "zerosum", "solve", "circles", "--moves", "b2", "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert solved.returncode == 0, solved.stderr
    assert '"value": 0' in solved.stdout
    parallel = subprocess.run(
        [
            *(sys.executable, "-m", "zerosum", "analyze", "crosses"),
            *("--depth", "4", "--workers", "2", "--json"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert parallel.returncode == 0, parallel.stderr
    broken = subprocess.run(
        [sys.executable, "-m", "zerosum", "analyze", "stuck", "--depth", "3"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert broken.returncode == 2, broken.stderr
    assert "no legal moves but is not over" in broken.stderr
    assert "Traceback" not in broken.stderr


def test_a_plugin_warning_names_the_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process: a broken entry point becomes a ``PluginWarning`` when the registry
    fills, and the built-in games stay."""
    import zerosum.games as games

    class Broken:
        name, value = "ghost", "ghost_plugin:spec"

        def load(self) -> object:
            raise ImportError("no module named ghost_plugin")

    fresh = games._Registry()
    monkeypatch.setattr(games, "entry_points", lambda group: [Broken()])
    with pytest.warns(PluginWarning, match="'ghost' \\(ghost_plugin:spec\\) was not loaded"):
        names = list(fresh)
    assert {"tictactoe", "connect4", "morris", "chess"} <= set(names)
    assert importlib.metadata is not None


def test_an_engine_refused_for_a_plugin_names_what_it_offers(noughts: GameSpec) -> None:
    with pytest.raises(ZerosumError, match="'noughts' has no compiled engine: expected one of"):
        open_engine(noughts, "compiled")
    with open_engine(noughts, "tactical") as engine:
        assert engine.search(noughts.new(), Limit(depth=2)).best_move is not None
