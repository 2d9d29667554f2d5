"""``zerosum games``, ``zerosum algorithms`` and ``zerosum legal``: what the registries and a
position offer, without searching."""

from __future__ import annotations

import argparse

from zerosum.cli.common import emit, load_position
from zerosum.cli.engines import COMPILED_ENGINE, MCTS_ENGINE, TACTICAL_ENGINE
from zerosum.cli.parser import Subcommands, json_option, position_options
from zerosum.compiled import kernel_games
from zerosum.engines import COMPILED_TACTICAL
from zerosum.formatting import move_names
from zerosum.games import GAMES
from zerosum.search import ALGORITHMS


def add_parser(commands: Subcommands) -> None:
    """Adds ``games``, ``algorithms`` and ``legal``."""
    games = commands.add_parser("games", help="list the registered games")
    json_option(games)
    games.set_defaults(run=run_games)

    algorithms = commands.add_parser("algorithms", help="list the search algorithms")
    json_option(algorithms)
    algorithms.set_defaults(run=run_algorithms)

    legal = commands.add_parser("legal", help="print the legal moves of a position")
    position_options(legal)
    legal.set_defaults(run=run_legal)


def run_games(args: argparse.Namespace) -> int:
    """Every registered game: its name and title."""
    data = {"games": [{"name": s.name, "title": s.title} for s in GAMES.values()]}
    text = "\n".join(f"{s.name:<12} {s.title}" for s in GAMES.values())
    emit(args, data, text)
    return 0


def run_algorithms(args: argparse.Namespace) -> int:
    """Every search algorithm, then the compiled, the tactical and the MCTS engine: name and
    summary."""
    rows = [(a.name, a.summary) for a in ALGORITHMS.values()]
    rows.append(
        (
            COMPILED_ENGINE,
            "the engine compiled with numba, for games with a kernel: "
            + ", ".join(sorted(kernel_games())),
        )
    )
    rows.append(
        (
            TACTICAL_ENGINE,
            "iterative deepening PVS with quiescence, check extension, null move and late-move "
            "reductions, in Python (the readable twin of compiled-tactical)",
        )
    )
    rows.append(
        (
            COMPILED_TACTICAL,
            "the tactical search compiled with numba, for games with a compiled searcher "
            "(chess's engine; --workers: Lazy SMP threads)",
        )
    )
    rows.append(
        (
            MCTS_ENGINE,
            "Monte Carlo tree search (UCT; random, decisive or evaluation playouts) with a solver "
            "that proves wins, losses and draws; --nodes counts simulations",
        )
    )
    data = {"algorithms": [{"name": name, "summary": summary} for name, summary in rows]}
    text = "\n".join(f"{name:<10} {summary}" for name, summary in rows)
    emit(args, data, text)
    return 0


def run_legal(args: argparse.Namespace) -> int:
    """The legal moves of the position, one a line."""
    spec, game = load_position(args)
    moves = move_names(game, game.legal_moves())
    emit(args, {"game": spec.name, "position": game.position(), "moves": moves}, "\n".join(moves))
    return 0
