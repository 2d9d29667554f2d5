"""The public entry of the search: the driver.

The driver checks its input once, runs the chosen algorithm at the root, deepens iteratively
when the algorithm or the limit asks for it, and turns the last completed iteration into a
:class:`~zerosum.search.core.SearchResult`. It never prints: callers watch the iterations
through :func:`iterate` or the ``on_iteration`` callback.

The registry, the root modes and the serial root search live in :mod:`.root` (re-exported
here); the split root search in :mod:`.parallel`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from zerosum.game import WIN, Game, no_moves_error, probe_of, terminal_score
from zerosum.search.core import Context, Limit, SearchResult, SearchStopped
from zerosum.search.root import (
    ALGORITHMS,
    Algorithm,
    Iteration,
    Mode,
    Node,
    UnknownAlgorithmError,
    extend_pv,
    get_algorithm,
    root_alpha,
    search_move,
    search_root,
)
from zerosum.search.table import DEFAULT_ENTRIES, TranspositionTable

if TYPE_CHECKING:  # annotations only: the pool is imported when a search asks for workers
    from zerosum.search.parallel import SearchPool

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "Iteration",
    "Mode",
    "Node",
    "UnknownAlgorithmError",
    "extend_pv",
    "get_algorithm",
    "iterate",
    "root_alpha",
    "search",
    "search_move",
    "search_root",
    "solve",
]

M = TypeVar("M")


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
    prove_first: bool = False,
) -> Iterator[SearchResult[M]]:
    """Search ``game`` and yield a result after every completed iteration.

    ``table`` turns memoization on (a memo for the reference forms, a transposition table for
    the alpha-beta forms); ``shared_table`` reuses a table across searches (as a player does
    between moves). ``seed`` picks ``best_move`` at random among ``best_moves``; without it the
    first best move in search order is taken. The last result has ``complete=False`` when the
    limit stopped the search early; the game is left as it was. Raises
    :class:`~zerosum.game.ProtocolError` when a position the search reaches has no legal move
    but is not over.

    ``prove_first`` (a solve) deepens with every algorithm until the value is proven, and
    proves it with ``Mode.ONE``'s iterations, node for node those of a deepening ``search``;
    only then does it go on in ``mode`` (all best moves, or every move's value) from the depth
    that proved it, with the same table. A limit that stops the second part leaves a result
    with the proven value (``solved``, ``complete=False``), its best move and the root moves
    whose exact value is known (``move_values``).

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
        # Worker processes (and numpy, for their shared table) only when asked for: not a
        # cycle (the pool imports .root, never this module), the start-up of every command.
        from zerosum.search.parallel import shared_pool

        pool = shared_pool(workers)
    search_id = pool.new_search() if pool is not None else 0
    if chosen.iterative or not limit.only_depth or (prove_first and limit.depth is None):
        # A solve deepens with every algorithm: it stops at the first depth that proves what
        # it was asked for, instead of searching every line to its end at once.
        first, last_depth = 1, limit.max_depth
    else:
        first, last_depth = limit.max_depth, limit.max_depth
    last: SearchResult[M] | None = None
    proof: SearchResult[M] | None = None
    """The iteration that proved the value, while ``prove_first`` goes on in ``mode``."""
    settled: dict[M, int] = {}
    """Root moves whose exact value an earlier iteration found (a serial solve)."""
    depth = first
    while depth <= last_depth:
        # Step 1. The mode of this iteration: the value first (a solve), then what was asked.
        now = Mode.ONE if prove_first and proof is None else mode
        evaluations, stale = ctx.evaluations, ctx.stale_cutoffs
        if ctx.table is not None:
            ctx.table.new_search()
        # Step 2. One iteration at the root.
        try:
            if pool is None:
                found = search_root(ctx, chosen, depth, now, settled)
            else:
                found = pool.search_root(
                    ctx,
                    chosen.name,
                    depth,
                    now,
                    search_id=search_id,
                    table=table,
                    table_entries=table_entries,
                )
        except SearchStopped:
            while game.ply() > root_ply:
                game.undo()
            break
        except BaseException:  # a broken game, a stop callback or a Ctrl-C that raised:
            while game.ply() > root_ply:  # leave the game as it was all the same
                game.undo()
            raise
        # Step 3. What the iteration found, and whether it is proven.
        if now is Mode.EXACT:
            settled.update((move, value) for move, value in found.scored if move in found.settled)
        best_move = (
            found.best_moves[0] if seed is None else random.Random(seed).choice(found.best_moves)
        )
        pv = found.pv if found.pv[:1] == (best_move,) else (best_move,)
        last = SearchResult(
            value=found.value,
            best_move=best_move,
            best_moves=found.best_moves,
            pv=extend_pv(ctx, pv, depth),
            depth=min(depth, ctx.seldepth),
            stats=ctx.stats(),
            move_values=found.scored if now is Mode.EXACT else (),
            solved=(ctx.evaluations == evaluations and ctx.stale_cutoffs == stale)
            or (now is not Mode.EXACT and abs(found.value) >= WIN - depth)
            or (now is Mode.EXACT and len(found.settled) == len(found.scored)),
            # A win within the horizon is exact whatever was evaluated beside it: no faster win
            # lies beyond the horizon, and every move that wins as fast is seen within it (an
            # exact solve still needs every move's value, so it goes on). So is a loss within
            # the horizon: every move was refuted by a proof (no evaluation reaches a proven
            # score), and the longest defence within the horizon is the longest there is, a
            # longer one meeting an evaluation instead. The order in which a parallel search
            # meets the moves then does not change when the search stops.
        )
        if prove_first and (proof is not None or last.solved):
            last = replace(last, proof_stats=last.stats if proof is None else proof.stats)
        yield last
        # Step 4. Stop when proven; a solve's proven value goes on to the moves at this depth.
        if last.solved and now is not mode:
            proof = last
            if mode is Mode.EXACT:
                # The proven move's value is exact: a later iteration need not search it again.
                settled[found.best_moves[0]] = found.value
            continue
        if last.solved:
            return
        depth += 1
    else:
        if proof is not None:  # the depth limit came first: what is proven, complete
            yield _proven(proof, settled, ctx)
        return
    if last is None:
        moves = game.legal_moves()
        last = SearchResult(game.evaluate(), moves[0], (moves[0],), (moves[0],), 0, ctx.stats())
    if proof is not None:  # stopped after the value was proven: keep what is exact
        last = _proven(proof, settled, ctx)
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
        proof_stats=last.proof_stats,
    )


def _proven(proof: SearchResult[M], settled: dict[M, int], ctx: Context[M]) -> SearchResult[M]:
    """What a solve stopped after step 1 knows exactly: the value ``proof`` proved, its best
    move, and the moves ``settled`` so far (the best moves among them)."""
    best = tuple(move for move, value in settled.items() if value == proof.value)
    return SearchResult(
        value=proof.value,
        best_move=proof.best_move,
        best_moves=best or proof.best_moves[:1],
        pv=proof.pv,
        depth=proof.depth,
        stats=ctx.stats(),
        move_values=tuple(settled.items()),
        solved=True,
        proof_stats=proof.proof_stats,
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
    moves: Mode = Mode.EXACT,
) -> SearchResult[M]:
    """The exact value of ``game`` and what ``moves`` asks of the root moves: every move's
    exact value and all best moves (``Mode.EXACT``, the default), all best moves
    (``Mode.ALL``) or one best move (``Mode.ONE``).

    1. The value: deepening iterations as ``search`` makes them, with every algorithm, until
       the value is proven; node for node what a deepening ``search`` to a proof spends
       (``result.proof_stats``), so a solve never proves the value slower.
    2. The moves, beyond one best move: deepening goes on from the depth that proved the
       value, with the same table, until every asked move is proven (with ``Mode.EXACT`` a
       move's exact value is its distance to the end too: the fastest win, the longest
       defence, which may cost several times step 1).

    A limit may stop either step: in step 1 ``result.solved`` is false and the values are
    estimates; in step 2 the value is proven (``solved``, ``complete=False``) and
    ``move_values`` holds the moves proven so far. ``workers`` and ``pool`` split it over
    processes (see :func:`iterate`).
    """
    *_, last = iterate(
        game,
        algorithm=algorithm,
        limit=limit,
        table=table,
        mode=moves,
        seed=seed,
        workers=workers,
        pool=pool,
        prove_first=True,
    )
    return last
