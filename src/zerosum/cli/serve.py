"""``zerosum serve``: the web app (``zerosum.web``), imported only when asked for."""

from __future__ import annotations

import argparse

from zerosum.cli.parser import Subcommands, host_name, port_number, positive_int
from zerosum.cli.progress import Progress


def add_parser(commands: Subcommands) -> None:
    """Adds ``serve``."""
    parser = commands.add_parser("serve", help="the web app: play and watch the search think")
    parser.add_argument(
        "--host",
        type=host_name,
        default="127.0.0.1",
        help="address to listen on (0.0.0.0: every interface)",
    )
    parser.add_argument("--port", type=port_number, default=8000, help="port (0: any free port)")
    parser.add_argument(
        "--max-searches",
        type=positive_int,
        default=None,
        metavar="N",
        help="searches running at once (default: the number of CPUs); past it a search "
        "is refused with 429 and Retry-After",
    )
    parser.add_argument(
        "--allow-host",
        type=host_name,
        action="append",
        default=[],
        metavar="NAME",
        help="one more name the app answers to in the Host header, besides the loopback "
        "names and --host (e.g. the machine's name when --host 0.0.0.0); repeatable",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until stopped; a status line (a terminal's stderr) while the web stack is
    imported (a second or more on a busy machine), before the address is printed."""
    with Progress.for_command(args, "serve") as status:
        status.update("starting the web app")
        from zerosum.web import serve

    serve(args.host, args.port, max_searches=args.max_searches, allow_hosts=args.allow_host)
    return 0
