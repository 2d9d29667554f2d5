"""Perft of nine men's morris from the empty board against Sanmill's published counts.

    .venv/bin/python benchmarks/morris_perft.py [--depth 5]

Sanmill counts a removal as a step of its own, so the counts are of
:func:`zerosum.games.morris.perft_steps`; the tests check depths 1-4, this script goes deeper.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from zerosum.games.morris import Morris, perft, perft_steps
from zerosum.games.morris_rules import NINE

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "morris"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, default=5)
    args = parser.parse_args()
    oracle = json.loads((DATA / "sanmill_legacy_oracle_nmm_0.json").read_text())
    expected = dict(oracle["perft"])
    game = Morris(replace(NINE, repetition=None, move_limit=None))
    print(f"{'depth':>5} {'steps':>12} {'Sanmill':>12} {'turns':>12} {'time s':>8}")
    ok = True
    for depth in range(1, args.depth + 1):
        started = time.perf_counter()
        steps = perft_steps(game, depth)
        turns = perft(game, depth)
        seconds = time.perf_counter() - started
        match = expected.get(depth)
        ok &= match is None or match == steps
        print(f"{depth:>5} {steps:>12,} {match or 0:>12,} {turns:>12,} {seconds:>8.2f}")
    print("all counts agree with Sanmill" if ok else "MISMATCH with Sanmill's counts")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
