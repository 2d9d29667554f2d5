"""``zerosum book``: solve every position up to some plies from a position into a store.

With ``--workers N`` or ``--cluster ADDRESS`` the positions of each layer are solved at once,
each a unit on local processes or Ray, and their results go into the same store (on Ray,
``--json`` adds ``cluster_nodes`` and ``units_per_node``: where the units ran). The store
keeps each result as soon as it is proven, so a build stopped by ``--time`` or Ctrl-C resumes
where it stopped, and the positions solved before are counted, not solved
again. The compiled engine does the solving: games with a kernel only. On a terminal, a status
line on stderr counts the positions done (:mod:`.progress`).
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from zerosum.cli.common import UsageError, emit, interruptible, load_position, open_store
from zerosum.cli.engines import open_solver
from zerosum.cli.parser import (
    Subcommands,
    cluster_option,
    duration,
    file_path,
    megabytes,
    position_options,
    whole_number,
    workers_option,
)
from zerosum.cli.progress import Progress
from zerosum.compiled import DEFAULT_HASH_MB, check_compiled
from zerosum.formatting import exact_text
from zerosum.game import Game
from zerosum.games import get_game
from zerosum.search import Limit

if TYPE_CHECKING:  # imports numba
    from zerosum.compiled.solver import Exact


def add_parser(commands: Subcommands) -> None:
    """Adds ``book``."""
    book = commands.add_parser(
        "book", help="solve every position up to some plies into a store (resumable)"
    )
    position_options(book)
    book.add_argument("--plies", type=whole_number, required=True, help="how many plies deep")
    book.add_argument(
        "--store",
        metavar="PATH",
        type=file_path("a SQLite file"),
        required=True,
        help="the SQLite store",
    )
    book.add_argument("--weak", action="store_true", help="only win, draw or loss")
    book.add_argument("--hash", type=megabytes, default=DEFAULT_HASH_MB, help="table size in MB")
    book.add_argument("--time", type=duration, help="stop after this many seconds")
    book.add_argument(
        "--no-book", action="store_true", help="solve without the shipped opening book"
    )
    workers_option(book)
    cluster_option(
        book, "solve the positions", note="with --workers N > 1 alone, on N local processes"
    )
    book.set_defaults(run=run)


def compiled_plies(game: str) -> int:
    """The most plies a game of ``game`` can last (its spec's bound; else as many as its
    kernel's stack holds)."""
    from zerosum.compiled.kernels import compiled_game  # numba: only when it is used

    bound = get_game(game).max_plies
    return bound if bound is not None else compiled_game(game).kernel.max_ply


def run(args: argparse.Namespace) -> int:
    """Build the book, printing each position solved now (text only), then a summary."""
    spec, game = load_position(args)
    check_compiled(spec.name)
    if game.outcome() is not None:
        raise UsageError(
            "the game is over at this position, so there is nothing to solve: "
            "expected a position with moves to play"
        )
    most = compiled_plies(spec.name) - game.ply()
    if not 0 <= args.plies <= most:
        raise UsageError(
            f"--plies {args.plies} is out of range: expected 0..{most} "
            f"(the moves left in {spec.name} after {game.ply()} plies)"
        )
    counts = {"positions": 0, "solved": 0, "stored_before": 0}
    placed: dict[str, int] | None = None  # on Ray: the units each node ran
    started = time.perf_counter()
    status = Progress.for_command(args, "book")

    def progress(position: Game[Any], exact: Exact) -> None:
        counts["positions"] += 1
        counts["stored_before" if exact.stored else "solved"] += 1
        if not args.json and not exact.stored:
            status.echo(
                f"  {position.position() or '(start)':<16} {exact_text(exact, weak=args.weak)}"
                f"  {exact.stats.nodes:,} nodes, {exact.stats.time_s:.2f} s"
            )
        status.update(
            f"{counts['positions']:,} positions ({counts['solved']:,} solved now, "
            f"{counts['stored_before']:,} stored before); now at ply {position.ply()}"
        )

    with open_store(args.store) as store, interruptible() as stop, status:
        status.update("loading the compiled solver")
        solver = open_solver(spec, hash_mb=args.hash, store=store)
        if args.no_book:  # rebuilding the shipped book: prove every position afresh
            solver.book = None
        status.update("listing the positions, then solving the deepest first")
        limit = Limit(time=args.time, stop=stop)
        if args.workers == 1 and args.cluster is None:
            done = solver.build_book(
                game, args.plies, weak=args.weak, limit=limit, on_position=progress
            )
        else:  # each position a unit on the local pool or Ray, the results in this store
            from zerosum.compiled.book_units import book_distributed
            from zerosum.runtime.cluster import open_executor

            with open_executor(args.cluster, workers=args.workers) as executor:
                done = book_distributed(
                    game,
                    args.plies,
                    executor=executor,
                    store=store,
                    weak=args.weak,
                    hash_mb=args.hash,
                    limit=limit,
                    on_position=progress,
                )
                found = getattr(executor, "units_per_node", None)
                if found is not None:
                    placed = dict(found)
        total = store.count(spec.name)
    seconds = time.perf_counter() - started
    data = {
        "game": spec.name,
        "store": args.store,
        "plies": args.plies,
        "complete": done,
        **counts,
        "store_results": total,
        "time_s": round(seconds, 3),
    }
    if placed is not None:
        data.update(cluster_nodes=len(placed), units_per_node=placed)
    text = (
        f"{'book complete' if done else 'stopped early (the store keeps every proven result)'}: "
        f"{counts['positions']} positions up to {args.plies} plies, {counts['solved']} solved now, "
        f"{counts['stored_before']} already stored; {total} results in {args.store}; "
        f"{seconds:.1f} s"
    )
    emit(args, data, text)
    return 0
