"""``zerosum analyze``: search a position under a limit, printing each completed iteration.

The algorithm is ``--algorithm`` or the game's analyzer: one of ``zerosum.search``'s
algorithms, the compiled engine (games with a kernel), the tactical engine or Monte Carlo tree
search (``mcts``: its lines show simulations where the others show depth, ``--nodes`` counts
simulations, and ``--json`` adds each root move's visits and value). Ctrl-C stops the search,
which then reports its last completed iteration. ``--time`` counts from the command's start:
the interpreter's start and the imports come out of it (not a compile the command waits for
under ``ZEROSUM_COMPILE=wait``), so ``--time 2`` answers two seconds after it was typed.

Moves print as people read them (SAN in chess, :func:`zerosum.formatting.move_label`); ``--json``
keeps the game's notation and adds people's (``best_move_san``, ``pv_san``) where it differs.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from zerosum.cli.common import (
    UsageError,
    command_started,
    emit,
    interruptible,
    load_position,
)
from zerosum.cli.engines import (
    COMPILED_ENGINE,
    MCTS_ENGINE,
    TACTICAL_ENGINE,
    check_algorithm,
    engine_status,
    load_engine,
)
from zerosum.cli.parser import (
    Subcommands,
    depth_limit,
    duration,
    megabytes,
    node_count,
    non_negative,
    position_options,
    whole_number,
    workers_option,
)
from zerosum.compiled import DEFAULT_HASH_MB
from zerosum.engines import COMPILED_TACTICAL, MctsEngine, open_engine
from zerosum.engines.mcts import PLAYOUTS
from zerosum.engines.warming import WarmingEngine
from zerosum.formatting import describe, line_labels, move_label, move_labels, result_data
from zerosum.search import Limit, SearchResult


def add_parser(commands: Subcommands) -> None:
    """Adds ``analyze``."""
    analyze = commands.add_parser("analyze", help="search a position under a limit")
    position_options(analyze)
    analyze.add_argument("--depth", type=depth_limit, help="deepest iteration in plies")
    analyze.add_argument("--time", type=duration, help="seconds to think (default 10)")
    analyze.add_argument("--nodes", type=node_count, help="node budget")
    analyze.add_argument(
        "--algorithm", help="see 'zerosum algorithms' (default: engine; tactical for chess)"
    )
    analyze.add_argument("--no-table", action="store_true", help="no memo or table")
    analyze.add_argument("--all-best", action="store_true", help="find every best move")
    analyze.add_argument(
        "--seed", type=whole_number, help="pick the best move at random with this seed"
    )
    analyze.add_argument(
        "--hash",
        type=megabytes,
        help=f"the compiled engine's table, or the compiled MCTS tree, in MB (default "
        f"{DEFAULT_HASH_MB})",
    )
    analyze.add_argument(
        "--exploration", type=non_negative, help="MCTS's UCT exploration constant (default 1.4)"
    )
    analyze.add_argument(
        "--playout",
        choices=PLAYOUTS,
        help="how MCTS scores a new leaf: a random game to the end (default) or the evaluation",
    )
    workers_option(analyze)
    analyze.set_defaults(run=run)


def _limit(args: argparse.Namespace, stop: Callable[[], bool], *, started: float) -> Limit:
    """The search's limit: the options given, else 10 seconds, its time counted from
    ``started`` (a ``time.perf_counter()`` reading); ``stop`` ends it early."""
    if args.depth is None and args.nodes is None and args.time is None:
        limit = Limit(time=10.0, stop=stop)
    else:
        limit = Limit(depth=args.depth, nodes=args.nodes, time=args.time, stop=stop)
    return limit.since(started)


def run(args: argparse.Namespace) -> int:
    """Search the position with the engine the options and the game choose; print one line
    per completed iteration (text only), then the result."""
    spec, game = load_position(args)
    args.algorithm = check_algorithm(spec, args.algorithm)
    if args.hash is not None and args.algorithm not in (
        COMPILED_ENGINE,
        COMPILED_TACTICAL,
        MCTS_ENGINE,
    ):
        raise UsageError(
            "--hash sizes a compiled engine's table or the MCTS tree: expected --algorithm "
            f"compiled, {COMPILED_TACTICAL} or mcts"
        )
    for option, given in (("--exploration", args.exploration), ("--playout", args.playout)):
        if given is not None and args.algorithm != MCTS_ENGINE:
            raise UsageError(f"{option} is an option of MCTS: expected --algorithm mcts")
    if args.algorithm in (TACTICAL_ENGINE, COMPILED_TACTICAL, MCTS_ENGINE):
        for option, given in (("--all-best", args.all_best), ("--no-table", args.no_table)):
            if given:
                raise UsageError(
                    f"{option} is not available with the {args.algorithm} engine: expected "
                    "--algorithm engine"
                )
    mcts = args.algorithm == MCTS_ENGINE
    echo: Callable[[str], None] = print

    def report(result: SearchResult[Any]) -> None:
        if not args.json:
            line = " ".join(line_labels(game, result.pv))
            if mcts:
                value = describe(result.value, solved=result.solved)
                echo(f"simulations {result.stats.nodes:>9,}  value {value:>14}  pv {line}")
            else:
                echo(f"depth {result.depth:>3}  value {describe(result.value):>14}  pv {line}")

    engine = open_engine(
        spec,
        args.algorithm,
        workers=args.workers,
        table=not args.no_table,
        all_best=args.all_best,
        seed=args.seed,
        hash_mb=args.hash,
        exploration=args.exploration,
        playout=args.playout,
        instant=True,
    )
    # The time limit counts everything from the command's start (the interpreter, the
    # imports, opening the engine and starting its background compile: the command's clock
    # starts when it was typed) but a compile that load_engine waits for
    # (ZEROSUM_COMPILE=wait, or an engine without a twin).
    with interruptible() as stop, engine:
        loading = time.perf_counter()
        load_engine(engine, args)
        waited = 0.0 if isinstance(engine, WarmingEngine) else time.perf_counter() - loading
        with engine_status(engine, args) as status:
            echo = status.echo
            limit = _limit(args, stop, started=command_started(args) + waited)
            result = engine.search(game, limit, on_iteration=report)
        searched = engine.answered if isinstance(engine, WarmingEngine) else engine
        root_moves = searched.root_stats() if isinstance(searched, MctsEngine) else None
    data = result_data(spec, game, result, args.algorithm)
    twin = isinstance(engine, WarmingEngine) and searched is engine.twin
    if twin and isinstance(engine, WarmingEngine):  # the compiled engine was not ready in time
        data["answered_by"] = f"python {engine.twin.name}"
    stats = result.stats
    if root_moves is not None:
        data["root_moves"] = [
            {
                "move": game.format_move(root.move),
                "visits": root.visits,
                "value": round(root.value, 6),
                "proven": root.proven,
            }
            for root in root_moves
        ]
    lines = [
        f"value      {describe(result.value, solved=result.solved)} ({result.value})",
        f"best move  {'-' if result.best_move is None else move_label(game, result.best_move)}",
        f"best moves {' '.join(move_labels(game, result.best_moves)) or '-'}",
        f"pv         {' '.join(line_labels(game, result.pv)) or '-'}",
        f"depth      {result.depth}{'' if result.complete else ' (stopped early)'}",
        f"nodes      {stats.nodes:,}{' (simulations)' if mcts else ''}",
        f"time       {stats.time_s:.3f} s",
        f"nodes/s    {stats.nps:,.0f}",
    ]
    if twin:
        lines.append("engine     the Python twin (the compiled engine was not ready yet)")
    for root in root_moves or ():
        proven = "" if root.proven is None else f"  {describe(root.proven, solved=True)}"
        lines.append(
            f"  {move_label(game, root.move):<8} visits {root.visits:>9,}  "
            f"value {root.value:+.3f}{proven}"
        )
    emit(args, data, "\n".join(lines))
    return 0
