"""Perft: the protocol's count (the slow twin) against each game's compiled perft, and the
``zerosum perft`` command."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from zerosum.cli import main
from zerosum.compiled import perft as fast
from zerosum.game import Game
from zerosum.games import get_game, register, unregister
from zerosum.search.perft import perft


def random_positions(name: str, count: int, plies: int, seed: int) -> Iterator[Game[Any]]:
    """Positions of game ``name`` reached by random moves (fewer plies if the game ends)."""
    rng = random.Random(seed)
    spec = get_game(name)
    for _ in range(count):
        game = spec.new()
        for _ in range(rng.randrange(plies + 1)):
            moves = game.legal_moves()
            if not moves:
                break
            game.make(rng.choice(moves))
        yield game


@pytest.mark.parametrize(
    ("name", "depth", "count", "plies"),
    [
        ("tictactoe", 4, 12, 6),
        ("connect4", 4, 10, 30),
        ("morris", 2, 10, 30),
        ("morris:six", 3, 6, 40),
        ("chess", 2, 8, 60),
    ],
)
def test_compiled_perft_equals_the_protocol_perft(
    name: str, depth: int, count: int, plies: int
) -> None:
    function = getattr(fast, name.partition(":")[0])
    for game in random_positions(name, count, plies, seed=len(name)):
        position = game.position()
        for d in range(depth + 1):
            assert function(game, d) == perft(game, d), (position, d)
        assert game.position() == position


def test_perft_from_the_start_of_each_game() -> None:
    # Games still going after 9 plies: 81,792 won by X on the last move plus 46,080 draws.
    assert fast.tictactoe(get_game("tictactoe").new(), 9) == 127872
    assert fast.connect4(get_game("connect4").new(), 6) == 117649
    assert fast.morris(get_game("morris").new(), 3) == 12144
    assert fast.chess(get_game("chess").new(), 4) == 197281


def test_chess_perft_stops_at_draws_by_rule() -> None:
    # King and knight against king: too little material to mate, so the game is over.
    game = get_game("chess").from_position("8/8/3k4/8/8/3K4/3N4/8 w - - 0 1")
    assert fast.chess(game, 2) == perft(game, 2) == 0
    # After Kxd2 the game is drawn: standard perft would count Black's replies.
    game = get_game("chess").from_position("8/8/8/8/8/3k4/3N4/4K3 b - - 0 1")
    assert fast.chess(game, 2) == perft(game, 2)


def test_bad_depth() -> None:
    with pytest.raises(ValueError, match="expected 0 or more"):
        perft(get_game("tictactoe").new(), -1)
    with pytest.raises(ValueError, match="expected 0 or more"):
        fast.chess(get_game("chess").new(), -1)


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_perft_json_for_every_builtin_game(capsys: pytest.CaptureFixture[str]) -> None:
    for name, depth, nodes in [
        ("tictactoe", 3, 504),
        ("connect4", 3, 343),
        ("morris", 2, 552),
        ("chess", 3, 8902),
    ]:
        data = run_json(capsys, "perft", name, "--depth", str(depth), "--json")
        assert data["nodes"] == nodes and data["perft"] == "compiled", data
        assert data["depth"] == depth and data["time_s"] >= 0 and data["nps"] >= 0
        generic = run_json(capsys, "perft", name, "--depth", str(depth), "--json", "--generic")
        assert generic["nodes"] == nodes and generic["perft"] == "protocol"


def test_cli_perft_position_moves_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    data = run_json(capsys, "perft", "chess", "--position", fen, "--depth", "2", "--json")
    assert data["nodes"] == 2039
    assert (
        run_json(capsys, "perft", "chess", "--moves", "e2e4", "--depth", "1", "--json")["nodes"]
        == 20
    )
    assert main(["perft", "connect4", "--moves", "4453", "--depth", "2"]) == 0
    assert capsys.readouterr().out.startswith("perft 2: 49 nodes in ")


def test_cli_perft_of_a_plugin_game_counts_through_the_protocol(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = dataclasses.replace(get_game("tictactoe"), name="perftplugin", kernel=None, perft=None)
    register(spec, replace=True)
    try:
        data = run_json(capsys, "perft", "perftplugin", "--depth", "3", "--json")
    finally:
        unregister("perftplugin")
    assert data["nodes"] == 504 and data["perft"] == "protocol"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["perft", "chess", "--depth", "-1"], "expected 0..30"),
        (["perft", "chess", "--depth", "x"], "not a whole number"),
        (["perft", "chess"], "--depth"),
        (["perft", "chess", "--depth", "2", "--position", "not a fen"], "not a FEN"),
        (["perft", "nosuchgame", "--depth", "2"], "nosuchgame"),
    ],
)
def test_cli_perft_bad_input(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_the_library_counts_as_the_command_does() -> None:
    import zerosum
    from zerosum.search.perft import perft as protocol_perft

    for name in ("tictactoe", "connect4", "morris", "chess"):
        game = zerosum.get_game(name).new()
        assert zerosum.perft(game, 3) == zerosum.perft(game, 3, generic=True), name
        assert zerosum.perft(game, 3) == protocol_perft(game, 3), name


class FakeWarmer:
    """A compile in a child that is over at once (``failed``: without caching the part)."""

    failed = False

    def __init__(self, spec: Any, parts: Any) -> None:
        pass

    def start(self) -> None:
        pass

    def done(self) -> bool:
        return True

    def remaining(self) -> float:
        return 0.0


@pytest.mark.parametrize("compile_fails", [True, False])
def test_a_cold_perft_races_the_protocol_count_against_the_compiled_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, compile_fails: bool
) -> None:
    # Nothing cached and compiling in the background: the protocol's count starts at once.
    # When the child's compile fails, it answers alone; when it succeeds and the protocol's
    # count never ends, the compiled count answers, with the same count.
    import threading

    from zerosum.cli import perft as command

    release = threading.Event()

    def stuck(game: Game[Any], depth: int) -> int:
        release.wait()
        return -1

    monkeypatch.delenv("ZEROSUM_COMPILE", raising=False)
    monkeypatch.setattr(command, "is_cached", lambda spec, part: False)
    monkeypatch.setattr(FakeWarmer, "failed", compile_fails)
    monkeypatch.setattr(command, "Warmer", FakeWarmer)
    if not compile_fails:
        monkeypatch.setattr(command, "protocol_perft", stuck)
    try:
        data = run_json(capsys, "perft", "chess", "--depth", "3", "--json")
    finally:
        release.set()
    assert data["nodes"] == 8902
    assert data["perft"] == ("protocol" if compile_fails else "compiled")


def test_a_cold_perft_in_a_new_process_answers_the_same_count(tmp_path: Any) -> None:
    import contextlib
    import os
    import signal
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("ZEROSUM_COMPILE", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "zerosum", "perft", "morris", "--depth", "3", "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the compiling child is in its group: ended with it
    )
    try:
        out, err = process.communicate(timeout=600)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 0, err
    data = json.loads(out)
    assert data["nodes"] == 12144 and data["perft"] in ("protocol", "compiled")
