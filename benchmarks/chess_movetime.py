"""How far ``go movetime N`` overruns N, through a real UCI engine process, as a GUI sees it.

Starts the engine (default ``zerosum uci`` from this Python's virtual environment; ``--engine
CMD`` for another, e.g. ``/usr/games/stockfish`` to see what the pipe and the machine cost
alone), times ``isready`` and then, for each N of ``--movetimes`` (ms) and each of the first
``--positions`` positions of Win At Chess (``benchmarks/data/win_at_chess_test.epd``), sends
``position fen ...`` and ``go movetime N`` and measures the time until ``bestmove`` arrives.
The overrun is that time less N. Prints one line per N: positions, mean and worst overrun
(ms) and the position of the worst, and first the time of the first ``go movetime 200`` after
``isready`` (from the start position, where no mate ends the search early). A search that
ends early (a mate found) underruns: the mean is below zero; the worst is what a GUI's clock
must allow for.

``--cold-cache`` gives the engine an empty numba cache (``NUMBA_CACHE_DIR`` in a new
temporary folder), as a first start after installing: ``isready`` then compiles, and the first
``go`` must still keep its time.

Target (issue 15): the worst overrun of ``go movetime`` at most 50 ms. Run from the
repository root::

    .venv/bin/python benchmarks/chess_movetime.py [--movetimes 50 200 1000] [--positions 30] \\
        [--cold-cache] [--engine CMD] [--option NAME=VALUE ...]

The machine's load shows in the figures (a process waiting for a core overruns): compare
zerosum with ``--engine /usr/games/stockfish`` run at the same time of day.
"""

from __future__ import annotations

import argparse
import os
import queue
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import chess

SUITE = Path(__file__).resolve().parent / "data" / "win_at_chess_test.epd"
ZEROSUM_UCI = [str(Path(sys.executable).with_name("zerosum")), "uci"]
"""zerosum's own engine, from this Python's virtual environment."""
ANSWER_TIMEOUT = 120.0
"""Seconds to wait for any one answer (an engine compiling at isready may take a while)."""


class Engine:
    """A UCI engine process: lines in, lines out, each answer awaited with a timeout."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=env,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)  # the engine ended

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, prefix: str) -> tuple[str, float]:
        """The first line starting with ``prefix`` and the time (perf_counter) it arrived."""
        while True:
            line = self.lines.get(timeout=ANSWER_TIMEOUT)
            arrived = time.perf_counter()
            if line is None:
                sys.exit(f"chess_movetime: the engine ended while {prefix!r} was awaited")
            if line.startswith(prefix):
                return line, arrived

    def timed_go(self, fen: str, movetime_ms: int) -> float:
        """Milliseconds from ``go movetime`` to ``bestmove`` in ``fen``."""
        self.send(f"position fen {fen}")
        started = time.perf_counter()
        self.send(f"go movetime {movetime_ms}")
        _, arrived = self.until("bestmove")
        return 1000 * (arrived - started)

    def close(self) -> None:
        try:
            self.send("quit")
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


def positions(count: int) -> list[str]:
    """The FEN of the suite's first ``count`` positions."""
    fens = []
    for line in SUITE.read_text().splitlines()[:count]:
        board, _ = chess.Board.from_epd(line)
        fens.append(board.fen())
    return fens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--movetimes", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--positions", type=int, default=30, help="how many (default 30)")
    parser.add_argument("--engine", help="the engine's command (default: zerosum uci)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--cold-cache", action="store_true", help="an empty numba cache")
    args = parser.parse_args()
    if not 1 <= args.positions <= 300:
        sys.exit(f"chess_movetime: --positions {args.positions}: expected 1..300")
    if any(ms < 1 for ms in args.movetimes):
        sys.exit(f"chess_movetime: --movetimes {args.movetimes}: expected milliseconds >= 1")
    options = []
    for text in args.option:
        name, equals, value = text.partition("=")
        if not equals:
            sys.exit(f"chess_movetime: --option {text!r}: expected NAME=VALUE")
        options.append((name, value))
    command = shlex.split(args.engine) if args.engine else ZEROSUM_UCI
    fens = positions(args.positions)

    print(f"$ {shlex.join([os.path.basename(sys.executable), *sys.argv])}")
    print(f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as empty:
        env = dict(os.environ)
        if args.cold_cache:
            env["NUMBA_CACHE_DIR"] = empty
        started = time.perf_counter()
        try:
            engine = Engine(command, env)
        except OSError as error:
            sys.exit(f"chess_movetime: cannot start {shlex.join(command)!r}: {error}")
        try:
            engine.send("uci")
            name, _ = engine.until("id name")
            engine.until("uciok")
            for option, value in options:
                engine.send(f"setoption name {option} value {value}")
            engine.send("isready")
            _, ready = engine.until("readyok")
            cache = "empty numba cache" if args.cold_cache else "numba cache as found"
            print(
                f"{name[len('id name ') :]}: readyok {ready - started:.2f} s after start"
                + ("" if args.engine else f" ({cache})")
            )
            print(f"{len(fens)} positions of {SUITE.name}")
            first = engine.timed_go(chess.STARTING_FEN, 200)  # no mate to end it early
            print(
                f"first go movetime 200 after isready (start position): {first:.0f} ms "
                f"({first - 200:+.0f} ms)"
            )
            print(
                f"{'movetime':>8} {'positions':>9} {'mean over':>10} {'worst over':>11}  worst at"
            )
            worst_all = 0.0
            for movetime in args.movetimes:
                overruns = [engine.timed_go(fen, movetime) - movetime for fen in fens]
                worst = max(overruns)
                worst_all = max(worst_all, worst)
                where = overruns.index(worst) + 1
                print(
                    f"{movetime:>6} ms {len(overruns):>9} {statistics.mean(overruns):>+8.1f} ms"
                    f" {worst:>+8.1f} ms  position {where}",
                    flush=True,
                )
            print(f"worst overrun {worst_all:+.1f} ms (target: at most 50 ms)")
        finally:
            engine.close()


if __name__ == "__main__":
    main()
