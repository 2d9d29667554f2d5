"""Start-up stays light: what the command line imports before a command needs it.

Not timed (the machine's load decides times): each check runs a fresh interpreter and asserts
which heavy packages it imported. python-chess only for chess, numba and numpy only where a
command computes with them, the web stack only for ``serve``; ``benchmarks/startup.py``
measures the times.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

HEAVY = ("chess", "numba", "numpy", "fastapi", "pydantic", "starlette", "uvicorn", "ray")
"""Packages that cost a tenth of a second or more to import, or pull in ones that do."""

_PROBE = """
import json, sys
{setup}
heavy = {heavy!r}
print(json.dumps(sorted({{m.partition(".")[0] for m in sys.modules}} & set(heavy))))
"""


def _imported(setup: str) -> list[str]:
    """The heavy packages a fresh interpreter has imported after running ``setup``."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(setup=setup, heavy=HEAVY)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: list[str] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_importing_zerosum_and_its_command_line_imports_nothing_heavy() -> None:
    assert _imported("import zerosum, zerosum.cli") == []


def test_building_the_parser_imports_nothing_heavy() -> None:
    assert _imported("import zerosum.cli; zerosum.cli.build_parser()") == []


@pytest.mark.parametrize(
    "argv",
    [
        ["games"],
        ["games", "--json"],
        ["legal", "tictactoe", "--moves", "b2", "a1"],
        ["legal", "connect4", "--moves", "4453"],
        ["legal", "morris"],
    ],
)
def test_commands_that_compute_nothing_import_nothing_heavy(argv: list[str]) -> None:
    """``games`` and ``legal`` on the games without python-chess: none of the heavy packages
    (numba and numpy included: they only list, or make moves in Python)."""
    setup = (
        "import contextlib, io, zerosum.cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert zerosum.cli.main({argv!r}) == 0"
    )
    assert _imported(setup) == []


def test_chess_is_imported_when_chess_is_played() -> None:
    """The other side of the laziness: a chess position does import python-chess."""
    setup = "import zerosum\nzerosum.get_game('chess').new()"
    assert _imported(setup) == ["chess"]


def test_looking_up_a_builtin_game_builds_no_other_spec_and_reads_no_entry_point() -> None:
    setup = (
        "import zerosum.games as games\n"
        "games.get_game('tictactoe').new()\n"
        "assert list(games.GAMES._specs) == ['tictactoe'], games.GAMES._specs\n"
        "assert 'importlib.metadata' not in sys.modules"
    )
    assert _imported(setup) == []


def test_the_uci_front_end_says_uciok_before_importing_chess() -> None:
    """``uci`` answers the handshake from the protocol module alone; python-chess comes with
    the first position (here, ``isready`` opening the engine)."""
    setup = (
        "import zerosum.uci as uci\n"
        "said = []\n"
        "engine = uci.UciEngine(said.append)\n"
        "engine.handle('uci')\n"
        "assert said[-1] == 'uciok' and 'chess' not in sys.modules, said\n"
        "engine.handle('position startpos moves e2e4')\n"
        "assert 'chess' in sys.modules\n"
        "engine.handle('quit')"
    )
    env_wait = "import os\nos.environ['ZEROSUM_COMPILE'] = 'wait'\n"  # no background loading
    assert "chess" in _imported(env_wait + setup)


def test_the_registry_keeps_its_order_after_a_lookup() -> None:
    """A built-in game looked up first is still listed in its place."""
    setup = (
        "import zerosum.games as games\n"
        "games.get_game('chess')\n"
        "names = list(games.GAMES)\n"
        "assert names[:4] == ['tictactoe', 'connect4', 'morris', 'chess'], names"
    )
    _imported(setup)


def test_deferred_references_pickle_and_compare_by_name() -> None:
    import pickle

    from zerosum.games import Deferred, get_game

    made = Deferred("zerosum.games.tictactoe:TicTacToe")
    assert pickle.loads(pickle.dumps(made)) == made
    assert made().position() == get_game("tictactoe").new().position()
    spec = get_game("morris:six")
    assert pickle.loads(pickle.dumps(spec.new))().position() == spec.new().position()


ENTRY = b"zerosum.__main__"
"""The program's entry module (the console script's; ``-m zerosum`` runs it as ``__main__``)."""


def _src_env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    return env


@pytest.mark.skipif(not hasattr(fcntl, "F_SETPIPE_SZ"), reason="needs Linux pipe sizes")
@pytest.mark.parametrize(
    "start",
    [["-m", "zerosum"], ["-c", "from zerosum.__main__ import program; program()"]],
    ids=["python -m zerosum", "console script"],
)
def test_ctrl_c_while_the_program_loads_is_a_clean_exit(start: list[str]) -> None:
    """issue 24: Ctrl-C in the first second of a command showed a ``KeyboardInterrupt``
    traceback from wherever the imports were. The moment is observed, never timed: with
    ``-X importtime`` the child writes a line to stderr as each import ends; stderr is a pipe
    of one page, so once the test stops reading, the child blocks in its imports. SIGINT is
    sent after the first line of the command line's own modules (after ``zerosum``,
    ``zerosum.startup`` and ``zerosum.__main__``, which holds Ctrl-C as it loads), while more
    than a page of imports is still to come. (The console script runs
    ``zerosum.__main__.program`` as the ``-c`` line does.)"""
    process = subprocess.Popen(
        [sys.executable, "-X", "importtime", *start, "uci"],
        env=_src_env(),
        stdin=subprocess.PIPE,  # uci would wait here for commands: it never gets that far
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # One page a pipe, set before the child starts (the child blocks soon). Set after it,
        # a pipe that already holds more refuses (EBUSY): a test starved of CPU failed so.
        pipesize=4096,
        start_new_session=True,
    )
    try:
        assert process.stderr is not None
        seen: list[bytes] = []
        for line in iter(process.stderr.readline, b""):
            seen.append(line)
            module = line.rsplit(b"|", 1)[-1].strip()
            if module.startswith(b"zerosum.") and module not in (b"zerosum.startup", ENTRY):
                break
        assert seen and process.poll() is None, b"".join(seen).decode()
        process.send_signal(signal.SIGINT)  # as Ctrl-C sends it, in the middle of the imports
        out, err = process.communicate(timeout=HANG_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    lines = [line for line in err.decode().splitlines() if not line.startswith("import time:")]
    assert (process.returncode, lines, out) == (130, ["zerosum: interrupted"], b""), err[-2000:]


def test_a_ctrl_c_while_the_program_ends_is_noted_and_the_clean_up_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After the command, a first Ctrl-C is noted (the program then exits 130 once its
    clean-up has run) rather than raised in the middle of an atexit handler; a second one
    ends the process as during the start-up."""
    from zerosum import startup

    monkeypatch.setattr(startup, "_ending", [])
    ended: list[int] = []
    monkeypatch.setattr(startup.os, "_exit", ended.append)
    before = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        startup.hold_while_ending()
        assert not startup.interrupted_while_ending()
        signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt: noted
        assert startup.interrupted_while_ending() and ended == []
        signal.raise_signal(signal.SIGINT)
        assert ended == [130]
    finally:
        signal.signal(signal.SIGINT, before)
