"""The first move of ``zerosum play`` on a fresh install: from the human's first move to the
computer's answer, with an empty compile cache (``NUMBA_CACHE_DIR``) every time.

``play tictactoe`` is the README's first command and its default level is the perfect player:
on a fresh machine its first answer used to wait for the compiled solver's compile (20-30 s
on a busy machine); the pure-Python twin now proves the position at once. Each round runs
every ``--source`` (a checkout's ``src`` folder: the code before and after a change) one after
the other, so that the machine's load hits them alike; pair the rows of one round.

Run from the repository root (pexpect is among the test tools)::

    python benchmarks/first_move.py --source src [--source OTHER/src] [--rounds 2]
        [--game tictactoe] [--move b2] [--level N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import pexpect


def first_move(source: str, game: str, move: str, level: int | None) -> float:
    """Seconds from sending ``move`` at the first prompt to ``computer plays``, in a new
    process with a new empty compile cache and ``source`` first on the path."""
    cache = tempfile.mkdtemp(prefix="zerosum-first-move-")
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": source, "TERM": "xterm"}
    env.pop("ZEROSUM_COMPILE", None)  # as a user runs it: compiles in the background
    argv = ["-m", "zerosum", "play", game, "--seed", "1", "--side", "first"]
    if level is not None:
        argv += ["--level", str(level)]
    child = pexpect.spawn(sys.executable, argv, env=env, encoding="utf-8", timeout=900)
    try:
        child.expect(r"your move \(\w+\): ")
        started = time.perf_counter()
        child.sendline(move)
        child.expect("computer plays")
        seconds = time.perf_counter() - started
        child.sendline("quit")
        child.expect(pexpect.EOF)
        return seconds
    finally:
        child.close(force=True)
        shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", action="append", required=True, help="a checkout's src")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--game", default="tictactoe")
    parser.add_argument("--move", default="b2", help="the human's first move")
    parser.add_argument("--level", type=int, help="the computer's level (default: the game's)")
    args = parser.parse_args()
    print(f"command: {' '.join(sys.argv)}")
    seconds: dict[str, list[float]] = {source: [] for source in args.source}
    for round_ in range(1, args.rounds + 1):
        for source in args.source:
            load = os.getloadavg()[0]
            taken = first_move(source, args.game, args.move, args.level)
            seconds[source].append(taken)
            print(f"round {round_}  {source}: first move {taken:.2f} s  (load {load:.1f})")
    for source, values in seconds.items():
        print(f"median  {source}: {statistics.median(values):.2f} s over {len(values)}")


if __name__ == "__main__":
    main()
