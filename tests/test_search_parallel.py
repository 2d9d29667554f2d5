"""Root splitting of the pure-Python search over worker processes, against serial search."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from synthetic import RandomGame
from test_compiled import read_set
from test_search_exhaustive import ORACLE, POSITIONS
from waiting import HANG_S, wait_until

from zerosum.cli import main
from zerosum.games.connect4 import Connect4, value_from_pons
from zerosum.games.tictactoe import TicTacToe
from zerosum.search import Limit, search, solve
from zerosum.search.parallel import SPLIT_DEPTH, SearchPool, resolve_workers

INNER = [game for game in POSITIONS if game.outcome() is None]


@pytest.fixture(scope="module")
def pool() -> Iterator[SearchPool]:
    with SearchPool(2) as pool:
        yield pool


@pytest.mark.slow  # every position, with workers; depth-limited twins stay in the default set
def test_solves_of_every_tictactoe_position_equal_the_serial_ones(pool: SearchPool) -> None:
    """Exhaustive: every position of tic-tac-toe that is not over (4,520)."""
    for game in INNER:
        serial, parallel = solve(game), solve(game, pool=pool)
        assert parallel.value == serial.value == ORACLE[game.position()][0], game.position()
        assert dict(parallel.move_values) == dict(serial.move_values), game.position()
        assert set(parallel.best_moves) == ORACLE[game.position()][1]
        assert parallel.solved


@pytest.mark.parametrize("algorithm", ["engine", "alphabeta", "negamax", "minimax"])
def test_depth_limited_values_equal_the_serial_ones(pool: SearchPool, algorithm: str) -> None:
    games = [game for game in INNER if game.ply() <= 3][:: 3 if algorithm == "engine" else 9]
    for game in games:
        for depth in (1, 2, 3):
            limit = Limit(depth=depth)
            serial = search(game, algorithm=algorithm, limit=limit, all_best=True)
            parallel = search(game, algorithm=algorithm, limit=limit, all_best=True, pool=pool)
            assert parallel.value == serial.value, (game.position(), depth)
            assert set(parallel.best_moves) == set(serial.best_moves), (game.position(), depth)
            assert parallel.depth == serial.depth
            one = search(game, algorithm=algorithm, limit=limit, pool=pool)
            assert one.value == serial.value and one.best_move in serial.best_moves


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32), depth=st.integers(1, 5), width=st.integers(2, 6))
@example(seed=24113, depth=3, width=4)  # a win in 2: the parallel search kept deepening
@example(seed=283, depth=3, width=6)  # a win in 1: the workers reached ply 3, the serial ply 2
@example(seed=51, depth=5, width=5)  # a draw the workers proved at depth 4, the serial not at 5
@example(seed=301, depth=5, width=5)  # a draw the serial proved at depth 4, the workers not at 5
def test_random_trees_give_the_serial_values(
    pool: SearchPool, seed: int, depth: int, width: int
) -> None:
    """The same value and best moves. Whether an iteration met no evaluation (a proof) depends
    on the windows its moves were searched in, and workers search moves at once in wider ones:
    so each proof is checked by a deeper search instead of by the serial search's depth."""
    game = RandomGame(seed, width=width)
    for algorithm in ("engine", "alphabeta"):
        limit = Limit(depth=depth)
        serial = search(game, algorithm=algorithm, limit=limit, all_best=True)
        parallel = search(game, algorithm=algorithm, limit=limit, all_best=True, pool=pool)
        assert parallel.value == serial.value
        assert set(parallel.best_moves) == set(serial.best_moves)
        if serial.solved or parallel.solved:  # an exact value stays that of deeper searches
            deeper = search(game, algorithm=algorithm, limit=Limit(depth=depth + 2))
        for result in (serial, parallel):
            if result.solved:
                assert 1 <= result.depth <= depth
                assert deeper.value == result.value
            else:
                assert result.depth == depth


class BrokenTicTacToe(TicTacToe):
    """A game with a bug: its evaluation raises."""

    def evaluate(self) -> int:
        raise ValueError("broken evaluation")


def test_a_failing_worker_is_reported_and_the_pool_stays_usable(pool: SearchPool) -> None:
    with pytest.raises(RuntimeError, match="a search worker failed: ValueError: broken"):
        search(BrokenTicTacToe(), limit=Limit(depth=2), pool=pool)
    game = TicTacToe.from_position("x../.o./...")
    assert solve(game, pool=pool).value == solve(game).value


def test_connect_four_depth_limited_and_solved(pool: SearchPool, data_dir: Path) -> None:
    for moves, _ in read_set(data_dir, "Test_L2_R1")[:6]:
        game = Connect4.from_position(moves)
        serial = search(game, limit=Limit(depth=5))
        parallel = search(game, limit=Limit(depth=5), pool=pool)
        assert parallel.value == serial.value, moves
        assert parallel.pv[0] == parallel.best_move
    for moves, score in read_set(data_dir, "Test_L3_R1")[:4]:
        game = Connect4.from_position(moves)
        exact = solve(game, pool=pool)
        assert exact.solved and exact.value == value_from_pons(score, game.ply()), moves


@pytest.mark.parametrize("table", [True, False])
def test_splitting_the_principal_variation_keeps_the_serial_values(
    pool: SearchPool, data_dir: Path, table: bool
) -> None:
    """PVS splits the first root move along its principal variation; with ``split_depth`` 1
    every PV node is split, the workers sharing one table (or none)."""
    games = [TicTacToe.from_position("x../.o./..."), TicTacToe()]
    games += [Connect4.from_position(moves) for moves, _ in read_set(data_dir, "Test_L2_R1")[:3]]
    pool.split_depth = 1
    try:
        for game in games:
            for depth in (2, 5, 6):
                limit = Limit(depth=depth)
                serial = search(game, limit=limit, all_best=True, table=table)
                every = search(game, limit=limit, all_best=True, table=table, pool=pool)
                assert every.value == serial.value, (game.position(), depth)
                assert set(every.best_moves) == set(serial.best_moves), (game.position(), depth)
                one = search(game, limit=limit, table=table, pool=pool)
                assert one.value == serial.value and one.best_move in serial.best_moves
                assert one.pv[0] == one.best_move
            search(game, limit=Limit(depth=2), table=table, pool=pool)
            moves = len(game.legal_moves())  # depth 1: a task per move; 2: the split adds some
            assert pool.activity.tasks > 2 * moves
    finally:
        pool.split_depth = SPLIT_DEPTH


def test_the_api_takes_a_worker_count() -> None:
    game = TicTacToe.from_position("x../.o./...")
    assert solve(game, workers=2).value == solve(game).value
    assert resolve_workers(0) == (os.cpu_count() or 1)
    with pytest.raises(ValueError, match="expected 0"):
        resolve_workers(-1)


def test_a_time_limit_stops_every_worker_and_the_pool_is_reused(pool: SearchPool) -> None:
    result = search(Connect4(), limit=Limit(time=0.5), pool=pool)  # else it runs for hours
    assert not result.complete and result.best_move is not None
    stopped = search(Connect4(), limit=Limit(depth=30, stop=lambda: True), pool=pool)
    assert not stopped.complete
    game = TicTacToe.from_position("x../.o./...")
    assert solve(game, pool=pool).value == solve(game).value


def test_a_node_limit_is_shared_by_the_workers(pool: SearchPool) -> None:
    # A task gets what the finished tasks left, split between the workers (each polls every
    # 1,024 nodes): a running task is not counted, so the total stays under the limit and one
    # worker's share of it, however the two workers interleave on a loaded machine (the same
    # rule as the compiled solver's: see tests/test_parallel.py).
    limit = 20_000
    result = search(Connect4(), limit=Limit(nodes=limit), pool=pool)
    assert not result.complete
    assert result.stats.nodes < limit + limit // 2 + 2 * 1024 + 10, result.stats.nodes


def test_closing_leaves_no_process_behind() -> None:
    pool = SearchPool(2)
    processes = list(pool._processes)
    assert all(process.is_alive() for process in processes)
    pool.close()
    assert not any(process.is_alive() for process in processes)
    with pytest.raises(RuntimeError, match="closed"):
        search(TicTacToe(), limit=Limit(depth=2), pool=pool)


def test_the_command_line_takes_workers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "tictactoe", "--moves", "b2", "--workers", "2", "--json"]) == 0
    parallel = json.loads(capsys.readouterr().out)
    assert main(["solve", "tictactoe", "--moves", "b2", "--json"]) == 0
    serial = json.loads(capsys.readouterr().out)
    assert parallel["value"] == serial["value"] == 0
    assert set(parallel["best_moves"]) == set(serial["best_moves"])
    argv = ["analyze", "connect4", "--moves", "4453", "--depth", "4", "--json"]
    assert main([*argv, "--workers", "auto"]) == 0
    assert (
        json.loads(capsys.readouterr().out)["value"]
        == search(Connect4.from_position("4453"), limit=Limit(depth=4)).value
    )
    assert main(["analyze", "tictactoe", "--workers", "none"]) == 2
    assert "--workers" in capsys.readouterr().err
    assert main(["solve", "tictactoe", "--workers", "-3"]) == 2


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid``, from /proc."""
    found: set[int] = set()
    stack = [pid]
    while stack:
        parent = stack.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:  # the task ended meanwhile
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    stack.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def _interrupt(process: subprocess.Popen[str], workers: set[int], expected: str) -> None:
    """Ctrl-C to ``process``'s group; it must stop at once, print ``expected`` and leave none
    of ``workers`` alive."""
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
    # The searches run for a minute or more unless stopped; the bounds only bound a hang.
    out, err = process.communicate(timeout=HANG_S)
    assert process.returncode == 0, err
    assert expected in out, out
    deadline = time.perf_counter() + HANG_S
    while any(_alive(pid) for pid in workers) and time.perf_counter() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers)


def _start(*argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "zerosum.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )


def _searching_workers(process: subprocess.Popen[str]) -> set[int]:
    """The worker processes of ``process`` (an ``analyze --workers 2``), once it has printed its
    first iteration (the workers are searching) and both have started."""
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("depth"), line
    workers = _descendants(process.pid)
    deadline = time.perf_counter() + HANG_S
    while len(workers) < 2 and time.perf_counter() < deadline:
        time.sleep(0.05)  # polls an observable state
        workers = _descendants(process.pid)
    assert len(workers) >= 2
    return workers


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_stops_the_command_and_its_workers() -> None:
    process = _start("analyze", "connect4", "--workers", "2", "--time", "3600")
    try:
        workers = _searching_workers(process)
        _interrupt(process, workers, "stopped early")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_sigterm_stops_the_command_and_its_workers() -> None:
    """issue 24: ``kill`` (SIGTERM) of a command with worker processes ended it at once and
    left its workers searching, orphaned; now SIGTERM does what Ctrl-C does."""
    process = _start("analyze", "connect4", "--workers", "2", "--time", "3600")
    try:
        workers = _searching_workers(process)
        process.terminate()  # the command alone, as kill or a service manager sends it
        out, err = process.communicate(timeout=HANG_S)
        assert process.returncode == 0 and "Traceback" not in err, err
        assert "stopped early" in out, out
        deadline = time.perf_counter() + HANG_S
        while any(_alive(pid) for pid in workers) and time.perf_counter() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers)
    finally:
        with contextlib.suppress(ProcessLookupError):  # the group: orphaned workers too
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


@pytest.mark.slow  # a long compiled solve to interrupt
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_stops_a_compiled_solve_and_its_workers() -> None:
    """The compiled engine's workers are threads of the command (the search releases the
    GIL): Ctrl-C must stop them all, the command report what it had and exit 0."""
    # A position whose solve takes minutes, so that it is still running when Ctrl-C comes.
    process = _start("solve", "connect4", "--moves", "44", "--workers", "2", "--no-book")
    try:
        # Wait until the search has run on both threads for a while: two threads besides the
        # main one (which loads, or compiles, the code: a CPU-second warm, a minute cold)
        # have each used a CPU-second. Ctrl-C before the solve begins rightly exits 130.
        wait_until(
            lambda: process.poll() is not None or len(_busy_threads(process.pid, 1.0)) >= 2,
            "two search threads searching",
        )
        assert process.poll() is None, process.communicate()
        _interrupt(process, _descendants(process.pid), "not solved")
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_while_the_solver_starts_is_a_clean_exit() -> None:
    process = _start("solve", "connect4", "--moves", "4453", "--workers", "2", "--no-book")
    try:
        deadline = time.perf_counter() + HANG_S
        # Past Python's imports (a Ctrl-C inside numba's own start-up is not ours to handle):
        # the compiled code loads and the worker threads start about now.
        while time.perf_counter() < deadline and _cpu_seconds({process.pid}) < 1.2:
            time.sleep(0.02)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=HANG_S)
        assert "Traceback" not in err and "leaked" not in err, err
        # 130: interrupted before the solve began; -SIGINT: Python's own way to end after the
        # interruption was reported.
        assert process.returncode in (0, 130, -signal.SIGINT), err
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _busy_threads(pid: int, seconds: float) -> list[int]:
    """The threads of process ``pid`` other than its main thread that have used at least
    ``seconds`` of CPU time (from /proc; none once the process is gone)."""
    try:
        tids = [int(task.name) for task in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:
        return []
    tick = os.sysconf("SC_CLK_TCK")
    busy = []
    for tid in tids:
        try:
            fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if tid != pid and (int(fields[11]) + int(fields[12])) / tick >= seconds:
            busy.append(tid)
    return busy


def _cpu_seconds(pids: set[int]) -> float:
    """User and system CPU seconds used by the processes ``pids``, from /proc."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")
