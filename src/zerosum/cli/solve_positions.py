"""``zerosum solve GAME --positions FILE``: a test-set file solved exactly and checked.

Every position of the file is solved by the compiled engine (over ``--workers`` processes,
each solving whole positions), one line printed per position as it is solved and checked
against the file's score, then a summary. The engine's start-up (compiling or loading the
kernel, starting the workers) is timed apart from the solves, so the time per position is the
solver's own. On a terminal, a status line on stderr counts the positions solved
(:mod:`.progress`).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from zerosum.cli.common import UsageError, interruptible, open_store
from zerosum.cli.engines import COMPILED_ENGINE, open_solver
from zerosum.cli.progress import Progress
from zerosum.compiled import DEFAULT_HASH_MB, check_compiled
from zerosum.games import get_game
from zerosum.search import Limit


def run_positions(args: argparse.Namespace) -> int:
    """Solve and check every position of ``args.positions``; exits 1 on a mismatch."""
    from zerosum.compiled.batch import expected_rank, load, read_positions, solve_positions
    from zerosum.compiled.kernels import compiled_game

    for option, given in (
        ("--moves", bool(args.moves)),
        ("--position", args.position is not None),
        ("--all", args.all),
        ("--cluster", args.cluster is not None),
    ):
        if given:
            raise UsageError(f"--positions solves the positions of a file: expected no {option}")
    spec = get_game(args.game)
    if args.algorithm not in (None, COMPILED_ENGINE):
        raise UsageError("--positions solves with the compiled engine: expected no --algorithm")
    check_compiled(spec.name)  # a game without a compiled engine: before reading the file
    entries = read_positions(args.positions, spec)  # then a bad file, before numba loads
    if not compiled_game(spec.name).exact:
        raise UsageError(
            f"--positions solves exactly, which the compiled engine cannot do for {spec.name}: "
            "expected a game such as connect4 or tictactoe"
        )
    store = open_store(args.store) if args.store else None
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    startup = 0.0
    status = Progress.for_command(args, "solve")
    wrong = 0  # mismatches so far, for the status line
    try:
        with (
            status,
            open_solver(
                spec, hash_mb=args.hash or DEFAULT_HASH_MB, store=store, workers=args.workers
            ) as solver,
        ):
            if args.no_book:  # every position proven, none read from the opening book
                solver.book = None
            status.update("loading the compiled solver")
            load(solver, entries[0])
            status.update(f"0 of {len(entries):,} positions")
            startup = time.perf_counter() - started
            started = time.perf_counter()
            with interruptible() as stop:
                limit = Limit(time=args.time, stop=stop)
                for entry, exact in solve_positions(solver, entries, weak=args.weak, limit=limit):
                    expected = expected_rank(entry, weak=args.weak)
                    score = exact.rank if exact.complete else None
                    row = {
                        "line": entry.line,
                        "position": entry.position,
                        "score": score,
                        "expected": expected,
                        "ok": None if score is None or expected is None else score == expected,
                        "stored": exact.stored,
                        "nodes": exact.stats.nodes,
                        "time_s": round(exact.stats.time_s, 6),
                    }
                    rows.append(row)
                    if not args.json:
                        status.echo(_position_line(row))
                    wrong += row["ok"] is False
                    status.update(
                        f"{len(rows):,} of {len(entries):,} positions, {wrong} mismatched"
                    )
    finally:
        if store is not None:
            store.close()
    seconds = time.perf_counter() - started
    solved = [row for row in rows if row["score"] is not None]
    mismatches = [row for row in rows if row["ok"] is False]
    checked = sum(row["ok"] is not None for row in rows)
    per_position = seconds / len(solved) if solved else None
    data: dict[str, Any] = {
        "game": spec.name,
        "file": str(args.positions),
        "algorithm": COMPILED_ENGINE,
        "weak": args.weak,
        "workers": args.workers,
        "positions": len(entries),
        "solved": len(solved),
        "checked": checked,
        "mismatches": len(mismatches),
        "complete": len(solved) == len(entries),
        "nodes": sum(row["nodes"] for row in rows),
        "time_s": round(seconds, 6),
        "time_per_position_s": None if per_position is None else round(per_position, 9),
        "startup_s": round(startup, 6),
        "results": rows,
    }
    if args.json:
        print(json.dumps(data))
    else:
        rate = f" ({per_position * 1e3:.3f} ms per position)" if per_position is not None else ""
        workers = f"{args.workers} worker{'s' if args.workers > 1 else ''}"
        print(
            f"{len(solved)} of {len(entries)} positions solved in {seconds:.2f} s{rate}, "
            f"{workers}, {data['nodes']:,} nodes; {checked} checked against the file's scores: "
            f"{len(mismatches)} mismatch{'es' if len(mismatches) != 1 else ''}"
            + f" (start-up {startup:.2f} s before that)"
        )
        if len(solved) < len(entries):
            print(f"stopped: {len(entries) - len(solved)} positions not solved")
        for row in mismatches:
            print(
                f"  mismatch: line {row['line']} {row['position']}: solved {row['score']:+d}, "
                f"the file says {row['expected']:+d}"
            )
    return 1 if mismatches else 0


def _position_line(row: dict[str, Any]) -> str:
    """One position's line in ``solve --positions``."""
    if row["score"] is None:
        verdict, score = "not solved (stopped)", "-"
    else:
        score = f"{row['score']:+d}" if row["score"] else "0"
        if row["ok"] is None:
            verdict = ""
        elif row["ok"]:
            verdict = "ok"
        else:
            verdict = f"MISMATCH: expected {row['expected']:+d}"
    source = "from the store" if row["stored"] else f"{row['nodes']:,} nodes"
    return (
        f"{row['line']:>6} {row['position']:<24} {score:>4}  {verdict:<22} {source:>16} "
        f"{row['time_s'] * 1e3:9.3f} ms"
    )
