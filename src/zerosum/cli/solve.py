"""``zerosum solve``: the exact value of a position and its best moves (every move's value with
``--all``).

:func:`run` chooses how to solve: the morris endgame databases for a position they decide
(:mod:`.endgames`), a test-set file of positions (``--positions``, :mod:`.solve_positions`),
work units on Ray (``--cluster``, :mod:`.solve_cluster`), the compiled engine
(:func:`solve_compiled`), or the engine layer's solve with a pure-Python algorithm. A limit or
Ctrl-C stops any of them; the answer then says what was not proven. On a terminal, a status
line on stderr says what is being proven and for how long (:mod:`.progress`).
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from zerosum.cli.common import UsageError, emit, interruptible, load_position, open_store
from zerosum.cli.endgames import run_endgame
from zerosum.cli.engines import COMPILED_ENGINE, check_algorithm, open_solver
from zerosum.cli.parser import (
    Subcommands,
    cluster_option,
    duration,
    file_path,
    megabytes,
    position_options,
    positive_int,
    workers_option,
)
from zerosum.cli.progress import Progress
from zerosum.cli.solve_book import solve_from_book
from zerosum.cli.solve_cluster import DEFAULT_UNIT_NODES, KEEP_WORKERS_S, cost_line, run_cluster
from zerosum.cli.solve_positions import run_positions
from zerosum.compiled import DEFAULT_HASH_MB
from zerosum.endgames import MAX_MEN
from zerosum.engines import open_engine
from zerosum.formatting import (
    describe,
    exact_text,
    exact_value_text,
    move_label,
    move_labels,
    move_names,
    result_data,
)
from zerosum.game import Game
from zerosum.games import GameSpec, resolve
from zerosum.search import Limit

if TYPE_CHECKING:  # imports numba
    from zerosum.compiled.solver import Exact, Solver


def add_parser(commands: Subcommands) -> None:
    """Adds ``solve``."""
    solver = commands.add_parser("solve", help="the exact value and every move's value")
    position_options(solver)
    solver.add_argument(
        "--algorithm", help="see 'zerosum algorithms' (default: the game's own choice)"
    )
    solver.add_argument("--no-table", action="store_true", help="no memo or table")
    solver.add_argument("--time", type=duration, help="give up after this many seconds")
    solver.add_argument("--all", action="store_true", help="every move's score")
    solver.add_argument("--weak", action="store_true", help="only win, draw or loss (faster)")
    solver.add_argument(
        "--hash", type=megabytes, help=f"table size in MB (default {DEFAULT_HASH_MB})"
    )
    solver.add_argument(
        "--store",
        metavar="PATH",
        type=file_path("a SQLite file"),
        help="keep proven results in this SQLite file",
    )
    solver.add_argument(
        "--no-book", action="store_true", help="prove it even if the opening book knows it"
    )
    workers_option(solver)
    cluster_option(solver, "solve in work units", local=True)
    solver.add_argument(
        "--split", type=positive_int, default=2, help="plies below the root of the work units"
    )
    solver.add_argument(
        "--unit-nodes",
        type=int,
        default=DEFAULT_UNIT_NODES,
        metavar="N",
        help="with --cluster: a work unit that has run N nodes is split into its children "
        f"when a worker would otherwise idle (default {DEFAULT_UNIT_NODES:,}; 0: never)",
    )
    solver.add_argument(
        "--keep-workers",
        type=float,
        default=KEEP_WORKERS_S,
        metavar="S",
        help="with --cluster ADDRESS: the units run on workers that stay S seconds after the "
        "command, with the compiled code loaded, for the next solve on the cluster (default "
        f"{KEEP_WORKERS_S:g}, 10 to 86400; 0: the command's own Ray tasks)",
    )
    solver.add_argument(
        "--root-tests",
        type=int,
        default=0,
        metavar="K",
        help="with --cluster: find the score by null-window tests over the work units, K at "
        "once, as the local solver narrows it (default 0: one alpha-beta walk over the units)",
    )
    solver.add_argument(
        "--positions",
        metavar="FILE",
        type=file_path("a test-set file"),
        help="solve every position of a test-set file (lines 'POSITION [SCORE]') and check them",
    )
    solver.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Solve with what the options and the position choose (see the module's header)."""
    if args.positions is not None:
        return run_positions(args)
    spec, game = load_position(args)
    algorithm = args.algorithm
    if algorithm is None and args.cluster is None and spec.endgames is not None:
        with Progress.for_command(args, "solve") as status:  # the databases' code: numpy
            status.update("reading the endgame databases")
            decided = resolve(spec.endgames).applies(game)
        if decided:
            return run_endgame(args, spec, game)
        if args.store:
            raise UsageError(
                "--store names the endgame store, and this position is outside the endgame "
                f"databases: expected nothing in hand and 3..{MAX_MEN} men a side on the "
                "standard board"
            )
    algorithm = check_algorithm(spec, algorithm, "solve")
    if args.cluster is not None:
        if algorithm != COMPILED_ENGINE:
            raise UsageError(
                "--cluster solves with the compiled engine: expected --algorithm compiled "
                "(the default for connect four)"
            )
        return run_cluster(args, spec, game)
    if algorithm == COMPILED_ENGINE:
        return solve_compiled(args, spec, game)
    compiled_only = (
        ("--weak", args.weak),
        ("--store", args.store),
        ("--hash", args.hash),
    )
    for option, given in compiled_only:
        if given:
            raise UsageError(f"{option} needs the compiled engine: expected --algorithm compiled")
    engine = open_engine(
        spec, algorithm, task="solve", workers=args.workers, table=not args.no_table
    )
    with interruptible() as stop, engine, Progress.for_command(args, "solve") as status:
        status.update(f"solving with {algorithm}")
        result = engine.solve(game, limit=Limit(time=args.time, stop=stop))
    data = result_data(spec, game, result, algorithm)
    data["move_values"] = {game.format_move(m): v for m, v in result.move_values}
    proof = result.proof_stats  # the value is proven first, as a deepening search proves it
    lines = [f"value {describe(result.value, solved=result.solved)} ({result.value})"]
    if not result.solved:
        lines.append("(not solved: stopped early; the values are estimates)")
    elif not result.complete and game.outcome() is None:
        lines.append(
            f"(stopped after the value was proven: {len(result.move_values)} of "
            f"{len(game.legal_moves())} moves' values proven)"
        )
    lines.append(f"best moves {' '.join(move_labels(game, result.best_moves)) or '-'}")
    for move, value in result.move_values:
        lines.append(f"  {move_label(game, move):<8} {describe(value, solved=result.solved)}")
    if proof is not None and proof.nodes < result.stats.nodes:
        lines.append(f"value proven after {proof.nodes:,} nodes in {proof.time_s:.3f} s")
    lines.append(f"nodes {result.stats.nodes:,} in {result.stats.time_s:.3f} s")
    emit(args, data, "\n".join(lines))
    return 0


def solve_compiled(args: argparse.Namespace, spec: GameSpec, game: Game[Any]) -> int:
    """``solve`` with the compiled engine: the game's exact score, best moves, and with
    ``--all`` every move's score, each stored as soon as it is proven when a store is open.
    A position the game's opening book decides is answered from it, without the solver."""
    if not args.no_book:
        answered = solve_from_book(args, spec, game)
        if answered is not None:
            return answered
    store = open_store(args.store) if args.store else None
    solver: Solver | None = None
    opened = time.perf_counter()
    try:
        # Opening the solver imports numba and loads its code (seconds on a busy machine):
        # the status line says so from the start.
        with Progress.for_command(args, "solve") as loading:
            loading.update("loading the compiled solver (its first use compiles it)")
            solver = open_solver(
                spec, hash_mb=args.hash or DEFAULT_HASH_MB, store=store, workers=args.workers
            )
        if args.no_book:
            solver.book = None
        startup_s = time.perf_counter() - opened
        stream = not args.json and args.all
        status = Progress.for_command(args, "solve")
        shown = 0

        def show(move: Any, exact: Exact) -> None:
            nonlocal shown
            shown += 1
            if stream:
                status.echo(f"  {game.format_move(move):<8} {exact_text(exact, weak=args.weak)}")
            status.update(
                f"{shown} of {len(game.legal_moves())} moves solved, the next", detail=searched
            )

        def searched() -> str:
            count = solver.live_nodes() if solver is not None else None
            return f"{count:,} nodes" if count else ""  # none yet while the kernel loads

        with interruptible() as stop, status:
            status.update(f"proving the {'result' if args.weak else 'score'}", detail=searched)
            limit = Limit(time=args.time, stop=stop)
            started = time.perf_counter()
            exact = solver.solve(game, weak=args.weak, limit=limit)
            solve_s = time.perf_counter() - started
            results: list[tuple[Any, Exact]] = []
            best: list[Any] = []
            best_known = True
            moves_nodes = 0
            if stream and exact.complete:
                status.echo(f"score {exact_text(exact, weak=args.weak)}")
            if exact.complete and game.outcome() is None:
                left = limit.since(started)  # --time covers the score and every move's
                status.update(
                    "solving each move" if args.all else "finding the best moves", detail=searched
                )
                if args.all:
                    results = solver.move_results(game, weak=args.weak, limit=left, on_move=show)
                    best = [m for m, r in results if r.rank == exact.rank]
                    moves_nodes = sum(r.stats.nodes for _, r in results)
                else:  # Ctrl-C and --time stop this too
                    found, cost = solver.best_moves_search(
                        game, exact.rank, weak=args.weak, limit=left
                    )
                    best, best_known = found or [], found is not None
                    moves_nodes = cost.nodes
            moves_s = time.perf_counter() - started - solve_s
    finally:
        if solver is not None:
            solver.close()
        if store is not None:
            store.close()
    complete = exact.complete and (not args.all or len(results) == len(game.legal_moves()))
    complete = complete and best_known
    # The whole command's cost, in parts: opening the solver (its workers), the score, the
    # best moves (every move's score with --all).
    nodes = exact.stats.nodes + moves_nodes
    seconds = startup_s + solve_s + moves_s
    data: dict[str, Any] = {
        "game": spec.name,
        "position": game.position(),
        "algorithm": COMPILED_ENGINE,
        "weak": args.weak,
        "score": exact.rank if exact.complete else None,
        "value": exact.value if exact.complete else None,
        "value_text": exact_value_text(exact, weak=args.weak) if exact.complete else None,
        "best_moves": move_names(game, best),
        "best_moves_complete": best_known,
        "complete": complete,
        "stored": exact.stored,
        "book": exact.book,
        "nodes": nodes,
        "time_s": round(seconds, 6),
        "startup_s": round(startup_s, 6),
        "solve_s": round(solve_s, 6),
        "moves_s": round(moves_s, 6),
        "solve_nodes": exact.stats.nodes,
        "moves_nodes": moves_nodes,
    }
    if args.all:
        scores: dict[str, int | None] = dict.fromkeys(spec.move_names)
        scores.update({game.format_move(m): r.rank for m, r in results})
        data["scores"] = scores
        solved = {m for m, _ in results}
        data["unsolved"] = [game.format_move(m) for m in game.legal_moves() if m not in solved]
        data["move_values"] = {game.format_move(m): r.value for m, r in results}
    lines = []
    if game.outcome() is not None:
        lines.append("the game is over: no moves to play")
    if not exact.complete:
        lines.append("not solved: stopped before the score was proven")
    elif not stream:
        lines.append(f"score {exact_text(exact, weak=args.weak)}")
    if exact.complete and not best_known:
        lines.append("best moves not known: stopped before they were proven")
    elif exact.complete:
        lines.append(f"best moves {' '.join(data['best_moves']) or '-'}")
    if args.all:
        unsolved = data["unsolved"]
        full = [
            name for name, score in data["scores"].items() if score is None and name not in unsolved
        ]
        if full and game.outcome() is None:
            lines.append(f"  not playable: {' '.join(full)}")
        if unsolved and game.outcome() is None:
            lines.append(f"  not solved (stopped): {' '.join(unsolved)}")
        if exact.complete and not complete:
            lines.append("  (stopped before every move was solved)")
    lines.append(cost_line(data, stored=exact.stored))
    emit(args, data, "\n".join(lines))
    return 0
