"""``solve`` answered from the game's opening book (:mod:`zerosum.games.connect4_book`).

A position the book decides is answered at once, with every move's score (``--all``) or with
the best moves the book knows (else; ``"best_moves_complete": false`` when they may not be
all): no solver is opened (no numba, no compile) and no node is searched. The answer has the
shape of the compiled solve's (:func:`.solve.solve_compiled`) with ``"book": true`` and
``nodes`` 0; the text's last line says ``(from the opening book)``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any

from zerosum.cli.common import emit
from zerosum.cli.engines import COMPILED_ENGINE
from zerosum.formatting import exact_text, exact_value_text, move_names
from zerosum.game import Game, Score
from zerosum.games import GameSpec


@dataclass(frozen=True)
class BookResult:
    """An exact result read from the book (what :func:`zerosum.formatting.exact_text` reads)."""

    rank: int
    value: Score


def book_answer(
    spec: GameSpec, game: Game[Any], *, every_move: bool
) -> tuple[int, list[tuple[Any, int]], bool] | None:
    """The book's score of ``game``, the moves it scores (for the side to move) and whether
    those are all the legal moves; ``None`` unless the book knows every move's score, or
    (``every_move`` false) the score of ``game`` and at least one move that keeps it."""
    from zerosum.games.connect4_book import book_for  # connect four's tables: when used

    book = book_for(spec.name)
    if book is None or game.outcome() is not None:
        return None
    scored = book.move_scores(game)
    score = book.score(game)
    if scored is not None:
        best = max(s for _, s in scored)
        return (best if score is None else score), scored, True
    known = book.best_moves(game)
    if every_move or score is None or not known:
        return None
    return score, [(move, score) for move in known], False


def solve_from_book(args: argparse.Namespace, spec: GameSpec, game: Game[Any]) -> int | None:
    """Answer ``solve`` from the book and return the exit code, or ``None`` (nothing printed)
    when the book does not decide the position and its moves."""
    started = time.perf_counter()
    answer = book_answer(spec, game, every_move=args.all)
    if answer is None:
        return None
    score, scored, every = answer
    ply = game.ply()
    from zerosum.games.connect4 import value_from_pons  # a book answered: connect four

    def result(rank: int, at: int) -> BookResult:
        if args.weak:
            return BookResult((rank > 0) - (rank < 0), (rank > 0) - (rank < 0))
        return BookResult(rank, value_from_pons(rank, at) if rank else 0)

    exact = result(score, ply)
    best = [move for move, s in scored if result(s, ply).rank == exact.rank]
    # A move's score is the mover's: its value counts from this position, as the solver's.
    moves = [(move, result(s, ply)) for move, s in scored]
    seconds = time.perf_counter() - started
    data: dict[str, Any] = {
        "game": spec.name,
        "position": game.position(),
        "algorithm": COMPILED_ENGINE,
        "weak": args.weak,
        "score": exact.rank,
        "value": exact.value,
        "value_text": exact_value_text(exact, weak=args.weak),
        "best_moves": move_names(game, best),
        "best_moves_complete": every,
        "complete": True,
        "stored": False,
        "book": True,
        "nodes": 0,
        "time_s": round(seconds, 6),
        "startup_s": 0.0,
        "solve_s": round(seconds, 6),
        "moves_s": 0.0,
        "solve_nodes": 0,
        "moves_nodes": 0,
    }
    lines = []
    if args.all:
        scores: dict[str, int | None] = dict.fromkeys(spec.move_names)
        scores.update({game.format_move(m): r.rank for m, r in moves})
        data["scores"] = scores
        data["unsolved"] = []
        data["move_values"] = {game.format_move(m): r.value for m, r in moves}
        if not args.json:
            lines.append(f"score {exact_text(exact, weak=args.weak)}")
            lines.extend(
                f"  {game.format_move(m):<8} {exact_text(r, weak=args.weak)}" for m, r in moves
            )
            full = [name for name, s in scores.items() if s is None]
            if full:
                lines.append(f"  not playable: {' '.join(full)}")
    else:
        lines.append(f"score {exact_text(exact, weak=args.weak)}")
    lines.append(f"best moves {' '.join(data['best_moves']) or '-'}")
    if not every:
        lines[-1] += " (the book proves these; --all scores every move)"
    lines.append(f"nodes 0 in {seconds:.3f} s (from the opening book)")
    emit(args, data, "\n".join(lines))
    return 0
