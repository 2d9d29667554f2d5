"""Time limits on a cold cache: how long ``zerosum analyze ... --time S`` takes in all.

Each run starts the command with a new empty compile cache (``NUMBA_CACHE_DIR``: the state
after an install or an upgrade, where the pure-Python twin answers while a child compiles) in
a session of its own, and measures from the launch to its first line on stdout and to its
exit; the compiling child is then ended with its process group, so runs do not pile up. With
several ``--tree LABEL=SRC`` (a ``src`` folder put first on ``PYTHONPATH``) the trees run in
turn, run by run, so that the machine's load falls on all alike. The table gives the median
and the largest of each figure, the deepest iteration reached, and the load average; the
issue's target is the limit plus 10%.

Run: ``python benchmarks/time_limit.py [--runs 5] [--tree before=/tmp/old/src --tree after=src]
-- analyze morris --algorithm compiled --time 2``
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def one_run(command: list[str], src: str | None) -> tuple[float, float, str]:
    """Seconds to the first stdout line and to the exit, and the ``depth`` line of the
    result, of one cold run of ``zerosum COMMAND``."""
    with tempfile.TemporaryDirectory(prefix="zs-limit-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        env.pop("ZEROSUM_COMPILE", None)
        if src is not None:
            env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "zerosum", *command],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,  # the compiling child is in its group: ended with it
        )
        assert process.stdout is not None
        try:
            first = process.stdout.readline()
            at = time.perf_counter() - started
            rest = process.stdout.read()
            process.wait()
            total = time.perf_counter() - started
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    depth = [line for line in (first + rest).splitlines() if line.startswith("depth ")][-1:]
    return at, total, depth[0] if depth else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", action="append", default=[], metavar="LABEL=SRC")
    parser.add_argument("command", nargs="+", help="the zerosum command (after --)")
    args = parser.parse_args()
    trees: list[tuple[str, str | None]] = [
        (label, str(Path(src).resolve())) for label, _, src in (t.partition("=") for t in args.tree)
    ] or [("now", None)]
    print(f"# {' '.join([Path(sys.argv[0]).name, *sys.argv[1:]])}; load {os.getloadavg()[0]:.1f}")
    seen: dict[str, list[tuple[float, float, str, float]]] = {label: [] for label, _ in trees}
    for _ in range(args.runs):
        for label, src in trees:
            load = os.getloadavg()[0]
            first, total, depth = one_run(args.command, src)
            seen[label].append((first, total, depth, load))
            print(f"  {label} first {first:.3f} exit {total:.3f} load {load:.1f}  {depth}")
    for label, runs in seen.items():
        firsts = [run[0] for run in runs]
        totals = [run[1] for run in runs]
        loads = [run[3] for run in runs]
        print(
            f"{label:<8} first line median {statistics.median(firsts):.3f} max {max(firsts):.3f}"
            f"  exit median {statistics.median(totals):.3f} max {max(totals):.3f}"
            f"  load {min(loads):.1f}-{max(loads):.1f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
