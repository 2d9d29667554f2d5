"""The status line of the long commands (``zerosum.cli.progress``): drawn on a terminal's
stderr, silent under ``--json`` or without a terminal, never mixed with stdout's lines."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from waiting import HANG_S

from zerosum.cli import main
from zerosum.cli.progress import CLEAR_LINE, REDRAW_GAP_S, Progress, elapsed_text

SRC = str(Path(__file__).resolve().parents[1] / "src")
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True)
def capable_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever terminal runs the tests (a CI may say ``TERM=dumb``), the display's own."""
    monkeypatch.setenv("TERM", "xterm")


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal, and records what was written to it."""

    def isatty(self) -> bool:
        return True


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_terminal_gets_the_line_rewritten_in_place() -> None:
    out, clock = FakeTerminal(), Clock()
    with Progress("book", stream=out, tick=0, clock=clock) as progress:
        clock.now += 1.5
        progress.update("3 positions")
        assert out.getvalue() == f"{CLEAR_LINE}book: 3 positions  (1.5 s)"
        clock.now += REDRAW_GAP_S / 2
        progress.update("4 positions")  # too soon after the last: kept for the next draw
        assert out.getvalue().count("book:") == 1 and progress.status == "4 positions"
        clock.now += REDRAW_GAP_S
        progress.update("5 positions")
        assert out.getvalue().endswith(f"{CLEAR_LINE}book: 5 positions  (1.6 s)")
    assert out.getvalue().endswith(CLEAR_LINE)  # leaving erases the line


def test_echo_lifts_the_line_out_of_the_way(capsys: pytest.CaptureFixture[str]) -> None:
    out, clock = FakeTerminal(), Clock()
    with Progress("match", stream=out, tick=0, clock=clock) as progress:
        progress.update("1 of 2 games")
        clock.now += 1.0
        progress.echo("game   1  A-B  1-0")
        assert out.getvalue() == (
            f"{CLEAR_LINE}match: 1 of 2 games  (0.0 s){CLEAR_LINE}"
            f"{CLEAR_LINE}match: 1 of 2 games  (1.0 s)"
        )
    assert capsys.readouterr().out == "game   1  A-B  1-0\n"


def test_the_ticker_keeps_the_time_moving() -> None:
    out = FakeTerminal()
    with Progress("solve", stream=out, tick=0.01) as progress:
        progress.update("proving the score")
        deadline = time.monotonic() + HANG_S
        while out.getvalue().count("solve: proving") < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert out.getvalue().count("solve: proving the score") >= 3


def test_a_detail_is_read_at_every_draw() -> None:
    out, clock, count = FakeTerminal(), Clock(), iter(range(1, 100))
    with Progress("solve", stream=out, tick=0, clock=clock) as progress:
        progress.update("proving the score", detail=lambda: f"{next(count) * 1000:,} nodes")
        clock.now += 1
        progress.update(progress.status, detail=progress.detail)
        progress.update("done", detail=lambda: "")  # an empty detail shows nothing
    drawn = out.getvalue().split(CLEAR_LINE)
    assert drawn[1:4] == [
        "solve: proving the score: 1,000 nodes  (0.0 s)",
        "solve: proving the score: 2,000 nodes  (1.0 s)",
        "",  # the third update came too soon after the second: not drawn; then the exit
    ]


def test_the_compiled_solver_counts_its_nodes_as_it_goes() -> None:
    from zerosum.compiled.solver import Solver
    from zerosum.games import get_game

    game = get_game("tictactoe").new()
    with Solver("tictactoe") as solver:
        exact = solver.solve(game)
        assert solver.live_nodes() == exact.stats.nodes > 0  # the last solve's count, read live
    with Solver("tictactoe", workers=2) as solver:
        assert solver.live_nodes() is None  # workers report their counts when they finish


def test_silent_without_a_terminal() -> None:
    out = io.StringIO()
    with Progress("book", stream=out, tick=0.01) as progress:
        progress.update("3 positions")
        progress.echo("a line", file=io.StringIO())
    assert out.getvalue() == "" and not progress.enabled


def test_a_dumb_terminal_gets_no_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "dumb")
    out = FakeTerminal()
    with Progress("book", stream=out, tick=0) as progress:
        progress.update("3 positions")
    assert out.getvalue() == ""


def test_the_line_fits_the_terminal() -> None:
    out = FakeTerminal()  # no file descriptor: 80 columns
    with Progress("book", stream=out, tick=0) as progress:
        progress.update("x" * 200)
    drawn = out.getvalue().split(CLEAR_LINE)[1]
    assert len(drawn) == 79 and drawn.startswith("book: xxx")


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0.0 s"), (12.34, "12.3 s"), (59.9, "59.9 s"), (245, "4:05"), (3723, "1:02:03")],
)
def test_elapsed_text(seconds: float, text: str) -> None:
    assert elapsed_text(seconds) == text


# -- the commands ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["solve", "tictactoe", "--algorithm", "alphabeta"], "solve: solving with alphabeta"),
        (
            ["solve", "tictactoe", "--moves", "b2", "a1", "--algorithm", "compiled", "--all"],
            "solve: proving the score",
        ),
        (["book", "tictactoe", "--moves", "b2", "--plies", "1"], "book: "),
        (["solve", "connect4", "--positions"], "solve: 3 of 3 positions, 0 mismatched"),
        (
            ["solve", "connect4", "--moves", "4444443333", "--cluster", "local", "--no-book"],
            "solve: solving in work units",
        ),
        (["match", "tictactoe", "--a", "depth=1", "--b", "depth=1", "--games", "2"], "match: "),
        # the compiled chess search is loaded (compiled on first use) before its clock runs
        (["analyze", "chess", "--depth", "2"], "compiled-tactical: loading (its first use"),
    ],
)
def test_long_commands_show_progress_on_a_terminal_only(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    argv: list[str],
    status: str,
) -> None:
    if argv[0] == "book":
        argv = [*argv, "--store", str(tmp_path / "book.sqlite")]
    if "--positions" in argv:  # the first three positions of a public test set
        lines = (DATA / "connect4" / "Test_L3_R1").read_text().splitlines()[:3]
        (tmp_path / "three.txt").write_text("\n".join(lines) + "\n")
        argv = [*argv, str(tmp_path / "three.txt")]
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr("zerosum.cli.progress.REDRAW_GAP_S", 0.0)  # draw every update
    assert main(argv) == 0
    out = capsys.readouterr().out
    drawn = terminal.getvalue()
    assert status in drawn and drawn.startswith(CLEAR_LINE) and drawn.endswith(CLEAR_LINE)
    assert CLEAR_LINE not in out  # the status line never goes to stdout
    if argv[0] == "book":
        assert "positions (" in drawn  # the count of positions done
        (tmp_path / "book.sqlite").unlink()
    if argv[0] == "solve" and "--all" in argv:
        assert "solve: 7 of 7 moves solved" in drawn and "\n  c3 " in out
    if argv[0] == "match":
        assert "match: 2 of 2 games; A +" in drawn
    # --json: the same command is silent on the terminal, and stdout is one JSON object.
    terminal.seek(0)
    terminal.truncate()
    assert main([*argv, "--json"]) == 0
    assert terminal.getvalue() == ""
    json.loads(capsys.readouterr().out)


def _run_in_a_terminal(argv: list[str]) -> tuple[int, str]:
    """Run ``zerosum argv`` with a pseudo-terminal as its stdin, stdout and stderr; returns
    the exit status and everything it wrote (until it exits and closes the terminal)."""
    parent, child = pty.openpty()
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env["TERM"] = "xterm"
    process = subprocess.Popen(
        [sys.executable, "-m", "zerosum", *argv],
        stdin=child,
        stdout=child,
        stderr=child,
        env=env,
        close_fds=True,
    )
    os.close(child)
    chunks: list[bytes] = []
    deadline = time.monotonic() + HANG_S
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([parent], [], [], 1.0)
            if not ready:
                continue
            try:
                data = os.read(parent, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        status = process.wait(timeout=HANG_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(parent)
    return status, b"".join(chunks).decode("utf-8", "replace")


def test_a_real_command_under_a_terminal_draws_the_line() -> None:
    argv = ["solve", "tictactoe", "--algorithm", "alphabeta"]
    status, seen = _run_in_a_terminal(argv)
    assert status == 0, seen
    assert f"{CLEAR_LINE}solve: solving with alphabeta  (" in seen
    answer = seen.split(CLEAR_LINE)[-1]
    assert answer.startswith("value draw (0)") and "nodes " in answer  # erased before it
    # The same command with a pipe for stderr, or with --json: not one byte of status.
    done = subprocess.run(
        [sys.executable, "-m", "zerosum", *argv],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    assert done.returncode == 0 and done.stderr == ""
    status, seen = _run_in_a_terminal([*argv, "--json"])
    assert status == 0 and CLEAR_LINE not in seen and "solve:" not in seen
    assert json.loads(seen)["value"] == 0
