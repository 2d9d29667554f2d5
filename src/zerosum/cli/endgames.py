"""A game's endgame databases (morris's) on the command line: ``zerosum build-endgames``
builds them, and ``zerosum solve`` answers from them (:func:`run_endgame`) for a position they
decide, building the classes it needs on first use.

Progress goes to stderr, so that stdout carries only the answer (one JSON object with
``--json``): a line per class built or found, and on a terminal a status line that counts the
classes and shows the time (:mod:`.progress`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from zerosum.cli.common import UsageError, emit, tell_probe_file, tell_waiting
from zerosum.cli.parser import (
    Subcommands,
    cluster_option,
    file_path,
    json_option,
    whole_number,
    worker_count,
)
from zerosum.cli.progress import Progress
from zerosum.endgames import DEFAULT_MEN, MAX_MEN
from zerosum.formatting import move_names
from zerosum.game import Game
from zerosum.games import GAMES, GameSpec, get_game, resolve

if TYPE_CHECKING:
    from zerosum.endgames.database import ClassInfo
    from zerosum.endgames.probe_file import ProbeWrite


def add_parser(commands: Subcommands) -> None:
    """Adds ``build-endgames``."""
    endgames = commands.add_parser(
        "build-endgames", help="build the morris endgame databases (resumable)"
    )
    endgames.add_argument("game", help="morris")
    endgames.add_argument(
        "--max-men",
        type=whole_number,
        default=DEFAULT_MEN,
        help=f"men a side, 3..{MAX_MEN} (default {DEFAULT_MEN}; 6: about 7 CPU minutes, "
        "1.1 GB a worker)",
    )
    endgames.add_argument(
        "--store",
        metavar="PATH",
        type=file_path("a SQLite file"),
        help="the SQLite file (default: $ZEROSUM_ENDGAMES or the cache)",
    )
    endgames.add_argument(
        "--workers",
        type=worker_count,
        default=1,
        metavar="N",
        help="build independent tiers and the parts of large ones at once in N local "
        "processes (0 or auto: one per core; at most 4 a core)",
    )
    endgames.add_argument(
        "--part-size",
        type=whole_number,
        default=None,
        metavar="N",
        help="with --workers or --cluster: split a class of more than N entries into parts "
        "of N, each its own unit (default 16777216)",
    )
    cluster_option(endgames, "build the tiers")
    json_option(endgames)
    endgames.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Build every class up to ``--max-men`` men a side (the classes stored already are kept:
    Ctrl-C loses only the classes in progress); with ``--workers`` or ``--cluster``, the
    independent tiers at once (:mod:`zerosum.endgames.tiers`)."""
    spec = get_game(args.game)
    if spec.endgames is None:
        known = ", ".join(name for name, s in GAMES.items() if s.endgames is not None)
        raise UsageError(f"{args.game!r} has no endgame databases: expected one of {known}")
    module = resolve(spec.endgames)

    started = time.perf_counter()
    status = Progress.for_command(args, "build-endgames")
    # Ctrl-C loses only the class in progress
    with module.Endgames(args.store, on_wait=tell_waiting) as endgames, status:
        status.update(f"building up to {args.max_men} men a side")
        if not 3 <= args.max_men <= MAX_MEN:  # before any worker starts
            raise UsageError(f"--max-men {args.max_men} is out of range: expected 3..{MAX_MEN}")
        if args.part_size is not None and args.part_size < 1:
            raise UsageError(f"--part-size {args.part_size}: expected 1 or more entries")
        if args.workers == 1 and args.cluster is None and args.part_size is None:
            infos = endgames.build(args.max_men, on_class=_class_notes(status))
        else:  # tiers in dependency order on the executor (numba and Ray: only when asked)
            from zerosum.endgames.tiers import PART_SIZE, build_tiers
            from zerosum.runtime.cluster import open_executor

            with open_executor(args.cluster, workers=args.workers) as executor:
                infos = build_tiers(
                    endgames,
                    executor,
                    args.max_men,
                    on_class=_class_notes(status),
                    part_size=args.part_size or PART_SIZE,
                )
        status.update("writing the compiled engine's probe file")
        built = time.perf_counter()
        probe_file = _write_probe_file(module, endgames)
    seconds = time.perf_counter() - started
    data = {
        "game": spec.name,
        "store": str(endgames.path),
        "probe_file": probe_file,
        "probe_file_s": round(time.perf_counter() - built, 3),
        "classes": [{**info.__dict__, "name": info.name} for info in infos],
        "time_s": round(seconds, 3),
    }
    text = f"{len(infos)} classes in {endgames.path}; {seconds:.1f} s"
    emit(args, data, text)
    return 0


def _write_probe_file(module: Any, endgames: Any) -> str | None:
    """The compiled engine's probe file (beside the store, or in ``$ZEROSUM_PROBE_DIR``),
    brought up to date now rather than by the first engine (:mod:`zerosum.endgames.mapped`);
    ``None`` when the game has none or the folder cannot be written (the engine then holds
    the tables in memory, and a line on stderr says why)."""
    write = getattr(module, "write_probe_file", None)
    if write is None:
        return None

    def failed(note: ProbeWrite) -> None:  # the status line tells the rest
        if note.error is not None:
            tell_probe_file(note)

    try:
        return str(write(endgames, on_write=failed))
    except OSError:
        return None


def _class_notes(status: Progress) -> Callable[[ClassInfo], None]:
    """The ``on_class`` callback of a build: a line on stderr (stdout may carry JSON) for each
    class built or found, and the status line's count of them."""
    classes = 0

    def note(info: ClassInfo) -> None:
        nonlocal classes
        classes += 1
        how = (
            f"built in {info.build_s:.1f} s, peak {info.peak_mb:,.0f} MB"
            if info.built_now
            else "already stored"
        )
        text = (
            f"endgames {info.name}: {info.entries:,} positions, {info.classes:,} up to "
            f"symmetry; {info.wins:,} wins, {info.losses:,} losses, {info.draws:,} draws, "
            f"longest win {info.longest_win}; {how}"
        )
        status.echo(text, file=sys.stderr)
        status.update(f"{classes} classes ready (the last: {info.name})")

    return note


def run_endgame(args: argparse.Namespace, spec: GameSpec, game: Game[Any]) -> int:
    """``solve`` for a position the game's endgame databases decide (built on first use)."""
    assert spec.endgames is not None
    module = resolve(spec.endgames)
    needed_class, score, solve_endgame = module.needed_class, module.score, module.solve_endgame

    status = Progress.for_command(args, "solve")
    with status, module.Endgames(args.store, on_wait=tell_waiting) as endgames:
        status.update("reading the endgame databases")
        needed = needed_class(game)
        if not endgames.has(*needed) and max(needed) > DEFAULT_MEN:
            raise UsageError(
                f"class {needed[0]}-{needed[1]} is not in {endgames.path}: build it first with "
                f"'zerosum build-endgames morris --max-men {max(needed)} --store {endgames.path}' "
                "(minutes)"
            )
        if not endgames.has(*needed):
            print(f"building the endgame databases in {endgames.path} (first use)", file=sys.stderr)
            status.update("building the endgame databases")
            endgames.build(through=needed_class(game), on_class=_class_notes(status))
        solution = solve_endgame(game, endgames)
        path = str(endgames.path)
    result = solution.result
    data: dict[str, Any] = {
        "game": spec.name,
        "position": game.position(),
        "algorithm": "endgames",
        "result": result.word,
        "moves_to_end": result.moves_to_end,
        "value": score(result),
        "value_text": str(result),
        "solved": True,
        "best_moves": move_names(game, solution.best_moves),
        "moves": {
            game.format_move(m): {"result": r.word, "moves_to_end": r.moves_to_end}
            for m, r in solution.moves
        },
        "move_values": {game.format_move(m): score(r) for m, r in solution.moves},
        "store": path,
    }
    lines = [
        f"result {result} ({score(result)})",
        f"best moves {' '.join(data['best_moves']) or '-'}",
    ]
    lines += [f"  {game.format_move(m):<10} {r}" for m, r in solution.moves]
    lines.append(f"(exact, from the endgame databases in {path})")
    emit(args, data, "\n".join(lines))
    return 0
