"""``zerosum solve --cluster``: an exact solve in work units on Ray.

The position is split ``--split`` plies down into work units that Ray workers (or local processes:
``--cluster local``) solve with the compiled engine; a unit that has run ``--unit-nodes`` is split
into its children while the solve runs when a worker would otherwise idle, and a unit that a result
made unneeded stops at once. Every unit's result is kept in the store (an in-memory one without
``--store``), so a second run resumes an interrupted one. The answer has the fields and lines of the
local compiled solve (score, best moves; with ``--all`` every move's score), plus the work units and
where they ran: ``cluster_nodes`` (the Ray nodes that ran units) and ``units_per_node`` (by Ray node
id). On a cluster joined by address the units run on its pool workers (:mod:`zerosum.runtime.pool`),
which stay ``--keep-workers`` seconds after the command with their compiled code loaded, so that the
next solve skips their start (``0``: the command's own Ray tasks, started and ended with it);
``workers_reused`` and ``workers_made`` count the workers this command found and the ones it made
(of those that answered it). ``time_s`` is the whole command's, from joining (or starting) Ray to
the answer, in parts: ``startup_s``, ``solve_s`` (the score) and ``moves_s`` (the best moves, or
every move's score with ``--all``); ``nodes`` is ``solve_nodes`` plus ``moves_nodes``.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from typing import Any, Final

from zerosum.cli.common import UsageError, emit, interruptible
from zerosum.cli.engines import COMPILED_ENGINE
from zerosum.cli.progress import Progress
from zerosum.compiled import DEFAULT_HASH_MB
from zerosum.formatting import exact_text, exact_value_text, move_names
from zerosum.game import Game
from zerosum.games import GameSpec
from zerosum.search import Limit
from zerosum.store import Store

KEEP_WORKERS_S: Final = 300.0
MOST_KEEP_WORKERS_S: Final = 86_400.0  # a day: idle workers hold memory Ray does not see
"""``--keep-workers``: how long the cluster's pool workers stay after a command for the next
(:mod:`zerosum.runtime.pool`; its own default, ``IDLE_S``, is the same)."""
DEFAULT_UNIT_NODES: Final = 20_000_000
"""``--unit-nodes``: how many nodes a work unit runs (a few seconds of the compiled solver)
before it may be split into its children for a worker that would otherwise idle."""


def run_cluster(args: argparse.Namespace, spec: GameSpec, game: Game[Any]) -> int:
    """Solve ``game`` on the Ray cluster ``args.cluster`` and print the answer."""
    from zerosum.compiled.distributed import (  # numba: when asked
        Budget,
        load_coordinator,
        solve_distributed,
    )
    from zerosum.runtime.cluster import open_executor
    from zerosum.runtime.pool import GONE_S

    if args.unit_nodes < 0:
        raise UsageError(f"--unit-nodes {args.unit_nodes}: expected 0 (never split) or more")
    if not (args.keep_workers == 0 or GONE_S <= args.keep_workers <= MOST_KEEP_WORKERS_S):
        # Shorter, a worker could leave between two units of its own command.
        between = f"expected 0 (none) or {GONE_S:g} to {MOST_KEEP_WORKERS_S:g} seconds"
        raise UsageError(f"--keep-workers {args.keep_workers:g}: {between}")
    if args.root_tests < 0:
        raise UsageError(f"--root-tests {args.root_tests}: expected 0 (none) or more tests")
    budget = Budget(nodes=args.unit_nodes) if args.unit_nodes else None
    status = Progress.for_command(args, "solve")
    answered = 0

    def on_unit(position: Game[Any], rank: int) -> None:
        nonlocal answered
        answered += 1
        status.update(f"solving in work units: {answered} proven, the last {position.position()}")

    with Store(args.store or ":memory:") as store, interruptible() as stop, status:
        started = time.perf_counter()
        status.update(
            "starting the workers, loading the compiled solver (its first use compiles it)"
        )

        executor = open_executor(
            args.cluster,
            workers=0 if args.workers == 1 else args.workers,
            keep_s=args.keep_workers,
        )
        # The kernel loads once Ray has connected, not beside it: both are Python's work
        # (Ray's import and connection, numba's cache) and share one interpreter lock, so
        # side by side they took longer than one after the other (0.82-0.89 s against
        # 0.73-0.76 s, docs/parallel.md). An error there is the solve's to report, in its own
        # words.
        with contextlib.suppress(Exception):
            load_coordinator(game)
        startup_s = time.perf_counter() - started
        status.update("solving in work units")
        try:
            found = solve_distributed(
                game,
                executor=executor,
                store=store,
                split=args.split,
                weak=args.weak,
                hash_mb=args.hash or DEFAULT_HASH_MB,
                limit=Limit(time=args.time, stop=stop),
                moves="all" if args.all else "best",
                budget=budget,
                root_tests=args.root_tests > 0,
                tests_at_once=max(args.root_tests, 1),
                on_unit=on_unit,
            )
        finally:
            executor.shutdown(wait=False, cancel_futures=True)
    placed = dict(getattr(executor, "units_per_node", {}))
    data, lines = _output(args, spec, game, found, startup_s, placed)
    if hasattr(executor, "reused"):  # pool workers: found again, or made by this command
        data.update(workers_reused=executor.reused, workers_made=getattr(executor, "made", 0))
    emit(args, data, "\n".join(lines))
    return 0


def compiled_value(game: str, rank: int, ply: int) -> int:
    """A compiled rank at a root with ``ply`` as a search value (``mission.md``)."""
    from zerosum.compiled.kernels import compiled_game

    return compiled_game(game).value(rank, ply)


def _output(
    args: argparse.Namespace,
    spec: GameSpec,
    game: Game[Any],
    found: Any,
    startup_s: float,
    placed: dict[str, int],
) -> tuple[dict[str, Any], list[str]]:
    """The JSON and the text of ``solve --cluster``: the fields and lines of the local compiled
    solve (``solve.solve_compiled``), then the work units, the nodes that ran them and the
    cost in parts."""
    from zerosum.compiled.solver import Exact
    from zerosum.search.core import Stats

    def exact(rank: int) -> Exact:
        value = rank if args.weak else compiled_value(spec.name, rank, game.ply())
        return Exact(rank, value, Stats(), stored=found.stored)

    over = game.outcome() is not None
    score = None if found.rank is None else exact(found.rank)
    complete = found.rank is not None and found.moves_complete
    data: dict[str, Any] = {
        "game": spec.name,
        "position": game.position(),
        "algorithm": COMPILED_ENGINE,
        "weak": args.weak,
        "score": None if score is None else score.rank,
        "value": None if score is None else score.value,
        "value_text": None if score is None else exact_value_text(score, weak=args.weak),
        "best_moves": move_names(game, found.best_moves),
        "complete": complete,
        "stored": found.stored,
        "nodes": found.nodes,
        "time_s": round(startup_s + found.time_s, 6),
        "startup_s": round(startup_s, 6),
        "solve_s": round(found.solve_s, 6),
        "moves_s": round(found.time_s - found.solve_s, 6),
        "solve_nodes": found.solve_nodes,
        "moves_nodes": found.nodes - found.solve_nodes,
    }
    if args.all:
        scores: dict[str, int | None] = dict.fromkeys(spec.move_names)
        scores.update({game.format_move(m): rank for m, rank in found.moves})
        data["scores"] = scores
        solved = [m for m, _ in found.moves]
        data["unsolved"] = [game.format_move(m) for m in game.legal_moves() if m not in solved]
        data["move_values"] = {game.format_move(m): exact(r).value for m, r in found.moves}
    data.update(
        cluster=args.cluster,
        units=found.units,
        units_from_store=found.from_store,
        units_solved=found.solved,
        units_cancelled=found.cancelled,
        units_split=found.splits,
        units_stopped=found.stopped,
        units_narrowed=found.narrowed,
        cluster_nodes=len(placed),
        units_per_node=placed,
    )
    lines = []
    if over:
        lines.append("the game is over: no moves to play")
    if score is None:
        lines.append("not solved: stopped before the score was proven (the store keeps results)")
    else:
        lines.append(f"score {exact_text(score, weak=args.weak)}")
        if args.all:
            for move, rank in found.moves:
                lines.append(
                    f"  {game.format_move(move):<8} {exact_text(exact(rank), weak=args.weak)}"
                )
        if found.moves_complete:
            lines.append(f"best moves {' '.join(data['best_moves']) or '-'}")
        else:
            lines.append("best moves not known: stopped before every move was decided")
    if args.all and not over:
        unsolved = data["unsolved"]
        full = [name for name, rank in scores.items() if rank is None and name not in unsolved]
        if full:
            lines.append(f"  not playable: {' '.join(full)}")
        if unsolved:
            lines.append(f"  not solved (stopped): {' '.join(unsolved)}")
    spread = ""
    if placed:
        counts = " + ".join(str(count) for count in sorted(placed.values(), reverse=True))
        spread = f" on {len(placed)} Ray node{'s' * (len(placed) > 1)} ({counts})"
    lines += [
        f"{found.units} work units {args.split} plies down: {found.from_store} from the store, "
        f"{found.solved} solved now{spread}, {found.cancelled} cancelled, {found.splits} split",
        cost_line(data, stored=found.stored),
    ]
    return data, lines


def cost_line(data: dict[str, Any], *, stored: bool) -> str:
    """The last line of ``solve``: every node and second of the command, then its parts."""
    parts = [f"score {data['solve_nodes']:,} in {data['solve_s']:.3f} s"]
    if data["moves_nodes"] or data["moves_s"] >= 0.0005:
        parts.append(f"moves {data['moves_nodes']:,} in {data['moves_s']:.3f} s")
    if data.get("startup_s", 0) >= 0.0005:
        parts.insert(0, f"start {data['startup_s']:.3f} s")
    line = f"nodes {data['nodes']:,} in {data['time_s']:.3f} s ({'; '.join(parts)})"
    return line + " (from the store)" * stored
