"""Random command lines thrown at the CLI's entry point (``zerosum.cli.main``): whatever the
arguments, the CLI answers with exit status 0 or 2 (bad input, one line ``zerosum: error:``),
never an uncaught exception, a traceback or a hang.

The arguments mix the parser's real commands and options (read from the parser, so a new
option is fuzzed as soon as it exists) with real and garbage values, unknown options and
stray words. Each command line ends with limits that keep it short (argparse keeps the last
value of an option), and the commands that serve, read a protocol from stdin or start a
cluster are left out: their input is tested where they live. ``ZEROSUM_FUZZ_EXAMPLES`` sets
the number of command lines (default 100, 5-20 s here; run thousands to hunt).
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
import traceback
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from waiting import HANG_S as WAIT_S

from zerosum.cli import build_parser, main
from zerosum.games import GAMES

EXAMPLES = int(os.environ.get("ZEROSUM_FUZZ_EXAMPLES", "100"))
HANG_S = int(WAIT_S)
"""A command line still running after this long counts as hung (each ends with limits that
keep it under a few seconds alone; a loaded machine or a cold compile takes far longer)."""


class Hung(BaseException):
    """Raised in the command by the alarm: it ran past :data:`HANG_S`."""


def _hung(signum: int, frame: object) -> None:
    raise Hung


SKIPPED_COMMANDS = {"serve", "uci", "bench"}
"""``serve`` runs until stopped, ``uci`` speaks its protocol on stdin (tests/test_uci.py throws
garbage at it), ``bench`` runs its fixed signature (no input but the game names)."""
SKIPPED_OPTIONS = {"--cluster", "--help", "-h", "--version"}
"""``--cluster`` starts Ray (tests/test_cluster_ray.py); help and version exit at once."""

LIMITS: dict[str, list[str]] = {
    "analyze": ["--depth", "2", "--time", "0.3", "--workers", "1"],
    "solve": ["--time", "0.3", "--workers", "1"],
    "book": ["--time", "0.3", "--workers", "1"],
    "compare": ["--depth", "1"],
    "play": ["--time", "0.3", "--workers", "1"],
    "match": ["--games", "1", "--max-plies", "4", "--workers", "1", "--time-per-move", "0.05"],
    "build-endgames": ["--max-men", "2", "--workers", "1"],  # 3 and up: seconds to a minute
}
"""What ends each command line: bounds that keep a valid command short."""


def _commands() -> dict[str, list[argparse.Action]]:
    parser = build_parser()
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {
        name: [a for a in sub._actions if a.dest != "help"]
        for name, sub in commands.choices.items()
        if name not in SKIPPED_COMMANDS
    }


COMMANDS = _commands()

EDGES = [
    "1000",
    "1001",
    "65535",
    "65536",
    "65537",
    "100000",
    "100001",
    "1e9",
    "1.1e9",
    "9223372036854775807",
    "9223372036854775808",
    "1" + "0" * 23,
    "-" + "9" * 30,
    "9" * 5000,
]
"""Numbers at and past the ranges the engines hold: MAX_PLY, ports and table sizes, the FEN's
move counters, the longest time, 64-bit counters, more digits than Python reads."""
GARBAGE = st.sampled_from(
    ["", " ", "-1", "0", "1", "2", "3", "99", "1e309", "nan", "inf", "-inf", "0x10", "1_0", "é",
     "\x00", "a" * 300, "--", "-", "None", "auto", "true", "3.5", " 7", "1/2", *EDGES]
)  # fmt: skip
GAME_NAMES = st.sampled_from(
    [*GAMES, "morris:six", "morris:twelve", "morris:bogus", "morris:", "chess:x", "CHESS", "go",
     ""]
)  # fmt: skip
MOVES = st.sampled_from(
    ["e4", "e2e4", "e7e5", "Nf3", "O-O", "e7e8q", "Qh5", "a1", "b2", "c3", "d4", "4", "8", "0",
     "4453", "1" * 50, "d2", "a1-a4", "d2xg7", "xx", "", "undo", "--moves"]
)  # fmt: skip
POSITIONS = st.sampled_from(
    ["", "x", "8/8/8 w", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "8/8/8/8/8/8/8/8 w - - 0 1", "k7/8/8/8/8/8/8/K7 b",
     "4453", "44444444", "9", "x.o/.x./..o", "xxx/ooo/...", ".........", "xo.", "1" * 60,
     "W" * 24 + " w 0 0", "........................ w 9 9", "WWW " * 3,
     "8/8/8/4k3/8/8/8/4K2R w K - 0 100000", "8/8/8/4k3/8/8/8/4K2R w K - 0 100001",
     "8/8/8/4k3/8/8/8/4K2R w K - 100001 1", "8/8/8/4k3/8/8/8/4K2R w K - 0 " + "1" + "0" * 20,
     "WB.....................B w 0 0 99999999999999999999", "WB.....................B w 0 0 ²"]
)  # fmt: skip
PLAYERS = st.sampled_from(
    ["zerosum", "depth=1", "level=1", "depth=x", "level=99", "time=-1", "nodes=0", "bogus=1",
     "algorithm=minimax,depth=1", "algorithm=nope", "uci:/nonexistent/engine", "uci:", "",
     "depth=1,depth=2", "hash=0", "nodes=9223372036854775808", "nodes=9223372036854775807",
     "depth=1001", "time=1e10", "seed=" + "9" * 30]
)  # fmt: skip
VALUES: dict[str, st.SearchStrategy[str]] = {
    "game": GAME_NAMES,
    "moves": MOVES,
    "position": POSITIONS,
    "a": PLAYERS,
    "b": PLAYERS,
    "algorithm": st.sampled_from(
        ["engine", "compiled", "tactical", "mcts", "minimax", "negamax", "alphabeta", "nope"]
    ),
    "side": st.sampled_from(["first", "second", "white", "black", "x", "o", "red", ""]),
    "max_men": st.sampled_from(["2", "5", "-3", "x", ""]),
    "store": st.sampled_from(["store.sqlite", "not-a-db.txt", "missing/dir/store.sqlite", ""]),
    "positions": st.sampled_from(["garbage.txt", "nothing-here.txt", ""]),
    "pgn": st.sampled_from(["games.pgn", "missing/dir/games.pgn", ""]),
    "clock": st.sampled_from(["1+0", "60+0.6", "x", "-1+0", "0+0", "1+", "+1"]),
    "a_option": st.sampled_from(["Hash=1", "x", "=", "UCI_Elo=banana"]),
    "b_option": st.sampled_from(["Hash=1", "x", "=", "UCI_Elo=banana"]),
}
"""Values for the options that take words; numbers come from GARBAGE."""


def _value(action: argparse.Action) -> st.SearchStrategy[str]:
    """A value for ``action``: mostly a real one (its choices or its pool), now and then
    garbage."""
    if action.choices is not None:
        real: st.SearchStrategy[str] = st.sampled_from(list(action.choices))
    else:
        real = VALUES.get(action.dest, GARBAGE)
    return st.one_of(real, real, real, GARBAGE)


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    """A command, its positionals and required options (mostly with real values), a few more
    of its options with real or garbage values, now and then an unknown option or a stray
    word, then its limits."""
    name = draw(st.sampled_from(sorted(COMMANDS)))
    actions = COMMANDS[name]
    argv = [name]

    def add(action: argparse.Action) -> None:
        if action.option_strings:
            argv.append(action.option_strings[0])
        if action.nargs == 0:
            return
        count = draw(st.integers(1, 3)) if action.nargs in ("+", "*") else 1
        argv.extend(draw(_value(action)) for _ in range(count))

    for action in actions:
        if (not action.option_strings and action.nargs != "*") or action.required:
            add(action)
    options = [
        a for a in actions if a.option_strings and a.option_strings[0] not in SKIPPED_OPTIONS
    ]
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.integers(0, 9)) == 0:
            argv.append(draw(st.sampled_from(["--bogus", "-x", "--json=1", "--dep", "stray"])))
        elif options:
            add(draw(st.sampled_from(options)))
    return argv + LIMITS.get(name, [])


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory for the files the command lines name, with a file that is no store and a
    test-set file of garbage."""
    path = tmp_path_factory.mktemp("fuzz")
    (path / "not-a-db.txt").write_text("not a database\n" * 50)
    (path / "garbage.txt").write_text("x.o/... 7\nnot a position\n\x00\n")
    return path


@pytest.mark.slow  # hundreds of command lines
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=command_lines())
def test_random_command_lines_exit_0_or_2_without_a_traceback(
    argv: list[str], workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workdir)
    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(workdir / "endgames.sqlite"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("hint\nxx\nundo\nquit\n"))
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    previous = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(HANG_S)
    try:
        status = main(argv)
    except Hung:
        raise AssertionError(f"zerosum {argv!r} hung: still running after {HANG_S} s") from None
    except BaseException as error:  # whatever escapes main is the failure to report
        detail = "".join(traceback.format_exception(error))
        raise AssertionError(f"zerosum {argv!r} raised:\n{detail}") from None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        monkeypatch.undo()  # stdout and stderr back before hypothesis reports
    assert status in (0, 2), (argv, status, err.getvalue()[-2000:])
    assert "Traceback" not in err.getvalue(), (argv, err.getvalue()[-2000:])
    if status == 2:
        lines = err.getvalue().splitlines()
        assert lines and lines[-1].startswith("zerosum: error: "), (argv, err.getvalue())


FEN = "8/8/8/4k3/8/8/8/4K2R w K - {} {}"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        # A node budget past int64 reached the compiled engine's io array (OverflowError).
        (
            ["analyze", "tictactoe", "--algorithm", "compiled", "--nodes", "9" * 25],
            "--nodes: 9999999999999999999999999 is out of range: expected 1..9223372036854775807",
        ),
        (
            ["match", "tictactoe", "--a", "nodes=" + "9" * 25, "--b", "depth=1", "--games", "1"],
            "out of range: expected 1..9223372036854775807",
        ),
        # issue 24: a FEN move number of 10^20 (python-chess reads it) reached a C long.
        (["analyze", "chess", "--position", FEN.format(0, 10**20)], "full-move number"),
        (["perft", "chess", "--position", FEN.format(0, 10**20), "--depth", "1"], "full-move"),
        (["legal", "chess", "--position", FEN.format(10**20, 1)], "halfmove clock"),
        (["analyze", "chess", "--nodes", str(10**23)], "--nodes"),
        (["analyze", "chess", "--nodes", "9" * 5000], "a number of 5,000 digits"),
        (["analyze", "tictactoe", "--depth", "1001"], "expected 1..1000"),
        (["analyze", "tictactoe", "--time", "1e10"], "at most 1e+09"),
        (["perft", "chess", "--depth", str(10**9)], "expected 0..30"),
        (["serve", "--port", "65536"], "expected a port 0..65535"),
        # issue 24: an empty host listened on every interface, with an empty name in the warning
        (["serve", "--host", ""], "--host: '' is empty: expected a host name or address"),
        (["serve", "--allow-host", "a b"], "is not a host name or address"),
        (["serve", "--host", "x" * 300], "... (300 chars) is not a host name"),
        (
            ["analyze", "morris", "--position", "WB" + "." * 21 + "B w 0 0 " + "9" * 20],
            "0..100,000",
        ),
    ],
)
def test_numbers_past_the_engines_ranges_are_one_line_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert err.startswith("zerosum: error: ") and message in err and len(err) < 400, err


@pytest.mark.parametrize(
    "argv",
    [
        ["analyze", "tictactoe", "--algorithm", "compiled", "--nodes", str(2**63 - 1)],
        ["analyze", "tictactoe", "--depth", "1000", "--time", "1e9"],
        ["legal", "chess", "--position", FEN.format(100_000, 100_000)],
        ["perft", "chess", "--position", FEN.format(0, 100_000), "--depth", "1"],
        ["match", "tictactoe", "--a", f"nodes={2**63 - 1}", "--b", "depth=1", "--games", "1"],
    ],
)
def test_numbers_at_the_engines_ranges_are_taken(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_running_out_of_memory_is_bad_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table larger than the machine's memory (``--hash 65536``) is refused in one line;
    faked here, since on a large machine the real one would take 64 GB."""

    def allocate(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr("zerosum.cli.analyze.open_engine", allocate)
    assert main(["analyze", "tictactoe", "--hash", "65536", "--algorithm", "compiled"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zerosum: error: not enough memory") and len(err.splitlines()) == 1
