"""``zerosum solve --cluster``: an exact solve in work units on Ray.

The position is split ``--split`` plies down into work units that Ray workers solve with the
compiled engine; every unit's result is kept in the store (an in-memory one without
``--store``), so a second run resumes an interrupted one. The answer has the fields and lines
of the local compiled solve (score, best moves; with ``--all`` every move's score), plus the
work units.
"""

from __future__ import annotations

import argparse
from typing import Any

from zerosum.cli.common import emit, interruptible
from zerosum.cli.engines import COMPILED_ENGINE
from zerosum.compiled import DEFAULT_HASH_MB
from zerosum.formatting import exact_text, exact_value_text, move_names
from zerosum.game import Game
from zerosum.games import GameSpec
from zerosum.search import Limit
from zerosum.store import Store


def run_cluster(args: argparse.Namespace, spec: GameSpec, game: Game[Any]) -> int:
    """Solve ``game`` on the Ray cluster ``args.cluster`` and print the answer."""
    from zerosum.compiled.distributed import solve_distributed  # numba: only when asked for
    from zerosum.runtime.cluster import open_executor

    with Store(args.store or ":memory:") as store, interruptible() as stop:
        executor = open_executor(args.cluster, workers=0 if args.workers == 1 else args.workers)
        try:
            found = solve_distributed(
                game,
                executor=executor,
                store=store,
                split=args.split,
                weak=args.weak,
                hash_mb=args.hash or DEFAULT_HASH_MB,
                limit=Limit(time=args.time, stop=stop),
                moves="all" if args.all else "best",
            )
        finally:
            executor.shutdown(wait=False, cancel_futures=True)
    data, lines = _output(args, spec, game, found)
    emit(args, data, "\n".join(lines))
    return 0


def compiled_value(game: str, rank: int, ply: int) -> int:
    """A compiled rank at a root with ``ply`` as a search value (``mission.md``)."""
    from zerosum.compiled.kernels import compiled_game

    return compiled_game(game).value(rank, ply)


def _output(
    args: argparse.Namespace, spec: GameSpec, game: Game[Any], found: Any
) -> tuple[dict[str, Any], list[str]]:
    """The JSON and the text of ``solve --cluster``: the fields and lines of the local compiled
    solve (``solve.solve_compiled``), then the work units."""
    from zerosum.compiled.solver import Exact
    from zerosum.search.core import Stats

    def exact(rank: int) -> Exact:
        value = rank if args.weak else compiled_value(spec.name, rank, game.ply())
        return Exact(rank, value, Stats(), stored=found.stored)

    over = game.outcome() is not None
    score = None if found.rank is None else exact(found.rank)
    complete = found.rank is not None and found.moves_complete
    data: dict[str, Any] = {
        "game": spec.name,
        "position": game.position(),
        "algorithm": COMPILED_ENGINE,
        "weak": args.weak,
        "score": None if score is None else score.rank,
        "value": None if score is None else score.value,
        "value_text": None if score is None else exact_value_text(score, weak=args.weak),
        "best_moves": move_names(game, found.best_moves),
        "complete": complete,
        "stored": found.stored,
        "nodes": found.nodes,
        "time_s": round(found.time_s, 6),
    }
    if args.all:
        scores: dict[str, int | None] = dict.fromkeys(spec.move_names)
        scores.update({game.format_move(m): rank for m, rank in found.moves})
        data["scores"] = scores
        solved = [m for m, _ in found.moves]
        data["unsolved"] = [game.format_move(m) for m in game.legal_moves() if m not in solved]
        data["move_values"] = {game.format_move(m): exact(r).value for m, r in found.moves}
    data.update(
        cluster=args.cluster,
        units=found.units,
        units_from_store=found.from_store,
        units_solved=found.solved,
        units_cancelled=found.cancelled,
    )
    lines = []
    if over:
        lines.append("the game is over: no moves to play")
    if score is None:
        lines.append("not solved: stopped before the score was proven (the store keeps results)")
    else:
        lines.append(f"score {exact_text(score, weak=args.weak)}")
        if args.all:
            for move, rank in found.moves:
                lines.append(
                    f"  {game.format_move(move):<8} {exact_text(exact(rank), weak=args.weak)}"
                )
        if found.moves_complete:
            lines.append(f"best moves {' '.join(data['best_moves']) or '-'}")
        else:
            lines.append("best moves not known: stopped before every move was decided")
    if args.all and not over:
        unsolved = data["unsolved"]
        full = [name for name, rank in scores.items() if rank is None and name not in unsolved]
        if full:
            lines.append(f"  not playable: {' '.join(full)}")
        if unsolved:
            lines.append(f"  not solved (stopped): {' '.join(unsolved)}")
    lines += [
        f"{found.units} work units {args.split} plies down: {found.from_store} from the store, "
        f"{found.solved} solved now, {found.cancelled} cancelled",
        f"nodes {found.nodes:,} in {found.time_s:.3f} s" + (" (from the store)" * found.stored),
    ]
    return data, lines
