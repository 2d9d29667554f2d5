"""``zerosum uci`` fed random lines in process: never a traceback, always ready afterwards.

Lines are built from the protocol's own words with random values (and plain random text), so
most reach deep into the commands' parsing. After every script the engine must still answer
``isready`` at once, stop on ``stop`` with a legal ``bestmove`` per ``go``, and never have
reported an internal error.
"""

from __future__ import annotations

import time

import chess
from hypothesis import given, settings
from hypothesis import strategies as st

from zerosum.uci import UciEngine

WORDS = [
    "uci",
    "isready",
    "ucinewgame",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "stop",
    "ponderhit",
    "setoption",
    "name",
    "value",
    "Hash",
    "MultiPV",
    "Move",
    "Overhead",
    "Clear",
    "Ponder",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "infinite",
    "ponder",
    "searchmoves",
    "debug",
    "register",
    "d",
    "e2e4",
    "e7e5",
    "g1f3",
    "e7e8q",
    "a1a1",
    "8/8/8/8/8/8/8/8",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR",
    "w",
    "b",
    "KQkq",
    "-",
]
NUMBERS = st.sampled_from(["-1", "0", "1", "2", "3", "50", "999999999999", "1e3", "nan", ""])
WORD = st.sampled_from(WORDS) | NUMBERS | st.text(max_size=8)
COMMAND = st.sampled_from(
    [
        *("go", "go", "go", "position", "position", "setoption name", "isready", "stop"),
        *("ponderhit", "ucinewgame", "uci", "debug", "d", "register"),
    ]
)
LINE = st.tuples(COMMAND, st.lists(WORD, max_size=7)).map(
    lambda t: " ".join([t[0], *t[1]])
) | st.text(max_size=40)


class Recorder:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)


@settings(max_examples=60, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=8))
def test_random_lines_never_break_the_engine(lines: list[str]) -> None:
    out = Recorder()
    engine = UciEngine(out)
    try:
        for line in lines:
            if line.split()[:1] == ["quit"]:
                continue
            assert engine.handle(line) is True
        engine.handle("isready")
        assert "readyok" in out.lines
        started = time.perf_counter()
        engine.handle("stop")
        assert time.perf_counter() - started < 5.0, "stop answers at once"
        assert not engine.searching
    finally:
        engine.stop()
        engine.close()
    assert not any("internal error" in line or "search failed" in line for line in out.lines)
    for line in out.lines:
        if line.startswith("bestmove") and line != "bestmove (none)":
            assert chess.Move.from_uci(line.split()[1])  # well-formed UCI
    # every go got its bestmove: none lost, none left running
    gos = sum(1 for line in lines if line.split()[:1] == ["go"])
    assert sum(1 for line in out.lines if line.startswith("bestmove")) == gos
