"""Every work unit of a distributed solve on local worker processes, one line each.

``solve_distributed`` runs on a ``ProcessExecutor`` of ``--workers`` processes as ``solve
--cluster local`` runs it (split 2, ``--unit-nodes`` budget, best moves, 64 MB tables), through
an executor that notes, for each unit, when it was sent and when its answer was taken (seconds
from the start), its position, the window it was sent in and the windows it was told while it
ran, its answer (the rank, or ``None`` for a unit stopped), its nodes, and the seconds its
search took in the worker. The summary adds what the lines say together:

* ``idle``: the worker-seconds with no unit running, over the span from the first unit sent to
  the last answer taken (a split happens only when a worker would idle);
* ``outside``: the worker-seconds from sending the units to taking their answers less their
  search seconds (sending, loading tables, making snapshots, the coordinator's turn);
* ``cpu``: the CPU seconds the solve took (from ``/proc``, Linux), over the whole
  ``solve_distributed`` call (``wall_s``): each worker process's (``workers_cpu_s``), the
  coordinator's (this process, ``coordinator_cpu_s``) and the rest of the machine's
  (``others_cpu_s``: other sessions' work); ``nodes_per_cpu_s``, the nodes over the workers'
  CPU seconds, says whether a worker searches slower beside another (the memory both use)
  or only gets less of a CPU (``workers_cpu_s`` over ``wall_s``).

Run from the repository root::

    .venv/bin/python benchmarks/unit_trace.py 44534 [--workers 2] [--unit-nodes N]
        [--json FILE] [--option young_wait=1 ...]

``--compare ONE.json TWO.json`` (two ``--json`` files of one position: one worker's, then two
workers') says where the second run's extra nodes went, position by position of the unit tree,
each under the first that fits:

* ``not in ONE``: a position the first run never searched (a younger brother sent beside an
  eldest that refuted their parent, say);
* ``not in TWO``: a position only the first run searched (its nodes count as fewer);
* ``stopped``: a position with a run of the second stopped while it ran: cancelled (its nodes
  lost, but for its table), preempted, or split for its budget (its children are positions of
  their own);
* ``other windows``: searched in other windows than the first run's (a brother in the whole
  window beside its eldest, a test at a guarantee that a brother set before its eldest);
* ``same windows``: in the same windows: the difference is the table it started from.

``--option NAME=VALUE`` passes a keyword of ``solve_distributed`` (a number: with a point a
float, else an integer, 0 and 1 for False and True), for comparisons; not one of those this
tool passes itself (``budget``, ``moves``, ``hash_mb``, ...).
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import os
import time
from collections.abc import Collection
from concurrent.futures import Future
from typing import Any, Final

from zerosum.compiled.distributed import Budget, solve_distributed, solve_unit
from zerosum.games import get_game
from zerosum.runtime.executor import ProcessExecutor
from zerosum.store import Store


class Traced(ProcessExecutor):
    """A ``ProcessExecutor`` that notes every unit (see the module docstring)."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.start = time.perf_counter()
        self.units: dict[Future[Any], dict[str, Any]] = {}
        self.log: list[dict[str, Any]] = []

    def cpu(self) -> dict[str, Any]:
        """The CPU seconds taken so far by the workers, this process and the machine, and the
        wall clock (for :func:`cpu_use`)."""
        return {
            "workers": [
                cpu_seconds(process.pid) for process in self.processes if process.pid is not None
            ],
            "coordinator": time.process_time(),
            "machine": machine_cpu_seconds(),
            "wall": time.perf_counter(),
        }

    def _now(self) -> float:
        return round(time.perf_counter() - self.start, 3)

    def submit(self, fn: Any, /, *args: Any) -> Future[Any]:
        future = super().submit(fn, *args)
        if fn is solve_unit:
            self.units[future] = {"position": args[1], "window": list(args[2]), "sent": self._now()}
        return future

    def narrow(self, future: Future[Any], window: tuple[int, int]) -> bool:
        told = super().narrow(future, window)
        if told and future in self.units:
            self.units[future].setdefault("told", []).append([self._now(), list(window)])
        return told

    def split(self, future: Future[Any]) -> bool:
        if future in self.units:
            self.units[future]["split"] = self._now()
        return super().split(future)

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        done = super().wait(futures, timeout)
        for future in done:
            unit = self.units.pop(future, None)
            if unit is None:
                continue
            unit["answered"] = self._now()
            if not future.cancelled():
                answer = future.result()
                unit.update(rank=answer.rank, nodes=answer.nodes, search_s=answer.seconds)
            self.log.append(unit)
        return done


def cpu_seconds(pid: int, *, children: bool = True) -> float:
    """The CPU seconds (user and system) process ``pid`` has taken so far (Linux: fields 14 and
    15 of ``/proc/PID/stat``), with its children that have ended and been waited for (fields 16
    and 17; not with ``children=False``); 0 for a process that is gone. A child that ends
    unwaited, or a process that ends between two readings, is not counted: the figure is a
    lower bound."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            fields = file.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    used = fields[11:15] if children else fields[11:13]
    return sum(int(field) for field in used) / os.sysconf("SC_CLK_TCK")


def machine_cpu_seconds() -> float:
    """The CPU seconds every process of the machine has taken so far (``/proc/stat``: user,
    nice, system, irq and softirq over all CPUs; not steal, the hypervisor's)."""
    with open("/proc/stat") as file:
        fields = file.readline().split()
    user, nice, system, _idle, _iowait, irq, softirq = map(int, fields[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def cpu_use(before: dict[str, Any], after: dict[str, Any], nodes: int) -> dict[str, Any]:
    """What ``cpu`` in the module docstring says, from two readings of :meth:`Traced.cpu`."""
    workers = [round(b - a, 2) for a, b in zip(before["workers"], after["workers"], strict=True)]
    coordinator = after["coordinator"] - before["coordinator"]
    machine = after["machine"] - before["machine"]
    wall = after["wall"] - before["wall"]
    return {
        "wall_s": round(wall, 3),
        "workers_cpu_s": workers,
        "coordinator_cpu_s": round(coordinator, 2),
        "others_cpu_s": round(max(0.0, machine - sum(workers) - coordinator), 2),
        "nodes_per_cpu_s": round(nodes / sum(workers)) if sum(workers) > 0 else 0,
    }


def summary(log: list[dict[str, Any]], workers: int) -> dict[str, float]:
    """The span, idle and outside worker-seconds of ``log`` (see the module docstring)."""
    if not log:
        return {"span_s": 0.0, "idle_s": 0.0, "outside_s": 0.0}
    times = sorted({t for unit in log for t in (unit["sent"], unit["answered"])})
    idle = 0.0
    for begin, end in itertools.pairwise(times):
        middle = (begin + end) / 2
        running = sum(1 for unit in log if unit["sent"] <= middle < unit["answered"])
        idle += max(0, workers - running) * (end - begin)
    busy = sum(unit["answered"] - unit["sent"] for unit in log)
    search = sum(unit.get("search_s", 0.0) for unit in log)
    return {
        "span_s": round(times[-1] - times[0], 3),
        "idle_s": round(idle, 3),
        "outside_s": round(busy - search, 3),
    }


NOT_IN_ONE: Final = "not in ONE"
NOT_IN_TWO: Final = "not in TWO"
STOPPED: Final = "stopped"
OTHER_WINDOWS: Final = "other windows"
SAME_WINDOWS: Final = "same windows"
KINDS: Final = (NOT_IN_ONE, NOT_IN_TWO, STOPPED, OTHER_WINDOWS, SAME_WINDOWS)
"""Where a position's extra nodes go (see the module docstring), the first that fits."""
PASSED: Final = ("game", "executor", "store", "hash_mb", "moves", "budget")
"""The keywords of ``solve_distributed`` that this tool passes itself."""


def compare(one: list[dict[str, Any]], two: list[dict[str, Any]]) -> dict[str, Any]:
    """Where the units ``two`` searched more nodes than ``one`` (see the module docstring):
    the extra nodes of each kind, and each position's runs, the largest difference first."""
    runs: list[dict[str, list[dict[str, Any]]]] = [{}, {}]
    for log, by in zip((one, two), runs, strict=True):
        for unit in sorted(log, key=lambda unit: unit["sent"]):
            by.setdefault(unit["position"], []).append(unit)
    kinds = dict.fromkeys(KINDS, 0)
    rows = []
    for position in sorted(runs[0].keys() | runs[1].keys()):
        first, second = runs[0].get(position, []), runs[1].get(position, [])
        nodes = [sum(unit.get("nodes", 0) for unit in units) for units in (first, second)]
        windows = [[unit["window"] for unit in units] for units in (first, second)]
        if not first:
            kind = NOT_IN_ONE
        elif not second:
            kind = NOT_IN_TWO
        elif any(unit.get("rank") is None for unit in second):
            kind = STOPPED
        elif windows[0] != windows[1]:
            kind = OTHER_WINDOWS
        else:
            kind = SAME_WINDOWS
        kinds[kind] += nodes[1] - nodes[0]
        rows.append({"position": position, "kind": kind, "nodes": nodes, "windows": windows})
    rows.sort(key=lambda row: row["nodes"][0] - row["nodes"][1])
    return {"extra": kinds, "positions": rows}


def options(items: list[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` items as keywords of ``solve_distributed``; a ValueError names
    what is wrong with one."""
    keywords = inspect.signature(solve_distributed).parameters
    found: dict[str, Any] = {}
    for item in items:
        name, equals, value = item.partition("=")
        if not equals:
            raise ValueError(f"--option {item!r}: expected NAME=VALUE")
        if name not in keywords:
            raise ValueError(f"--option {item!r}: {name!r} is not a keyword of solve_distributed")
        if name in PASSED:
            raise ValueError(f"--option {item!r}: unit_trace.py sets {name!r} itself")
        try:
            found[name] = float(value) if "." in value else int(value)
        except ValueError:
            raise ValueError(f"--option {item!r}: {value!r} is not a number") from None
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("position", nargs="?", help="connect four moves, e.g. 44534")
    parser.add_argument("--compare", nargs=2, metavar=("ONE", "TWO"), help="two --json files")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--unit-nodes", type=int, default=20_000_000, help="0: never split")
    parser.add_argument("--json", help="write the summary and every unit here")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a keyword of solve_distributed (a number; 0/1 for False/True)",
    )
    args = parser.parse_args()
    if args.compare:
        logs = []
        for name in args.compare:
            try:
                with open(name) as file:
                    logs.append(json.load(file)["units"])
            except (OSError, ValueError, KeyError, TypeError) as error:
                parser.error(f"--compare {name}: not a --json file of this tool ({error})")
        one, two = logs
        found = compare(one, two)
        nodes = [sum(unit.get("nodes", 0) for unit in log) for log in (one, two)]
        print(f"nodes {nodes[0] / 1e6:.2f} M, {nodes[1] / 1e6:.2f} M")
        for kind, extra in found["extra"].items():
            print(f"  {kind:14} {extra / 1e6:+7.2f} M")
        for row in found["positions"][:10]:
            before, after = row["nodes"]
            print(
                f"  {row['position']:>12} {row['kind']:14} {before / 1e6:6.2f} -> "
                f"{after / 1e6:6.2f} M  {row['windows'][0]} -> {row['windows'][1]}"
            )
        return
    if args.position is None:
        parser.error("a position, or --compare")
    try:
        keywords = options(args.option)  # before any worker starts
    except ValueError as error:
        parser.error(str(error))
    game = get_game("connect4").from_position(args.position)
    budget = Budget(nodes=args.unit_nodes) if args.unit_nodes else None
    with Traced(args.workers) as executor, Store(":memory:") as store:
        before = executor.cpu()
        result = solve_distributed(
            game,
            executor=executor,
            store=store,
            hash_mb=64,
            moves="best",
            budget=budget,
            **keywords,
        )
        used = cpu_use(before, executor.cpu(), result.nodes)
    log = sorted(executor.log, key=lambda unit: unit["sent"])
    total = {
        "position": args.position,
        "workers": args.workers,
        "rank": result.rank,
        "best_moves": [str(move) for move in result.best_moves],
        "nodes": result.nodes,
        "time_s": round(result.time_s, 3),
        "splits": result.splits,
        "cancelled": result.cancelled,
        "narrowed": result.narrowed,
        "options": args.option,
        **summary(log, args.workers),
        **used,
    }
    for unit in log:
        told = " told " + str(unit["told"]) if "told" in unit else ""
        split = f" split@{unit['split']}" if "split" in unit else ""
        print(
            f"{unit['sent']:7.2f} {unit['answered']:7.2f} {unit['position']:>12} "
            f"{unit['window']!s:>10} {unit.get('rank')!s:>5} "
            f"{unit.get('nodes', 0) / 1e6:7.2f} M {unit.get('search_s', 0.0):6.3f} s{split}{told}"
        )
    print(json.dumps(total))
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"summary": total, "units": log}, file)


if __name__ == "__main__":
    main()
