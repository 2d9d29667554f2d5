"""How far a distributed solve would scale: a real run's units replayed on N simulated nodes.

1. A real run. ``solve_distributed`` solves the position (best moves included, as ``solve
   --cluster`` does) over ``--workers`` local processes, each unit's nodes and seconds recorded
   as it comes back (``solve_unit`` reports both), with the window it was solved in.
2. The replay. The same ``solve_distributed`` runs again, on a simulated executor of N
   workers (one CPU per node: N nodes) with a clock of its own: a unit starts when a worker is
   free and ends its recorded seconds later (plus ``--overhead-ms`` for sending it and taking
   its answer), results come back in the order of that clock, and they prune the units still
   to send exactly as in a real run. A cancelled unit keeps its worker until it ends (as on
   Ray, where ``ray.cancel`` is not used). A unit the real run never solved in that window is
   solved here, serially, and its own time used (``new`` counts those).
3. What limits it. ``T1`` is the replay on one worker; the speed-up on N is ``T1 / TN``. No
   schedule beats the longest unit (``speed-up <= T1 / longest``), nor runs more units at once
   than the split gives (``units``: the positions ``--split`` plies down); the replay also
   shows the order effect: results that prune arrive later on fewer workers, so more units are
   sent with many workers (``sent``) and some work is wasted (``cancelled``).

The replay's N = ``--workers`` row next to the real run's time checks the model on this
machine (a loaded machine makes the real time longer than the replay's).

Run from the repository root::

    .venv/bin/python benchmarks/ray_scale.py [--moves 3216462] [--split 2 3]
        [--nodes 2 8 32 128] [--workers 2] [--overhead-ms 5]
"""

from __future__ import annotations

import argparse
import heapq
import os
import sys
import time
from collections.abc import Callable, Collection
from concurrent.futures import Future
from typing import Any

from zerosum.compiled.distributed import solve_distributed, solve_unit
from zerosum.games.connect4 import Connect4
from zerosum.runtime import Executor, ProcessExecutor
from zerosum.store import Store

Key = tuple[str, tuple[int, int]]
"""A unit as solved: its position and its window."""
Answer = tuple[int, int, float]
"""What ``solve_unit`` answers: rank (or bound), nodes, seconds."""


class Recording(Executor):
    """An executor that passes units on and keeps each unit's answer by (position, window)."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.workers = inner.workers
        self.answers: dict[Key, Answer] = {}

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        future = self.inner.submit(fn, *args)
        key = (args[1], args[2])

        def keep(done: Future[Any]) -> None:
            if not done.cancelled() and done.exception() is None:
                self.answers[key] = done.result()

        future.add_done_callback(keep)
        return future

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        return self.inner.wait(futures, timeout)

    def cancel(self, future: Future[Any]) -> None:
        self.inner.cancel(future)

    def close(self) -> None:
        self.inner.close()


class Simulated(Executor):
    """``workers`` simulated workers and a clock (see the module docstring, step 2)."""

    def __init__(self, workers: int, answers: dict[Key, Answer], overhead_s: float) -> None:
        self.workers = workers
        self.answers = answers
        self.overhead_s = overhead_s
        self.now = 0.0
        self.free = [0.0] * workers  # when each worker comes free
        self.ending: list[tuple[float, int, Future[Any], Answer]] = []
        self.count = 0
        self.new = 0
        self.longest = 0.0
        self.busy = 0.0

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        key = (args[1], args[2])
        if key not in self.answers:  # a unit the real run did not solve in this window
            self.answers[key] = solve_unit(*args)
            self.new += 1
        answer = self.answers[key]
        cost = answer[2] + self.overhead_s
        worker = min(range(self.workers), key=self.free.__getitem__)
        start = max(self.now, self.free[worker])
        self.free[worker] = start + cost
        self.longest = max(self.longest, cost)
        self.busy += cost
        future: Future[Any] = Future()
        future.set_running_or_notify_cancel()
        self.count += 1
        heapq.heappush(self.ending, (start + cost, self.count, future, answer))
        return future

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        done = {future for future in futures if future.done()}
        while not done and self.ending:
            end, _, future, answer = heapq.heappop(self.ending)
            self.now = max(self.now, end)
            if not future.cancelled():
                future.set_result(answer)
            done = {f for f in futures if f.done()}
        return done

    def cancel(self, future: Future[Any]) -> None:
        future.cancel()  # its worker stays busy until the unit ends

    def close(self) -> None:
        pass


def replay(
    moves: str, split: int, workers: int, answers: dict[Key, Answer], overhead_s: float
) -> tuple[float, Simulated, Any]:
    """The simulated time of the solve on ``workers`` workers, the executor, the result."""
    simulated = Simulated(workers, answers, overhead_s)
    with Store(":memory:") as store:
        found = solve_distributed(
            Connect4.from_position(moves),
            executor=simulated,
            store=store,
            split=split,
            moves="best",
        )
    return max(simulated.now, max(simulated.free)), simulated, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", default="3216462", help="connect four position")
    parser.add_argument("--split", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--nodes", type=int, nargs="+", default=[2, 8, 32, 128])
    parser.add_argument("--workers", type=int, default=2, help="processes of the real run")
    parser.add_argument("--overhead-ms", type=float, default=5.0, help="per unit, simulated")
    args = parser.parse_args()
    overhead_s = args.overhead_ms / 1000
    print(f"command: {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for split in args.split:
        # Step 1. The real run.
        with ProcessExecutor(args.workers) as pool, Store(":memory:") as store:
            recording = Recording(pool)
            started = time.perf_counter()
            real = solve_distributed(
                Connect4.from_position(args.moves),
                executor=recording,
                store=store,
                split=split,
                moves="best",
            )
            wall = time.perf_counter() - started
        answers = recording.answers
        unit_s = sorted((answer[2] for answer in answers.values()), reverse=True)
        print(
            f"\n{args.moves} split {split}: score {real.rank}, {real.units} units, "
            f"{len(answers)} solved in the real run on {args.workers} processes in {wall:.2f} s "
            f"(units {sum(unit_s):.2f} s of work, {real.nodes:,} nodes; longest "
            f"{unit_s[0]:.3f} s, median {unit_s[len(unit_s) // 2]:.4f} s)"
        )
        # Step 2. The replays.
        one, base, _ = replay(args.moves, split, 1, answers, overhead_s)
        print(f"  {'N':>4} {'time s':>8} {'speed-up':>8} {'bound':>6} {'sent':>5} {'new':>4}")
        print(f"  {1:>4} {one:>8.3f} {1:>8.2f} {1:>6.1f} {base.count:>5} {base.new:>4}")
        for nodes in sorted({args.workers, *args.nodes}):
            took, simulated, found = replay(args.moves, split, nodes, answers, overhead_s)
            assert found.rank == real.rank and found.best_moves == real.best_moves
            bound = min(nodes, one / simulated.longest, real.units)
            mark = "  <- the real run's workers" if nodes == args.workers else ""
            print(
                f"  {nodes:>4} {took:>8.3f} {one / took:>8.2f} {bound:>6.1f} "
                f"{simulated.count:>5} {simulated.new:>4}{mark}"
            )
        # Step 3. What limits it.
        print(
            f"  limits: the longest unit ({unit_s[0]:.3f} s) caps the speed-up at "
            f"{one / unit_s[0]:.1f}; the split gives {real.units} units"
        )
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
