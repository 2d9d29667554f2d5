"""Speed-up of parallel search over serial search, in one run, and how it scales.

Sections (each serial search and its parallel twin run back to back, on the same positions,
and must give the same value):

0. What the machine allows now: one fixed serial search alone, then ``--workers`` copies of
   it in as many processes at once; ``workers x alone / together`` is the speed-up that
   perfectly parallel work gets at this moment (2.0 on two idle cores). No parallel search
   can do better, so read the other measured speed-ups against it.

1. Compiled exact solves of connect four (worker threads sharing one table,
   :mod:`zerosum.compiled.parallel`): hard positions (``4453`` and its continuations), each
   split over the workers, and a sample of ``Test_L1_R1`` (1,000 positions of about 0.4 ms
   each), solved one at a time and as a batch (each worker solving whole positions). Each solve
   (and each pass over the sample) gets a fresh table of the same size; worker start-up is
   timed once and left out of the speed-up. The workers' CPU seconds for ``cpu est`` are those
   of this whole process while the parallel solve runs (its own thread mostly waits).
2. The pure-Python engine at a fixed depth over a :class:`SearchPool`: the first root move
   split along its principal variation, then the other root moves split, workers sharing one
   table; with ``cpu est`` as in section 4.
3. Scaling with more workers than cores: 3 and 4 workers on the pure-Python searches, on
   two compiled solves and on the ``Test_L1_R1`` sample.
4. Chess at a fixed depth: the tactical engine against its split along the principal
   variation over workers sharing one table. Besides ``util`` and ``est`` it prints
   ``cpu est``: the serial search's CPU seconds over what the parallel one would take on
   dedicated cores, its wall time with the workers' busy time shrunk to the CPU time they
   used (read from ``/proc``). Unlike ``est`` it counts what a node costs in a worker (the
   shared table, the tasks, two processes on one memory bus), and it is what a loaded machine
   still lets one measure. Sections 2 and 4 also print how many cores other programs kept
   busy on average while the parallel searches ran (``/proc/stat`` less this process and its
   workers): with one core taken, two workers share the other and the measured speed-up
   stays near 1 whatever the split.
5. A simulated run of root splitting for the compiled exact solves with 1 to 8 workers, from
   node counts (the critical path): the null-window tests are replayed serially, each root
   move searched on its own; each test is then scheduled on ``W`` workers (moves in order, a
   move's cost its node count, the first refuting move ending the test) and the simulated
   speed-up is the serial nodes over the sum of the tests' schedule lengths. It ignores what
   the shared table gives or costs in parallel and the idle workers' help on a running move,
   and shows where root splitting alone stops scaling.

Timings on a machine that other programs also load are noisy, and a parallel search suffers
most from it (it needs every core at once), so every parallel row also prints what the run
measured about the split itself: ``util`` is the share of the workers' time spent searching
(busy worker-seconds over workers x wall seconds) and ``est`` the speed-up that the split
would give on dedicated cores, ``workers x util x serial nodes / parallel nodes``; section 1
adds ``cpu-est``, the same with CPU seconds (the serial search's and the workers', read from
``/proc``) in place of nodes, which also counts how fast each worker searches next to the
serial search (cache and memory effects) and which other jobs on the machine hardly change:
on a busy machine it is the best guess of the idle speed-up. The load
average before and after is printed too. The target of the parallel issue is a speed-up of at
least 1.6 on 2 cores.

Run from the repository root::

    .venv/bin/python benchmarks/parallel.py [--workers N] [--hash MB] [--sample N] [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from unit_trace import cpu_seconds, machine_cpu_seconds  # the benchmarks' /proc readers

from zerosum.compiled.engine import DEPTH_INF, narrowed, next_test, score_of_rank
from zerosum.compiled.parallel import ParallelEngine
from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4
from zerosum.runtime.workers import Activity
from zerosum.search import Limit, search
from zerosum.search.parallel import SearchPool

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "connect4"
HARD = ("4453", "44534", "4453444", "445344")
"""Compiled solves that take seconds: where parallel search can pay for its overhead."""
PYTHON = (("", 12), ("4453", 12), ("44", 12))
"""Pure-Python engine searches (position, depth) of a few seconds each."""
SCALING_COMPILED = ("44534", "4453444")
CHESS = (
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 7),
    ("italian", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", 7),
    ("BK.03", "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1", 6),
    ("BK.05", "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1", 6),
    ("BK.12", "r3r1k1/ppqb1ppp/8/4p1NQ/8/2P5/PP3PPP/R3R1K1 b - - 0 1", 6),
)
"""Chess at a fixed depth with the tactical engine: (label, FEN, depth); the ``BK`` positions
are middlegames of the Bratko-Kopec test (sunfish's ``tests/files/bratko_kopec_test.epd``)."""
HEADER = (
    f"{'position':<10} {'depth':>5} {'value':>8} {'serial s':>9} {'nodes':>11} "
    f"{'parallel s':>10} {'nodes':>11} {'speed-up':>8} {'util':>5} {'est':>5}"
)


def row(
    label: str,
    depth: str,
    value: int,
    serial: tuple[float, int],
    parallel: tuple[float, int],
    activity: Activity,
) -> str:
    (one_s, one_nodes), (many_s, many_nodes) = serial, parallel
    utilization = activity.utilization()
    estimate = activity.workers * utilization * one_nodes / max(many_nodes, 1)
    return (
        f"{label or '(start)':<10} {depth:>5} {value:>8} {one_s:>9.2f} {one_nodes:>11,} "
        f"{many_s:>10.2f} {many_nodes:>11,} {one_s / many_s:>8.2f} {utilization:>5.2f} "
        f"{estimate:>5.2f}"
    )


def total(label: str, rows: list[tuple[float, float, float]]) -> str:
    """The total speed-up, and the estimate weighted by serial time."""
    serial = sum(one for one, _, _ in rows)
    parallel = sum(many for _, many, _ in rows)
    weighted = serial / sum(one / estimate for one, _, estimate in rows if estimate > 0)
    return (
        f"{label:<10} {'':>5} {'':>8} {serial:>9.2f} {'':>11} {parallel:>10.2f} {'':>11} "
        f"{serial / parallel:>8.2f} {'':>5} {weighted:>5.2f}"
    )


def _estimate(activity: Activity, serial_nodes: int, parallel_nodes: int) -> float:
    return activity.workers * activity.utilization() * serial_nodes / max(parallel_nodes, 1)


def _calibration_search(_: int = 0) -> float:
    """Seconds for one fixed pure-Python search (section 0)."""
    started = time.perf_counter()
    search(Connect4(), limit=Limit(depth=11))
    return time.perf_counter() - started


def machine_allows(workers: int) -> None:
    """Section 0 (see the module docstring)."""
    import multiprocessing

    alone = _calibration_search()
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        pool.map(_calibration_search, range(workers))  # start the processes and warm them
        started = time.perf_counter()
        pool.map(_calibration_search, range(workers))
        together = time.perf_counter() - started
    print(
        f"one search alone {alone:.2f} s; {workers} at once in {workers} processes "
        f"{together:.2f} s: independent work runs {workers * alone / together:.2f}x faster "
        f"in parallel right now (the ceiling for every speed-up below)"
    )


def compiled_solves(workers: int, hash_mb: float, positions: tuple[str, ...]) -> None:
    started = time.perf_counter()
    parallel = Solver("connect4", hash_mb=hash_mb, workers=workers)
    print(f"worker start-up: {time.perf_counter() - started:.2f} s (once, not in the figures)")
    serial = Solver("connect4", hash_mb=hash_mb)
    serial.solve(Connect4.from_position(HARD[0] + "444"))  # load the compiled code
    engine = parallel.exact
    assert isinstance(engine, ParallelEngine)
    print(f"{HEADER} {'cpu est':>7}")
    rows, cpu_rows = [], []
    for moves in positions:
        game = Connect4.from_position(moves)
        serial.engine.clear()
        clock = time.process_time()
        one = serial.solve(game)
        serial_cpu = time.process_time() - clock
        engine.table[:] = 0  # a fresh shared table
        before = _cpu_seconds(engine.pids)
        many = parallel.solve(game)
        after = _cpu_seconds(engine.pids)
        cpu = _cpu_estimate(serial_cpu, many.stats.time_s, before, after, engine.activity, cpu_rows)
        assert one.rank == many.rank, moves
        one_run = (one.stats.time_s, one.stats.nodes)
        many_run = (many.stats.time_s, many.stats.nodes)
        print(f"{row(moves, 'exact', one.rank, one_run, many_run, engine.activity)} {cpu}")
        estimate = _estimate(engine.activity, one.stats.nodes, many.stats.nodes)
        rows.append((one.stats.time_s, many.stats.time_s, estimate))
    print(f"{total(f'total {workers}w', rows)} {_cpu_total(cpu_rows)}")
    parallel.close()


def compiled_sample(workers: int, hash_mb: float, sample: int) -> None:
    """A test set's small solves: one at a time (each tried in the calling process first, so
    the workers only help a hard one) and as a batch (each worker solves whole positions,
    :meth:`ParallelEngine.solve_many`), against the serial solver; every table starts empty."""
    lines = (DATA / "Test_L1_R1").read_text().split("\n")[:sample]
    pairs = [line.split() for line in lines if line]
    games = [Connect4.from_position(moves) for moves, _ in pairs]
    expected = [int(score) for _, score in pairs]
    with Solver("connect4", hash_mb=hash_mb, workers=workers) as parallel:
        engine = parallel.exact
        assert isinstance(engine, ParallelEngine)
        serial = Solver("connect4", hash_mb=hash_mb)
        serial.solve(Connect4.from_position(HARD[0] + "444"))  # load the compiled code
        serial.engine.clear()
        clock, cpu_clock = time.perf_counter(), time.process_time()
        one = [serial.solve(game) for game in games]
        serial_s, serial_cpu = time.perf_counter() - clock, time.process_time() - cpu_clock
        engine.table[:] = 0
        clock = time.perf_counter()
        each = [parallel.solve(game) for game in games]
        each_s = time.perf_counter() - clock
        engine.table[:] = 0
        before = _cpu_seconds(engine.pids)
        clock = time.perf_counter()
        batch = list(parallel.solve_many(games))
        batch_s = time.perf_counter() - clock
        after = _cpu_seconds(engine.pids)
        cpu = _cpu_estimate(serial_cpu, batch_s, before, after, engine.activity, []).strip()
        for results in (one, each, batch):
            assert [exact.rank for exact in results] == expected
        serial_nodes = sum(exact.stats.nodes for exact in one)
        batch_nodes = sum(exact.stats.nodes for exact in batch)
        estimate = _estimate(engine.activity, serial_nodes, batch_nodes)
        label = f"Test_L1_R1[:{len(games)}]"
        print(f"{label} serial               {serial_s / len(games) * 1e3:8.3f} ms/position")
        print(
            f"{label} {workers}w, one at a time  {each_s / len(games) * 1e3:8.3f} ms/position"
            f"  speed-up {serial_s / each_s:4.2f} (each small solve runs in the calling process)"
        )
        print(
            f"{label} {workers}w, batch          {batch_s / len(games) * 1e3:8.3f} ms/position"
            f"  speed-up {serial_s / batch_s:4.2f}  util {engine.activity.utilization():4.2f}"
            f"  est {estimate:4.2f}  cpu est {cpu}  (solve_many: each worker solves whole"
            f" positions; nodes {serial_nodes:,} serial, {batch_nodes:,} batch)"
        )


def python_searches(pool: SearchPool, searches: tuple[tuple[str, int], ...]) -> None:
    print(f"{HEADER} {'cpu est':>7}")
    rows: list[tuple[float, float, float]] = []
    cpu_rows: list[tuple[float, float]] = []
    others = _OtherLoad(pool)
    for moves, depth in searches:
        game = Connect4.from_position(moves)
        limit = Limit(depth=depth)
        _pair(
            (moves, depth),
            partial(search, game, limit=limit),
            partial(search, game, limit=limit, pool=pool),
            pool,
            others,
            (rows, cpu_rows),
            exact=True,
        )
    print(f"{total(f'total {pool.workers}w', rows)} {_cpu_total(cpu_rows)}")
    print(others)


def _pair(
    label: tuple[str, int],
    serial: Callable[[], Any],
    parallel: Callable[[], Any],
    pool: SearchPool,
    others: _OtherLoad,
    totals: tuple[list[tuple[float, float, float]], list[tuple[float, float]]],
    *,
    exact: bool,
) -> None:
    """One row of sections 2 and 4: a serial search, then its parallel twin on ``pool``, with
    the CPU each used; an ``exact`` pair must agree on the value, else a difference is noted."""
    clock = time.process_time()
    one = serial()
    one_cpu = time.process_time() - clock
    before = _cpu_seconds(pool.pids)
    load = _OtherLoad.start()
    many = parallel()
    others.add(load, before)
    after = _cpu_seconds(pool.pids)
    name, depth = label
    if exact:
        assert one.value == many.value, name
    same = "" if one.value == many.value else f"  (parallel value {many.value})"
    one_run = (one.stats.time_s, one.stats.nodes)
    many_run = (many.stats.time_s, many.stats.nodes)
    text = row(name, str(depth), one.value, one_run, many_run, pool.activity)
    rows, cpu_rows = totals
    cpu = _cpu_estimate(one_cpu, many.stats.time_s, before, after, pool.activity, cpu_rows)
    print(f"{text} {cpu}{same}")
    estimate = _estimate(pool.activity, one.stats.nodes, many.stats.nodes)
    rows.append((one.stats.time_s, many.stats.time_s, estimate))
    nodes = ", ".join(f"{count:,}" for count in pool.activity.nodes)
    print(f"{'':<10} nodes per worker: {nodes}; tasks {pool.activity.tasks}")


def _cpu_estimate(
    serial_cpu: float,
    parallel_s: float,
    before: float | None,
    after: float | None,
    activity: Activity,
    rows: list[tuple[float, float]],
) -> str:
    """``cpu est`` (see the module docstring), added to ``rows`` for the total."""
    if before is None or after is None or after <= before or sum(activity.busy_s) <= 0:
        return f"{'-':>7}"
    dedicated = parallel_s * (after - before) / sum(activity.busy_s)
    rows.append((serial_cpu, dedicated))
    return f"{serial_cpu / dedicated:>7.2f}"


def _cpu_total(rows: list[tuple[float, float]]) -> str:
    if not rows:
        return f"{'-':>7}"
    return f"{sum(one for one, _ in rows) / sum(many for _, many in rows):>7.2f}"


def chess_fixed_depth(workers: int) -> None:
    """Chess at a fixed depth: the tactical engine serial against its split over ``workers``
    processes sharing one table (:mod:`zerosum.search.tactical_parallel`), with every selective
    technique on (null move and reductions make values order-dependent: a differing value is
    marked, not an error). ``cpu est`` (see the module docstring) also counts what a node costs
    in the workers."""
    with SearchPool(workers) as pool:
        print(f"{HEADER} {'cpu est':>7}")
        rows: list[tuple[float, float, float]] = []
        cpu_rows: list[tuple[float, float]] = []
        others = _OtherLoad(pool)
        for label, fen, depth in CHESS:
            _pair(
                (label, depth),
                partial(_chess, fen, depth, None),
                partial(_chess, fen, depth, pool),
                pool,
                others,
                (rows, cpu_rows),
                exact=False,
            )
        print(f"{total(f'total {workers}w', rows)} {_cpu_total(cpu_rows)}")
        print(others)


def _chess(position: str, depth: int, pool: SearchPool | None) -> Any:
    """The tactical engine's search of ``position`` to ``depth``, split over ``pool`` if any."""
    from zerosum.games.chess import Chess
    from zerosum.search.tactical import TacticalSearch
    from zerosum.search.tactical_parallel import ParallelTacticalSearch

    game = Chess.from_position(position)
    if pool is None:
        return TacticalSearch(game).search(Limit(depth=depth))
    return ParallelTacticalSearch(game, pool).search(Limit(depth=depth))


class _OtherLoad:
    """The CPU that other programs took while the parallel searches ran: the machine's busy
    time (``/proc/stat``) less what this process and the pool's workers used."""

    def __init__(self, pool: SearchPool) -> None:
        self.pool = pool
        self.other_s = self.wall_s = 0.0
        self.known = True

    @staticmethod
    def start() -> tuple[float | None, float, float]:
        return _machine_busy(), time.process_time(), time.perf_counter()

    def add(self, start: tuple[float | None, float, float], workers_before: float | None) -> None:
        machine, own, clock = start
        machine_now, workers_now = _machine_busy(), _cpu_seconds(self.pool.pids)
        if None in (machine, machine_now, workers_before, workers_now):
            self.known = False
            return
        assert machine is not None and machine_now is not None
        assert workers_before is not None and workers_now is not None
        ours = workers_now - workers_before + time.process_time() - own
        self.other_s += max(machine_now - machine - ours, 0.0)
        self.wall_s += time.perf_counter() - clock

    def __str__(self) -> str:
        if not self.known or self.wall_s <= 0:
            return f"{'':<10} (the load of other programs is not known here)"
        return (
            f"{'':<10} other programs used {self.other_s / self.wall_s:.2f} of the "
            f"{os.cpu_count()} cores on average during the parallel searches"
        )


def _machine_busy() -> float | None:
    """The CPU seconds every core of the machine spent busy so far (Linux; ``None``
    elsewhere): :func:`unit_trace.machine_cpu_seconds`, the readers the benchmarks share."""
    try:
        return machine_cpu_seconds()
    except (OSError, ValueError):
        return None


def _cpu_seconds(pids: list[int]) -> float | None:
    """The CPU seconds the processes ``pids`` used so far, with the children each waited for
    (:func:`unit_trace.cpu_seconds`); ``None`` if one of them cannot be read (gone, or no
    ``/proc``)."""
    if not all(Path(f"/proc/{pid}/stat").exists() for pid in pids):
        return None
    return sum(cpu_seconds(pid) for pid in pids)


def simulated_root_splitting(hash_mb: float, positions: tuple[str, ...]) -> None:
    """Section 5 (see the module docstring)."""
    solver = Solver("connect4", hash_mb=hash_mb)
    engine, kernel = solver.engine, solver.compiled.kernel
    counts = (1, 2, 3, 4, 8)
    print(
        f"{'position':<10} {'tests':>5} {'nodes':>12} {'largest move':>12}  "
        + " ".join(f"{f'{w} workers':>9}" for w in counts)
    )
    for moves in positions:
        engine.clear()
        state = solver.state(Connect4.from_position(moves))
        kernel.decided(state)
        children = [engine.state(child) for _, child in ParallelEngine._moves_of(kernel, state)]
        lo, hi = (int(end) for end in kernel.rank_range(state))
        tests: list[tuple[list[int], int | None]] = []  # node counts, refuting move
        while lo < hi:
            middle = int(next_test(lo, hi))
            alpha, beta = int(score_of_rank(middle)), int(score_of_rank(middle + 1))
            costs, refuter, best = [], None, -(1 << 40)
            for index, child in enumerate(children):
                found = engine.search(child, DEPTH_INF, alpha=-beta, beta=-alpha)
                costs.append(found.stats.nodes)
                best = max(best, -found.score)
                if best >= beta:
                    refuter = index
                    break
            tests.append((costs, refuter))
            lo, hi = (int(end) for end in narrowed(lo, hi, middle, best))
        total_nodes = sum(sum(costs) for costs, _ in tests)
        largest = max(max(costs) for costs, _ in tests) / total_nodes
        speedups = []
        for workers in counts:
            length = sum(_schedule(costs, refuter, workers) for costs, refuter in tests)
            speedups.append(total_nodes / length)
        print(
            f"{moves:<10} {len(tests):>5} {total_nodes:>12,} {largest:>12.0%}  "
            + " ".join(f"{speedup:>9.2f}" for speedup in speedups)
        )


def _schedule(costs: list[int], refuter: int | None, workers: int) -> int:
    """The length of one null-window test on ``workers`` workers: the moves start in order
    on the first free worker; the test ends when the refuting move (if any) ends, else when
    the last one does."""
    free = [0] * workers
    ends = []
    for cost in costs:
        start = min(free)
        slot = free.index(start)
        free[slot] = start + cost
        ends.append(start + cost)
    return ends[refuter] if refuter is not None else max(ends)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--hash", type=float, default=64.0, help="table size in MB")
    parser.add_argument("--sample", type=int, default=1000, help="Test_L1_R1 positions")
    parser.add_argument("--quick", action="store_true", help="fewer and shorter searches")
    parser.add_argument(
        "--sections", default="012345", help="which sections to run, e.g. 05 (default all)"
    )
    args = parser.parse_args()
    print(f"$ {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    print(
        f"{os.cpu_count()} cores; {args.workers} workers; {args.hash:g} MB table per solve; "
        f"load average {os.getloadavg()[0]:.2f} at the start"
    )
    hard = HARD[1:3] if args.quick else HARD
    python = tuple((moves, depth - 2) for moves, depth in PYTHON) if args.quick else PYTHON

    if "0" in args.sections:
        print("\n== 0. what the machine allows now ==")
        machine_allows(args.workers)
    if "1" in args.sections:
        print("\n== 1. compiled exact solves, connect four ==")
        compiled_solves(args.workers, args.hash, hard)
        compiled_sample(args.workers, args.hash, args.sample)
    if "2" in args.sections:
        print("\n== 2. pure-Python engine at a fixed depth, connect four ==")
        with SearchPool(args.workers) as pool:
            python_searches(pool, python)
    if "3" in args.sections:
        print("\n== 3. more workers than cores ==")
        for workers in (3, 4):
            with SearchPool(workers) as pool:
                python_searches(pool, python)
            compiled_solves(workers, args.hash, SCALING_COMPILED)
            compiled_sample(workers, args.hash, args.sample)
    if "4" in args.sections:
        print("\n== 4. chess at a fixed depth ==")
        chess_fixed_depth(args.workers)
    if "5" in args.sections:
        print("\n== 5. simulated root splitting of the compiled exact solves (node counts) ==")
        simulated_root_splitting(args.hash, hard)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
