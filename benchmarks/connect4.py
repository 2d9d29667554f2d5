"""Connect four: the compiled engine on Pons's public test sets, position 4453, compile time, and
the pure-Python search and easyAI on a small sample.

What it measures, in one run:

1. The compiled engine's start-up cost. A subprocess with ``NUMBA_CACHE_DIR`` set to a fresh
   temporary directory imports :mod:`zerosum.compiled.solver`, builds ``Solver("connect4")`` and
   solves one easy end-game position, so numba compiles everything; a second subprocess with the
   same cache directory does the same from the on-disk cache. Both time import, ``Solver()``
   and the first solve in-process, and the whole process (interpreter start included) from
   outside.
2. The three public test sets ``Test_L3_R1``, ``Test_L2_R1`` and ``Test_L1_R1`` (Pascal Pons's,
   ``tests/data/connect4``): a strong solve of every position (or the first ``--sample N``)
   by the compiled engine, with one table per set that is never cleared between positions (the
   C++ reference benchmark does not reset its table either). Two passes, each with a fresh
   table: the first times :meth:`zerosum.compiled.solver.Solver.solve` on a prebuilt
   :class:`~zerosum.games.connect4.Connect4` (so the Python-side state building is included),
   the second times :meth:`zerosum.compiled.runner.Engine.solve` on a prebuilt state array
   (the pure engine call). Compared with the C++ solver's figures on this machine; the target is
   a mean time per position within 3x of C++.
3. Position ``4453`` (score -2), a much harder strong solve, against C++'s 51 M nodes in 8.7 s;
   the target is under 30 s (``--skip-4453`` skips it).
4. The pure-Python search (:func:`zerosum.search.solve` on the protocol game, its value
   converted with :func:`~zerosum.games.connect4.pons_score`) on a small sample (the first 20
   positions of L3 and the first 5 of L2), against the compiled engine on the same positions
   with its table cleared before each one (the Python search starts each solve with a fresh
   table too).
5. easyAI on the same sample, with its ``ConnectFour`` example game (plus the ``ttentry`` its
   transposition table needs): ``solve_with_depth_first_search`` (win, draw or loss only), and
   ``Negamax`` to the end of the game (depth = empty cells), whose depth-weighted value
   ``±100 (1 + 0.001 k)`` tells how far the win is, hence Pons's exact score. Each solve is
   stopped after 10 s.

Run from the repository root::

    .venv/bin/pip install -e '.[bench]'     # easyAI
    .venv/bin/python benchmarks/connect4.py [--sample N] [--skip-4453] [--hash MB]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Final, TypeVar

from zerosum.compiled import DEFAULT_HASH_MB, MAX_HASH_MB
from zerosum.compiled.solver import Solver
from zerosum.game import WIN
from zerosum.games.connect4 import CELLS, Connect4, pons_score
from zerosum.search import Limit, solve

T = TypeVar("T")

ROOT: Final = Path(__file__).resolve().parents[1]
DATA: Final = ROOT / "tests" / "data" / "connect4"
INSTALL_HINT: Final = "pip install -e '.[bench]'"

TARGET_RATIO: Final = 3.0
"""The goal: the mean time per position is within this factor of the C++ solver's."""
CACHED_START_TARGET_S: Final = 1.0
"""The goal: a cached start (import + first solve) well under this many seconds."""
POSITION_4453: Final = "4453"
SCORE_4453: Final = -2
CPP_4453_NODES: Final = 51_000_000
CPP_4453_S: Final = 8.7
TARGET_4453_S: Final = 30.0
SAMPLE: Final = (("Test_L3_R1", 20), ("Test_L2_R1", 5))
"""The small sample of sections 4 and 5: the first positions of these sets."""
PYTHON_LIMIT_S: Final = 60.0
"""A pure-Python solve still running after this many seconds counts as unsolved."""
EASYAI_TIMEOUT_S: Final = 10.0
"""An easyAI solve still running after this many seconds is stopped and counted as timed out."""
EASYAI_WIN: Final = 100.0
"""The score of easyAI's ConnectFour for a finished game (``scoring``: -100 if lost)."""


@dataclass(frozen=True)
class Reference:
    """A public test set and the C++ solver's figures for it on this machine."""

    name: str
    micros: float
    """Mean time per position, µs (strong solve)."""
    nodes: int
    """Mean nodes per position."""

    @property
    def label(self) -> str:
        return self.name.removeprefix("Test_")


REFERENCES: Final = (
    Reference("Test_L3_R1", 14.0, 51),
    Reference("Test_L2_R1", 78.0, 449),
    Reference("Test_L1_R1", 504.0, 3_296),
)


@dataclass(frozen=True)
class Position:
    moves: str
    score: int
    """Pons's exact score for the side to move."""


def load(name: str, count: int | None = None) -> list[Position]:
    """The first ``count`` positions (all without it) of a test set."""
    positions: list[Position] = []
    with open(DATA / name, encoding="ascii") as lines:
        for line in lines:
            if count is not None and len(positions) >= count:
                break
            moves, score = line.split()
            positions.append(Position(moves, int(score)))
    return positions


def sign(value: float) -> int:
    return (value > 0) - (value < 0)


def ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.1f}x" if theirs else "?"


def status(met: bool) -> str:
    return "MET" if met else "NOT MET"


# -- 1. start-up: compiling, then loading from the cache ------------------------------------

STARTUP_CODE: Final = """\
import json, sys, time
started = time.perf_counter()
from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4
imported = time.perf_counter()
solver = Solver("connect4")
built = time.perf_counter()
exact = solver.solve(Connect4.from_position(sys.argv[1]))
solved = time.perf_counter()
print(json.dumps({"import": imported - started, "solver": built - imported,
                  "solve": solved - built, "rank": exact.rank, "nodes": exact.stats.nodes}))
"""


@dataclass(frozen=True)
class Startup:
    import_s: float
    solver_s: float
    """``Solver("connect4")``: the table and the engine's build."""
    solve_s: float
    """The first solve: compiling or loading the search on its first call, then solving."""
    process_s: float
    """The whole subprocess, interpreter start and exit included."""
    rank: int
    nodes: int

    @property
    def total_s(self) -> float:
        return self.import_s + self.solver_s + self.solve_s


def start_once(cache: Path, moves: str) -> Startup:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", STARTUP_CODE, moves],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    process_s = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"the start-up subprocess failed:\n{done.stderr.strip()}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return Startup(
        report["import"],
        report["solver"],
        report["solve"],
        process_s,
        report["rank"],
        report["nodes"],
    )


def print_startup(easy: Position) -> None:
    print(
        "1. Start-up of the compiled engine: subprocesses, NUMBA_CACHE_DIR = a fresh temporary "
        f"directory;\none solve of L3 position {easy.moves} (score {easy.score})"
    )
    cache = Path(tempfile.mkdtemp(prefix="zerosum-numba-"))
    try:
        runs = [("first run (compiles)", start_once(cache, easy.moves))]
        files = sum(1 for path in cache.rglob("*") if path.is_file())
        runs.append(("second run (cached)", start_once(cache, easy.moves)))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(
        f"{'run':<22} {'import s':>9} {'Solver() s':>10} {'1st solve s':>11} "
        f"{'in-process s':>12} {'process s':>10} {'score':>6}"
    )
    for label, run in runs:
        print(
            f"{label:<22} {run.import_s:>9.3f} {run.solver_s:>10.3f} {run.solve_s:>11.3f} "
            f"{run.total_s:>12.3f} {run.process_s:>10.3f} {run.rank:>6}"
        )
    wrong = [label for label, run in runs if run.rank != easy.score]
    if wrong:
        print(f"WRONG score in: {', '.join(wrong)} (expected {easy.score})")
    cached = runs[1][1]
    print(
        f"the first run wrote {files} files to the cache; in-process = import + Solver() + first "
        "solve;\nprocess = the subprocess's wall clock, interpreter start included"
    )
    print(
        f"target (cached start, import + first solve, well under {CACHED_START_TARGET_S:g} s): "
        f"{status(cached.total_s < CACHED_START_TARGET_S)} ({cached.total_s:.3f} s in-process, "
        f"{cached.process_s:.3f} s for the whole process)"
    )


# -- 2. the public test sets ----------------------------------------------------------------


@dataclass(frozen=True)
class SetResult:
    reference: Reference
    positions: int
    correct: int
    solve_us: float
    """Mean µs around ``Solver.solve`` (Python-side state building included)."""
    engine_us: float
    """Mean µs around ``Engine.solve`` on a prebuilt state array."""
    nodes: float
    """Mean nodes per position (first pass)."""
    engine_nodes: float
    """Mean nodes per position (second pass; the same search, so the same count)."""
    agree: int
    """Positions where the second pass found the same score as the first."""


def fresh_solver(hash_mb: float) -> Solver:
    """A compiled solver whose table has every page touched (untimed), as the C++ solver's
    constructor does: ``np.zeros`` maps the table lazily, and here a first touch during a solve
    costs milliseconds (section 2 would otherwise time the kernel's page faults)."""
    solver = Solver("connect4", hash_mb=hash_mb)
    solver.engine.clear()
    return solver


def run_set(reference: Reference, positions: Sequence[Position], hash_mb: float) -> SetResult:
    """Both passes over a set, each with one fresh table kept across the positions."""
    games = [Connect4.from_position(position.moves) for position in positions]
    solver = fresh_solver(hash_mb)
    ranks = []
    solve_ns = nodes = 0
    for game in games:
        start = time.perf_counter_ns()
        exact = solver.solve(game)
        solve_ns += time.perf_counter_ns() - start
        ranks.append(exact.rank)
        nodes += exact.stats.nodes
    del solver  # free its table before the second pass allocates one

    solver = fresh_solver(hash_mb)
    engine = solver.engine
    states = [solver.state(game) for game in games]
    engine_ns = engine_nodes = agree = 0
    for state, rank in zip(states, ranks, strict=True):
        start = time.perf_counter_ns()
        solution = engine.solve(state)
        engine_ns += time.perf_counter_ns() - start
        engine_nodes += solution.stats.nodes
        agree += solution.rank == rank
    count = len(positions)
    return SetResult(
        reference,
        count,
        sum(rank == position.score for rank, position in zip(ranks, positions, strict=True)),
        solve_ns / count / 1e3,
        engine_ns / count / 1e3,
        nodes / count,
        engine_nodes / count,
        agree,
    )


def print_sets(sample: int | None, hash_mb: float) -> None:
    which = "all positions" if sample is None else f"the first {sample} positions"
    print(
        f"2. Pons's test sets, {which}: compiled engine, strong solve (exact score).\n"
        f"One table ({hash_mb:g} MiB) per set and pass, never cleared between positions (neither "
        "is the C++ reference's);\nevery page of the table touched before the clock starts, as "
        "the C++ solver's constructor does"
    )
    results = [run_set(ref, load(ref.name, sample), hash_mb) for ref in REFERENCES]
    print(
        f"{'set':<7} {'positions':>9} {'correct':>9} {'µs solve()':>11} {'µs engine':>10} "
        f"{'mean nodes':>11} {'nodes/s solve()':>16} {'nodes/s engine':>15}"
    )
    for result in results:
        print(
            f"{result.reference.label:<7} {result.positions:>9} "
            f"{result.correct:>4}/{result.positions:<4} {result.solve_us:>11.1f} "
            f"{result.engine_us:>10.1f} {result.nodes:>11,.1f} "
            f"{result.nodes / result.solve_us * 1e6:>16,.0f} "
            f"{result.engine_nodes / result.engine_us * 1e6:>15,.0f}"
        )
    print(
        "µs solve() = Solver.solve(game) on a prebuilt Connect4 (the Python-side state building "
        "included);\nµs engine = Engine.solve(state) on a prebuilt state array (second pass, "
        "fresh table)"
    )
    for result in results:
        if result.agree != result.positions or result.engine_nodes != result.nodes:
            print(
                f"{result.reference.label}: the second pass differs: {result.agree} equal "
                f"scores, {result.engine_nodes:,.1f} mean nodes"
            )
    print()
    print(
        f"{'set':<7} {'C++ µs':>7} {'C++ nodes':>9} {'time solve()/C++':>16} "
        f"{'time engine/C++':>15} {'nodes/C++':>9}  target (mean time <= {TARGET_RATIO:g}x C++)"
    )
    for result in results:
        ref = result.reference
        met = result.solve_us <= TARGET_RATIO * ref.micros
        engine_met = result.engine_us <= TARGET_RATIO * ref.micros
        print(
            f"{ref.label:<7} {ref.micros:>7g} {ref.nodes:>9,} "
            f"{ratio(result.solve_us, ref.micros):>16} {ratio(result.engine_us, ref.micros):>15} "
            f"{ratio(result.nodes, ref.nodes):>9}  {status(met)} with solve(), "
            f"{status(engine_met)} with the engine alone"
        )
    print("C++ = Pascal Pons's solver on this machine (strong solve, mean per position)")


# -- 3. position 4453 -----------------------------------------------------------------------


def print_4453(hash_mb: float) -> None:
    print(
        f"3. Position {POSITION_4453}: compiled strong solve (fresh {hash_mb:g} MiB table, "
        "Solver.solve)"
    )
    solver = fresh_solver(hash_mb)
    game = Connect4.from_position(POSITION_4453)
    start = time.perf_counter()
    exact = solver.solve(game)
    seconds = time.perf_counter() - start
    nodes = exact.stats.nodes
    cpp_nps = CPP_4453_NODES / CPP_4453_S
    print(f"{'':<10} {'score':>6} {'nodes':>14} {'seconds':>8} {'nodes/s':>12}")
    print(f"{'ours':<10} {exact.rank:>6} {nodes:>14,} {seconds:>8.2f} {nodes / seconds:>12,.0f}")
    print(f"{'C++':<10} {SCORE_4453:>6} {CPP_4453_NODES:>14,} {CPP_4453_S:>8.2f} {cpp_nps:>12,.0f}")
    print(
        f"{'ours/C++':<10} {'':>6} {ratio(nodes, CPP_4453_NODES):>14} "
        f"{ratio(seconds, CPP_4453_S):>8} {ratio(nodes / seconds, cpp_nps):>12}"
    )
    print(
        f"score {'correct' if exact.rank == SCORE_4453 else 'WRONG'} (expected {SCORE_4453}); "
        f"target (under {TARGET_4453_S:g} s): {status(seconds < TARGET_4453_S)}"
    )


# -- 4 and 5. the small sample: compiled, pure Python, easyAI --------------------------------


@dataclass(frozen=True)
class Run:
    """One solver on one position."""

    seconds: float
    nodes: int
    correct: bool
    finished: bool = True
    """False when a limit or a timeout stopped it (``correct`` is then false)."""


Group = tuple[str, list[Position]]
"""A label and the positions of one part of the sample."""


def compiled_runs(positions: Sequence[Position], hash_mb: float) -> list[Run]:
    """``Solver.solve`` on each position, the table cleared before each (untimed)."""
    solver = fresh_solver(hash_mb)
    runs = []
    for position in positions:
        game = Connect4.from_position(position.moves)
        solver.engine.clear()
        start = time.perf_counter()
        exact = solver.solve(game)
        seconds = time.perf_counter() - start
        runs.append(Run(seconds, exact.stats.nodes, exact.rank == position.score))
    return runs


def python_runs(positions: Sequence[Position]) -> list[Run]:
    """The pure-Python search's exact solve of each position (a fresh table for each)."""
    runs = []
    for position in positions:
        game = Connect4.from_position(position.moves)
        start = time.perf_counter()
        result = solve(game, limit=Limit(time=PYTHON_LIMIT_S))
        seconds = time.perf_counter() - start
        correct = result.solved and pons_score(result.value, game.ply()) == position.score
        runs.append(Run(seconds, result.stats.nodes, correct, finished=result.solved))
    return runs


def slowdowns(runs: Sequence[Run], compiled: Sequence[Run]) -> tuple[str, str]:
    """Mean time / compiled mean time, and the median per-position ratio, over the positions
    the solver finished."""
    pairs = [(run, base) for run, base in zip(runs, compiled, strict=True) if run.finished]
    if not pairs:
        return "-", "-"
    mean = sum(run.seconds for run, _ in pairs) / sum(base.seconds for _, base in pairs)
    median = statistics.median(run.seconds / base.seconds for run, base in pairs)
    return f"{mean:,.0f}x", f"{median:,.0f}x"


def print_sample_table(
    groups: Sequence[Group], runs: Sequence[list[Run]], compiled: Sequence[list[Run]]
) -> None:
    print(
        f"{'sample':<13} {'done':>5} {'correct':>7} {'mean ms':>9} {'mean nodes':>11} "
        f"{'nodes/s':>9} {'compiled µs':>11} {'c. nodes':>9} {'slowdown':>9} {'median':>7}"
    )
    rows = [(label, r, c) for (label, _), r, c in zip(groups, runs, compiled, strict=True)]
    rows.append(("all", [x for r in runs for x in r], [x for c in compiled for x in c]))
    for label, group_runs, group_compiled in rows:
        done = [run for run in group_runs if run.finished]
        base = [c for run, c in zip(group_runs, group_compiled, strict=True) if run.finished]
        correct = sum(run.correct for run in group_runs)
        if done:
            seconds = sum(run.seconds for run in done)
            nodes = sum(run.nodes for run in done)
            figures = (
                f"{seconds / len(done) * 1e3:>9.1f} {nodes / len(done):>11,.0f} "
                f"{nodes / seconds:>9,.0f} "
                f"{sum(c.seconds for c in base) / len(base) * 1e6:>11.1f} "
                f"{sum(c.nodes for c in base) / len(base):>9,.0f}"
            )
        else:
            figures = f"{'-':>9} {'-':>11} {'-':>9} {'-':>11} {'-':>9}"
        mean, median = slowdowns(group_runs, group_compiled)
        print(
            f"{label:<13} {len(done):>2}/{len(group_runs):<2} {correct:>3}/{len(group_runs):<3} "
            f"{figures} {mean:>9} {median:>7}"
        )


class _Timeout(Exception):
    """Raised by the alarm signal inside an easyAI solve."""


def with_timeout(call: Callable[[], T], seconds: float) -> T:
    """``call()``, interrupted by :class:`_Timeout` after ``seconds`` (pure-Python code only)."""
    if not hasattr(signal, "SIGALRM"):
        return call()

    def expire(signum: int, frame: Any) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return call()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def easyai_runs(positions: Sequence[Position]) -> tuple[list[Run], list[Run]]:
    """easyAI's depth-first solve (right = the sign of the score) and its full-depth Negamax
    (right = the exact score) on each position. Raises ImportError without easyAI."""
    from easyAI import (  # type: ignore[import-untyped,unused-ignore]
        AI_Player,
        Negamax,
        TranspositionTable,
        solve_with_depth_first_search,
    )
    from easyAI.games import ConnectFour  # type: ignore[import-untyped,unused-ignore]

    class TableConnectFour(ConnectFour):  # type: ignore[misc]
        """easyAI's example game with the key its transposition table needs."""

        def ttentry(self) -> bytes:
            return bytes(self.board.tobytes())  # the stones decide the side to move

    class CountingTable(TranspositionTable):  # type: ignore[misc]
        """Counts lookups: both easyAI solvers look every visited node up exactly once."""

        def __init__(self) -> None:
            super().__init__()
            self.lookups = 0

        def lookup(self, game: Any) -> Any:
            self.lookups += 1
            return super().lookup(game)

    def new_game(moves: str) -> Any:
        game = TableConnectFour([AI_Player(None), AI_Player(None)])
        for char in moves:
            game.make_move(int(char) - 1)
            game.switch_player()
        return game

    def timed(position: Position, solve: Callable[[Any, Any], bool]) -> Run:
        game = new_game(position.moves)
        table = CountingTable()
        start = time.perf_counter()
        try:
            correct = with_timeout(lambda: solve(game, table), EASYAI_TIMEOUT_S)
        except _Timeout:
            return Run(time.perf_counter() - start, table.lookups, False, finished=False)
        return Run(time.perf_counter() - start, table.lookups, correct)

    def depth_first(position: Position) -> Callable[[Any, Any], bool]:
        def run(game: Any, table: Any) -> bool:
            result = solve_with_depth_first_search(game, EASYAI_WIN, tt=table)
            return bool(result == sign(position.score))

        return run

    def negamax(position: Position) -> Callable[[Any, Any], bool]:
        ply = len(position.moves)

        def run(game: Any, table: Any) -> bool:
            ai = Negamax(CELLS - ply, tt=table)
            ai(game)
            return easyai_pons(float(ai.alpha), ply) == position.score

        return run

    return (
        [timed(position, depth_first(position)) for position in positions],
        [timed(position, negamax(position)) for position in positions],
    )


def easyai_pons(alpha: float, ply: int) -> int:
    """Pons's score from easyAI's full-depth Negamax value at a root with ``ply`` stones.

    A finished game scores ``scoring * (1 + 0.001 * depth_left)``, and with the search depth
    set to the empty cells, ``depth_left = CELLS - ply - d`` for an end ``d`` plies below the
    root; a draw is 0.
    """
    if abs(alpha) < EASYAI_WIN / 2:
        return 0
    depth_left = round((abs(alpha) / EASYAI_WIN - 1) * 1000)
    distance = CELLS - ply - depth_left
    return pons_score(sign(alpha) * (WIN - distance), ply)


def print_sample(sample: int | None, hash_mb: float) -> None:
    groups: list[Group] = []
    for name, count in SAMPLE:
        size = count if sample is None else min(count, sample)
        groups.append((f"{name.removeprefix('Test_')}[:{size}]", load(name, size)))
    positions = [position for _, position_list in groups for position in position_list]

    def split(runs: list[Run]) -> list[list[Run]]:
        parts, start = [], 0
        for _, group in groups:
            parts.append(runs[start : start + len(group)])
            start += len(group)
        return parts

    compiled = split(compiled_runs(positions, hash_mb))
    print(
        "4. Pure-Python search: zerosum.search.solve(Connect4.from_position(moves)) (exact mode: "
        "every root move's\nvalue), value -> pons_score; vs the compiled engine (Solver.solve, "
        "table cleared before each position)"
    )
    print_sample_table(groups, split(python_runs(positions)), compiled)
    print(
        f"done = solved within {PYTHON_LIMIT_S:g} s; mean ms, nodes, nodes/s over the solved "
        "positions; compiled µs and c. nodes = the compiled\nengine on the same positions; "
        "slowdown = mean time / compiled mean time; median = the median per-position ratio"
    )
    print()

    print(
        f"5. easyAI {_version('easyai')}: its ConnectFour example game (+ ttentry), "
        f"TranspositionTable; each solve stopped after {EASYAI_TIMEOUT_S:g} s"
    )
    try:
        depth_first, negamax = easyai_runs(positions)
    except ImportError as error:
        print(f"easyAI is not installed ({error}): install it with {INSTALL_HINT}")
        return
    print(
        "a) solve_with_depth_first_search(game, win_score=100, tt=table): win/draw/loss only;\n"
        "correct = the sign of Pons's score"
    )
    print_sample_table(groups, split(depth_first), compiled)
    print()
    print(
        "b) Negamax(depth = empty cells, tt=table): value ±100 (1 + 0.001 depth_left) -> the "
        "distance to the end -> Pons's\nscore; correct = the exact score"
    )
    print_sample_table(groups, split(negamax), compiled)
    print(
        "done = finished within the time-out; mean ms, nodes, nodes/s, slowdown over the "
        "finished positions; nodes = calls of\nTranspositionTable.lookup (once per visited "
        "node, root included), counted in the timed run; easyAI copies the\ngame (deepcopy) "
        "for every move and tests for four in a row over numpy arrays"
    )


# -- main -----------------------------------------------------------------------------------


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"
    return f"{head}{' + uncommitted changes' if dirty else ''}"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument(
        "--sample", type=int, metavar="N", help="only the first N positions of each set"
    )
    parser.add_argument(
        "--skip-4453", action="store_true", help="skip the solve of position 4453 (~20 s)"
    )
    parser.add_argument(
        "--hash",
        type=float,
        default=DEFAULT_HASH_MB,
        metavar="MB",
        help=f"table size in MiB of every compiled solver (default {DEFAULT_HASH_MB})",
    )
    args = parser.parse_args(argv)
    if args.sample is not None and args.sample < 1:
        parser.error(f"--sample {args.sample} is out of range: expected 1 or more")
    if not 0 < args.hash <= MAX_HASH_MB:
        parser.error(f"--hash {args.hash:g} is out of range: expected 1..{MAX_HASH_MB}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    sample: int | None = args.sample
    hash_mb: float = args.hash
    command = sys.orig_argv if argv is None else [sys.executable, __file__, *argv]
    print(f"$ {' '.join(command)}")
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    print(
        f"python {platform.python_version()} on {platform.machine()} {platform.system()}, "
        f"{_cpu()}, {cores} cores ({usable} usable)"
    )
    print(
        f"numba {_version('numba')}, numpy {_version('numpy')}, easyai {_version('easyai')}; "
        f"zerosum {_version('zerosum')} at {_commit()}"
    )
    if not DATA.is_dir():
        print(f"no test data at {DATA}: expected the test sets of the repository's tests/data")
        return 1
    print()

    easy = load(REFERENCES[0].name, 1)[0]
    print_startup(easy)
    print()

    start = time.perf_counter()
    Solver("connect4", hash_mb=1).solve(Connect4.from_position(easy.moves))
    print(
        f"(this process: compiled engine ready in {time.perf_counter() - start:.2f} s from the "
        "default numba cache, before any clock below)"
    )
    print_sets(sample, hash_mb)
    print()

    if args.skip_4453:
        print(f"3. Position {POSITION_4453}: skipped (--skip-4453)")
    else:
        print_4453(hash_mb)
    print()

    print_sample(sample, hash_mb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
