"""The seeds' search family, from the readable reference to the engine search.

Every node function takes the search context, the remaining ``depth``, the window and the
``ply`` below the root, and returns a score (see ``zerosum.game`` for the conventions):

* :func:`minimax` is the reference, in the max/min form of seeds 000 and 002: values are from
  the root player's point of view, MAX nodes take the largest child, MIN nodes the smallest.
* :func:`negamax` is seed 003's form: every value is from the side to move, a child's value is
  negated, one code path serves both players.
* :func:`alphabeta` is seed 001's alpha-beta, fail-soft, in negamax form. Its contract, for the
  true (minimax) value ``v`` of the node and the window ``(alpha, beta)``: if ``v <= alpha`` the
  result is ``<= alpha``; if ``v >= beta`` the result is ``>= beta``; otherwise it is ``v``.
* :func:`pvs` is the engine search: alpha-beta with the same contract, plus table-move, killer
  and history ordering and principal variation search (a null window for every move after the
  first, re-searched only when it lands inside the window).

Every node function raises :class:`~zerosum.game.ProtocolError` at an inner node with no legal
move (the game broke rule 1 of the protocol); the test runs once, after the move loop, on the
value it leaves, so it adds no work per move.

With memoization, the reference forms keep a memo keyed by (Zobrist key, depth) as seed 000
does, and the alpha-beta forms a :class:`~zerosum.search.table.TranspositionTable` that stores a
bound with each score, as seed 001 does.
"""

from __future__ import annotations

from typing import Any, TypeVar

from zerosum.game import INFINITY, Score, is_proven, no_moves_error, terminal_score
from zerosum.search.core import Context, from_table, probed_score, to_table
from zerosum.search.table import Bound

M = TypeVar("M")

MEMO_LIMIT = 1 << 20
"""The memo of the reference forms is emptied when it grows past this many entries."""


def leaf(ctx: Context[Any], depth: int, ply: int) -> Score | None:
    """The score of a finished position, one the game's probe decides (an endgame database)
    or one at the horizon; ``None`` for an inner node.

    Also counts the node, clears its principal variation and polls the limit.
    """
    if ctx.nodes >= ctx.next_check:
        ctx.check()
    ctx.nodes += 1
    ctx.pv[ply] = ()
    if ply > ctx.seldepth:
        ctx.seldepth = ply
    outcome = ctx.game.outcome()
    if outcome is not None:
        return terminal_score(outcome, ply)
    if ctx.probe is not None:
        exact = ctx.probe()
        if exact is not None:
            return probed_score(*exact, ply)
    if depth <= 0:
        ctx.evaluations += 1
        return ctx.game.evaluate()
    return None


def _memo_get(ctx: Context[Any], depth: int, ply: int) -> tuple[int, Score | None]:
    """Look the node up in the memo; returns the key and the side to move's score if found.

    A hit on a score that heuristic evaluations decided counts as a stale cutoff: its subtree's
    evaluations may belong to an earlier iteration (or an earlier search of the same depth, as
    a solve makes), so the iteration that reads it is not known to have evaluated nothing."""
    key = ctx.game.key()
    if ctx.memo is None:
        return key, None
    ctx.tt_probes += 1
    hit = ctx.memo.get((key, depth))
    if hit is None:
        return key, None
    ctx.tt_hits += 1
    ctx.pv[ply] = hit[1]
    if not hit[2]:
        ctx.stale_cutoffs += 1
    return key, from_table(hit[0], ply)


def _memo_put(
    ctx: Context[Any], key: int, depth: int, score: Score, ply: int, guesses: int
) -> None:
    """Store the node's score; ``guesses`` is ``evaluations + stale_cutoffs`` when the node's
    search began (unchanged: no heuristic decided the score)."""
    if ctx.memo is None:
        return
    if len(ctx.memo) >= MEMO_LIMIT:
        ctx.memo.clear()
    exact = ctx.evaluations + ctx.stale_cutoffs == guesses
    ctx.memo[key, depth] = (to_table(score, ply), ctx.pv[ply], exact)
    ctx.tt_stores += 1


def minimax(ctx: Context[M], depth: int, ply: int, maximizing: bool) -> Score:
    """The reference minimax in max/min form: the value from the root player's point of view.

    ``maximizing`` is true at nodes where the root player is to move.
    """
    sign = 1 if maximizing else -1
    score = leaf(ctx, depth, ply)
    if score is not None:
        return sign * score
    key, known = _memo_get(ctx, depth, ply)
    if known is not None:
        return sign * known
    guesses = ctx.evaluations + ctx.stale_cutoffs
    game = ctx.game
    best = -INFINITY if maximizing else INFINITY
    for move in game.legal_moves():
        game.make(move)
        value = minimax(ctx, depth - 1, ply + 1, not maximizing)
        game.undo()
        if (maximizing and value > best) or (not maximizing and value < best):
            best = value
            ctx.pv[ply] = (move, *ctx.pv[ply + 1])
    if abs(best) == INFINITY:
        raise no_moves_error(game)
    _memo_put(ctx, key, depth, sign * best, ply, guesses)
    return best


def negamax(ctx: Context[M], depth: int, ply: int) -> Score:
    """Negamax: the value from the side to move's point of view."""
    score = leaf(ctx, depth, ply)
    if score is not None:
        return score
    key, known = _memo_get(ctx, depth, ply)
    if known is not None:
        return known
    guesses = ctx.evaluations + ctx.stale_cutoffs
    game = ctx.game
    best = -INFINITY
    for move in game.legal_moves():
        game.make(move)
        value = -negamax(ctx, depth - 1, ply + 1)
        game.undo()
        if value > best:
            best = value
            ctx.pv[ply] = (move, *ctx.pv[ply + 1])
    if best == -INFINITY:
        raise no_moves_error(game)
    _memo_put(ctx, key, depth, best, ply, guesses)
    return best


def _table_probe(
    ctx: Context[M], key: int, depth: int, alpha: Score, beta: Score, ply: int
) -> tuple[Score | None, M | None]:
    """Probe the table: a score that settles the node, if any, and the stored best move."""
    table = ctx.table
    if table is None:
        return None, None
    ctx.tt_probes += 1
    entry = table.probe(key)
    if entry is None:
        return None, None
    ctx.tt_hits += 1
    if entry.depth >= depth:
        score = from_table(entry.score, ply)
        if (
            entry.bound == Bound.EXACT
            or (entry.bound == Bound.LOWER and score >= beta)
            or (entry.bound == Bound.UPPER and score <= alpha)
        ):
            if entry.generation != table.generation and not is_proven(score):
                # A proven score holds at any depth; a heuristic one of an earlier iteration
                # may hide evaluations, so the iteration cannot claim to be solved.
                ctx.stale_cutoffs += 1
            ctx.pv[ply] = () if entry.move is None else (entry.move,)
            return score, entry.move
    return None, entry.move


def _table_store(
    ctx: Context[M],
    key: int,
    depth: int,
    best: Score,
    alpha: Score,
    beta: Score,
    move: M | None,
    ply: int,
) -> None:
    """Store a node's result with the bound its window gives it (``alpha`` as on entry)."""
    if ctx.table is None:
        return
    if ctx.table.store(key, depth, to_table(best, ply), Bound.of(best, alpha, beta), move):
        ctx.tt_stores += 1


def alphabeta(ctx: Context[M], depth: int, alpha: Score, beta: Score, ply: int) -> Score:
    """Fail-soft alpha-beta in negamax form, moves in the game's order (seed 001)."""
    score = leaf(ctx, depth, ply)
    if score is not None:
        return score
    game = ctx.game
    key = game.key()
    known, _ = _table_probe(ctx, key, depth, alpha, beta, ply)
    if known is not None:
        return known
    alpha_on_entry = alpha
    best, best_move = -INFINITY, None
    for move in game.legal_moves():
        game.make(move)
        value = -alphabeta(ctx, depth - 1, -beta, -alpha, ply + 1)
        game.undo()
        if value > best:
            best, best_move = value, move
            if value > alpha:
                alpha = value
                ctx.pv[ply] = (move, *ctx.pv[ply + 1])
                if value >= beta:
                    ctx.cutoffs += 1
                    break
    if best == -INFINITY:
        raise no_moves_error(game)
    _table_store(ctx, key, depth, best, alpha_on_entry, beta, best_move, ply)
    return best


def ordered(ctx: Context[M], moves: list[M], table_move: M | None, ply: int) -> list[M]:
    """The engine's move order: the table move, then killer moves, then by history score."""
    if len(moves) < 2:
        return moves
    killers = ctx.killers[ply]
    history = ctx.history

    def rank(move: M) -> tuple[int, int]:
        group = 0 if move == table_move else 1 if move in killers else 2
        return group, -history.get(move, 0)

    return sorted(moves, key=rank)


def _reward(ctx: Context[M], move: M, depth: int, ply: int) -> None:
    """Remember a move that caused a cutoff as a killer at this ply and in the history."""
    killers = ctx.killers[ply]
    if move not in killers:
        killers.insert(0, move)
        del killers[2:]
    ctx.history[move] = ctx.history.get(move, 0) + depth * depth


def pvs(ctx: Context[M], depth: int, alpha: Score, beta: Score, ply: int) -> Score:
    """The engine search: principal variation search with the table and move ordering.

    Same fail-soft contract as :func:`alphabeta`.
    """
    # Step 1. Finished positions and the horizon.
    score = leaf(ctx, depth, ply)
    if score is not None:
        return score
    # Step 2. Transposition table lookup.
    game = ctx.game
    key = game.key()
    probe = _table_probe(ctx, key, depth, alpha, beta, ply)
    known, table_move = probe
    if known is not None:
        return known
    # Step 3. Search the moves, best first; later moves get a null window.
    alpha_on_entry = alpha
    best, best_move = -INFINITY, None
    for index, move in enumerate(ordered(ctx, game.legal_moves(), table_move, ply)):
        game.make(move)
        if index == 0:
            value = -pvs(ctx, depth - 1, -beta, -alpha, ply + 1)
        else:
            value = -pvs(ctx, depth - 1, -alpha - 1, -alpha, ply + 1)
            if alpha < value < beta:
                value = -pvs(ctx, depth - 1, -beta, -alpha, ply + 1)
        game.undo()
        if value > best:
            best, best_move = value, move
            if value > alpha:
                alpha = value
                ctx.pv[ply] = (move, *ctx.pv[ply + 1])
                if value >= beta:
                    # Step 4. A cutoff: remember the refutation for move ordering.
                    ctx.cutoffs += 1
                    _reward(ctx, move, depth, ply)
                    break
    if best == -INFINITY:  # no move was searched: a broken game
        raise no_moves_error(game)
    # Step 5. Store the result with its bound.
    _table_store(ctx, key, depth, best, alpha_on_entry, beta, best_move, ply)
    return best
