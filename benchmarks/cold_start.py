"""Cold start: how long a fresh install (an empty compile cache) waits for compiled code.

Two tables:

* ``compile``: the cold compile of every part of every built-in game's compiled code
  (:mod:`zerosum.compiled.warm`: ``search``, ``solve``, ``mcts``, ``tactical``, ``perft``),
  each part in a new empty cache (``NUMBA_CACHE_DIR``), then the same part again from that
  cache (warm: what every later process pays to load it); and each game's parts one after the
  other in one cache (shared kernel functions compile once), the sum a new user pays for that
  game. Wall and CPU seconds (user + system) of each child: the CPU figure moves less with
  the machine's load.
* ``commands``: every command of the README and of ``docs/getting-started.md`` (and the
  issue's ``analyze morris --algorithm compiled --time 2``), each run with a new empty cache
  (cold: the state after an install or an upgrade) and with a cache where every built-in
  game's compiled code is (warm: every later use), as a user runs them: seconds to the first
  line on stdout, to the first output on either stream (stderr is a terminal, as a user's
  is: the status lines show there) and in all (a command's end; ``play`` is answered
  ``quit`` at its first prompt, ``serve`` stopped once it prints its address). A cold run's
  background compile is ended with the command (its process group), so runs do not pile
  up. ``uci`` reports ``uciok``, ``readyok`` and the first ``go movetime 500``'s
  ``bestmove`` (sent right after ``position``, as python-chess does), and the second
  ``go``. ``--warm-cache DIR`` reuses a cache filled before (``python -m zerosum.compiled
  GAME`` for each game); ``--only WORD`` runs the commands whose line contains WORD.

Each figure is one run on whatever the machine is doing: quote it with the load (printed with
every row).

Run: ``python benchmarks/cold_start.py [compile|commands] [--games chess ...] [--parts mcts ...]
[--warm-cache DIR] [--only analyze ...]`` (needs ``zerosum`` importable; the othello example
plugin is measured when installed).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pty
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from uci_first_go import one_run  # a sibling script: one UCI session timed

GAMES = ("tictactoe", "connect4", "morris", "chess", "othello")
COMMANDS: tuple[tuple[str, ...], ...] = (
    # The README, in its order.
    ("play", "tictactoe"),
    ("games",),
    ("solve", "tictactoe"),
    ("analyze", "tictactoe", "--moves", "b2", "--depth", "4"),
    ("solve", "connect4", "--moves", "32164625", "--all"),
    ("analyze", "chess", "--moves", "e4", "e5", "Nf3", "--depth", "5"),
    ("play", "connect4"),
    ("compare", "tictactoe", "--moves", "b2", "--depth", "4"),
    ("serve", "--port", "0"),
    ("match", "connect4", "--a", "level=3", "--b", "level=2", "--games", "20", "--workers", "2"),
    ("analyze", "connect4", "--algorithm", "mcts", "--time", "2"),
    ("perft", "chess", "--depth", "5"),
    # docs/getting-started.md, besides those.
    ("legal", "tictactoe", "--moves", "b2", "a1"),
    ("solve", "tictactoe", "--position", "x.o/.x./..."),
    ("algorithms",),
    ("solve", "connect4", "--moves", "4453"),
    ("book", "connect4", "--moves", "4453", "--plies", "2", "--store", "book.sqlite"),
    ("analyze", "connect4", "--algorithm", "mcts", "--time", "5"),
    ("bench",),
    ("play", "tictactoe", "--side", "o", "--level", "3"),
    ("play", "morris"),
    ("play", "chess", "--side", "black"),
    ("solve", "morris", "--position", "WWW...............BBB... b 0 0"),
    # The issue's.
    ("analyze", "morris", "--algorithm", "compiled", "--time", "2"),
    ("perft", "chess", "--depth", "4"),
    ("play", "chess"),
)
"""The commands the ``commands`` table runs (``uci`` comes last, apart)."""
BUILT_IN = ("tictactoe", "connect4", "morris", "chess")
"""The games whose compiled code the warm cache holds."""


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(cache)
    return env


def _children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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


def _end_group(process: subprocess.Popen[str]) -> None:
    """End what is left of the command's process group (a background compile)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _first_line(
    command: Sequence[str], cache: Path, folder: Path
) -> tuple[float, float, float, str]:
    """Seconds to the first stdout line, to the first output on either stream (stderr is a
    terminal, where the status lines go), in all (NaN for ``serve``, stopped once it has
    printed its address), and the first line. Runs in ``folder`` (a store it writes)."""
    master, slave = pty.openpty()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "zerosum", *command],
        env=_env(cache),
        cwd=folder,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
        start_new_session=True,  # its background compile shares its group: ended with it
    )
    os.close(slave)
    stderr_at: list[float] = []

    def read_stderr() -> None:
        # OSError: the terminal closed with the process.
        with open(master, "rb", buffering=0) as stream, contextlib.suppress(OSError):
            while stream.read(4096):
                if not stderr_at:
                    stderr_at.append(time.perf_counter())

    threading.Thread(target=read_stderr, daemon=True).start()
    assert process.stdout is not None and process.stdin is not None
    try:
        if command[0] == "play":  # quit at the first prompt
            process.stdin.write("quit\n")
        process.stdin.close()
        first = process.stdout.readline()
        at = time.perf_counter()
        any_at = min([at, *stderr_at]) - started
        if command[0] == "serve":
            return at - started, any_at, float("nan"), first.strip()
        process.stdout.read()
        process.wait(1800)
        return at - started, any_at, time.perf_counter() - started, first.strip()
    finally:
        _end_group(process)


def _uci(cache: Path) -> dict[str, float]:
    """Seconds from sending each command to its answer (``uci_first_go``'s run, with
    ``isready``), and the process's whole life."""
    started = time.perf_counter()
    figures = one_run(cache, isready=True, gap=0.0)
    figures["total"] = time.perf_counter() - started
    return figures


def _fill(cache: Path) -> None:
    """Compile every built-in game's parts into ``cache`` (those there already load)."""
    for game in BUILT_IN:
        subprocess.run(
            [sys.executable, "-m", "zerosum.compiled", game],
            env=_env(cache),
            check=True,
            capture_output=True,
        )


def commands_table(warm_cache: Path | None, only: Sequence[str]) -> None:
    with contextlib.ExitStack() as stack:
        warm = warm_cache or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="zs-")))
        started = time.perf_counter()
        _fill(warm)
        print(f"# warm cache {warm}: filled in {time.perf_counter() - started:.0f} s", flush=True)
        print(
            f"{'command':<72} {'cache':<5} {'stdout s':>8} {'any s':>8} {'total s':>8} "
            f"{'load':>5}  first line"
        )
        for command in COMMANDS:
            shown = " ".join(command)
            if only and not any(word in shown for word in only):
                continue
            for state in ("cold", "warm"):
                with contextlib.ExitStack() as run:
                    folder = Path(run.enter_context(tempfile.TemporaryDirectory(prefix="zs-")))
                    cache = folder / "cache" if state == "cold" else warm
                    load = os.getloadavg()[0]
                    first, any_first, total, line = _first_line(command, cache, folder)
                print(
                    f"{shown:<72} {state:<5} {first:8.2f} {any_first:8.2f} {total:8.2f} "
                    f"{load:5.1f}  {line[:40]}",
                    flush=True,
                )
        if only and not any(word in "uci" for word in only):
            return
        for state in ("cold", "warm"):
            with tempfile.TemporaryDirectory(prefix="zs-") as folder:
                load = os.getloadavg()[0]
                figures = _uci(Path(folder) if state == "cold" else warm)
            shown = "  ".join(f"{name} {seconds:.2f}" for name, seconds in figures.items())
            print(f"{'uci':<72} {state:<5} {shown}  load {load:.1f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", nargs="?", choices=("compile", "commands", "all"), default="all")
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--parts", nargs="*", default=[], help="only these parts (compile)")
    parser.add_argument("--warm-cache", type=Path, help="the warm cache to fill or reuse")
    parser.add_argument("--only", nargs="*", default=[], help="commands containing these words")
    args = parser.parse_args()
    print(f"# {' '.join([Path(sys.argv[0]).name, *sys.argv[1:]])}; {os.cpu_count()} cpus")
    if args.table in ("compile", "all"):
        compile_table(args.games, args.parts)
    if args.table in ("commands", "all"):
        commands_table(args.warm_cache, args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
