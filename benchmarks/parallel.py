"""Speed-up of parallel exact solves (worker processes sharing one table) over serial ones.

Solves the same connect four positions serially (one process) and with ``--workers`` worker
processes (lazy SMP, :mod:`zerosum.compiled.parallel`), in one run, and prints time, nodes and
the speed-up per position and in total. Each solve gets a fresh table of the same size; worker
start-up is timed separately and left out of the speed-up. The target of the parallel issue is a
speed-up of at least 1.6 on 2 cores.

Run from the repository root::

    .venv/bin/python benchmarks/parallel.py [--workers N] [--hash MB] [--sample N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "connect4"
HARD = ("4453", "44534", "4453444", "445344", "3344")
"""Positions that take seconds: where parallel search can pay for its overhead."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--hash", type=float, default=64.0, help="table size in MB")
    parser.add_argument("--sample", type=int, default=100, help="Test_L1_R1 positions")
    args = parser.parse_args()
    print(f"$ {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    print(f"{os.cpu_count()} cores; {args.workers} workers; {args.hash:g} MB table per solve\n")

    started = time.perf_counter()
    parallel = Solver("connect4", hash_mb=args.hash, workers=args.workers)
    print(f"worker start-up: {time.perf_counter() - started:.2f} s (once, not in the figures)\n")
    serial = Solver("connect4", hash_mb=args.hash)
    serial.solve(Connect4.from_position(HARD[0] + "444"))  # load the compiled code

    header = f"{'position':<10} {'score':>5} {'serial s':>9} {'nodes':>12} {'parallel s':>10}"
    print(header + f" {'nodes':>12} {'speed-up':>8}")
    totals = [0.0, 0.0]
    for moves in HARD:
        game = Connect4.from_position(moves)
        serial.engine.clear()
        one = serial.solve(game)
        parallel.exact.table[:] = 0  # type: ignore[union-attr]  # a fresh shared table
        many = parallel.solve(game)
        assert one.rank == many.rank, moves
        totals[0] += one.stats.time_s
        totals[1] += many.stats.time_s
        print(
            f"{moves:<10} {one.rank:>5} {one.stats.time_s:>9.2f} {one.stats.nodes:>12,} "
            f"{many.stats.time_s:>10.2f} {many.stats.nodes:>12,} "
            f"{one.stats.time_s / many.stats.time_s:>8.2f}"
        )
    print(
        f"{'total':<10} {'':>5} {totals[0]:>9.2f} {'':>12} {totals[1]:>10.2f} {'':>12} "
        f"{totals[0] / totals[1]:>8.2f}"
    )

    lines = (DATA / "Test_L1_R1").read_text().split("\n")[: args.sample]
    games = [Connect4.from_position(line.split()[0]) for line in lines if line]
    for label, solver in (("serial", serial), (f"{args.workers} workers", parallel)):
        clock = time.perf_counter()
        for game in games:
            solver.solve(game)
        seconds = time.perf_counter() - clock
        print(
            f"Test_L1_R1[:{len(games)}] {label:<10} {seconds / len(games) * 1e3:8.3f} ms/position"
        )
    print("(the easy set shows the cost of handing each small solve to the workers)")
    parallel.close()


if __name__ == "__main__":
    main()
