"""Cold start: how long a fresh install (an empty compile cache) waits for compiled code.

Two tables:

* ``compile``: the cold compile of every part of every built-in game's compiled code
  (:mod:`zerosum.compiled.warm`: ``search``, ``solve``, ``mcts``, ``tactical``, ``perft``),
  each part in a new empty cache (``NUMBA_CACHE_DIR``), then the same part again from that
  cache (warm: what every later process pays to load it); and each game's parts one after the
  other in one cache (shared kernel functions compile once), the sum a new user pays for that
  game. Wall and CPU seconds (user + system) of each child: the CPU figure moves less with
  the machine's load.
* ``commands``: the time to the first line on stdout of the commands a new user runs first,
  with an empty cache (cold) and again with the cache it left (warm), and their total time;
  ``uci`` reports ``uciok``, ``readyok`` and the first ``go movetime 500``'s ``bestmove``
  (sent right after ``position``, with no ``isready``, as python-chess does).

Each figure is one run on whatever the machine is doing: quote it with the load.

Run: ``python benchmarks/cold_start.py [compile|commands] [--games chess ...] [--parts mcts ...]``
(needs ``zerosum`` importable; the othello example plugin is measured when installed).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

GAMES = ("tictactoe", "connect4", "morris", "chess", "othello")
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("analyze", "chess", "--moves", "e4", "e5", "Nf3", "--depth", "5"),
    ("play", "chess"),
    ("perft", "chess", "--depth", "4"),
    ("analyze", "connect4", "--algorithm", "mcts", "--time", "2"),
    ("analyze", "morris", "--algorithm", "compiled", "--time", "2"),
)


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(cache)
    return env


def _children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _warm(game: str, parts: Sequence[str], cache: Path) -> tuple[float, str]:
    seconds, _, error = _warm_cpu(game, parts, cache)
    return seconds, error


def _warm_cpu(game: str, parts: Sequence[str], cache: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of ``python -m zerosum.compiled GAME PARTS`` on ``cache``, and
    its last error line (empty if none)."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "zerosum.compiled", game, *parts],
        env=_env(cache),
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    error = "" if done.returncode == 0 else done.stderr.strip().splitlines()[-1]
    return seconds, _children_cpu() - cpu, error


def _parts(game: str) -> list[str]:
    from zerosum.compiled.warm import parts_of
    from zerosum.games import get_game

    return list(parts_of(get_game(game)))


def compile_table(games: Sequence[str], only: Sequence[str] = ()) -> None:
    print(f"{'game':<10} {'part':<9} {'cold s':>8} {'cold cpu':>8} {'warm s':>8} {'warm cpu':>8}")
    for game in games:
        try:
            parts = _parts(game)
        except Exception as error:  # an example plugin not installed
            print(f"{game:<10} skipped: {error}")
            continue
        for part in parts:
            if only and part not in only:
                continue
            with tempfile.TemporaryDirectory(prefix="zerosum-cold-") as folder:
                cold, cold_cpu, error = _warm_cpu(game, [part], Path(folder))
                shutil.rmtree(Path(folder) / "zerosum-warm", ignore_errors=True)
                warm, warm_cpu, _ = _warm_cpu(game, [part], Path(folder))
            note = f"  {error}" if error else ""
            print(
                f"{game:<10} {part:<9} {cold:8.1f} {cold_cpu:8.1f} {warm:8.1f} {warm_cpu:8.1f}"
                f"{note}",
                flush=True,
            )
        if only:
            continue
        with tempfile.TemporaryDirectory(prefix="zerosum-cold-") as folder:
            total, total_cpu, error = _warm_cpu(game, parts, Path(folder))
        note = f"  {error}" if error else ""
        print(f"{game:<10} {'all':<9} {total:8.1f} {total_cpu:8.1f}{note}", flush=True)


def _first_line(command: Sequence[str], cache: Path) -> tuple[float, float, str]:
    """Seconds to the first stdout line, seconds in all, the first line."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "zerosum", *command],
        env=_env(cache),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None and process.stdin is not None
    first = process.stdout.readline()
    at = time.perf_counter() - started
    if command[0] == "play":  # quit at the first prompt
        process.stdin.write("quit\n")
        process.stdin.flush()
    process.stdin.close()
    process.stdout.read()
    process.wait()
    return at, time.perf_counter() - started, first.strip()


def _uci(cache: Path) -> dict[str, float]:
    """Seconds from sending each command to its answer."""
    process = subprocess.Popen(
        [sys.executable, "-m", "zerosum", "uci"],
        env=_env(cache),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    assert process.stdout is not None and process.stdin is not None
    lines: list[tuple[float, str]] = []
    arrived = threading.Condition()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            with arrived:
                lines.append((time.perf_counter(), line.strip()))
                arrived.notify_all()

    threading.Thread(target=read, daemon=True).start()

    def ask(command: str, answer: str) -> float:
        assert process.stdin is not None
        sent = time.perf_counter()
        seen = len(lines)
        process.stdin.write(command + "\n")
        process.stdin.flush()
        with arrived:
            while True:
                for at, line in lines[seen:]:
                    if line.startswith(answer):
                        return at - sent
                seen = len(lines)
                arrived.wait(120)

    started = time.perf_counter()
    figures = {"uciok": ask("uci", "uciok")}
    figures["readyok"] = ask("isready", "readyok")
    process.stdin.write("position startpos\n")
    figures["go movetime 500"] = ask("go movetime 500", "bestmove")
    figures["second go 500"] = ask("go movetime 500", "bestmove")
    process.stdin.write("quit\n")
    process.stdin.close()
    process.wait()
    figures["total"] = time.perf_counter() - started
    return figures


def commands_table() -> None:
    with tempfile.TemporaryDirectory(prefix="zerosum-cold-") as folder:
        cache = Path(folder)
        print(f"{'command':<58} {'cache':<5} {'first s':>8} {'total s':>8}  first line")
        for command in COMMANDS:
            for state in ("cold", "warm"):
                if state == "cold":
                    for entry in cache.iterdir():
                        shutil.rmtree(entry, ignore_errors=True)
                first, total, line = _first_line(command, cache)
                if state == "cold":  # let a compile the command left behind finish
                    _settle(command, cache)
                print(
                    f"{' '.join(command):<58} {state:<5} {first:8.2f} {total:8.2f}  {line[:40]}",
                    flush=True,
                )
        for state in ("cold", "warm"):
            if state == "cold":
                for entry in cache.iterdir():
                    shutil.rmtree(entry, ignore_errors=True)
            figures = _uci(cache)
            if state == "cold":
                _settle(("uci",), cache)
            shown = "  ".join(f"{name} {seconds:.2f}" for name, seconds in figures.items())
            print(f"{'uci':<58} {state:<5} {shown}", flush=True)


SETTLE: dict[str, tuple[str, list[str]]] = {
    "analyze chess": ("chess", ["tactical"]),
    "play chess": ("chess", ["tactical"]),
    "perft chess": ("chess", ["perft"]),
    "analyze connect4": ("connect4", ["mcts"]),
    "analyze morris": ("morris", ["search"]),
    "uci": ("chess", ["tactical"]),
}
"""The parts each command uses (what its background compile fills the cache with)."""


def _settle(command: Sequence[str], cache: Path) -> None:
    """Compile what ``command`` uses, as its background compile would (waits for one that runs)."""
    game, parts = SETTLE[" ".join(command[:2])]
    _warm(game, parts, cache)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", nargs="?", choices=("compile", "commands", "all"), default="all")
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--parts", nargs="*", default=[], help="only these parts (compile)")
    args = parser.parse_args()
    print(f"# {' '.join([Path(sys.argv[0]).name, *sys.argv[1:]])}; {os.cpu_count()} cpus")
    if args.table in ("compile", "all"):
        compile_table(args.games, args.parts)
    if args.table in ("commands", "all"):
        commands_table()
    return 0


if __name__ == "__main__":
    sys.exit(main())
