"""The ``zerosum`` argument parser: its error handling, the option value types, the options
several commands share, and the assembly of the subcommands from the command modules.

Each command module registers its own subcommand (``add_parser``), so this module knows no
command; the order of the modules given to :func:`build_parser` is the order of ``--help``.
Every option value is checked here, at the boundary: a bad one is a :class:`UsageError`
naming what was expected.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable
from typing import Final, NoReturn, Protocol, TypeAlias

from zerosum import __version__
from zerosum.cli.common import UsageError
from zerosum.compiled import MAX_HASH_MB
from zerosum.game import MAX_PLY
from zerosum.search.core import MAX_NODES, MAX_TIME_S, number_text


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


Subcommands: TypeAlias = "argparse._SubParsersAction[Parser]"
"""What ``add_subparsers`` returns (argparse names no public type for it)."""


class Command(Protocol):
    """A command module: it adds its subcommand(s), each with ``run`` set to the function
    that runs it and returns the exit status."""

    def add_parser(self, commands: Subcommands) -> None: ...


def build_parser(commands: Iterable[Command]) -> Parser:
    """The ``zerosum`` parser with the subcommands of ``commands``, in that order."""
    parser = Parser(
        prog="zerosum",
        description="Play and solve two-player zero-sum games with game-tree search.",
    )
    parser.add_argument("--version", action="version", version=f"zerosum {__version__}")
    subcommands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in commands:
        command.add_parser(subcommands)
    return parser


# -- option value types: each raises ArgumentTypeError naming what it expected -------------


def quoted(text: str, most: int = 60) -> str:
    """``repr(text)`` for a message, cut to about ``most`` characters: an argument of a
    megabyte is not echoed back whole."""
    return repr(text) if len(text) <= most else repr(text[:most]) + f"... ({len(text):,} chars)"


def whole_number(text: str) -> int:
    """Any whole number (of at most 4,300 digits, as Python reads them)."""
    try:
        return int(text)
    except ValueError:
        if text.strip().lstrip("+-").isdigit():  # more digits than int() reads
            raise argparse.ArgumentTypeError(
                f"{quoted(text)} is out of range: a number of {len(text.strip()):,} digits"
            ) from None
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a whole number") from None


def positive_int(text: str) -> int:
    """A whole number of 1 or more."""
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"{number_text(value)} is out of range: expected 1 or more"
        )
    return value


def bounded_int(low: int, high: int, what: str = "") -> Callable[[str], int]:
    """The type of a whole number ``low..high`` (``what``: the range's meaning, for the
    message)."""

    def parse(text: str) -> int:
        value = whole_number(text)
        if not low <= value <= high:
            detail = f" ({what})" if what else ""
            raise argparse.ArgumentTypeError(
                f"{number_text(value)} is out of range: expected {low}..{high}{detail}"
            )
        return value

    parse.__name__ = f"whole number {low}..{high}"
    return parse


depth_limit = bounded_int(1, MAX_PLY, "plies")
"""A search depth: 1..``MAX_PLY`` plies."""
node_count = bounded_int(1, MAX_NODES, "the 64-bit node counters of the compiled engines")
"""A node budget: 1..2^63 - 1."""


def port_number(text: str) -> int:
    """A TCP port, 0..65535 (0: any free port)."""
    value = whole_number(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(
            f"{number_text(value)} is out of range: expected a port 0..65535"
        )
    return value


def host_name(text: str) -> str:
    """A host name or address to listen on or answer to: not empty (an empty one would
    listen on every interface unannounced), no spaces or control characters, at most 253
    characters (the longest DNS name)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} is empty: expected a host name or address such as 127.0.0.1 "
            "(0.0.0.0 for every interface)"
        )
    if len(text) > 253 or not text.isprintable() or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} is not a host name or address: expected one such as 127.0.0.1 or "
            "localhost, without spaces, at most 253 characters"
        )
    return text


def megabytes(text: str) -> float:
    """A table size in MB, 1..``MAX_HASH_MB``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a size in MB") from None
    if not 1 <= value <= MAX_HASH_MB:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} MB is out of range: expected 1..{MAX_HASH_MB}"
        )
    return value


def duration(text: str) -> float:
    """A number of seconds above 0 and at most ``MAX_TIME_S``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number of seconds") from None
    if not 0 < value <= MAX_TIME_S:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} is out of range: expected seconds > 0 and at most {MAX_TIME_S:.0e}"
        )
    return value


def non_negative(text: str) -> float:
    """A finite number of 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{quoted(text)} is out of range: expected a number >= 0")
    return value


def file_path(what: str) -> Callable[[str], str]:
    """A path option's type: any text but an empty (or blank) one, which named no file and
    used to mean "no file" silently (``--store ""``: nothing kept). ``what`` names the file
    expected (e.g. "a SQLite file") in the error."""

    def path(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(
                f"{quoted(text)} is an empty path: expected the path of {what}"
            )
        return text

    return path


WORKERS_PER_CORE: Final = 4
"""The most ``--workers`` a core of this machine: a CPU-bound search gains nothing past one
worker a core, and a few more keep the cores busy while some wait (on the store, a stop, a
game's engine); every worker is a process or thread with its own table and memory (a spawned
interpreter, 1.1 GB at six men of morris), so 256 on two cores only thrashed (a load of 141 with
150). A Ray cluster's size is its own: ``--cluster`` without ``--workers`` uses every CPU."""


def max_workers() -> int:
    """The most ``--workers`` on this machine: :data:`WORKERS_PER_CORE` for each core."""
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def worker_count(text: str) -> int:
    """``--workers``: a count 1..:func:`max_workers`, or ``0``/``auto`` for every core."""
    if text.strip().lower() in ("0", "auto"):
        return os.cpu_count() or 1
    most, cores = max_workers(), os.cpu_count() or 1
    expected = f"expected 0, auto or a number of workers 1..{most}"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} is not a whole number: {expected}"
        ) from None
    if not 1 <= value <= most:
        raise argparse.ArgumentTypeError(
            f"{number_text(value)} workers is out of range: {expected} ({WORKERS_PER_CORE} a "
            f"core of this machine's {cores})"
        )
    return value


# -- options several commands share ---------------------------------------------------------


def position_options(parser: argparse.ArgumentParser) -> None:
    """The game, the position (``--position``, then ``--moves`` from it) and ``--json``."""
    parser.add_argument("game", help="game name (see 'zerosum games')")
    parser.add_argument(
        "--moves", nargs="+", default=[], metavar="M", help="moves played from the start"
    )
    parser.add_argument("--position", metavar="P", help="a position in the game's format")
    json_option(parser)


def json_option(parser: argparse.ArgumentParser) -> None:
    """``--json``: print one JSON object instead of text."""
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def workers_option(parser: argparse.ArgumentParser) -> None:
    """``--workers`` of the searches (processes, or threads in the compiled engine)."""
    parser.add_argument(
        "--workers",
        type=worker_count,
        default=1,
        metavar="N",
        help="parallel searches: processes, threads in the compiled engine (default 1; 0 or "
        f"auto: one per core; at most {WORKERS_PER_CORE} a core)",
    )


def cluster_option(
    parser: argparse.ArgumentParser, work: str, *, local: bool = False, note: str = ""
) -> None:
    """``--cluster ADDRESS``: run ``work`` (e.g. "solve the positions") on Ray; with
    ``local``, the address ``local`` means local worker processes instead; ``note`` ends the
    help."""
    where = "'auto' starts a local Ray, " + ("'local' uses local processes, " if local else "")
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help=f"{work} on Ray: {where}else a cluster's address" + (f"; {note}" if note else ""),
    )
