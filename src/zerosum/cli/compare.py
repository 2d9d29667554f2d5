"""``zerosum compare``: every algorithm with and without its table on one position, then MCTS
on the same node budget, one row per search, printed as soon as it is done, so a Ctrl-C keeps
the rows finished so far."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import Any

from zerosum.cli.common import EXIT_INTERRUPTED, load_position
from zerosum.cli.parser import Subcommands, depth_limit, position_options
from zerosum.engines.mcts import compare_row as mcts_row
from zerosum.formatting import move_names
from zerosum.game import Game
from zerosum.search.compare import CompareRow, compare


def add_parser(commands: Subcommands) -> None:
    """Adds ``compare``."""
    parser = commands.add_parser("compare", help="compare the algorithms on one position")
    position_options(parser)
    parser.add_argument("--depth", type=depth_limit, required=True, help="search depth")
    parser.set_defaults(run=run)


def compare_rows(game: Game[Any], depth: int) -> Iterator[dict[str, Any]]:
    """Every algorithm with and without its table, one best move and all best moves, then MCTS
    with as many simulations as the engine search visited nodes; each row as soon as its
    search is done."""
    budget = 0
    for row in compare(game, [depth]):
        if (row.algorithm, row.table, row.best) == ("engine", "table", "one"):
            budget = row.stats.nodes
        yield _row(game, row)
    if game.outcome() is None:
        yield _row(game, mcts_row(game, budget, depth=depth))


def _row(game: Game[Any], row: CompareRow[Any]) -> dict[str, Any]:
    return {
        "algorithm": row.algorithm,
        "table": row.table,
        "best": row.best,
        "value": row.value,
        "best_moves": move_names(game, row.best_moves),
        **row.stats.as_dict(),
    }


def run(args: argparse.Namespace) -> int:
    """Print each row as it is computed; exits 130 after Ctrl-C, with the rows done so far."""
    spec, game = load_position(args)
    header = (
        f"{'algorithm':<10} {'table':<6} {'best':<4} {'value':>8} {'nodes':>10} "
        f"{'cutoffs':>8} {'probes':>8} {'hits':>8} {'time s':>8}  best moves"
    )
    if not args.json:
        print(f"{spec.title}, depth {args.depth}\n{header}\n{'-' * len(header)}", flush=True)
    data = {"game": spec.name, "position": game.position(), "depth": args.depth}
    rows: list[dict[str, Any]] = []
    interrupted = False
    try:
        for row in compare_rows(game, args.depth):
            rows.append(row)
            if not args.json:
                print(
                    f"{row['algorithm']:<10} {row['table']:<6} {row['best']:<4} "
                    f"{row['value']:>8} {row['nodes']:>10,} {row['cutoffs']:>8,} "
                    f"{row['tt_probes']:>8,} {row['tt_hits']:>8,} {row['time_s']:>8.3f}  "
                    f"{' '.join(row['best_moves'])}",
                    flush=True,
                )
    except KeyboardInterrupt:
        interrupted = True
    if args.json:
        print(json.dumps({**data, "rows": rows, "complete": not interrupted}), flush=True)
    elif interrupted:
        print(f"stopped after {len(rows)} row{'' if len(rows) == 1 else 's'}", flush=True)
    return EXIT_INTERRUPTED if interrupted else 0
