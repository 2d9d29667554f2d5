"""Matches on a local Ray (skipped only when Ray is not installed; CI installs it).

One local Ray serves the whole module; each test starts its own actors on it (a fraction of a
second), and the command line joins it. Only the Ctrl-C test starts a Ray of its own, in the
match's process, to check that nothing outlives it.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

pytest.importorskip("ray")

from test_match_cli import _survivors
from waiting import HANG_S

from zerosum.cli import main
from zerosum.match import Match, TimeControl, WorkerError, parse_player
from zerosum.match.runner import close_players, kill_players
from zerosum.runtime.cluster import RayActorExecutor, connect

FAKE = Path(__file__).with_name("fake_uci.py")


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    ray, owned = connect("auto", workers=2)
    yield ray
    if owned:
        ray.shutdown()


def actors(workers: int = 2) -> RayActorExecutor:
    return RayActorExecutor(workers=workers, teardown=close_players, kill=kill_players)


def _signature(records: Any) -> list[tuple[Any, ...]]:
    return [(r.index, r.a_first, r.opening, r.moves, r.ending) for r in records]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and " Z " not in Path(f"/proc/{pid}/stat").read_text()


@pytest.mark.parametrize(
    ("game", "a", "b", "games"),
    [
        pytest.param(
            "connect4",
            "depth=4,algorithm=engine,seed=5",
            "depth=3,algorithm=alphabeta,seed=9",
            6,
            marks=[pytest.mark.slow, pytest.mark.ray],  # deeper games: the slow set
        ),
        ("tictactoe", "level=2", "level=1", 8),
        ("othello:4", "level=2", "level=1", 4),  # a plugin's game: Ray's workers load it too
    ],
)
def test_ray_plays_the_games_of_one_process(
    ray: Any, game: str, a: str, b: str, games: int
) -> None:
    match = Match(game, parse_player(a), parse_player(b), games=games, seed=11)
    serial = match.play()
    again = match.play()
    assert _signature(again.games) == _signature(serial.games)  # deterministic per seed
    with actors() as executor:
        assert executor.workers == 2
        seen: list[int] = []
        played = match.play(executor=executor, on_game=lambda record: seen.append(record.index))
    assert sorted(seen) == list(range(games))
    assert _signature(played.games) == _signature(serial.games)
    assert played.elo == serial.elo
    totals = ("wins", "draws", "losses", "score", "elo", "elo_low", "elo_high", "los")
    assert {k: played.as_dict()[k] for k in totals} == {k: serial.as_dict()[k] for k in totals}


def test_a_sequential_test_on_ray_decides_as_in_one_process(ray: Any) -> None:
    from zerosum.match import SprtSettings

    match = Match(
        "connect4",
        parse_player("depth=4,algorithm=engine,seed=5"),
        parse_player("depth=1,algorithm=engine,seed=9"),
        games=60,
        seed=3,
        sprt=SprtSettings(0, 100),
    )
    serial = match.play()
    assert serial.sprt is not None and serial.sprt.decision == "H1"
    with actors() as executor:
        played = match.play(executor=executor)
    assert _signature(played.games) == _signature(serial.games)
    assert played.sprt == serial.sprt


def test_each_actor_starts_its_engines_once_and_closes_them(ray: Any, tmp_path: Path) -> None:
    log = tmp_path / "starts.txt"
    engine = parse_player(f"uci:env FAKE_UCI_LOG={log} {sys.executable} {FAKE}")
    other = parse_player(f"uci:env FAKE_UCI_LOG={log} {sys.executable} {FAKE}", ["Choice=3"])
    control = TimeControl(move_time=0.01)
    match = Match("chess", engine, other, games=6, time_control=control, max_plies=40)
    with actors() as executor:
        result = match.play(executor=executor, names=("one", "two"))
    starts = [int(line) for line in log.read_text().split()]
    assert len(starts) == 4  # two actors, two players each, for six games
    for record in result.games:
        board = chess.Board()
        for move in record.moves:
            board.push_uci(move)
        assert record.pgn is not None and f'[Round "{record.index + 1}"]' in record.pgn
    deadline = time.monotonic() + HANG_S  # bounds a hang only
    while any(_alive(pid) for pid in starts) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in starts)


@pytest.mark.slow  # chess engines on Ray
@pytest.mark.ray
def test_zerosum_against_its_own_uci_engine_on_ray(ray: Any) -> None:
    engine = parse_player(f"uci:{sys.executable} -m zerosum uci")
    match = Match(
        "chess",
        parse_player("depth=1"),
        engine,
        games=2,
        time_control=TimeControl(move_time=0.05),
        max_plies=16,
    )
    with actors() as executor:
        result = match.play(executor=executor)
    assert result.names[0] == "zerosum depth=1" and result.names[1].startswith("zerosum")
    assert [record.a_first for record in result.games] == [True, False]
    for record in result.games:
        assert len(record.moves) <= 16 and record.pgn is not None
        assert "player failed" not in record.ending.reason
        board = chess.Board()
        for move in record.moves:
            board.push_uci(move)


def test_a_crashing_engine_loses_its_games_on_ray(ray: Any) -> None:
    crashing = parse_player(f"uci:{sys.executable} {FAKE}", ["Crash=true"])
    match = Match("chess", crashing, parse_player(f"uci:{sys.executable} {FAKE}"), games=3)
    with actors() as executor:
        result = match.play(executor=executor, names=("crashing", "fake"))
    assert [record.winner for record in result.games] == ["B", "B", "B"]
    assert all(r.ending.reason.startswith("player failed: A: engine error") for r in result.games)


def test_failures_on_an_actor_are_reported_not_waited_for(ray: Any) -> None:
    with actors() as executor:
        assert sorted(executor.map_unordered(math.sqrt, [4.0, 9.0])) == [(0, 2.0), (1, 3.0)]
        with pytest.raises(WorkerError, match=r"(?s)game 2 failed on a Ray actor: .*math domain"):
            list(executor.map_unordered(math.sqrt, [4.0, -1.0]))
        with pytest.raises(WorkerError, match="the Ray actor playing game 1 died"):
            list(executor.map_unordered(os._exit, [3]))  # reported, not waited for
        # The other actor plays on.
        assert sorted(executor.map_unordered(math.sqrt, [16.0, 25.0])) == [(0, 4.0), (1, 5.0)]


@pytest.mark.slow  # a second Ray match through the command line
@pytest.mark.ray
def test_the_command_line_gives_the_local_results(
    ray: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "match",
        "connect4",
        "--a",
        "depth=3,algorithm=engine",
        "--b",
        "depth=2,algorithm=engine",
    ]
    argv += ["--games", "4", "--seed", "3"]
    assert main([*argv, "--json"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*argv, "--cluster", "auto", "--json"]) == 0
    remote = json.loads(capsys.readouterr().out)
    assert remote.pop("cluster") == "auto"
    assert remote.pop("cluster_nodes") == 1 and remote.pop("games_rerun") == 0
    assert list(remote.pop("games_per_node").values()) == [4]  # the local Ray's one node

    def same(data: dict[str, Any]) -> dict[str, Any]:
        for record in data["records"]:
            del record["seconds_a"], record["seconds_b"]
        return data

    assert same(remote) == same(local)
    assert main([*argv, "--cluster", "auto", "--workers", "8"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("no time control, 2 Ray actors (auto)")  # 2 CPUs
    assert f"A: +{local['wins']} ={local['draws']} -{local['losses']}" in out


def _engines(pids: list[int]) -> int:
    count = 0
    for pid in pids:
        try:
            count += b"fake_uci" in Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
    return count


@pytest.mark.slow  # starts and stops Ray twice
@pytest.mark.ray
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find processes")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_stopping_a_ray_match_leaves_no_process_behind(signum: int) -> None:
    marker = uuid.uuid4().hex
    command = [sys.executable, "-m", "zerosum.cli", "match", "chess"]
    command += ["--a", f"uci:{sys.executable} {FAKE}", "--b", f"uci:{sys.executable} {FAKE}"]
    command += ["--a-option", "Sleep=100", "--games", "40", "--cluster", "auto", "--workers", "2"]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ZEROSUM_TEST_MATCH": marker},
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        assert process.stdout is not None
        header = process.stdout.readline()
        assert header.endswith("2 Ray actors (auto)\n"), header
        deadline = time.monotonic() + HANG_S  # bounds a hang only
        while _engines(_survivors(marker)) < 4:  # two actors, two engines each
            assert time.monotonic() < deadline, "the engines never started"
            time.sleep(0.2)
        assert process.stdout.readline()  # a game has finished (its line is printed)
        if signum == signal.SIGINT:
            os.killpg(process.pid, signum)  # Ctrl-C reaches the whole group
        else:
            process.send_signal(signum)
        out, err = process.communicate(timeout=HANG_S)  # bounds a hang only
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert "stopped after" in out and "A: +" in out and "Traceback" not in err
    deadline = time.monotonic() + HANG_S  # bounds a hang only
    while _survivors(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _survivors(marker) == []


def test_a_chess_match_on_ray_keeps_clocks_and_writes_pgn(
    ray: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pgn = tmp_path / "games.pgn"
    fake = f"uci:{sys.executable} {FAKE}"
    argv = ["match", "chess", "--a", fake, "--a-option", "Choice=3", "--b", fake, "--games", "4"]
    argv += ["--clock", "5+0.1", "--max-plies", "30", "--pgn", str(pgn), "--cluster", "auto"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "5 s + 0.1 s per move, 2 Ray actors (auto)" in out.splitlines()[0]
    assert f"PGN of 4 games written to {pgn}" in out
    with pgn.open() as games:
        read = [chess.pgn.read_game(games) for _ in range(4)]
    assert [game.headers["Round"] for game in read if game] == ["1", "2", "3", "4"]
    assert all(game.headers["TimeControl"] == "5+0.1" for game in read if game)
    white = [game.headers["White"] for game in read if game]
    assert white[0] == white[2] == "FakeEngine 1.0 (Choice=3)" != white[1]  # colours swapped
