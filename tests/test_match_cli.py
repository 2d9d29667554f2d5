"""``zerosum match``: output, JSON, PGN, bad options, and stopping without leftovers."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import chess.pgn
import pytest
from waiting import HANG_S

from zerosum.cli import main

FAKE = f"uci:{sys.executable} {Path(__file__).with_name('fake_uci.py')}"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "match", "tictactoe", "--a", "level=5", "--b", "level=5")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("tictactoe: A = zerosum level=5, B = zerosum level=5; 10 games")
    assert sum(line.startswith("game") for line in lines) == 10
    assert "game   1  A-B  1/2-1/2  draw  (corner; 9 plies)  a1 " in out
    assert lines[-2] == "A: +0 =10 -0  score 5/10 (50.0%)"
    assert lines[-1].startswith("Elo A - B: +0 (95%: -")


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys,
        "match",
        "connect4",
        "--a",
        "depth=2,algorithm=engine",
        "--b",
        "depth=1,algorithm=engine",
        "--games",
        "4",
        "--no-book",
        "--json",
    )
    assert status == 0
    data = json.loads(out)
    assert data["games"] == 4 and data["complete"] is True
    assert data["wins"] + data["draws"] + data["losses"] == 4
    assert [r["first"] for r in data["records"]] == ["A", "B", "A", "B"]
    assert {r["opening"] for r in data["records"]} == {"start"}
    assert all(r["moves"] and "pgn" not in r for r in data["records"])
    assert set(data) >= {"elo", "elo_low", "elo_high", "elo_text", "los", "score"}


def test_chess_pgn_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    status, out, _ = run(
        capsys,
        "match",
        "chess",
        "--a",
        FAKE,
        "--a-option",
        "Choice=3",
        "--b",
        FAKE,
        "--games",
        "2",
        "--time-per-move",
        "0.02",
        "--pgn",
        str(pgn),
    )
    assert status == 0
    assert f"PGN of 2 games written to {pgn}" in out
    with pgn.open() as games:
        first = chess.pgn.read_game(games)
        second = chess.pgn.read_game(games)
    assert first is not None and second is not None
    assert first.headers["White"] == second.headers["Black"] == "FakeEngine 1.0 (Choice=3)"
    assert first.headers["Opening"] == second.headers["Opening"] == "Ruy Lopez"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["tictactoe", "--a", "level=5"], "required: --b"),
        (["tictactoe", "--a", "levle=5", "--b", "level=1"], "bad player setting 'levle=5'"),
        (["tictactoe", "--a", "level=9", "--b", "level=1"], "level 9 is out of range"),
        (["tictactoe", "--a", FAKE, "--b", "level=1"], "UCI engines play chess only"),
        (["tictactoe", "--a", "level=1", "--b", "level=1", "--pgn", "x.pgn"], "--pgn is for chess"),
        (["nogame", "--a", "level=1", "--b", "level=1"], "unknown game 'nogame'"),
        (["tictactoe", "--a", "algorithm=fast", "--b", "level=1"], "unknown algorithm 'fast'"),
        (["tictactoe", "--a", "level=1", "--a-option", "Hash=1", "--b", "level=1"], "not a UCI"),
        (["chess", "--a", "uci:/no/such/engine", "--b", FAKE], "cannot start UCI engine"),
        (["chess", "--a", FAKE, "--a-option", "Bogus=1", "--b", FAKE], "Bogus"),
        (["chess", "--a", FAKE, "--b", FAKE, "--clock", "fast"], "bad clock 'fast'"),
        (
            ["chess", "--a", FAKE, "--b", FAKE, "--clock", "5", "--time-per-move", "1"],
            "give one of",
        ),
        (
            ["chess", "--a", FAKE, "--b", FAKE, "--nodes-per-move", "5", "--time-per-move", "1"],
            "give one of",
        ),
        (["chess", "--a", FAKE, "--b", FAKE, "--nodes-per-move", "0"], "out of range"),
        (["tictactoe", "--a", "level=1", "--b", "level=1", "--games", "0"], "out of range"),
        (["tictactoe", "--a", "level=1", "--b", "level=1", "--workers", "x"], "whole number"),
    ],
)
def test_bad_options_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    status, _, err = run(capsys, "match", *argv)
    assert status == 2
    assert err.startswith("zerosum: error: ") and words in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def _survivors(marker: str) -> list[int]:
    """Processes whose environment carries ``marker`` (the match and all it started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find processes")
@pytest.mark.parametrize(("workers", "signum"), [(2, signal.SIGINT), (1, signal.SIGTERM)])
def test_stopping_a_match_leaves_no_process_behind(workers: int, signum: int) -> None:
    marker = f"ZEROSUM_TEST_MATCH={uuid.uuid4().hex}"
    name, value = marker.split("=")
    command = [sys.executable, "-m", "zerosum.cli", "match", "chess", "--a", FAKE, "--b", FAKE]
    command += ["--a-option", "Sleep=200", "--games", "6", "--workers", str(workers)]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, name: value},
    )
    try:
        assert process.stdout is not None
        header = process.stdout.readline()
        assert header.startswith("chess: A = FakeEngine")
        deadline = time.monotonic() + HANG_S  # bounds a hang only
        # Wait until the engines of every worker run: the match process, its workers (and the
        # spawn machinery) and two engines per worker.
        while len(_survivors(value)) < 1 + 2 * workers + (workers > 1) * workers:
            assert time.monotonic() < deadline, "the engines never started"
            time.sleep(0.2)
        process.send_signal(signum)
        out, err = process.communicate(timeout=HANG_S)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "stopped after" in out
    deadline = time.monotonic() + HANG_S  # bounds a hang only
    while _survivors(value) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _survivors(value) == []


def _engines(marker: str) -> list[int]:
    """The ``zerosum uci`` processes among those carrying ``marker``."""
    found = []
    for pid in _survivors(marker):
        try:
            if b"zerosum\x00uci" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find processes")
def test_ctrl_c_in_a_match_with_zerosum_uci_leaves_no_process_behind() -> None:
    """Ctrl-C (SIGINT to the terminal's whole foreground group) while ``zerosum uci`` plays or
    loads: the match exits 130 and no engine survives it."""
    marker = f"ZEROSUM_TEST_MATCH={uuid.uuid4().hex}"
    name, value = marker.split("=")
    engine = f"uci:{sys.executable} -m zerosum uci"
    command = [sys.executable, "-m", "zerosum.cli", "match", "chess", "--a", engine, "--b", FAKE]
    command += ["--games", "4", "--time-per-move", "0.05"]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, name: value},  # ZEROSUM_COMPILE=wait (conftest): no compile child
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        assert process.stdout is not None
        header = process.stdout.readline()  # the engines were started and quit for their names
        assert header.startswith("chess: A = "), header
        deadline = time.monotonic() + HANG_S  # bounds a hang only
        while not _engines(value):  # the games' engine
            assert time.monotonic() < deadline, "the engine never started"
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=HANG_S)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130, err
    assert "stopped after" in out and "Traceback" not in err
    deadline = time.monotonic() + HANG_S  # bounds a hang only
    while _survivors(value) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _survivors(value) == []


def test_unwritable_pgn_is_refused_before_the_first_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "x.pgn"
    status, out, err = run(
        capsys, "match", "chess", "--a", "depth=1", "--b", "depth=1", "--games", "2",
        "--max-plies", "20", "--pgn", str(missing),
    )  # fmt: skip
    assert status == 2 and out == ""  # no game was played
    assert err.startswith(f"zerosum: error: cannot write {missing}: ") and err.count("\n") == 1


def test_a_writable_pgn_check_leaves_no_stray_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pgn = tmp_path / "games.pgn"
    status, _, err = run(
        capsys, "match", "chess", "--a", "depth=1", "--b", "depth=1", "--games", "1",
        "--max-plies", "4", "--pgn", str(pgn), "--clock", "fast",
    )  # fmt: skip
    assert status == 2 and "bad clock" in err and not pgn.exists()


@pytest.mark.usefixtures("without_ray")
def test_a_cluster_without_ray_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tictactoe", "--a", "level=1", "--b", "level=1", "--cluster", "auto"]
    status, out, err = run(capsys, "match", *argv)
    assert status == 2 and out == ""
    expected = "Ray is not installed: expected 'pip install zerosum[ray]' for --cluster"
    assert err == f"zerosum: error: {expected}\n"


def test_a_program_that_is_no_engine_is_one_line_without_asyncio_noise(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    # python-chess closes its loop as soon as cat fails as an engine; asyncio's child watcher
    # then warned "Loop ... that handles pid ... is closed" above the error, when it saw cat
    # exit (a race: in two of three runs). The match drops that warning, however late it comes.
    argv = ["match", "chess", "--a", "uci:cat", "--b", "uci:cat", "--games", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("zerosum: error: cannot start UCI engine")
    with caplog.at_level(logging.WARNING, logger="asyncio"):
        logging.getLogger("asyncio").warning("Loop %r that handles pid %r is closed", None, 1)
        logging.getLogger("asyncio").warning("another warning")  # others still get through
    assert [record.getMessage() for record in caplog.records] == ["another warning"]
