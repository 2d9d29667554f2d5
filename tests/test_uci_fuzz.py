"""``zerosum uci`` fed random lines in process: never a traceback, always ready afterwards.

Lines are built from the protocol's own words with random values (and plain random text), so
most reach deep into the commands' parsing. After every script the engine must still answer
``isready`` at once, stop on ``stop`` with a legal ``bestmove`` per ``go``, and never have
reported an internal error.
"""

from __future__ import annotations

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zerosum.search.core import MAX_NODES
from zerosum.uci import GO_MOST, GO_NUMBERS, UciEngine, parse_go

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
NUMBERS = st.sampled_from(
    ["-1", "0", "1", "2", "3", "50", "999999999999", "1e3", "nan", "",
     # at and past the ranges the engine holds: 64-bit counters, the deepest search, the
     # longest time, more digits than Python reads
     "64", "65", "1000000000", "1000000000000", "1000000000001", "9223372036854775807",
     "9223372036854775808", "1" + "0" * 30, "-" + "9" * 30, "9" * 5000]
)  # fmt: skip
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
        engine.handle("stop")  # returns once the search has ended (a hang fails the run)
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


@pytest.mark.parametrize("word", GO_NUMBERS)
@pytest.mark.parametrize("value", ["1" + "0" * 30, "9" * 5000])
def test_a_go_number_past_its_range_is_clamped_and_said(word: str, value: str) -> None:
    """``go nodes 10^30`` reached the compiled search's 64-bit counter (OverflowError, then a
    bestmove it never searched); every number of ``go`` is now clamped to what the engine
    holds, in one ``info string`` that does not echo a huge value back."""
    params, problems = parse_go([word, value])
    assert getattr(params, word) == GO_MOST[word]
    assert len(problems) == 1 and len(problems[0]) < 200
    assert f"searching with {word} {GO_MOST[word]}" in problems[0]


def test_go_numbers_at_their_range_are_kept() -> None:
    words = [part for word in GO_NUMBERS for part in (word, str(GO_MOST[word]))]
    params, problems = parse_go(words)
    assert problems == []
    assert all(getattr(params, word) == GO_MOST[word] for word in GO_NUMBERS)
    assert GO_MOST["nodes"] == MAX_NODES == 2**63 - 1


def test_a_huge_go_is_searched_and_stopped_without_an_error() -> None:
    out = Recorder()
    engine = UciEngine(out)
    try:
        engine.handle("go nodes " + "1" + "0" * 30)
        engine.handle("isready")  # answered during the search
        engine.handle("stop")
        engine.handle("go depth 1000000000 movetime " + "9" * 40)
        engine.handle("stop")
    finally:
        engine.stop()
        engine.close()
    assert not any("search failed" in line or "internal error" in line for line in out.lines)
    best = [line for line in out.lines if line.startswith("bestmove")]
    assert len(best) == 2
    searched = [line for line in out.lines if line.startswith("info depth")]
    assert searched, "the clamped go searched"
    assert all(chess.Move.from_uci(line.split()[1]) for line in best)


def test_huge_input_is_not_echoed_back_whole() -> None:
    out = Recorder()
    engine = UciEngine(out)
    big = "x" * 1_000_000
    for line in (
        big,
        f"setoption name {big} value 1",
        f"setoption name Hash value {big}",
        f"position fen {big}",
        f"position startpos moves {big}",
        f"go searchmoves {big}",
        f"go depth {big}",
    ):
        before = len(out.lines)
        engine.handle(line)
        engine.stop()
        answer = out.lines[before:]
        assert answer and all(len(sent) < 2_000 for sent in answer), line[:40]
    engine.close()


def test_a_fen_with_a_huge_move_number_is_refused_and_the_position_kept() -> None:
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("position startpos moves e2e4")
    engine.handle("position fen 8/8/8/4k3/8/8/8/4K2R w K - 0 " + "1" + "0" * 20)
    assert any("full-move number" in line and "out of range" in line for line in out.lines)
    assert engine.game.position().startswith("rnbqkbnr/pppppppp/8/8/4P3")
    engine.handle("position fen 8/8/8/4k3/8/8/8/4K2R w K - 0 100000")  # at the bound
    assert engine.game.position().endswith(" 100000")
    engine.close()
