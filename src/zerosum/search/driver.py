"""The public entry of the search: the algorithm registry, the root search and the driver.

The driver checks its input once, runs the chosen algorithm at the root, deepens iteratively
when the algorithm or the limit asks for it, and turns the last completed iteration into a
:class:`~zerosum.search.core.SearchResult`. It never prints: callers watch the iterations
through :func:`iterate` or the ``on_iteration`` callback.

Root modes: ``one`` keeps the window at the best score so far and proves one best move;
``all`` keeps it one below (scores are integers), so every move that ties the best is scored
exactly and the set of best moves is complete; ``exact`` searches every move with a full window
and reports each move's value (the solver's view).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

from zerosum.game import (
    INFINITY,
    Game,
    ProtocolError,
    Score,
    ZerosumError,
    no_moves_error,
    probe_of,
    terminal_score,
)
from zerosum.search import algorithms
from zerosum.search.core import Context, Limit, SearchResult, SearchStopped
from zerosum.search.table import DEFAULT_ENTRIES, Bound, TranspositionTable

if TYPE_CHECKING:  # imported when a search asks for workers
    from zerosum.search.parallel import SearchPool

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
class _Iteration:
    value: Score
    scored: tuple[tuple[Any, Score], ...]
    best_moves: tuple[Any, ...]
    pv: tuple[Any, ...]


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


def _search_root(ctx: Context[M], algorithm: Algorithm, depth: int, mode: Mode) -> _Iteration:
    """Search every root move once at ``depth`` (the game is not over at the root and has a
    legal move: :func:`iterate` checks both)."""
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
    for index, move in enumerate(moves):
        alpha = root_alpha(mode, best)
        value = search_move(ctx, algorithm, move, depth, alpha, null_window=index > 0)
        scored.append((move, value))
        if value > best:
            best = value
            ctx.pv[0] = (move, *ctx.pv[1])
    best_moves = tuple(move for move, value in scored if value == best)
    if mode is Mode.ONE:
        best_moves = best_moves[:1]
    if ctx.table is not None and ctx.table.store(key, depth, best, Bound.EXACT, best_moves[0]):
        ctx.tt_stores += 1
    return _Iteration(best, tuple(scored), best_moves, ctx.pv[0])


def _extend_pv(ctx: Context[M], pv: tuple[M, ...], depth: int) -> tuple[M, ...]:
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


def iterate(
    game: Game[M],
    *,
    algorithm: str = "engine",
    limit: Limit | None = None,
    table: bool = True,
    mode: Mode = Mode.ONE,
    seed: int | None = None,
    table_entries: int = DEFAULT_ENTRIES,
    shared_table: TranspositionTable[M] | None = None,
    workers: int = 1,
    pool: SearchPool | None = None,
) -> Iterator[SearchResult[M]]:
    """Search ``game`` and yield a result after every completed iteration.

    ``table`` turns memoization on (a memo for the reference forms, a transposition table for
    the alpha-beta forms); ``shared_table`` reuses a table across searches (as a player does
    between moves). ``seed`` picks ``best_move`` at random among ``best_moves``; without it the
    first best move in search order is taken. The last result has ``complete=False`` when the
    limit stopped the search early; the game is left as it was. Raises
    :class:`~zerosum.game.ProtocolError` when a position the search reaches has no legal move
    but is not over.

    ``workers`` > 1 (0: one per core) splits every iteration's root moves over worker
    processes (:mod:`zerosum.search.parallel`), taken from ``pool`` or else from a pool kept
    for this process; each worker then keeps its own table (``shared_table`` is not used).
    """
    chosen = get_algorithm(algorithm)
    limit = limit or Limit()
    ctx: Context[M] = Context(game=game, limit=limit, probe=probe_of(game))
    parallel = pool is not None or workers != 1
    if table and chosen.table_kind == "memo" and not parallel:
        ctx.memo = {}
    elif table and not parallel:
        ctx.table = shared_table if shared_table is not None else TranspositionTable(table_entries)
    root_ply = game.ply()
    outcome = game.outcome()
    if outcome is not None:
        yield SearchResult(terminal_score(outcome, 0), None, (), (), 0, ctx.stats(), solved=True)
        return
    if not game.legal_moves():  # checked once here for every root search below
        raise no_moves_error(game)
    if pool is None and parallel:
        from zerosum.search.parallel import shared_pool

        pool = shared_pool(workers)
    search_id = pool.new_search() if pool is not None else 0
    if chosen.iterative or not limit.only_depth:
        depths = range(1, limit.max_depth + 1)
    else:
        depths = range(limit.max_depth, limit.max_depth + 1)
    last: SearchResult[M] | None = None
    for depth in depths:
        evaluations, stale = ctx.evaluations, ctx.stale_cutoffs
        if ctx.table is not None:
            ctx.table.new_search()
        try:
            if pool is None:
                found = _search_root(ctx, chosen, depth, mode)
            else:
                found = pool.search_root(
                    ctx,
                    chosen.name,
                    depth,
                    mode,
                    search_id=search_id,
                    table=table,
                    table_entries=table_entries,
                )
        except SearchStopped:
            while game.ply() > root_ply:
                game.undo()
            break
        except ProtocolError:  # the game is broken: leave it as it was all the same
            while game.ply() > root_ply:
                game.undo()
            raise
        best_move = (
            found.best_moves[0] if seed is None else random.Random(seed).choice(found.best_moves)
        )
        pv = found.pv if found.pv[:1] == (best_move,) else (best_move,)
        last = SearchResult(
            value=found.value,
            best_move=best_move,
            best_moves=found.best_moves,
            pv=_extend_pv(ctx, pv, depth),
            depth=min(depth, ctx.seldepth),
            stats=ctx.stats(),
            move_values=found.scored if mode is Mode.EXACT else (),
            solved=ctx.evaluations == evaluations and ctx.stale_cutoffs == stale,
        )
        yield last
        if last.solved:
            return
    else:
        return
    if last is None:
        moves = game.legal_moves()
        last = SearchResult(game.evaluate(), moves[0], (moves[0],), (moves[0],), 0, ctx.stats())
    yield SearchResult(
        value=last.value,
        best_move=last.best_move,
        best_moves=last.best_moves,
        pv=last.pv,
        depth=last.depth,
        stats=ctx.stats(),
        move_values=last.move_values,
        complete=False,
        solved=last.solved,
    )


def search(
    game: Game[M],
    *,
    algorithm: str = "engine",
    limit: Limit | None = None,
    table: bool = True,
    all_best: bool = False,
    seed: int | None = None,
    table_entries: int = DEFAULT_ENTRIES,
    shared_table: TranspositionTable[M] | None = None,
    on_iteration: Callable[[SearchResult[M]], None] | None = None,
    workers: int = 1,
    pool: SearchPool | None = None,
) -> SearchResult[M]:
    """Search ``game`` under ``limit`` and return the last completed iteration's result.

    ``all_best`` proves every best root move instead of one. Always returns a move when the
    game is not over, even if the limit stops the search before depth 1 completes.
    ``workers`` and ``pool`` split the search over processes (see :func:`iterate`).
    """
    result: SearchResult[M] | None = None
    for result in iterate(
        game,
        algorithm=algorithm,
        limit=limit,
        table=table,
        mode=Mode.ALL if all_best else Mode.ONE,
        seed=seed,
        table_entries=table_entries,
        shared_table=shared_table,
        workers=workers,
        pool=pool,
    ):
        if on_iteration is not None:
            on_iteration(result)
    assert result is not None  # iterate always yields at least once
    return result


def solve(
    game: Game[M],
    *,
    algorithm: str = "engine",
    limit: Limit | None = None,
    table: bool = True,
    seed: int | None = None,
    workers: int = 1,
    pool: SearchPool | None = None,
) -> SearchResult[M]:
    """The exact value of ``game`` with every root move's value and all best moves.

    Deepens until an iteration needs no heuristic evaluation (``result.solved``); a limit may
    stop it earlier, leaving ``result.solved`` false. ``workers`` and ``pool`` split it over
    processes (see :func:`iterate`).
    """
    *_, last = iterate(
        game,
        algorithm=algorithm,
        limit=limit,
        table=table,
        mode=Mode.EXACT,
        seed=seed,
        workers=workers,
        pool=pool,
    )
    return last
