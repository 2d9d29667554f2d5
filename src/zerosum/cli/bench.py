"""``zerosum bench``: the node-count signature of a fixed set of searches (``zerosum.bench``).

A search change quotes the signature before and after: the same searches must visit the same
nodes on every run.
"""

from __future__ import annotations

import argparse

from zerosum.bench import BenchRow, bench
from zerosum.cli.common import emit
from zerosum.cli.engines import COMPILED_ENGINE, check_algorithm
from zerosum.cli.parser import Subcommands, json_option
from zerosum.compiled import check_compiled
from zerosum.games import get_game


def add_parser(commands: Subcommands) -> None:
    """Adds ``bench``."""
    parser = commands.add_parser("bench", help="print the node-count signature")
    parser.add_argument("games", nargs="*", help="games to bench (default: all)")
    parser.add_argument("--algorithm", default="engine", help="see 'zerosum algorithms'")
    json_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """One line per search as it ends (the header first), then the signature: the sum of
    their nodes; ``--json``: one object at the end."""
    if args.algorithm == COMPILED_ENGINE:
        for name in args.games:
            check_compiled(get_game(name).name)
    check_algorithm(None, args.algorithm, "bench")

    def say(line: str) -> None:
        if not args.json:
            print(line, flush=True)

    say(f"{'game':<10} {'moves':<16} {'depth':>5} {'value':>8} {'nodes':>10} {'time s':>8}")
    rows: list[BenchRow] = []
    for row in bench(args.games or None, algorithm=args.algorithm):
        rows.append(row)
        say(
            f"{row.game:<10} {row.moves or '(start)':<16} {row.depth:>5} {row.value:>8} "
            f"{row.nodes:>10,} {row.time_s:>8.3f}"
        )
    nodes = sum(row.nodes for row in rows)
    seconds = sum(row.time_s for row in rows)
    say(
        f"signature {nodes} nodes ({args.algorithm}); {seconds:.3f} s, "
        f"{nodes / seconds if seconds else 0:,.0f} nodes/s"
    )
    if args.json:
        data = {
            "algorithm": args.algorithm,
            "signature": nodes,
            "time_s": round(seconds, 6),
            "nps": round(nodes / seconds) if seconds else 0,
            "rows": [row.__dict__ for row in rows],
        }
        emit(args, data, "")
    return 0
