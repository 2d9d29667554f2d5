"""The compiled tactical search for chess: the algorithm of :mod:`zerosum.search.tactical` in numba.

The same negamax PVS from the side to move, step for step (the numbered steps match that
module's), on the compiled board of :mod:`.chess_board`: quiescence with the same capture
filter, check extension, null move, late-move reductions and pruning, futility, killers and
history (and, as options, singular extensions and correction and continuation history), the
transposition table and mate-distance pruning, with the same options (an
``int64`` array, :data:`OPTION_FIELDS`). The pure-Python search stays the readable twin:
with every selective option off both return the minimax value at a fixed depth, which the
tests compare; they compare with every option on but late-move reductions and pruning too
(those depend on which quiet moves come late, that is on move order).

Differences that change node counts but not the algorithm: the moves of a node are generated
at once and picked best first (table move, tactical moves by MVV-LVA, killers, quiet moves by
history, the captures that lose material) instead of in lazily generated stages; a
pseudo-legal move is dropped when it leaves the mover's king attacked; the table is
:mod:`.engine`'s (two-entry buckets of packed words, safe to share between threads), and
history is indexed by the move code.

Recursion: numba caches directly recursive functions, so the search recurses as the readable
one does. Everything the search touches lives in arrays passed down as one tuple, the
*context* (:func:`new_context`): several threads may search at once with contexts that share
the table arrays (Lazy SMP). Stopping: ``io[STOP]`` is polled every 1,024 nodes and
``io[NODE_LIMIT]`` bounds the nodes; a stopped search sets ``io[ABORTED]`` and unwinds without
storing anything.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numba import types

from zerosum.compiled import chess_board as cb
from zerosum.compiled import chess_exchange as cx
from zerosum.compiled.engine import (
    ABORTED,
    CUTOFFS,
    EVALUATIONS,
    EXACT,
    GENERATION,
    HITS,
    IO_SIZE,
    LOWER,
    NODE_LIMIT,
    NODES,
    PROBES,
    SELDEPTH,
    STOP,
    STORES,
    UPPER,
    _depth,
    _flag,
    _move,
    _pack,
    _score,
    probe,
    store,
)
from zerosum.game import HEURISTIC_LIMIT, INFINITY, MAX_PLY, WIN
from zerosum.games.chess import GAIN_CEILING, PAWN_MIX_BLACK, PAWN_MIX_WHITE
from zerosum.jit import cached_njit
from zerosum.search.tactical import (
    CORRECTION_ENTRIES,
    CORRECTION_GRAIN,
    CORRECTION_MAX,
    CORRECTION_WEIGHT_MAX,
    DELTA_MARGIN,
    FUTILITY_DEPTH,
    HISTORY_MAX,
    HISTORY_REDUCTION,
    LATE_MOVE_COUNT,
    LATE_MOVE_DEPTH,
    MOVE_KEYS,
    NULL_MOVE_DEPTH,
    QUIESCENCE_EVASION_PLY,
    REVERSE_FUTILITY_DEPTH,
    REVERSE_FUTILITY_MARGIN,
    SINGULAR_DEPTH,
    SINGULAR_TABLE_DEPTH,
)
from zerosum.search.tactical import (
    MAX_SEARCH_PLY as MAX_SEARCH_PLY,
)

FUTILITY = np.array([0, 150, 300, 450], np.int64)
"""``tactical.FUTILITY_MARGIN`` by remaining depth."""
REVERSE_FUTILITY = np.array(REVERSE_FUTILITY_MARGIN, np.int64)
"""``tactical.REVERSE_FUTILITY_MARGIN``."""
LATE_COUNT = np.array(LATE_MOVE_COUNT, np.int64)
"""``tactical.LATE_MOVE_COUNT``."""


# Option fields (1 on, 0 off), as tactical.Options.
QUIESCENCE: Final = 0
CHECK_EXTENSION: Final = 1
NULL_MOVE: Final = 2
REDUCTIONS: Final = 3
FUTILITY_PRUNING: Final = 4
CONTEMPT: Final = 5
"""Not on/off: ``tactical.Options.contempt`` in centipawns."""
SINGULAR: Final = 6
CORRECTION: Final = 7
CONTINUATION: Final = 8
OPTION_FIELDS: Final = 9

# Extra io fields after the engine's.
PARTIAL_SCORE: Final = IO_SIZE
"""The best root score proven so far in the current root search (for a stopped search)."""
PARTIAL_MOVE: Final = IO_SIZE + 1
"""Its root move code, -1 before the first move raised alpha."""
ROOT_DEPTH: Final = IO_SIZE + 2
"""The depth of the current root search (singular extensions stop at twice as many plies)."""
CHESS_IO_SIZE: Final = IO_SIZE + 3

_TT_MOVE: Final = 1 << 30
_TACTICAL: Final = 1 << 24
_KILLER: Final = 1 << 22
_HISTORY_CAP: Final = (1 << 22) - 4
_LOSING: Final = -(1 << 20)
"""Below every quiet move's history score: the captures that lose material come last."""

HISTORY_ENTRIES: Final = 1 << 15
"""History scores by ``move & 0x7FFF``: the first entries of the context's history array,
the correction history (:data:`CORRECTION_ENTRIES`) after them, then the continuation
history (:data:`CONTINUATION_BASE`)."""
CONTINUATION_BASE: Final = HISTORY_ENTRIES + CORRECTION_ENTRIES
"""Where the continuation history starts in the history array: ``MOVE_KEYS ** 2`` entries,
by ``earlier * MOVE_KEYS + reply`` of :func:`move_key`, in the contexts of searches with the
option on (the array ends here in the others)."""
_MIX_WHITE: Final = PAWN_MIX_WHITE - (1 << 64)
_MIX_BLACK: Final = PAWN_MIX_BLACK - (1 << 64)

_C1 = types.Array(types.int64, 1, "C")
_A1 = types.Array(types.int64, 1, "A")
_C2 = types.Array(types.int64, 2, "C")
CONTEXT_TYPE: Final = types.Tuple((_C1, _A1, _A1, _C1, _C1, _C2, _C1, _C2, _C2, _C2, _C1, _C1))  # type: ignore[no-untyped-call]  # numba is untyped
"""numba's type of a context. The recursive functions are compiled for exactly this signature:
numba's disk cache keeps only one specialisation of a recursive function safely (several,
inferred from different call sites, crashed when loaded back from the cache), and a call with a
literal argument (``True``, ``1``) names a specialisation of its own that the cache cannot
resolve: the calls pass typed values (``np.bool_(True)``)."""
_I64 = types.int64

# Context tuple positions.
_ST, _KEYS, _DATA, _IO, _OPT, _KILLERS, _HIST, _MOVES, _SCORES, _PV, _PVLEN, _PLAYED = range(12)


def new_context(
    state: np.ndarray[Any, Any],
    keys: np.ndarray[Any, Any],
    data: np.ndarray[Any, Any],
    options: np.ndarray[Any, Any],
) -> tuple[np.ndarray[Any, Any], ...]:
    """The arrays of one searching thread: its state, the (shared) table, its io, options,
    killers, history, move lists, principal variations and the :func:`move_key` of the move
    made at each ply."""
    io = np.zeros(CHESS_IO_SIZE, np.int64)
    io[NODE_LIMIT] = np.iinfo(np.int64).max
    plies = MAX_SEARCH_PLY + 2
    # The continuation history's 8 MB only for a search that uses it.
    continuation = MOVE_KEYS * MOVE_KEYS if options[CONTINUATION] else 0
    return (
        state,
        keys,
        data,
        io,
        options,
        np.full((plies, 2), -2, np.int64),
        np.zeros(CONTINUATION_BASE + continuation, np.int64),
        np.zeros((plies, cb.MAX_MOVES), np.int64),
        np.zeros((plies, cb.MAX_MOVES), np.int64),
        np.zeros((plies, plies), np.int64),
        np.zeros(plies, np.int64),
        np.full(plies, -1, np.int64),
    )


@cached_njit(nogil=True)
def to_table(score: int, ply: int) -> int:
    if score >= WIN - MAX_PLY:
        return score + ply
    if score <= -(WIN - MAX_PLY):
        return score - ply
    return score


@cached_njit(nogil=True)
def from_table(score: int, ply: int) -> int:
    if score >= WIN - MAX_PLY:
        return score - ply
    if score <= -(WIN - MAX_PLY):
        return score + ply
    return score


@cached_njit(nogil=True)
def _poll(io: Any) -> bool:
    """Count a node; True when the search must stop."""
    io[NODES] += 1
    if (io[NODES] & 1023) == 0 and (io[STOP] != 0 or io[NODES] >= io[NODE_LIMIT]):
        io[ABORTED] = 1
    return bool(io[ABORTED] != 0)


@cached_njit(nogil=True)
def _pick(moves: Any, scores: Any, start: int, count: int) -> int:
    """Swap the best-scored move of ``start..count`` to ``start`` and return it; among equal
    scores the lowest code (``Chess.move_code``, as the Python twin sorts them)."""
    best = start
    for i in range(start + 1, count):
        if scores[i] > scores[best] or (
            scores[i] == scores[best] and moves[i] & 0x7FFF < moves[best] & 0x7FFF
        ):
            best = i
    if best != start:
        moves[start], moves[best] = moves[best], moves[start]
        scores[start], scores[best] = scores[best], scores[start]
    return int(moves[start])


@cached_njit(nogil=True)
def _is_quiet(st: Any, move: int) -> bool:
    """Neither a capture, en passant nor a queen promotion (``Chess.is_quiet``)."""
    target = (move >> 6) & 63
    if (move >> 12) & 7 == cb.QUEEN or st[target] != 0:
        return False
    return not (target == st[cb.EP] and st[move & 63] & 7 == cb.PAWN)


@cached_njit(nogil=True)
def _order(st: Any, move: int) -> int:
    """MVV-LVA for a tactical move, as ``Chess.tactical_moves`` orders them."""
    source, target = move & 63, (move >> 6) & 63
    victim = st[target] & 7
    attacker = st[source] & 7
    if victim == 0 and attacker == cb.PAWN and target == st[cb.EP]:
        return 7
    order = victim * 8 - attacker if victim != 0 else 36
    if victim != 0 and (move >> 12) & 7 == cb.QUEEN:
        order += 40
    return int(order)


@cached_njit(nogil=True)
def move_key(st: Any, move: int) -> int:
    """``Chess.move_key``: the moving piece's colour and type and the target square."""
    return int(((1 - st[cb.SIDE]) * 6 + (st[move & 63] & 7) - 1) * 64 + ((move >> 6) & 63))


@cached_njit(nogil=True)
def _earlier(opt: Any, played: Any, ply: int, back: int) -> int:
    """The continuation history's offset for the move ``back`` plies before ``ply`` in the
    history array, -1 if there is none (option off, a pass, before the root). (The helpers
    called for each move take the context's arrays, not the context: passing the tuple
    costs a reference count for each of its arrays, which doubled the time a node took.)"""
    if opt[CONTINUATION] == 0 or ply - back < 0:
        return -1
    key = played[ply - back]
    return int(CONTINUATION_BASE + key * MOVE_KEYS) if key >= 0 else -1


@cached_njit(nogil=True)
def _quiet_score(history: Any, st: Any, move: int, first: int, second: int) -> int:
    """``TacticalSearch._quiet_scorer``: the history of a quiet move, plus its continuation
    history at the offsets ``first`` and ``second`` (-1: none). Each of the three stays within
    ``HISTORY_MAX``, so the sum is below the killers' scores (the cap is never reached, and
    the Python twin has none)."""
    score = history[move & 0x7FFF]
    if first >= 0 or second >= 0:
        key = move_key(st, move)
        if first >= 0:
            score += history[first + key]
        if second >= 0:
            score += history[second + key]
    return int(min(score, _HISTORY_CAP))


@cached_njit(nogil=True)
def _score_moves(ctx: Any, ply: int, count: int, table_move: int) -> None:
    st, moves, scores = ctx[_ST], ctx[_MOVES][ply], ctx[_SCORES][ply]
    killers = ctx[_KILLERS][ply]
    for i in range(count):
        move = moves[i]
        if move == table_move:
            scores[i] = _TT_MOVE
        elif not _is_quiet(st, move):
            if cx.loses_material(st, move):
                scores[i] = _LOSING + _order(st, move)
            else:
                scores[i] = _TACTICAL + _order(st, move)
        elif move == killers[0]:
            scores[i] = _KILLER + 1
        elif move == killers[1]:
            scores[i] = _KILLER
        else:
            scores[i] = 0  # a plain quiet move: scored by node() once it comes to them


@cached_njit(nogil=True)
def correction_slot(st: Any) -> int:
    """``Chess.correction_key`` (``chess.pawn_correction_key``) from the pawn bitboards, as
    an index into the context's history array."""
    mixed = st[cb.PAWNS + 1] * _MIX_WHITE ^ st[cb.PAWNS] * _MIX_BLACK
    return int(HISTORY_ENTRIES + ((mixed >> 50) & 0x3FFF) * 2 + st[cb.SIDE])


@cached_njit(nogil=True)
def _corrected(history: Any, raw: int, slot: int) -> int:
    """``TacticalSearch._corrected``: ``raw`` with the correction at ``slot`` (-1: none)."""
    return raw + history[slot] // CORRECTION_GRAIN if slot >= 0 else raw


@cached_njit(nogil=True)
def _correction_update(entry: int, error: int, depth: int) -> int:
    """``tactical.correction_update``."""
    weight = min(depth + 1, CORRECTION_WEIGHT_MAX)
    moved = (entry * (256 - weight) + error * CORRECTION_GRAIN * weight) // 256
    return max(-CORRECTION_MAX, min(moved, CORRECTION_MAX))


@cached_njit(nogil=True)
def _legal_after_make(st: Any, white: int) -> bool:
    return not cb.attacked(st, st[cb.KINGS + white], 1 - white)


@cached_njit(nogil=True)
def _has_legal_move(st: Any, out: Any) -> bool:
    count = cb.pseudo_moves(st, out, 0)
    for i in range(count):  # noqa: SIM110  # numba compiles no generator expressions
        if cb.legal_after(st, out[i]):
            return True
    return False


@cached_njit(nogil=True)
def _pawns_and_kings(st: Any, white: int) -> int:
    """The squares of ``white``'s pawns and king, as a bitboard."""
    bits = st[cb.OCC + white]
    found = 0
    while bits != 0:
        square = cb.lowest_square(bits)
        bits &= bits - 1
        piece = st[square] & 7
        if piece == cb.PAWN or piece == cb.KING:
            found |= cb.BIT[square]
    return found


@cached_njit(nogil=True)
def _update_pv(pv: Any, pvlen: Any, ply: int, move: int) -> None:
    pv[ply, 0] = move
    length = pvlen[ply + 1]
    for i in range(length):
        pv[ply, i + 1] = pv[ply + 1, i]
    pvlen[ply] = length + 1


@cached_njit(nogil=True)
def _history_update(score: int, bonus: int) -> int:
    """``tactical.history_update``."""
    return score + bonus - score * abs(bonus) // HISTORY_MAX


@cached_njit(nogil=True)
def _reward(ctx: Any, ply: int, index: int, depth: int) -> None:
    """``TacticalSearch._reward``: the quiet move at ``index`` of the node's list failed high;
    the moves before it marked 1 in the node's scores are the quiet moves it searched."""
    moves, scores = ctx[_MOVES][ply], ctx[_SCORES][ply]
    history = ctx[_HIST]
    move = moves[index]
    killers = ctx[_KILLERS][ply]
    if killers[0] != move:
        killers[1] = killers[0]
        killers[0] = move
    bonus = min(32 * depth * depth, 2048)  # tactical.history_bonus
    history[move & 0x7FFF] = _history_update(history[move & 0x7FFF], bonus)
    for i in range(index):
        if scores[i] == 1:
            other = moves[i] & 0x7FFF
            history[other] = _history_update(history[other], -bonus)
    st, opt, played = ctx[_ST], ctx[_OPT], ctx[_PLAYED]
    for back in range(1, 3):
        offset = _earlier(opt, played, ply, back)
        if offset < 0:
            continue
        entry = offset + move_key(st, move)
        history[entry] = _history_update(history[entry], bonus)
        for i in range(index):
            if scores[i] == 1:
                entry = offset + move_key(st, moves[i])
                history[entry] = _history_update(history[entry], -bonus)


@cached_njit(nogil=True)
def _quiescence_moves(st: Any, moves: Any, scores: Any, margin: int) -> int:
    """``Chess.quiescence_moves``: captures of a piece worth at least ``margin`` (except
    those whose exchange loses material) and queen promotions, with MVV-LVA scores."""
    if margin > GAIN_CEILING:
        return 0
    count = cb.pseudo_moves(st, moves, 1)
    kept = 0
    for i in range(count):
        move = moves[i]
        target = (move >> 6) & 63
        victim = st[target] & 7
        if victim == 0:
            if (move >> 12) & 7 != cb.QUEEN:
                continue  # en passant: not a capture of a listed piece
        elif cb.VALUE[victim] < margin or cx.loses_material(st, move):
            continue
        moves[kept] = move
        scores[kept] = _order(st, move)
        kept += 1
    return kept


@cached_njit(_I64(CONTEXT_TYPE, _I64, _I64, _I64), nogil=True)
def quiesce(ctx: Any, alpha: int, beta: int, ply: int) -> int:
    """Fail-soft quiescence (``TacticalSearch._quiesce``): stand pat on the evaluation or play
    a capture worth the margin to alpha; in check, every evasion."""
    st, io = ctx[_ST], ctx[_IO]
    if _poll(io):
        return 0
    ctx[_PVLEN][ply] = 0
    if ply > io[SELDEPTH]:
        io[SELDEPTH] = ply
    in_check = ply < QUIESCENCE_EVASION_PLY and cb.in_check(st)
    moves, scores = ctx[_MOVES][ply], ctx[_SCORES][ply]
    white = st[cb.SIDE]
    if in_check:
        best = -INFINITY
        count = cb.pseudo_moves(st, moves, 0)
        for i in range(count):
            scores[i] = 0 if _is_quiet(st, moves[i]) else _TACTICAL + _order(st, moves[i])
    else:
        io[EVALUATIONS] += 1
        best = cb.evaluate(st)
        if best >= beta or ply >= MAX_SEARCH_PLY:
            return best
        if best > alpha:
            alpha = best
        count = _quiescence_moves(st, moves, scores, alpha - best - DELTA_MARGIN)
    for index in range(count):
        move = _pick(moves, scores, index, count)
        cb.make(st, move)
        if not _legal_after_make(st, white):
            cb.unmake(st)
            continue
        value = -quiesce(ctx, -beta, -alpha, ply + 1)
        cb.unmake(st)
        if io[ABORTED]:
            return 0
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if value >= beta:
                    io[CUTOFFS] += 1
                    break
    if best == -INFINITY:
        return -(WIN - ply)  # in check without a legal move
    return best


@cached_njit(_I64(CONTEXT_TYPE, _I64, _I64, _I64, _I64, types.boolean, _I64), nogil=True)
def node(
    ctx: Any, depth: int, alpha: int, beta: int, ply: int, allow_null: bool, excluded: int
) -> int:
    """Fail-soft PVS below the root (``TacticalSearch._node``): the value of the position from
    the side to move for the window ``(alpha, beta)``, up to the selective options on; with
    ``excluded`` a move code (not -2), the value of the other moves (the singular test)."""
    st, io, opt = ctx[_ST], ctx[_IO], ctx[_OPT]
    # No literals in the recursion (see CONTEXT_TYPE).
    yes: Any = np.bool_(True)
    no: Any = np.bool_(False)
    none: Any = np.int64(-2)
    excluding = excluded != -2
    # Step 1. Count, poll the limit, rule draws and the mate-distance window.
    if _poll(io):
        return 0
    ctx[_PVLEN][ply] = 0
    if ply > io[SELDEPTH]:
        io[SELDEPTH] = ply
    if cb.drawn(st):  # tactical.draw_score
        return int(-opt[CONTEMPT] if ply % 2 == 0 else opt[CONTEMPT])
    if ply >= MAX_SEARCH_PLY:
        io[EVALUATIONS] += 1
        return cb.evaluate(st)
    if alpha < -(WIN - ply):
        alpha = -(WIN - ply)
        if alpha >= beta:
            return alpha
    if beta > WIN - ply - 1:
        beta = WIN - ply - 1
        if alpha >= beta:
            return beta
    in_check = cb.in_check(st)
    if in_check and opt[CHECK_EXTENSION]:
        depth += 1
    # Step 2. The horizon: quiescence search (or the evaluation).
    if depth <= 0:
        if opt[QUIESCENCE]:
            io[NODES] -= 1
            return quiesce(ctx, alpha, beta, ply)
        if not _has_legal_move(st, ctx[_MOVES][ply]):
            return -(WIN - ply) if in_check else 0
        if cb.draw_by_rule(st, 3):
            return 0
        io[EVALUATIONS] += 1
        return cb.evaluate(st)
    # Step 3. Transposition table lookup (no cutoffs on the principal variation).
    pv_node = beta - alpha > 1
    key = st[cb.KEY]
    entry = 0
    if not excluding:
        io[PROBES] += 1
        entry = probe(ctx[_KEYS], ctx[_DATA], key)
    table_move = -2
    if entry != 0:
        io[HITS] += 1
        table_move = _move(entry)
        if _depth(entry) >= depth and not pv_node:
            score = from_table(_score(entry), ply)
            flag = _flag(entry)
            if (
                flag == EXACT
                or (flag == LOWER and score >= beta)
                or (flag == UPPER and score <= alpha)
            ):
                return score
    # Step 4. Reverse futility and futility near the horizon.
    selective = opt[FUTILITY_PRUNING] != 0 and not pv_node and not in_check and not excluding
    futile = False
    # The evaluation (raw), computed at most once (step 4, 5 or 9), and what pruning reads
    # (static): with correction history, raw moved by the entry at ``slot``.
    raw, static, evaluated = 0, 0, False
    history = ctx[_HIST]
    slot = -1
    if opt[CORRECTION] and not in_check and not excluding:
        slot = correction_slot(st)
    if selective and depth <= REVERSE_FUTILITY_DEPTH and -HEURISTIC_LIMIT < alpha < HEURISTIC_LIMIT:
        raw, evaluated = cb.evaluate(st), True
        static = _corrected(history, raw, slot)
        if static - REVERSE_FUTILITY[depth] >= beta:
            return static
        futile = depth <= FUTILITY_DEPTH and static + FUTILITY[depth] <= alpha
    # Step 5. Null move: if passing still fails high on a shallower search, so does this.
    white = st[cb.SIDE]
    if (
        allow_null
        and not excluding
        and opt[NULL_MOVE]
        and not pv_node
        and not in_check
        and depth >= NULL_MOVE_DEPTH
        and -HEURISTIC_LIMIT < beta < HEURISTIC_LIMIT
        and (st[cb.OCC + white] & ~_pawns_and_kings(st, white)) != 0
    ):
        if not evaluated:
            raw, evaluated = cb.evaluate(st), True
            static = _corrected(history, raw, slot)
        null_move = static >= beta
    else:
        null_move = False
    if null_move:
        reduction = 3 if depth >= 6 else 2
        ctx[_PLAYED][ply] = -1
        cb.make(st, cb.NULL_MOVE)
        value = -node(ctx, depth - 1 - reduction, -beta, -beta + 1, ply + 1, no, none)
        cb.unmake(st)
        if io[ABORTED]:
            return 0
        if value >= beta:
            return beta if value >= HEURISTIC_LIMIT else value
    # Step 5b. Singular extension: when every other move fails low against a margin below the
    # table's lower bound, the table move alone holds the value and is searched a ply deeper;
    # when another move reaches the margin and the margin is at least beta, two moves fail
    # high and so does this node (multi-cut).
    extend_table_move = False
    if (
        opt[SINGULAR]
        and not pv_node
        and not in_check
        and not excluding
        and depth >= SINGULAR_DEPTH
        and ply < 2 * io[ROOT_DEPTH]
        and table_move >= 0
        and _flag(entry) != UPPER
        and _depth(entry) >= depth - SINGULAR_TABLE_DEPTH
    ):
        table_score = from_table(_score(entry), ply)
        if -HEURISTIC_LIMIT < table_score < HEURISTIC_LIMIT:
            singular_beta = table_score - 2 * depth
            value = node(
                ctx, (depth - 1) // 2, singular_beta - 1, singular_beta, ply, yes, table_move
            )
            if io[ABORTED]:
                return 0
            if value < singular_beta:
                extend_table_move = True
            elif singular_beta >= beta:
                return singular_beta
    # Step 6. The moves, best first; later moves get a null window, late quiet ones less depth.
    moves, scores = ctx[_MOVES][ply], ctx[_SCORES][ply]
    count = cb.pseudo_moves(st, moves, 0)
    _score_moves(ctx, ply, count, table_move)
    alpha_on_entry = alpha
    best, best_move = -INFINITY, -2
    searched = 0
    reduce = opt[REDUCTIONS] != 0 and not in_check and depth >= 3
    late = opt[REDUCTIONS] != 0 and not pv_node and not in_check and depth <= LATE_MOVE_DEPTH
    quiets = 0
    pv, pvlen, played = ctx[_PV], ctx[_PVLEN], ctx[_PLAYED]
    continuing = opt[CONTINUATION] != 0
    staged = False
    for index in range(count):
        move = _pick(moves, scores, index, count)
        if not staged and scores[index] < _KILLER:
            # The plain quiet moves come next, ordered by the history as it is once the
            # moves before them are searched (their subtrees update it), as the Python twin
            # generates them only then; the losing captures stay last.
            staged = True
            first, second = _earlier(opt, played, ply, 1), _earlier(opt, played, ply, 2)
            for i in range(index, count):
                if scores[i] > _LOSING // 2:  # history may be negative
                    scores[i] = _quiet_score(history, st, moves[i], first, second)
            move = _pick(moves, scores, index, count)
        # From here scores[index] marks a searched quiet move (1) for the history's malus.
        scores[index] = 0
        if move == excluded:
            continue
        quiet = _is_quiet(st, move)
        if continuing:
            played[ply] = move_key(st, move)
        cb.make(st, move)
        if not _legal_after_make(st, white):
            cb.unmake(st)
            continue
        # Whether the move checks matters only to the pruning and reductions: asked only then.
        if (
            quiet
            and searched > 0
            and (futile or (late and quiets >= LATE_COUNT[depth] and best > -HEURISTIC_LIMIT))
            and not cb.in_check(st)
        ):
            cb.unmake(st)
            continue
        if quiet:
            quiets += 1
        new_depth = depth - 1 + (1 if extend_table_move and move == table_move else 0)
        if searched == 0:
            value = -node(ctx, new_depth, -beta, -alpha, ply + 1, yes, none)
        else:
            reduction = 0
            if reduce and quiet and searched >= 3 and not cb.in_check(st):
                reduction = 1 if searched < 8 or depth < 5 else 2
                score = history[move & 0x7FFF]
                if score >= HISTORY_REDUCTION:
                    reduction -= 1
                elif score <= -HISTORY_REDUCTION:
                    reduction = min(reduction + 1, depth - 2)
            value = -node(ctx, new_depth - reduction, -alpha - 1, -alpha, ply + 1, yes, none)
            if reduction and value > alpha and not io[ABORTED]:
                value = -node(ctx, new_depth, -alpha - 1, -alpha, ply + 1, yes, none)
            if alpha < value < beta and not io[ABORTED]:
                value = -node(ctx, new_depth, -beta, -alpha, ply + 1, yes, none)
        cb.unmake(st)
        if io[ABORTED]:
            return 0
        searched += 1
        if value > best:
            best, best_move = value, move
            if value > alpha:
                alpha = value
                if pv_node:
                    _update_pv(pv, pvlen, ply, move)
                if value >= beta:
                    # Step 7. A cutoff: remember a quiet refutation for move ordering.
                    io[CUTOFFS] += 1
                    if quiet:
                        _reward(ctx, ply, index, depth)
                    break
        if quiet:
            scores[index] = 1
    # Step 8. No legal move: checkmate or stalemate.
    if searched == 0:  # (futility never skips the first legal move)
        if excluding:
            return alpha  # the excluded move was the only one: it is singular
        return -(WIN - ply) if in_check else 0
    # Step 9. Store the result with its bound (not the singular test's: one move was left out).
    if excluding:
        return best
    if best >= beta:
        flag = LOWER
    elif best > alpha_on_entry:
        flag = EXACT
    else:
        flag = UPPER
    if slot >= 0 and -HEURISTIC_LIMIT < best < HEURISTIC_LIMIT:
        # Learn how far the evaluation was off (``TacticalSearch._node``, step 9).
        if not evaluated:
            raw = cb.evaluate(st)
        if _is_quiet(st, best_move) and not (
            (flag == LOWER and best <= raw) or (flag == UPPER and best >= raw)
        ):
            history[slot] = _correction_update(history[slot], best - raw, depth)
    io[STORES] += 1
    store(
        ctx[_KEYS],
        ctx[_DATA],
        key,
        _pack(to_table(best, ply), best_move, depth, flag, io[GENERATION]),
    )
    return best


@cached_njit(_I64(CONTEXT_TYPE, _I64, _I64, _I64, _C1, _I64), nogil=True)
def root(ctx: Any, depth: int, alpha: int, beta: int, root_moves: Any, count: int) -> int:
    """Search ``root_moves[:count]`` (legal, in this order) to ``depth`` in the window
    ``(alpha, beta)`` (``TacticalSearch._root_window``); the PV is ``ctx`` row 0, the best
    root move so far in ``io[PARTIAL_MOVE]``."""
    st, io = ctx[_ST], ctx[_IO]
    # No literals in calls of node (see CONTEXT_TYPE).
    one: Any = np.int64(1)
    yes: Any = np.bool_(True)
    none: Any = np.int64(-2)
    pv, pvlen = ctx[_PV], ctx[_PVLEN]
    io[NODES] += 1
    io[ROOT_DEPTH] = depth
    io[PARTIAL_MOVE] = -1
    best = -INFINITY
    best_move = root_moves[0]
    pv[0, 0] = best_move
    pvlen[0] = 1
    for index in range(count):
        move = root_moves[index]
        if ctx[_OPT][CONTINUATION]:
            ctx[_PLAYED][0] = move_key(st, move)
        cb.make(st, move)
        if index == 0:
            value = -node(ctx, depth - 1, -beta, -alpha, one, yes, none)
        else:
            value = -node(ctx, depth - 1, -alpha - 1, -alpha, one, yes, none)
            if alpha < value < beta and not io[ABORTED]:
                value = -node(ctx, depth - 1, -beta, -alpha, one, yes, none)
        cb.unmake(st)
        if io[ABORTED]:
            return best
        if value > best:
            best, best_move = value, move
            _update_pv(pv, pvlen, 0, move)
            if value > alpha:
                alpha = value
                io[PARTIAL_MOVE] = move
                io[PARTIAL_SCORE] = value
                if value >= beta:
                    break
    io[STORES] += 1
    flag = LOWER if best >= beta else EXACT
    store(
        ctx[_KEYS],
        ctx[_DATA],
        st[cb.KEY],
        _pack(to_table(best, 0), best_move, depth, flag, io[GENERATION]),
    )
    return best


@cached_njit(nogil=True)
def table_line(st: Any, keys: Any, data: Any, first: Any, length: int, most: int, out: Any) -> int:
    """``first[:length]`` followed by table moves while they are legal and the line is no
    draw, up to ``most`` moves, in ``out``; returns the length (the state is left as it was)."""
    for i in range(length):
        out[i] = first[i]
        cb.make(st, first[i])
    n = length
    buf = np.empty(cb.MAX_MOVES, np.int64)
    while n < most and not cb.drawn(st):
        entry = probe(keys, data, st[cb.KEY])
        if entry == 0:
            break
        move = _move(entry)
        count = cb.legal_moves(st, buf, 0)
        found = False
        for i in range(count):
            if buf[i] == move:
                found = True
                break
        if not found:
            break
        out[n] = move
        cb.make(st, move)
        n += 1
    for _ in range(n):
        cb.unmake(st)
    return n
