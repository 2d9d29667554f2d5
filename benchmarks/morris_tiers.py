"""The morris endgame tiers: measured rates of the symmetric build, and what 9-9 would take.

``measure`` times the two phases of one tier in this process, in CPU seconds (so the machine's
load hardly matters): step 1 (the moves and removals of every entry, split into parts on the
executor) and the level passes (one unit per tier). It reads the tier's inputs from a store
built by ``build-endgames``.

``project`` takes those two rates (entries per CPU second and node) and schedules the 28 tiers
up to 9-9 on 1, 8 and 32 nodes as :mod:`zerosum.endgames.tiers` does: a tier starts when its
inputs are built; its step 1 is split into parts of ``--part-size`` entries, each a unit on any
free node; its level passes are split over the same parts once step 1 is done (each level is
two rounds of units, one per part; the time a round waits for its slowest unit and the units'
start-up are left out: a floor), or with ``--levels-whole`` are one unit per tier (list
scheduling, the tiers in dependency order). Every figure comes from the exact table sizes of
the symmetric layout (``orbits(x) * C(24 - x, y)``, the orbits counted exactly by
:func:`zerosum.endgames.symmetry.class_count`); the memory of a unit is what it holds: four
bytes an entry of its range plus one byte an entry of the table its removals read (a part of
step 1; a level's parts hold less), one byte an entry of the tier's larger class (the unit that
finishes the tier), or four bytes an entry of the tier (``--levels-whole``).

``cluster`` builds one tier in parts for real, with ``zerosum build-endgames`` from a copy of
a store without it, in rounds of four ways one after the other: on a two-node Ray cluster
(``--cluster``), on a one-node cluster, on two local worker processes (``--workers 2``) and in
one process (the serial build). The clusters run on this machine as ``tests/ray_nodes.py``
starts them (``ray start``, one CPU each, token authentication), so the nodes share the file
system the parts need. Each command runs in a session of its own (one scheduling group, as a
node is) and is timed by its ``time_s`` less its ``probe_file_s``, with the load average
before it; every way's tables must equal the source store's, byte for byte.

Run from the repository root::

    .venv/bin/python benchmarks/morris_tiers.py measure --store S --tier 5-5
    .venv/bin/python benchmarks/morris_tiers.py project --count-rate R1 --levels-rate R2
    .venv/bin/python benchmarks/morris_tiers.py cluster --store S --tier 5-5 [--part-size N]
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from math import comb
from typing import Any

import numpy as np

from zerosum.endgames.symmetry import class_count
from zerosum.endgames.tiers import PART_SIZE, tier_graph

POINTS = 24
Tier = tuple[int, int]


def classes(tier: Tier) -> list[Tier]:
    x, y = tier
    return [(x, y)] if x == y else [(x, y), (y, x)]


def entries(x: int, y: int) -> int:
    """Entries of the class ``x-y`` in the symmetric layout (orbits of the mover's set)."""
    return class_count(x, 0) * comb(POINTS - x, y)


def measure(args: argparse.Namespace) -> None:
    from zerosum.endgames.database import Endgames
    from zerosum.endgames.reduced import Layout, count_part, solve_levels

    x, y = (int(n) for n in args.tier.split("-"))
    with Endgames(args.store, create=False) as store:
        board = store.board
        counted = {}
        top = 0
        spent = 0.0
        size_all = 0
        for mover, other in classes((x, y)):
            down = (other - 1, mover)
            table = store.table(*down) if min(down) >= 3 else None
            size = Layout(board, mover, other).size
            size_all += size
            started = time.process_time()
            counted[(mover, other)], part_top = count_part(board, mover, other, 0, size, table)
            spent += time.process_time() - started
            top = max(top, part_top)
    started = time.process_time()
    solve_levels(board, x, y, counted, top)
    levels = time.process_time() - started
    print(f"tier {x}-{y}: {size_all:,} entries")
    print(f"step 1: {spent:.1f} CPU s, {size_all / spent:,.0f} entries/CPU s")
    print(f"level passes: {levels:.1f} CPU s, {size_all / levels:,.0f} entries/CPU s")


def schedule(
    graph: dict[Tier, frozenset[Tier]],
    parts: dict[Tier, list[float]],
    levels: dict[Tier, float],
    nodes: int,
    *,
    levels_whole: bool = False,
) -> float:
    """The hours of the build on ``nodes`` nodes (see the module docstring)."""
    free = [0.0] * nodes
    finished: dict[Tier, float] = {}
    order = list(graph)

    def run(costs: list[float], ready: float) -> float:
        """The units ``costs`` on the nodes that come free first; when the last one ends."""
        last = ready
        for cost in costs:
            start = max(heapq.heappop(free), ready)
            heapq.heappush(free, start + cost)
            last = max(last, start + cost)
        return last

    while len(finished) < len(graph):
        tier = next(t for t in order if t not in finished and graph[t] <= finished.keys())
        ready = max((finished[need] for need in graph[tier]), default=0.0)
        counted = run(parts[tier], ready)
        pieces = 1 if levels_whole else len(parts[tier])
        finished[tier] = run([levels[tier] / pieces] * pieces, counted)
    return max(finished.values()) / 3600


def project(args: argparse.Namespace) -> None:
    graph = tier_graph(9)
    print(
        f"step 1 at {args.count_rate:,.0f} entries/s a node, level passes at "
        f"{args.levels_rate:,.0f}; parts of {args.part_size:,} entries\n"
    )
    print(
        f"{'tier':>5} {'positions':>15} {'classes':>13} {'entries':>13} {'parts':>5} "
        f"{'step 1 min':>10} {'levels min':>10} {'part GB':>7} {'last GB':>7}"
    )
    parts: dict[Tier, list[float]] = {}
    levels: dict[Tier, float] = {}
    for tier in graph:
        size = sum(entries(*c) for c in classes(tier))
        positions = sum(comb(POINTS, a) * comb(POINTS - a, b) for a, b in classes(tier))
        unique = sum(class_count(*c) for c in classes(tier))
        costs = []
        part_gb = 0.0
        for a, b in classes(tier):
            down = entries(b - 1, a) if b - 1 >= 3 else 0
            n = entries(a, b)
            for lo in range(0, n, args.part_size):
                width = min(args.part_size, n - lo)
                costs.append(width / args.count_rate)
                part_gb = max(part_gb, (4 * width + down) / 1e9)
        parts[tier] = costs
        last = 4 * size if args.levels_whole else max(entries(*c) for c in classes(tier))
        levels[tier] = size / args.levels_rate
        print(
            f"{tier[0]}-{tier[1]:<3} {positions:>15,} {unique:>13,} {size:>13,} "
            f"{len(costs):>5} {sum(costs) / 60:>10.1f} {levels[tier] / 60:>10.1f} "
            f"{part_gb:>7.2f} {last / 1e9:>7.2f}"
        )
    total = sum(sum(c) for c in parts.values()) + sum(levels.values())
    count = sum(len(classes(t)) for t in graph)
    print(f"\nall {len(graph)} tiers ({count} classes), CPU {total / 3600:.1f} h")
    print(f"{'nodes':>5} {'hours':>7} {'speed-up':>8}")
    whole = args.levels_whole
    one = schedule(graph, parts, levels, 1, levels_whole=whole)
    for nodes in (1, 8, 32):
        hours = schedule(graph, parts, levels, nodes, levels_whole=whole)
        print(f"{nodes:>5} {hours:>7.2f} {one / hours:>8.2f}")


def _build(store: str, tier: Tier, extra: list[str], env: dict[str, str]) -> dict[str, Any]:
    """``build-endgames`` of ``tier`` into ``store`` (which lacks only it), in a session of
    its own: its JSON answer."""
    command = [sys.executable, "-m", "zerosum", "build-endgames", "morris"]
    command += ["--max-men", str(max(tier)), "--store", store, *extra, "--json"]
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, start_new_session=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def cluster(args: argparse.Namespace) -> None:
    from ray_two_nodes import OneNode, TwoNodes  # the tests' clusters (ray_two_nodes' path)

    from zerosum.endgames.database import Endgames

    x, y = (int(n) for n in args.tier.split("-"))
    keys = classes((x, y))
    with Endgames(args.store, create=False) as source:
        expected = {key: source.table(*key).copy() for key in keys}
    part = ["--part-size", str(args.part_size)]
    clusters = {"two nodes": TwoNodes(), "one node": OneNode()}
    try:
        ways = {
            name: ([*part, "--cluster", nodes.address], nodes.env)
            for name, nodes in clusters.items()
        }
        ways["2 local processes"] = ([*part, "--workers", "2"], dict(os.environ))
        ways["1 process"] = ([], dict(os.environ))
        times: dict[str, list[float]] = {name: [] for name in ways}
        print(f"tier {x}-{y}, parts of {args.part_size:,} entries")
        print(f"{'round':>5} {'way':<18} {'load':>5} {'time_s':>8}")
        with tempfile.TemporaryDirectory(prefix="tiers") as folder:
            for round_ in range(1, args.rounds + 1):
                for name, (extra, env) in ways.items():
                    copy = os.path.join(folder, f"{round_}.{name.replace(' ', '_')}.sqlite")
                    shutil.copyfile(args.store, copy)
                    db = sqlite3.connect(copy)
                    with db:
                        for m, o in keys:
                            db.execute(
                                "DELETE FROM endgame_tables WHERE mover = ? AND other = ?", (m, o)
                            )
                    db.close()
                    load = os.getloadavg()[0]
                    answer = _build(copy, (x, y), extra, env)
                    with Endgames(copy, create=False) as built:
                        for key in keys:
                            if not np.array_equal(built.table(*key), expected[key]):
                                raise SystemExit(f"{name}: class {key} differs from the store's")
                    seconds = answer["time_s"] - answer.get("probe_file_s", 0.0)
                    times[name].append(seconds)
                    print(f"{round_:>5} {name:<18} {load:>5.1f} {seconds:>8.1f}")
                    os.remove(copy)
    finally:
        for nodes in clusters.values():
            nodes.close()
    print("\nmedians (every way's tables equal the store's):")
    for name, seconds in times.items():
        print(f"  {name:<18} {statistics.median(seconds):>8.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    timing = commands.add_parser("measure", help="time one tier's two phases (CPU seconds)")
    timing.add_argument("--store", required=True, help="a store holding the tier's inputs")
    timing.add_argument("--tier", default="5-5", help="x-y with x <= y (default 5-5)")
    timing.set_defaults(run=measure)
    projection = commands.add_parser("project", help="the 28 tiers up to 9-9 on 1, 8, 32 nodes")
    projection.add_argument("--count-rate", type=float, required=True, help="entries/s a node")
    projection.add_argument("--levels-rate", type=float, required=True, help="entries/s a node")
    projection.add_argument("--part-size", type=int, default=PART_SIZE)
    projection.add_argument(
        "--levels-whole", action="store_true", help="the level passes one unit per tier"
    )
    projection.set_defaults(run=project)
    real = commands.add_parser("cluster", help="one tier on two Ray nodes, one, and locally")
    real.add_argument("--store", required=True, help="a store holding the tier and its inputs")
    real.add_argument("--tier", default="5-5", help="x-y with x <= y (default 5-5)")
    real.add_argument("--part-size", type=int, default=1 << 22, help="entries a part")
    real.add_argument("--rounds", type=int, default=1)
    real.set_defaults(run=cluster)
    args = parser.parse_args()
    print(f"$ {' '.join([os.path.basename(sys.executable), *sys.argv])}\n")
    args.run(args)


if __name__ == "__main__":
    main()
