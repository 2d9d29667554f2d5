"""Where the time of a cluster solve goes: a command's parts, timed one by one.

Starts a one-node cluster (or two nodes with ``--nodes 2``) as ``tests/ray_nodes.py`` does, then
solves each position as a fresh process in a session of its own (as ``ray_two_nodes.py`` runs
``zerosum solve --cluster``: the same :func:`~zerosum.compiled.distributed.solve_distributed`
call, moves ``best``, the default split and unit budget), with every unit wrapped in a timer.
It prints, per solve, where the command's seconds went:

* ``import``: this process's imports (zerosum, numba, the solver's modules; Python's own start
  is not counted); ``connect``: joining the cluster (``open_executor``); ``close``: leaving it;
* ``before``: from the solve's start to its first unit (the coordinator loads the compiled
  kernel and builds the unit tree);
* ``start``: the first unit of each worker, from its submission to its start (Ray's lease, the
  worker process's start, the import of zerosum there); ``setup``: the worker's solver (the
  compiled code from numba's cache, the table) in its first unit;
* ``search``: the compiled search of every unit (``UnitAnswer.seconds``); ``tables``: the rest
  of the units' time in the workers (loading tables sent with them, choosing the snapshot they
  send back, a stopped unit's bounds);
* ``trips``: every other unit's way to its worker and back (submission to start, end to the
  coordinator's taking it); ``gaps``: the coordinator between a result and the next unit (its
  tree, the store), summed over the worker's idle time; ``after``: from the last result to the
  answer;
* ``cores``: the CPU seconds of the units' processes over the units' span (how much of a core
  the workers got: the machine is shared).

The units run where ``solve --cluster`` runs them: on the cluster's pool workers, kept
``--keep-workers`` seconds between commands (``0``: each command's own Ray tasks), so the
first solve on a new cluster pays for their start and the next ones find them loaded.

With one worker the parts but ``cores`` add up to the command's time (less Python's start);
with two, the units' parts are summed over both workers.

Run from the repository root (Ray installed)::

    .venv/bin/python benchmarks/ray_costs.py [--positions 44534 44533 44536] [--nodes 1]
        [--keep-workers S]
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402  (after the clock: the imports are timed)
import importlib  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from collections import Counter  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Final  # noqa: E402

from zerosum.cli.solve_cluster import KEEP_WORKERS_S  # noqa: E402
from zerosum.compiled import DEFAULT_HASH_MB  # noqa: E402
from zerosum.compiled.distributed import (  # noqa: E402
    Budget,
    UnitAnswer,
    _unit_solver,
    solve_distributed,
    solve_unit,
)
from zerosum.games import get_game  # noqa: E402
from zerosum.runtime.cluster import open_executor  # noqa: E402
from zerosum.search import Limit  # noqa: E402
from zerosum.store import Store  # noqa: E402

IMPORTED = time.perf_counter() - STARTED
UNIT_NODES = 20_000_000  # solve --unit-nodes's default


@dataclass(frozen=True)
class Timed(UnitAnswer):
    """A unit's answer with its times in the worker (wall clock: one machine) and where its
    CPU went (:func:`timed_unit`)."""

    began: float = 0.0
    ended: float = 0.0
    setup: float = 0.0
    pid: int = 0
    cpu: float = 0.0
    parts: tuple[tuple[str, float], ...] = ()


CPU_PARTS: Final = ("fetch", "load", "snapshot", "bounds")
"""The parts of a unit's own thread's CPU that :func:`timed_unit` times: the tables read from
Ray's object store (``fetch``), put into the table (``load``), chosen to be sent back
(``snapshot``), and a stopped unit's bounds (``bounds``)."""


def _timed(costs: dict[str, float], part: str, function: Any) -> Any:
    def timed(*args: Any, **keywords: Any) -> Any:
        began = time.thread_time()
        try:
            return function(*args, **keywords)
        finally:
            costs[part] += time.thread_time() - began
            costs[f"{part} n"] += 1

    return timed


def timed_unit(*args: Any) -> Timed:
    """:func:`solve_unit` with its start, end and the worker's solver set-up timed, and its
    CPU seconds by part (``parts``): each of :data:`CPU_PARTS` (this thread's CPU in it),
    ``unit rest`` (the rest of this thread's: the stop board's and the window's checks, the
    search's start), ``search`` (the process's CPU in the unit less this thread's: the
    search's thread, with Ray's own threads meanwhile)."""
    distributed = importlib.import_module("zerosum.compiled.distributed")
    raybase = importlib.import_module("zerosum.runtime.raybase")
    began, cpu = time.time(), time.process_time()
    setup = 0.0
    if _unit_solver.cache_info().currsize == 0:  # the worker's first unit
        _unit_solver(args[0], args[4])
        setup = time.time() - began
    costs = dict.fromkeys(CPU_PARTS, 0.0) | dict.fromkeys((f"{p} n" for p in CPU_PARTS), 0.0)
    saved = (
        distributed.load_snapshot,
        distributed.snapshot,
        distributed.table_bounds,
        raybase._RayShared.get,
    )
    distributed.load_snapshot = _timed(costs, "load", saved[0])
    distributed.snapshot = _timed(costs, "snapshot", saved[1])
    distributed.table_bounds = _timed(costs, "bounds", saved[2])
    raybase._RayShared.get = _timed(costs, "fetch", saved[3])
    thread = time.thread_time()
    try:
        answer = solve_unit(*args)
    finally:
        thread = time.thread_time() - thread
        (
            distributed.load_snapshot,
            distributed.snapshot,
            distributed.table_bounds,
            raybase._RayShared.get,
        ) = saved
    fields = (answer.rank, answer.nodes, answer.seconds, answer.bounds, answer.table, answer.proven)
    cpu = time.process_time() - cpu
    timed = sum(costs[part] for part in CPU_PARTS)
    parts = {**costs, "unit rest": thread - timed, "search": cpu - thread}
    return Timed(
        *fields,
        began=began,
        ended=time.time(),
        setup=setup,
        pid=os.getpid(),
        cpu=cpu,
        parts=tuple(parts.items()),
    )


def child(address: str, position: str, root_tests: int, keep_s: float) -> None:
    """One solve in this process; prints its parts as JSON."""
    started = time.perf_counter()
    executor = open_executor(address, keep_s=keep_s)
    connect = time.perf_counter() - started
    sent: dict[Any, float] = {}
    taken: dict[Any, float] = {}
    submit, wait = executor.submit, executor.wait

    def timed_submit(fn: Any, /, *args: Any) -> Any:
        future = submit(timed_unit, *args)
        sent[future] = time.time()
        return future

    def timed_wait(futures: Any, timeout: float) -> Any:
        done = wait(futures, timeout)
        for future in done:
            taken.setdefault(future, time.time())
        return done

    executor.submit = timed_submit  # type: ignore[method-assign]
    executor.wait = timed_wait  # type: ignore[method-assign]
    game = get_game("connect4").from_position(position)
    solve_start = time.time()
    with Store(":memory:") as store:
        found = solve_distributed(
            game,
            executor=executor,
            store=store,
            hash_mb=DEFAULT_HASH_MB,
            moves="best",
            budget=Budget(nodes=UNIT_NODES),
            limit=Limit(),
            root_tests=root_tests > 0,
            tests_at_once=max(root_tests, 1),
        )
    solve_end = time.time()
    started = time.perf_counter()
    executor.close()
    close = time.perf_counter() - started
    units = []
    for future, at in sent.items():
        if future.done() and not future.cancelled():
            answer = future.result()
            back = taken.get(future, answer.ended)
            times = [at, answer.began, answer.ended, back, answer.seconds, answer.setup]
            units.append([*times, answer.pid, answer.nodes, answer.cpu, dict(answer.parts)])
    report = {
        "import": IMPORTED,
        "connect": connect,
        "close": close,
        "solve": solve_end - solve_start,
        "solve_start": solve_start,
        "solve_end": solve_end,
        "units": units,
        "cancelled": sum(future.cancelled() for future in sent),
        "nodes": found.nodes,
        "rank": found.rank,
        "best": [game.format_move(move) for move in found.best_moves],
    }
    print(json.dumps(report))


def parts(report: dict[str, Any]) -> dict[str, float]:
    """The command's seconds by part (see the module docstring)."""
    units = sorted(report["units"])
    first: dict[int, list[float]] = {}
    for unit in units:
        first.setdefault(unit[6], unit)
    firsts = [id(unit) for unit in first.values()]
    out = {key: report[key] for key in ("import", "connect", "close")}
    out["before"] = units[0][0] - report["solve_start"] if units else report["solve"]
    out["start"] = sum(unit[1] - unit[0] for unit in first.values())
    out["setup"] = sum(unit[5] for unit in units)
    out["search"] = sum(unit[4] for unit in units)
    out["tables"] = sum(unit[2] - unit[1] - unit[4] - unit[5] for unit in units)
    out["trips"] = sum(
        (unit[1] - unit[0] if id(unit) not in firsts else 0.0) + (unit[3] - unit[2])
        for unit in units
    )
    gaps = 0.0
    for pid in first:
        mine = [unit for unit in units if unit[6] == pid]
        gaps += sum(max(b[0] - a[3], 0.0) for a, b in itertools.pairwise(mine))
    out["gaps"] = gaps
    out["after"] = report["solve_end"] - max((unit[3] for unit in units), default=0.0)
    span = max((unit[3] for unit in units), default=0.0) - units[0][0] if units else 0.0
    out["cores"] = sum(unit[8] for unit in units) / span if span > 0 else 0.0
    return out


POOL_WORKER: Final = "ray::PoolWorker"
"""A pool worker's process (:func:`ray_two_nodes.process_kind`)."""


def cpu_parts(report: dict[str, Any], kinds: list[dict[str, float]]) -> dict[str, float]:
    """Where the nodes' CPU went in one command, CPU seconds summed over the nodes: the units'
    parts (:func:`timed_unit`), ``worker outside units`` (the pool workers' processes less
    their units: Ray's calls, their arguments' and answers' (de)serialisation, the warm-up),
    and the nodes' other processes by kind (:class:`ray_two_nodes.NodeSampler`)."""
    spent: Counter[str] = Counter()
    for unit in report["units"]:
        spent.update({part: seconds for part, seconds in unit[9].items() if " n" not in part})
    units_cpu = sum(unit[8] for unit in report["units"])
    others: Counter[str] = Counter()
    for node in kinds:
        others.update(node)
    spent["worker outside units"] = others.pop(POOL_WORKER, 0.0) - units_cpu
    spent.update(others)
    return dict(spent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", nargs="+", default=["44534", "44533", "44536"])
    parser.add_argument("--nodes", type=int, choices=(1, 2), default=1)
    parser.add_argument("--root-tests", type=int, default=0, metavar="K")
    parser.add_argument(
        "--keep-workers",
        type=float,
        default=KEEP_WORKERS_S,
        metavar="S",
        help="as solve --keep-workers: pool workers kept S seconds (0: the command's Ray tasks)",
    )
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child, args.root_tests, args.keep_workers)
        return
    print(f"command: {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from ray_two_nodes import NodeSampler, OneNode, TwoNodes

    cluster = (OneNode if args.nodes == 1 else TwoNodes)()
    names = ["import", "connect", "before", "start", "setup", "search", "tables", "trips"]
    names += ["gaps", "after", "close", "cores"]
    try:
        print(
            f"{'position':>8} {'load':>4} {'time s':>6} "
            + " ".join(f"{name:>7}" for name in names)
            + f" {'units':>5} {'nodes':>11}"
        )
        for position in args.positions:
            load = os.getloadavg()[0]
            begun = time.perf_counter()
            command = [sys.executable, __file__, "--child", cluster.address, position]
            command += ["--root-tests", str(args.root_tests)]
            with NodeSampler(cluster) as sampler:
                done = subprocess.run(
                    [*command, "--keep-workers", str(args.keep_workers)],
                    capture_output=True,
                    text=True,
                    env=cluster.env,
                    check=False,
                    start_new_session=True,
                )
            spent = time.perf_counter() - begun
            if done.returncode != 0:
                raise RuntimeError(f"the solve of {position} failed:\n{done.stderr[-2000:]}")
            report = json.loads(done.stdout.splitlines()[-1])
            split = parts(report)
            print(
                f"{position:>8} {load:>4.1f} {spent:>6.2f} "
                + " ".join(f"{split[name]:>7.2f}" for name in names)
                + f" {len(report['units']):>5} {report['nodes']:>11,}"
                + f"  score {report['rank']} best {' '.join(report['best'])}"
            )
            cpu = cpu_parts(report, sampler.kinds())
            counts: Counter[str] = Counter()
            for unit in report["units"]:
                counts.update({part: n for part, n in unit[9].items() if part.endswith(" n")})
            print(
                f"{'':>8} nodes' CPU s {sum(cpu.values()):.2f}, "
                f"{report['nodes'] / sum(cpu.values()) / 1e6:.2f} M/cpu s: "
                + ", ".join(f"{part} {seconds:.2f}" for part, seconds in cpu.items())
                + "; calls: "
                + ", ".join(f"{part[:-2]} {n:.0f}" for part, n in counts.items())
            )
    finally:
        cluster.close()


if __name__ == "__main__":
    main()
