"""``zerosum serve``: the web app (``zerosum.web``), imported only when asked for."""

from __future__ import annotations

import argparse

from zerosum.cli.parser import Subcommands, port_number


def add_parser(commands: Subcommands) -> None:
    """Adds ``serve``."""
    parser = commands.add_parser("serve", help="the web app: play and watch the search think")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=port_number, default=8000, help="port (0: any free port)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until stopped."""
    from zerosum.web import serve

    serve(args.host, args.port)
    return 0
