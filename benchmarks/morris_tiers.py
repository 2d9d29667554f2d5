"""What the morris endgame tiers up to 9-9 would take: memory and time on 1, 8 and 32 nodes.

A projection, not a measurement: every tier's time is its positions over one measured rate
(``--rate``, positions per second and node, as the builds of 3-3..4-4 measured it), and its
memory is what :func:`zerosum.endgames.retro.solve_pair` holds while it runs (four bytes a
position of the tier's classes: value, moves left, two removal notes; plus one byte a position
of its input classes). Two schedules of the tier graph (:func:`zerosum.endgames.tiers.
tier_graph`) on N nodes:

* ``tiers``: each tier one unit (what ``build_tiers`` does today): a tier starts when its
  inputs are built and a node is free;
* ``parts``: each tier split by index range over every node (not built yet): the tiers one
  after another, each in its time over N.

``/sym`` is the same with a position stored once per board symmetry class (not built yet): the
exact number of classes (:func:`zerosum.endgames.symmetry.class_count`, 15.87 times fewer
than the positions at 3-3, 15.996 at 9-9), time and memory taken in proportion.

Run from the repository root::

    .venv/bin/python benchmarks/morris_tiers.py [--rate 2000000] [--max-men 9]
"""

from __future__ import annotations

import argparse
import heapq
from math import comb

from zerosum.endgames.symmetry import class_count
from zerosum.endgames.tiers import tier_graph

POINTS = 24


def size(x: int, y: int) -> int:
    return comb(POINTS, x) * comb(POINTS - x, y)


Tier = tuple[int, int]


def schedule(graph: dict[Tier, frozenset[Tier]], cost: dict[Tier, float], nodes: int) -> float:
    """The time of the tier graph on ``nodes`` nodes, each tier one unit, the cheapest first
    among those ready (list scheduling)."""
    done_at: dict[Tier, float] = {}
    free = [0.0] * nodes
    left = dict(graph)
    while left:
        ready = [t for t, needs in left.items() if needs <= done_at.keys()]
        tier = min(ready, key=lambda t: max((done_at[n] for n in left[t]), default=0.0))
        start_after = max((done_at[n] for n in left[tier]), default=0.0)
        node = heapq.heappop(free)
        start = max(node, start_after)
        done_at[tier] = start + cost[tier]
        heapq.heappush(free, done_at[tier])
        del left[tier]
    return max(done_at.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=2_000_000.0, help="positions/s a node")
    parser.add_argument("--max-men", type=int, default=9)
    args = parser.parse_args()
    graph = tier_graph(args.max_men)  # the graph alone: no tables, any number of men
    print(f"rate {args.rate:,.0f} positions/s a node (assumed for every tier)")
    print(
        f"{'tier':>5} {'positions':>15} {'classes':>13} {'memory GB':>10} {'/sym GB':>8} "
        f"{'1 node h':>9} {'/sym h':>7}"
    )
    cost: dict[Tier, float] = {}
    reduced: dict[Tier, float] = {}
    for x, y in graph:
        classes = [(x, y)] if x == y else [(x, y), (y, x)]
        positions = sum(size(*c) for c in classes)
        unique = sum(class_count(*c) for c in classes)
        inputs = sum(size(y - 1, x) if y - 1 >= 3 else 0 for x, y in classes)
        memory = (4 * positions + inputs) / 1e9
        cost[(x, y)] = positions / args.rate
        reduced[(x, y)] = cost[(x, y)] * unique / positions
        print(
            f"{x}-{y:<3} {positions:>15,} {unique:>13,} {memory:>10.1f} "
            f"{memory * unique / positions:>8.2f} {cost[(x, y)] / 3600:>9.2f} "
            f"{reduced[(x, y)] / 3600:>7.2f}"
        )
    total = sum(cost.values())
    print(f"\nall {len(graph)} tiers ({sum(2 - (x == y) for x, y in graph)} classes):")
    print(f"{'nodes':>5} {'tiers h':>9} {'parts h':>9} {'parts /sym h':>13}")
    for nodes in (1, 8, 32):
        tiers = schedule(graph, cost, nodes) / 3600
        parts = total / nodes / 3600
        print(
            f"{nodes:>5} {tiers:>9.1f} {parts:>9.1f} {sum(reduced.values()) / nodes / 3600:>13.2f}"
        )


if __name__ == "__main__":
    main()
