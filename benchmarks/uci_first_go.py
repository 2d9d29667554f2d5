"""UCI first contact: ``uciok``, ``readyok`` and the first ``go movetime 500``, cold and warm.

Each run starts ``zerosum uci`` and measures, from the moment each command is written to the
moment its answer is read, the seconds to ``uciok`` (after ``uci``), to ``readyok`` (after
``isready``; left out with ``--no-isready``, as python-chess sends none before its first
``go``) and to ``bestmove`` (``position startpos`` then ``go movetime 500`` sent at once).
*Cold* runs each get a new empty compile cache (``NUMBA_CACHE_DIR``), as after an install or an
upgrade; *warm* runs share one cache that a compile filled first. The child that a cold run
leaves compiling is ended with its process group when the run ends, so runs do not pile up.
The table gives the median and the largest of each figure; the issue's targets are 1 s for
``uciok`` and ``readyok`` and 0.55 s for the first ``go movetime 500``.

With several ``--tree LABEL=SRC`` (a ``src`` folder put first on ``PYTHONPATH``), the trees
run in turn, run by run, so that the machine's load falls on all alike.

Run: ``python benchmarks/uci_first_go.py [--runs 10] [--states cold warm] [--no-isready]
[--tree before=/tmp/old/src --tree after=src]``
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
import threading
import time
from pathlib import Path

TARGETS = {"uciok": 1.0, "readyok": 1.0, "first go 500": 0.55, "second go 500": 0.55}


def _env(cache: Path, src: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(cache)
    env.pop("ZEROSUM_COMPILE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # byte code as an installed package has it
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    return env


def one_run(cache: Path, *, isready: bool, gap: float, src: str | None = None) -> dict[str, float]:
    """The seconds of each answer in one ``zerosum uci`` process (from the ``src`` tree, if
    given) using ``cache``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "zerosum", "uci"],
        env=_env(cache, src),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
        start_new_session=True,  # its compiling child shares the group: ended with it
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
        with arrived:
            lines.append((time.perf_counter(), "<eof>"))
            arrived.notify_all()

    threading.Thread(target=read, daemon=True).start()

    def ask(command: str, answer: str) -> float:
        assert process.stdin is not None
        with arrived:
            seen = len(lines)
        sent = time.perf_counter()
        process.stdin.write(command + "\n")
        process.stdin.flush()
        with arrived:
            while True:
                for at, line in lines[seen:]:
                    if line.startswith(answer) or line == "<eof>":
                        return at - sent
                seen = len(lines)
                arrived.wait(60)

    figures: dict[str, float] = {}
    try:
        figures["uciok"] = ask("uci", "uciok")
        if isready:
            figures["readyok"] = ask("isready", "readyok")
        if gap:
            time.sleep(gap)
        process.stdin.write("position startpos\n")
        figures["first go 500"] = ask("go movetime 500", "bestmove")
        figures["second go 500"] = ask("go movetime 500", "bestmove")
        process.stdin.write("quit\n")
        process.stdin.close()
        process.wait(30)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--states", nargs="*", default=["cold", "warm"], choices=("cold", "warm"))
    parser.add_argument("--no-isready", dest="isready", action="store_false")
    parser.add_argument("--gap", type=float, default=0.0, help="seconds before position+go")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="LABEL=SRC",
        help="a src folder to run (several: in turn, run by run); default: the installed one",
    )
    args = parser.parse_args()
    trees: list[tuple[str, str | None]] = [
        (label, src) for label, _, src in (tree.partition("=") for tree in args.tree)
    ] or [("", None)]
    print(f"# {' '.join([Path(sys.argv[0]).name, *sys.argv[1:]])}; load {os.getloadavg()[0]:.1f}")
    for state in args.states:
        runs: dict[str, list[dict[str, float]]] = {label: [] for label, _ in trees}
        with contextlib.ExitStack() as stack:
            shared = {
                label: Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="zs-uci-")))
                for label, _ in trees
            }
            if state == "warm":  # fill each cache first, as the first use would
                for label, src in trees:
                    subprocess.run(
                        [sys.executable, "-m", "zerosum.compiled", "chess", "tactical"],
                        env=_env(shared[label], src),
                        check=True,
                        capture_output=True,
                    )
            for _ in range(args.runs):
                for label, src in trees:
                    if state == "cold":
                        with tempfile.TemporaryDirectory(prefix="zs-uci-") as folder:
                            figures = one_run(
                                Path(folder), isready=args.isready, gap=args.gap, src=src
                            )
                    else:
                        figures = one_run(
                            shared[label], isready=args.isready, gap=args.gap, src=src
                        )
                    runs[label].append(figures)
                    shown = "  ".join(f"{k} {v:.3f}" for k, v in figures.items())
                    print(f"  {label} {shown}", flush=True)
        for label, found in runs.items():
            for name in found[0]:
                values = [run[name] for run in found]
                over = sum(value > TARGETS[name] for value in values)
                print(
                    f"{state:<5} {label:<7} {name:<14} median {statistics.median(values):.3f}  "
                    f"max {max(values):.3f}  over {TARGETS[name]:.2f}: {over}/{len(values)}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
