"""The algorithm registry and one iteration of the search at the root.

What both the serial driver (:mod:`.driver`) and the split search (:mod:`.parallel`) build on:
the registered algorithms (each a node function in negamax form), the root modes, how one root
move is searched (:func:`search_move`), the serial root (:func:`search_root`) and what an
iteration gives back (:class:`Iteration`). It imports neither of them, so they import it.

Root modes: ``one`` keeps the window at the best score so far and proves one best move;
``all`` keeps it one below (scores are integers), so every move that ties the best is scored
exactly and the set of best moves is complete; ``exact`` searches every move with a full window
and reports each move's value (the solver's view).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

from zerosum.game import INFINITY, Score, ZerosumError, is_proven
from zerosum.search import algorithms
from zerosum.search.core import Context
from zerosum.search.table import Bound

M = TypeVar("M")

Node = Callable[[Context[Any], int, Score, Score, int], Score]
"""A node function in negamax form: ``(context, depth, alpha, beta, ply) -> score``."""


class UnknownAlgorithmError(ZerosumError, KeyError):
    """An algorithm name that is not in the registry."""

    def __str__(self) -> str:
        return str(self.args[0])


class Mode(Enum):
    """Which root moves the search proves best (see the module docstring)."""

    ONE = "one"
    ALL = "all"
    EXACT = "exact"


def _minimax_child(ctx: Context[Any], depth: int, alpha: Score, beta: Score, ply: int) -> Score:
    # The reference returns the root player's value; a child's negamax value is its negation.
    return -algorithms.minimax(ctx, depth, ply, maximizing=False)


def _negamax_child(ctx: Context[Any], depth: int, alpha: Score, beta: Score, ply: int) -> Score:
    return algorithms.negamax(ctx, depth, ply)


@dataclass(frozen=True)
class Algorithm:
    """One entry of the algorithm registry."""

    name: str
    summary: str
    """One line for ``zerosum algorithms``."""
    node: Node
    """The node function used below the root."""
    table_kind: str
    """``"memo"`` (keyed by key and depth) or ``"table"`` (a bounded table with bounds)."""
    iterative: bool = False
    """Deepen iteratively even when only the depth limits the search."""
    ordering: bool = False
    """Order root moves with the table move, killers and history."""
    null_window: bool = False
    """Search root moves after the first with a null window first (PVS)."""


ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm(
            "minimax",
            "reference minimax in max/min form (seeds 000, 002); table = memo by key and depth",
            _minimax_child,
            "memo",
        ),
        Algorithm(
            "negamax",
            "negamax from the side to move (seed 003); table = memo by key and depth",
            _negamax_child,
            "memo",
        ),
        Algorithm(
            "alphabeta",
            "fail-soft alpha-beta (seed 001); table = transposition table with bounds",
            algorithms.alphabeta,
            "table",
        ),
        Algorithm(
            "engine",
            "iterative deepening PVS with table, killer and history ordering",
            algorithms.pvs,
            "table",
            iterative=True,
            ordering=True,
            null_window=True,
        ),
    )
}


def get_algorithm(name: str) -> Algorithm:
    """The registered algorithm ``name``; raises :class:`UnknownAlgorithmError`."""
    try:
        return ALGORITHMS[name]
    except KeyError:
        known = ", ".join(ALGORITHMS)
        raise UnknownAlgorithmError(
            f"unknown algorithm {name!r}: expected one of {known}"
        ) from None


@dataclass(frozen=True)
class Iteration:
    """One finished iteration at the root: what the serial and the split root searches give
    the driver."""

    value: Score
    """The best value (fail-soft: with ``Mode.ONE`` or ``ALL``, later moves' values may be
    bounds at or below it)."""
    scored: tuple[tuple[Any, Score], ...]
    """Every root move with its value, in search order."""
    best_moves: tuple[Any, ...]
    """The moves whose value is ``value`` (the first only, with ``Mode.ONE``)."""
    pv: tuple[Any, ...]
    """The principal variation of the first best move."""
    settled: frozenset[Any] = frozenset()
    """With ``Mode.EXACT`` (the serial root): the root moves whose value is proven, so a solve
    need not search them again. A proven value found inside its window is the move's exact
    value whatever was evaluated beside it: a faster win would lie within the horizon, and a
    longer defence would have met an evaluation instead of a loss. (A drawn value is exact
    only when the whole iteration evaluated nothing, which the driver checks.)"""


def root_alpha(mode: Mode, best: Score) -> Score:
    """The lower end of the window a root move is searched with, given the best score so far."""
    if mode is Mode.EXACT or best == -INFINITY:
        return -INFINITY
    return best - 1 if mode is Mode.ALL else best


def search_move(
    ctx: Context[M], algorithm: Algorithm, move: M, depth: int, alpha: Score, *, null_window: bool
) -> Score:
    """The fail-soft value of root move ``move`` at ``depth`` in the window ``(alpha, INFINITY)``;
    with ``null_window`` (a move after the first) an algorithm that uses PVS tries a null window
    first. Raises SearchStopped with the move still made (the driver unwinds the game)."""
    game, node = ctx.game, algorithm.node
    game.make(move)
    if algorithm.null_window and null_window and alpha > -INFINITY:
        value = -node(ctx, depth - 1, -alpha - 1, -alpha, 1)
        if value > alpha:
            value = -node(ctx, depth - 1, -INFINITY, -alpha, 1)
    else:
        value = -node(ctx, depth - 1, -INFINITY, -alpha, 1)
    game.undo()
    return value


def search_root(
    ctx: Context[M],
    algorithm: Algorithm,
    depth: int,
    mode: Mode,
    known: Mapping[M, Score] | None = None,
) -> Iteration:
    """Search every root move once at ``depth`` (the game is not over at the root and has a
    legal move: :func:`~zerosum.search.driver.iterate` checks both). With ``Mode.EXACT``, the
    moves in ``known`` (settled by an earlier iteration) keep their exact values unsearched."""
    game = ctx.game
    ctx.nodes += 1
    ctx.pv[0] = ()
    key = game.key()
    moves = game.legal_moves()
    if algorithm.ordering:
        table_move = None
        if ctx.table is not None:
            ctx.tt_probes += 1
            entry = ctx.table.probe(key)
            if entry is not None:
                ctx.tt_hits += 1
                table_move = entry.move
        moves = algorithms.ordered(ctx, moves, table_move, 0)
    best = -INFINITY
    scored: list[tuple[M, Score]] = []
    settled: set[M] = set()
    exact = mode is Mode.EXACT
    for index, move in enumerate(moves):
        if exact and known is not None and move in known:
            value = known[move]
            settled.add(move)
        else:
            alpha = root_alpha(mode, best)
            value = search_move(ctx, algorithm, move, depth, alpha, null_window=index > 0)
            if exact and is_proven(value):
                settled.add(move)
        scored.append((move, value))
        if value > best:
            best = value
            ctx.pv[0] = (move, *ctx.pv[1]) if move not in (known or {}) else (move,)
    best_moves = tuple(move for move, value in scored if value == best)
    if mode is Mode.ONE:
        best_moves = best_moves[:1]
    if ctx.table is not None and ctx.table.store(key, depth, best, Bound.EXACT, best_moves[0]):
        ctx.tt_stores += 1
    return Iteration(best, tuple(scored), best_moves, ctx.pv[0], frozenset(settled))


def extend_pv(ctx: Context[M], pv: tuple[M, ...], depth: int) -> tuple[M, ...]:
    """Follow table moves past the end of ``pv`` (cut short by table hits) up to ``depth``."""
    table, game = ctx.table, ctx.game
    if table is None:
        return pv
    line = list(pv)
    for move in line:
        game.make(move)
    while len(line) < depth and game.outcome() is None:
        entry = table.probe(game.key())
        if entry is None or entry.move is None or entry.move not in game.legal_moves():
            break
        game.make(entry.move)
        line.append(entry.move)
    for _ in line:
        game.undo()
    return tuple(line)
