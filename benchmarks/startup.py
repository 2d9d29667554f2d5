"""Start-up: seconds from launching ``zerosum COMMAND`` to its first line on stdout.

For the first commands of the README and of getting started (``uci``: from launch to
``uciok`` after sending ``uci``, then from ``isready`` to ``readyok``), and for two floors:
the interpreter alone (``python -c pass``) and ``import zerosum.cli``. Every command runs
``--runs`` times, the commands in turn (round robin), so that the load of the machine falls on
all of them alike; the table gives the median and the range. With several ``--tree`` options
(``LABEL=SRC``: a ``src`` folder put first on ``PYTHONPATH``) each command runs under each tree
in turn as well, and the last column is the ratio of the medians (last tree over first), which
is the fair comparison on a loaded machine.

Compile caches are not touched: run it warm (each command once before) to measure start-up
rather than compiles (``benchmarks/cold_start.py`` measures those). Whether Python finds its
byte code compiled (``__pycache__``, as ``pip install`` leaves it) changes the figures a lot:
say which, or run ``python -m compileall -q SRC`` first. ``--tty`` gives the commands a
terminal for stderr, where the status lines go (a terminal shows them; a pipe does not), and
counts the first output on either stream.

Run: ``python benchmarks/startup.py [--runs 5] [--tree before=/tmp/old/src --tree after=src]``
"""

from __future__ import annotations

import argparse
import os
import pty
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

COMMANDS: tuple[tuple[str, ...], ...] = (
    ("--help",),
    ("games",),
    ("algorithms",),
    ("legal", "tictactoe", "--moves", "b2", "a1"),
    ("play", "tictactoe"),
    ("play", "connect4"),
    ("play", "chess"),
    ("solve", "tictactoe"),
    ("analyze", "tictactoe", "--moves", "b2", "--depth", "4"),
    ("analyze", "chess", "--moves", "e4", "e5", "Nf3", "--depth", "5"),
    ("compare", "tictactoe", "--moves", "b2", "--depth", "4"),
    ("uci",),
)
FLOORS: dict[str, str] = {"python -c pass": "pass", "import zerosum.cli": "import zerosum.cli"}


def _env(src: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    return env


def _python(code: str, src: str | None) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=_env(src), check=True)
    return time.perf_counter() - started


def _first_line(command: Sequence[str], src: str | None, tty: bool) -> tuple[float, ...]:
    """Seconds to the first stdout line (``uci``: to ``uciok``, then ``isready`` to
    ``readyok``); with ``tty``, to the first output on stdout or on stderr (a terminal)."""
    master, slave = pty.openpty() if tty else (-1, -1)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "zerosum", *command],
        env=_env(src),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=slave if tty else subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    assert process.stdout is not None and process.stdin is not None
    stderr_at: list[float] = []
    if tty:
        os.close(slave)

        def read_stderr() -> None:
            with open(master, "rb", buffering=0) as stream:
                try:
                    while stream.read(4096):
                        if not stderr_at:
                            stderr_at.append(time.perf_counter())
                except OSError:  # the terminal closed with the process
                    pass

        threading.Thread(target=read_stderr, daemon=True).start()
    figures: tuple[float, ...]
    if command[0] == "uci":
        process.stdin.write("uci\n")
        process.stdin.flush()
        while not process.stdout.readline().startswith("uciok"):
            pass
        figures = (time.perf_counter() - started,)
        sent = time.perf_counter()
        process.stdin.write("isready\n")
        process.stdin.flush()
        while not process.stdout.readline().startswith("readyok"):
            pass
        figures += (time.perf_counter() - sent,)
        process.stdin.write("quit\n")
    else:
        process.stdout.readline()
        first = min([time.perf_counter(), *stderr_at])
        figures = (first - started,)
        if command[0] == "play":
            process.stdin.write("quit\n")
    process.stdin.close()
    process.stdout.read()
    process.wait()
    return figures


def _load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", action="append", default=[], metavar="LABEL=SRC")
    parser.add_argument("--tty", action="store_true", help="stderr on a terminal")
    parser.add_argument(
        "--only", nargs="*", default=[], help="only the commands starting with these (help: --help)"
    )
    args = parser.parse_args()
    trees: list[tuple[str, str | None]] = [
        (label, src) for label, _, src in (tree.partition("=") for tree in args.tree)
    ] or [("now", None)]
    rows: list[tuple[str, Sequence[str] | None, str | None]] = [
        (name, None, code) for name, code in FLOORS.items()
    ]
    rows += [
        (" ".join(command), command, None)
        for command in COMMANDS
        if not args.only or any(" ".join(command).lstrip("-").startswith(o) for o in args.only)
    ]
    print(f"# {' '.join([os.path.basename(sys.argv[0]), *sys.argv[1:]])}")
    print(f"# {os.cpu_count()} cpus; load average at start {_load()}")
    seen: dict[tuple[str, str], list[tuple[float, ...]]] = {}
    for _ in range(args.runs):
        for name, command, code in rows:
            for label, src in trees:
                figure = _python(code, src) if code is not None else None
                figures = (
                    (figure,) if figure is not None else _first_line(command or (), src, args.tty)
                )
                seen.setdefault((name, label), []).append(figures)
    print(f"# load average at end {_load()}")
    header = f"{'command':<50}" + "".join(f" {label + ' median (range)':>24}" for label, _ in trees)
    print(header + ("  ratio" if len(trees) > 1 else ""))
    for name, command, _ in rows:
        parts = 2 if command is not None and command[0] == "uci" else 1
        for part in range(parts):
            shown = name if part == 0 else "uci: isready -> readyok"
            medians = []
            cells = ""
            for label, _ in trees:
                values = [figures[part] for figures in seen[(name, label)]]
                medians.append(statistics.median(values))
                cells += f" {medians[-1]:>8.3f} ({min(values):.2f}-{max(values):.2f})".rjust(25)
            ratio = f"  {medians[-1] / medians[0]:.2f}x" if len(trees) > 1 else ""
            print(f"{shown:<50}{cells}{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
