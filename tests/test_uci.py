"""``zerosum uci``: a scripted session through python-chess, and bad input."""

from __future__ import annotations

import subprocess
import sys
import time

import chess
import chess.engine
import pytest
from waiting import HANG_S

from zerosum.engines import TacticalEngine
from zerosum.engines.compiled_tactical import CompiledTacticalEngine
from zerosum.games.chess import Chess
from zerosum.search.core import Limit
from zerosum.search.table import TranspositionTable
from zerosum.search.tactical import TacticalSearch
from zerosum.uci import (
    CLOCK_RESERVE_MS,
    HASH_DEFAULT,
    MOVES_TO_GO,
    GoParams,
    LagMeter,
    UciEngine,
    parse_go,
    plan_time,
    score_text,
)

COMMAND = [sys.executable, "-m", "zerosum", "uci"]
WAC_001 = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1"
WAC_002 = "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1"


def test_python_chess_session() -> None:
    with chess.engine.SimpleEngine.popen_uci(COMMAND, timeout=HANG_S) as engine:  # bounds a hang
        assert engine.id["name"].startswith("zerosum")
        assert {"Hash", "MultiPV", "Threads"} <= set(engine.options)
        # analyse: a mate found at fixed depth
        board = chess.Board(WAC_001)
        info = engine.analyse(board, chess.engine.Limit(depth=4))
        assert info["score"].relative == chess.engine.Mate(2)
        assert info["pv"][0] == chess.Move.from_uci("g3g6")
        # multipv
        lines = engine.analyse(chess.Board(), chess.engine.Limit(depth=2), multipv=3)
        assert len({line["pv"][0] for line in lines}) == 3
        # play a few moves on a clock: legal moves. (How long each takes is the machine's
        # load as much as the engine's: the plan that keeps it inside the clock is checked
        # without a clock in test_go_parameters_and_the_clock and the tests after it.)
        board = chess.Board()
        for _ in range(4):
            limit = chess.engine.Limit(white_clock=5.0, black_clock=5.0, white_inc=0.05)
            played = engine.play(board, limit)
            assert played.move in board.legal_moves
            board.push(played.move)
        # infinite analysis, stopped by the GUI
        with engine.analysis(chess.Board(), chess.engine.Limit()) as analysis:
            for info in analysis:
                if info.get("depth", 0) >= 2:
                    break
        assert analysis.info.get("pv")
        engine.ping()
        # go mate
        found = engine.analyse(chess.Board(WAC_001), chess.engine.Limit(mate=2))
        assert found["score"].relative == chess.engine.Mate(2)


def test_malformed_input_keeps_the_engine_alive() -> None:
    script = "\n".join(
        [
            "uci",
            "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
            "position fen not/a/fen w KQ",
            "position startpos moves e2e4 e7e5 g1f3",
            "position startpos moves e2e4 e2e4",
            "position sideways",
            "setoption name Hash value banana",
            "setoption name Hash value 0",
            "setoption name Nonsense value 3",
            "setoption name Threads value 999",
            "frobnicate",
            "go depth banana",
            "isready",
            "quit",
        ]
    )
    # 300 s bounds a hang only (30 s ran out under a load average of 90)
    done = subprocess.run(COMMAND, input=script, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    errors = [line for line in lines if line.startswith("info string")]
    assert len(errors) >= 10
    assert any("Hash" in line and "banana" in line for line in errors)
    assert any("unknown command 'frobnicate'" in line for line in errors)
    assert any("Threads" in line and "999 is out of range" in line for line in errors)
    assert "readyok" in lines
    # the search ran on the last good position (after 1.e4 e5 2.Nf3: Black to move)
    best = [line for line in lines if line.startswith("bestmove")]
    assert len(best) == 1
    board = chess.Board()
    for text in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(text)
    assert chess.Move.from_uci(best[0].split()[1]) in board.legal_moves


class Recorder:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)


def test_state_survives_bad_commands_in_process() -> None:
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("position startpos moves d2d4")
    fen = engine.game.position()
    for bad in ("position fen garbage", "position startpos moves d7d5 d7d5", "position"):
        engine.handle(bad)
        assert engine.game.position() == fen
    engine.handle("setoption name MultiPV value 99")
    assert engine.multipv == 1
    engine.handle("setoption name MultiPV value 2")
    assert engine.multipv == 2
    engine.handle("go depth 2")
    engine.stop()
    assert out.lines[-1].startswith("bestmove")
    assert any(" multipv 2 " in line for line in out.lines)


def test_a_multipv_set_during_a_search_counts_from_the_next_go() -> None:
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("setoption name MultiPV value 3")
    engine.handle("go infinite")
    searching(out)
    engine.handle("setoption name MultiPV value 1")
    assert engine.multipv == 1
    at = len(out.lines)
    deadline = time.perf_counter() + HANG_S
    while len([line for line in out.lines[at:] if line.startswith("info depth")]) < 3:
        assert time.perf_counter() < deadline, "the search never reported three more lines"
        time.sleep(0.01)
    engine.stop()
    infos = [line for line in out.lines[at:] if line.startswith("info depth")]
    assert infos and all(" multipv " in line for line in infos)  # still the go's three lines
    engine.handle("go depth 2")
    engine.stop()
    last = [line for line in out.lines if line.startswith("info depth")][-1]
    assert " multipv " not in last


def searching(out: Recorder, at_least_ms: int = 0) -> None:
    """Wait until the search has reported an iteration, after at least ``at_least_ms`` of
    searching by its own clock (120 s bound a hang: a cold compile on a loaded machine takes
    a minute)."""

    def reported() -> bool:
        for line in list(out.lines):
            words = line.split()
            timed = words[:2] == ["info", "depth"] and "time" in words
            if timed and int(words[words.index("time") + 1]) >= at_least_ms:
                return True
        return False

    deadline = time.perf_counter() + HANG_S
    while not reported():
        assert time.perf_counter() < deadline, "the search never reported an iteration"
        time.sleep(0.01)


def test_stop_answers_at_once_and_no_legal_move() -> None:
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("go infinite")
    searching(out)
    engine.handle("isready")
    assert "readyok" in out.lines
    engine.handle("stop")  # returns once the search has sent its bestmove (else: never)
    assert out.lines[-1].startswith("bestmove")
    engine.handle("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    engine.handle("go depth 3")
    engine.stop()
    assert out.lines[-1] == "bestmove (none)"


def test_ponder_then_ponderhit_moves_on_the_clock() -> None:
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("position startpos moves e2e4")
    engine.handle("go ponder wtime 3000 btime 3000")
    searching(out, at_least_ms=1000)  # past the plan for a 3 s clock (a third of a second)
    assert not any(line.startswith("bestmove") for line in out.lines), "pondering until told"
    engine.handle("ponderhit")
    # Its plan is spent: it moves at once. Without ponderhit it would ponder for ever; the
    # bound (the thread's end, an observable state) only stops a hang.
    assert wait_for_bestmove(out, engine).startswith("bestmove")
    engine.stop()
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(out.lines[-1].split()[1]) in board.legal_moves


def test_go_parameters_and_the_clock() -> None:
    params, problems = parse_go(
        ["wtime", "60000", "btime", "30000", "winc", "1000", "movestogo", "20", "bogus"]
    )
    assert (params.wtime, params.btime, params.winc, params.movestogo) == (60000, 30000, 1000, 20)
    assert len(problems) == 1 and "bogus" in problems[0]
    soft, hard = plan_time(params, True, 50)
    assert soft is not None and hard is not None and 0 < soft <= hard < 60
    # a nearly empty clock: the engine still answers within what is left
    for left in (10, 100, 1000):
        soft, hard = plan_time(GoParams(wtime=left, btime=left), True, 50)
        assert hard is not None and hard <= max(left / 1000 / 5, 0.005)
    # the overhead (the option or the measured lag, the larger) and a reserve stay on the
    # clock; with nearly nothing left it moves at once
    for lag in (0, 30, 400):
        for left in range(0, 3000, 37):
            clock = GoParams(wtime=left, btime=left, winc=100, binc=100)
            soft, hard = plan_time(clock, True, 50, lag_ms=lag)
            kept = left - 2 * max(50, lag) - CLOCK_RESERVE_MS
            assert soft is not None and hard is not None and soft <= hard
            assert hard <= max(kept / 1000, 0.005)
    assert plan_time(GoParams(wtime=150, btime=150, winc=100), True, 50) == (0.0, 0.005)
    assert plan_time(GoParams(movetime=500), True, 50) == (None, 0.45)
    assert plan_time(GoParams(movetime=500), True, 50, lag_ms=120) == (None, 0.38)
    assert plan_time(GoParams(infinite=True), True, 50) == (None, None)
    assert score_text(999_997) == "mate 2" and score_text(-999_996) == "mate -2"
    assert score_text(-35) == "cp -35"


@pytest.mark.parametrize(("overhead", "lag"), [(100, 0), (100, 90), (50, 60)])
def test_a_clock_fed_by_its_increment_settles_above_the_reserve(overhead: int, lag: int) -> None:
    # 10 s + 0.1 s, 300 moves: each takes its soft plan, or its hard limit every fifth move,
    # and the GUI charges `lag` more each time (measured, or below the Move Overhead). The
    # clock never falls below the reserve and settles above it by two overheads and half an
    # overhead for every move to go that the charge leaves unspent (2 s with the Move Overhead
    # of 100 ms and no lag), so a stall of the loaded machine has room; the plan before drained
    # it to 0.15 s.
    left = 10_000.0
    lowest = left
    for move in range(300):
        clock = GoParams(wtime=round(left), btime=round(left), winc=100, binc=100)
        soft, hard = plan_time(clock, True, overhead, lag_ms=lag)
        assert soft is not None and hard is not None
        spent = (hard if move % 5 == 4 else soft) * 1000 + lag
        left = left - spent + 100
        assert left >= CLOCK_RESERVE_MS + max(overhead, lag)
        if move >= 150:
            lowest = min(lowest, left)
    planned = max(overhead, lag)  # an overhead per move to go beyond what is charged
    assert lowest > CLOCK_RESERVE_MS + 2 * planned + MOVES_TO_GO * (planned - lag) / 2


def test_the_lag_meter_measures_what_the_clock_charged_beyond_the_search() -> None:
    meter = LagMeter()
    assert meter.lag_ms == 0
    first = GoParams(wtime=10_000, btime=9_000, winc=100, binc=100)
    meter.went(first, True)
    meter.moved(first, True, 0.250)  # the engine's own measure: 250 ms
    meter.went(GoParams(wtime=9_780, btime=8_000, winc=100, binc=100), True)  # charged 320 ms
    assert meter.lag_ms == 70
    meter.moved(GoParams(wtime=9_780, btime=8_000, winc=100, binc=100), True, 0.1)
    meter.went(GoParams(wtime=9_760, btime=8_000, winc=100, binc=100), True)  # 20 ms lag
    assert meter.lag_ms == 70  # the worst of the last moves
    # not paired: the other side, a new game, a refilled clock, a pondered move
    for params, white in (
        (GoParams(wtime=1_000, btime=1_000), False),
        (GoParams(wtime=1_000, btime=1_000, ponder=True), True),
    ):
        meter.moved(params, white, 0.5)
        meter.went(GoParams(wtime=1, btime=1), True)
    meter.moved(GoParams(wtime=1_000, btime=1_000), True, 0.5)
    meter.new_game()
    meter.went(GoParams(wtime=1, btime=1), True)
    meter.moved(GoParams(wtime=1_000, btime=1_000), True, 0.5)
    meter.went(GoParams(wtime=60_000, btime=60_000), True)  # movestogo refilled the clock
    assert meter.lag_ms == 70
    for _ in range(16):  # the window moves on
        meter.moved(GoParams(wtime=1_000, btime=1_000), True, 0.5)
        meter.went(GoParams(wtime=495, btime=495), True)
    assert meter.lag_ms == 5


def test_go_plans_the_move_with_the_lag_it_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    # A spy on the plan: after a move the GUI charged 300 ms beyond the engine's own measure,
    # the next go plans with that lag (no timing: the charge is built from the engine's
    # measure itself).
    import zerosum.uci as uci

    planned: list[int] = []

    def spy(params: GoParams, white: bool, overhead_ms: int, *, lag_ms: int = 0) -> object:
        planned.append(lag_ms)
        return plan_time(params, white, overhead_ms, lag_ms=lag_ms)

    monkeypatch.setattr(uci, "plan_time", spy)
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("setoption name Engine value tactical")
    engine.handle("position fen 7k/8/8/8/8/8/6q1/7K w - - 0 1")  # a forced move: no search
    engine.handle("go wtime 5000 btime 5000 winc 100 binc 100")
    assert wait_for_bestmove(out, engine) == "bestmove h1g2"
    last = engine.lag._last
    assert last is not None
    charged = round(last.elapsed_s * 1000) + 300
    engine.handle(f"go wtime {5000 + 100 - charged} btime 5000 winc 100 binc 100")
    assert wait_for_bestmove(out, engine) == "bestmove h1g2"
    assert planned[0] == 0 and abs(planned[1] - 300) <= 1
    engine.handle("ucinewgame")  # the lag stays (the machine's), the pairing does not
    assert engine.lag.lag_ms == planned[1]
    engine.close()


@pytest.mark.parametrize("argv", [["uci", "extra"]])
def test_cli_usage_error(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "zerosum", *argv], capture_output=True, text=True, timeout=HANG_S
    )
    assert done.returncode == 2 and done.stderr.startswith("zerosum: error:")


def test_a_bad_go_value_gets_one_message_and_ranges_agree() -> None:
    params, problems = parse_go(["depth", "abc", "nodes", "100"])
    assert problems == ["go depth 'abc' ignored: expected a whole number"]
    assert params.depth is None and params.nodes == 100
    params, problems = parse_go(["depth", "movetime", "50"])  # the value is missing
    assert len(problems) == 1 and params.movetime == 50
    for value in ("0", "-2"):
        params, problems = parse_go(["mate", value])
        assert problems == [f"go mate {value} ignored: expected 1 or more"]
        assert params.mate is None
    params, problems = parse_go(["movetime", "0", "winc", "-1"])
    assert params.movetime == 0 and problems == ["go winc -1 ignored: expected 0 or more"]


def test_a_go_without_a_valid_limit_is_bounded_and_the_next_go_is_obeyed() -> None:
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("go depth -1")
    assert "info string go depth -1 ignored: expected 1 or more" in out.lines
    assert any("no valid limit: searching at most 10000 ms" in line for line in out.lines)
    assert engine.searching and engine._hard is not None and engine._hard <= 10.0
    # the GUI's next go stops that search (its bestmove comes first) and runs
    engine.handle("go depth 1")
    engine.stop()
    best = [line for line in out.lines if line.startswith("bestmove")]
    assert len(best) == 2 and not any("search is running" in line for line in out.lines)
    # a clock only for the side not to move bounds nothing either; infinite does not need one
    out.lines.clear()
    engine.handle("go btime 1000")
    assert any("no valid limit" in line for line in out.lines)
    engine.stop()
    out.lines.clear()
    engine.handle("go infinite")
    engine.handle("stop")
    assert not any("no valid limit" in line for line in out.lines)


def test_commands_during_a_search() -> None:
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("position startpos")
    engine.handle("go infinite")
    # position sets the next search's position; the running one goes on
    engine.handle("position startpos moves e2e4")
    engine.handle("isready")
    assert engine.searching and out.lines[-1] == "readyok"
    # ucinewgame and Hash need the engine idle: they stop the search, which answers first
    engine.handle("setoption name Hash value 2")
    assert not engine.searching and engine.hash_mb == 2
    first = [line for line in out.lines if line.startswith("bestmove")]
    assert len(first) == 1 and chess.Move.from_uci(first[0].split()[1]) in chess.Board().legal_moves
    engine.handle("go depth 2")
    engine.handle("ucinewgame")
    assert not engine.searching
    second = [line for line in out.lines if line.startswith("bestmove")][1]
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(second.split()[1]) in board.legal_moves  # the new position


def wait_for_bestmove(out: Recorder, engine: UciEngine) -> str:
    """The bestmove line, once the search thread has ended (an observable state, no sleep)."""
    thread = engine._thread
    assert thread is not None
    thread.join(timeout=HANG_S)
    assert not thread.is_alive(), "the search did not end"
    return next(line for line in reversed(out.lines) if line.startswith("bestmove"))


def test_the_engine_option_selects_the_pure_python_tactical_search() -> None:
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("uci")
    assert (
        "option name Engine type combo default compiled-tactical var compiled-tactical "
        "var tactical" in out.lines
    )
    engine.handle("setoption name Engine value sunfish")
    assert out.lines[-1] == (
        "info string setoption Engine: 'sunfish' is not an engine: expected compiled-tactical "
        "or tactical; kept compiled-tactical"
    )
    engine.handle("setoption name Engine value Tactical")  # GUIs may change the case
    engine.handle("isready")
    assert type(engine.engine) is TacticalEngine and out.lines[-1] == "readyok"
    engine.handle(f"position fen {WAC_002}")
    engine.handle("go depth 3")
    best = wait_for_bestmove(out, engine)
    # the oracle: the pure-Python search itself, with a table of the size Hash gives it
    table: TranspositionTable[chess.Move] = TranspositionTable(HASH_DEFAULT * (1 << 20) // 256)
    expected = TacticalSearch(Chess(WAC_002), table=table).search(Limit(depth=3))
    assert best.split()[1] == expected.best_move.uci()
    assert not any("hashfull" in line for line in out.lines)  # the compiled search's field
    # back to the compiled search: a new engine, and ucinewgame clears the Python table
    engine.handle("setoption name Engine value compiled-tactical")
    assert engine.engine is None
    engine.handle("isready")
    assert isinstance(engine.engine, CompiledTacticalEngine)
    start = len(out.lines)
    engine.handle("go depth 2")
    wait_for_bestmove(out, engine)
    assert any(" hashfull " in line for line in out.lines[start:])
    engine.close()


WARM_UP_SCRIPT = """
import sys
from numba.core.registry import CPUDispatcher
from zerosum.compiled import chess_board, chess_search, engine
from zerosum.uci import UciEngine

def loaded():
    return {
        (module.__name__, name): tuple(value.signatures)
        for module in (chess_board, chess_search, engine)
        for name, value in vars(module).items()
        if isinstance(value, CPUDispatcher)
    }

lines = []
uci = UciEngine(lines.append)
before = loaded()
uci.handle("isready")
ready = loaded()
uci.handle("setoption name Threads value 2")
uci.handle("position fen 8/P4k2/8/8/8/8/6Kp/8 w - - 0 1")
uci.handle("go depth 6")
uci._thread.join()
uci.handle("position startpos moves e2e4 e7e5")
uci.handle("go nodes 1")
uci._thread.join()
after = loaded()
assert lines[0] == "readyok", lines
assert sum(map(bool, ready.values())) > sum(map(bool, before.values())), "isready loaded nothing"
new = sorted(key for key in after if after[key] != ready[key])
print("loaded by go:", new)
"""


def test_isready_loads_every_compiled_function_before_go() -> None:
    # A fresh process: nothing compiled is loaded until isready, and go loads nothing more.
    done = subprocess.run(
        [sys.executable, "-c", WARM_UP_SCRIPT], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "loaded by go: []"


def test_a_forced_move_on_the_clock_is_played_without_a_search() -> None:
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("position fen 7k/8/8/8/8/8/6q1/7K w - - 0 1")  # only Kxg2
    engine.handle("go wtime 60000 btime 60000")
    assert wait_for_bestmove(out, engine) == "bestmove h1g2"
    assert any("only legal move h1g2" in line for line in out.lines)
    assert not any(line.startswith("info depth 1 ") for line in out.lines), "no search"
    engine.handle("go depth 2")  # a depth asked for is searched, forced or not
    assert wait_for_bestmove(out, engine).startswith("bestmove h1g2")
    assert any(line.startswith("info depth 2 ") for line in out.lines)


def test_contempt_reaches_the_search_and_a_bad_value_is_refused() -> None:
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("uci")
    assert "option name Contempt type spin default 0 min -100 max 100" in out.lines
    engine.handle("setoption name Contempt value 101")
    assert out.lines[-1] == (
        "info string setoption Contempt: 101 is out of range: expected -100..100; kept the old"
        " value"
    )
    # A negative contempt seeks draws: the knight's return repeats the position.
    engine.handle("setoption name Contempt value -100")
    engine.handle("position startpos moves g1f3 g8f6 f3g1 f6g8 g1f3 g8f6")
    engine.handle("go depth 3")
    assert wait_for_bestmove(out, engine).split()[1] == "f3g1"
    assert isinstance(engine.engine, TacticalEngine) and engine.engine.options is not None
    assert engine.engine.options.contempt == -100
    assert any(" score cp 100 " in line for line in out.lines if line.startswith("info depth 3"))


def test_a_go_counts_its_time_from_when_it_arrived() -> None:
    # A go that arrived long ago (it waited behind a slow command) has spent its movetime:
    # the search stops at its first look at the clock, and bestmove is still a legal move.
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("setoption name Engine value tactical")
    engine.handle("position startpos")
    engine.handle("go movetime 100000", received=time.perf_counter() - 1000)
    played = wait_for_bestmove(out, engine).split()[1]
    assert chess.Move.from_uci(played) in chess.Board().legal_moves
    engine.close()


def test_timed_lines_keeps_every_line_in_order_with_its_arrival() -> None:
    from zerosum.uci import timed_lines

    before = time.perf_counter()
    stamped = list(timed_lines(iter(["uci\n", "isready\n", "quit\n"])))
    assert [line for _, line in stamped] == ["uci\n", "isready\n", "quit\n"]
    times = [at for at, _ in stamped]
    assert before <= times[0] <= times[1] <= times[2] <= time.perf_counter()


@pytest.mark.parametrize("command", ["ucinewgame", "setoption name Clear Hash"])
def test_a_new_game_clears_the_compiled_table(
    monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """``ucinewgame`` and ``Clear Hash`` forget the compiled search's table, also while it runs
    behind a WarmingEngine (which used to reset it first, and the table then stayed): the next
    search prints what the first one printed, a fresh table's nodes and line."""
    from zerosum.engines.warming import WarmingEngine

    monkeypatch.setenv("ZEROSUM_COMPILE", "background")
    out = Recorder()
    engine = UciEngine(out)
    engine.handle("isready")
    assert isinstance(engine.engine, WarmingEngine)
    assert engine.engine.wait(timeout=600)  # the compiled search loaded (bounds a hang)
    infos = []
    for _ in range(2):
        engine.handle(f"position fen {WAC_001}")
        start = len(out.lines)
        engine.handle("go depth 5")
        wait_for_bestmove(out, engine)
        infos.append([line.split(" nps ")[0] for line in out.lines[start:] if " pv " in line])
        engine.handle(command)
    assert infos[0] and infos[1] == infos[0]
    engine.close()


@pytest.mark.parametrize("name", ["compiled-tactical", "tactical"])
def test_the_history_goes_on_to_the_next_move_until_a_new_game(name: str) -> None:
    """Every ``position`` is a new game object, searched by a new searcher: it takes the last
    one's move-ordering history (as the oracle's by hand), and ``ucinewgame`` forgets it with
    the table (a fresh searcher's nodes again)."""
    from zerosum.compiled.chess_engine import CoreSearch
    from zerosum.uci import ENTRY_BYTES

    depth = 6 if name == "compiled-tactical" else 4
    moves = "position startpos moves d2d4 d7d5 c2c4"

    def oracle(inherit: bool) -> int:
        first: TacticalSearch[chess.Move] | CoreSearch
        if name == "compiled-tactical":
            first = CoreSearch(Chess(), hash_mb=HASH_DEFAULT)
        else:
            entries = HASH_DEFAULT * (1 << 20) // ENTRY_BYTES
            first = TacticalSearch(Chess(), table=TranspositionTable(entries))
        first.search(Limit(depth=depth))
        game = Chess.from_position(chess.STARTING_FEN)
        for text in moves.split()[3:]:
            game.make(chess.Move.from_uci(text))
        second: TacticalSearch[chess.Move] | CoreSearch
        if isinstance(first, CoreSearch):
            second = CoreSearch(game, hash_mb=HASH_DEFAULT, table=(first.keys, first.data))
            second.generation = first.generation
        else:
            second = TacticalSearch(game, table=first.table)
        if inherit:
            second.inherit(first)
        return second.search(Limit(depth=depth)).stats.nodes

    out = Recorder()
    engine = UciEngine(out)
    engine.handle(f"setoption name Engine value {name}")
    engine.handle("isready")
    nodes = []
    for position in ("position startpos", moves, "ucinewgame", moves):
        if position == "ucinewgame":
            engine.handle(position)
            continue
        engine.handle(position)
        start = len(out.lines)
        engine.handle(f"go depth {depth}")
        wait_for_bestmove(out, engine)
        last = [line for line in out.lines[start:] if line.startswith(f"info depth {depth} ")]
        nodes.append(int(last[-1].split(" nodes ")[1].split()[0]))
    assert nodes[1] == oracle(True) != oracle(False)
    game = Chess.from_position(chess.STARTING_FEN)
    for text in moves.split()[3:]:
        game.make(chess.Move.from_uci(text))
    if name == "compiled-tactical":
        expected = CoreSearch(game, hash_mb=HASH_DEFAULT).search(Limit(depth=depth))
    else:
        table: TranspositionTable[chess.Move] = TranspositionTable(
            HASH_DEFAULT * (1 << 20) // ENTRY_BYTES
        )
        expected = TacticalSearch(game, table=table).search(Limit(depth=depth))
    assert nodes[2] == expected.stats.nodes
    engine.close()
