"""``zerosum uci``: the chess engine over UCI (``zerosum.uci``), for GUIs and python-chess."""

from __future__ import annotations

import argparse

from zerosum.cli.parser import Subcommands


def add_parser(commands: Subcommands) -> None:
    """Adds ``uci``."""
    parser = commands.add_parser(
        "uci", help="the chess engine over UCI (for GUIs and python-chess)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Speak UCI on stdin and stdout until ``quit`` or the end of input."""
    from zerosum.uci import main as uci_main  # the chess engine: only when asked for

    return uci_main()
