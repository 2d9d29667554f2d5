"""``zerosum perft``: count the move sequences of a given length from a position.

The game's fast perft (compiled, named by its spec) runs unless ``--generic`` asks for the
count through the game protocol (:func:`zerosum.search.perft.perft`, every game, plugins
included). The count runs in a helper thread (compiled code holds no GIL), so Ctrl-C stops it
at once.
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable
from typing import Final

from zerosum.cli.common import emit, load_position
from zerosum.cli.parser import Subcommands, bounded_int, position_options
from zerosum.cli.progress import Progress
from zerosum.compiled.warm import estimate, is_cached, mark_cached
from zerosum.engines import perft_counter
from zerosum.game import ZerosumError

MAX_DEPTH: Final = 30


perft_depth = bounded_int(0, MAX_DEPTH)
"""A perft depth, 0..``MAX_DEPTH``."""


def add_parser(commands: Subcommands) -> None:
    """Adds ``perft``."""
    parser = commands.add_parser(
        "perft",
        help="count the move sequences of N plies from a position (a move generator check)",
        description="Count the legal move sequences of --depth plies from the position; a "
        "game over has no moves. Prints the count (JSON: nodes), the time and nodes per second.",
    )
    position_options(parser)
    parser.add_argument(
        "--depth", type=perft_depth, required=True, metavar="N", help="plies to count"
    )
    parser.add_argument(
        "--generic",
        action="store_true",
        help="count through the game protocol (the slow twin) instead of the game's compiled perft",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    spec, game = load_position(args)
    with Progress.for_command(args, f"perft {spec.name}") as progress:
        if spec.perft is not None and not args.generic:  # before numba is imported
            if is_cached(spec, "perft"):
                progress.update("loading the compiled perft")
            else:
                expected = estimate(spec, "perft")
                progress.update(f"compiling the compiled perft (first use: about {expected:.0f} s)")
        counter, how = perft_counter(spec, generic=args.generic)
        counter(game, min(args.depth, 1))  # load the compiled code before the clock starts
        if how == "compiled" and args.depth > 0:  # depth 0 compiles nothing
            mark_cached(spec, "perft")
        progress.update(f"counting {args.depth} plies")
        started = time.perf_counter()
        nodes = _in_thread(lambda: counter(game, args.depth))
        seconds = time.perf_counter() - started
    nps = int(nodes / seconds) if seconds > 0 else 0
    data = {
        "game": spec.name,
        "position": game.position(),
        "depth": args.depth,
        "nodes": nodes,
        "time_s": round(seconds, 6),
        "nps": nps,
        "perft": how,
    }
    emit(args, data, f"perft {args.depth}: {nodes:,} nodes in {seconds:.3f} s ({nps:,} nodes/s)")
    return 0


def _in_thread(count: Callable[[], int]) -> int:
    """``count()`` in a daemon thread, the main thread waiting where Ctrl-C reaches it."""
    result: list[int] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def work() -> None:
        try:
            result.append(count())
        except BaseException as error:  # handed to the main thread below
            errors.append(error)
        finally:
            done.set()

    threading.Thread(target=work, daemon=True).start()
    while not done.wait(0.05):
        pass
    if errors:
        if isinstance(errors[0], ValueError):
            raise ZerosumError(str(errors[0]))
        raise errors[0]
    return result[0]
