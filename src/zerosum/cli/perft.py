"""``zerosum perft``: count the move sequences of a given length from a position.

The game's fast perft (compiled, named by its spec) runs unless ``--generic`` asks for the
count through the game protocol (:func:`zerosum.search.perft.perft`, every game, plugins
included). The count runs in a helper thread (compiled code holds no GIL), so Ctrl-C stops it
at once.

The first use of a compiled perft on a machine compiles it (seconds to a minute). Then the
protocol's count, its slow twin, starts at once while a child process compiles the compiled
one into numba's disk cache (:class:`~zerosum.compiled.warm.Warmer`); once the child is done,
the compiled count starts too, and the first of the two to finish answers (``perft``
``protocol`` or ``compiled`` in ``--json``; both give the same count, which the tests check).
A small count thus answers in a second or two, and a large one no later than the compile
and the compiled count. ``ZEROSUM_COMPILE=wait`` compiles first instead, as before.
"""

from __future__ import annotations

import argparse
import contextlib
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Final

from zerosum.cli.common import emit, load_position
from zerosum.cli.parser import Subcommands, bounded_int, position_options
from zerosum.cli.progress import Progress
from zerosum.compiled.warm import (
    Warmer,
    compiling_in_background,
    estimate,
    is_cached,
    mark_cached,
)
from zerosum.engines import perft_counter
from zerosum.game import Game, ZerosumError
from zerosum.games import GameSpec
from zerosum.search.perft import perft as protocol_perft

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
        compiled = spec.perft is not None and not args.generic
        if (
            compiled
            and args.depth > 0
            and compiling_in_background()
            and not is_cached(spec, "perft")
        ):
            nodes, seconds, how = _race(spec, game, args.depth, progress)
        else:
            nodes, seconds, how = _count(spec, game, args, progress)
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


def _count(
    spec: GameSpec, game: Game[Any], args: argparse.Namespace, progress: Progress
) -> tuple[int, float, str]:
    """The count of the perft ``args`` ask for, its seconds (loading not counted) and kind."""
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
    return nodes, time.perf_counter() - started, how


def _race(
    spec: GameSpec, game: Game[Any], depth: int, progress: Progress
) -> tuple[int, float, str]:
    """The count by whichever finishes first: the protocol's, started now, or the compiled
    one, started once a child has compiled it (see the module's header); its seconds from
    now and its kind."""
    warmer = Warmer(spec, ["perft"])
    warmer.start()
    progress.update(
        f"counting {depth} plies through the game protocol while the compiled perft compiles",
        detail=lambda: f"(first use: about {warmer.remaining():.0f} s left)",
    )
    answers: queue.SimpleQueue[tuple[str, int | BaseException]] = queue.SimpleQueue()

    def count(kind: str, counter: Callable[[Game[Any], int], int], position: Game[Any]) -> None:
        try:
            answers.put((kind, counter(position, depth)))
        except BaseException as error:  # handed to the main thread below
            answers.put((kind, error))

    started = time.perf_counter()
    threading.Thread(
        target=count, args=("protocol", protocol_perft, game.copy()), daemon=True
    ).start()
    compiled_started = False
    while True:
        with contextlib.suppress(queue.Empty):
            kind, answer = answers.get(timeout=0.05)
            if isinstance(answer, int):
                return answer, time.perf_counter() - started, kind
            if kind == "protocol":  # a compiled count that fails leaves the protocol's
                if isinstance(answer, ValueError):
                    raise ZerosumError(str(answer))
                raise answer
        if not compiled_started and warmer.done():
            compiled_started = True
            if not warmer.failed:  # else the protocol's count answers alone
                progress.update(f"counting {depth} plies (the compiled perft joins in)")
                counter, _ = perft_counter(spec)  # loads from the disk cache
                threading.Thread(
                    target=count, args=("compiled", counter, game.copy()), daemon=True
                ).start()


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
