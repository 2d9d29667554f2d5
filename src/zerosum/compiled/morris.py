"""Morris for the compiled engine: every variant through one kernel, its rules carried in the state.

The state array starts with the rules (:func:`rules_header`: points, flying, draw rules, the
adjacency and mill bitboards of :mod:`zerosum.games.morris_rules`), so six, nine and twelve men's
morris share one compiled search. Then the position: both sides' bitboards, men in hand, the side
to move, the game ply, the moves without removal, the Zobrist key (the pure-Python game's, as a
signed 64-bit integer), and two rings indexed by ``ply % RING``: the key of each position and the
moves-without-removal counter before each move (for repetitions and undo).

Move codes are the pure-Python game's (``to | (from + 1) << 5 | (removed + 1) << 10``, 15 bits).
``moves`` orders them: moves that close a mill (removing a man of an open mill first), moves that
block an open mill of the opponent's, moves that make an open mill, then the rest.

Proven scores: a game that ends at game ply ``p`` ranks ``RANK_BASE - p`` (sooner ends rank
higher). Draws by repetition look back at most ``WINDOW`` moves: further back the rings may
already hold the positions of the current search line.

Below the root the search probes the endgame databases of :mod:`zerosum.endgames` in the
default store (:func:`endgame_tables` maps every stored class, through 6-6, as one read-only
array: :mod:`zerosum.endgames.mapped`; never building one), with the pure-Python probe's
policy (:func:`zerosum.endgames.probe.probe_men`): nothing in hand, 3..6 men a side, the
databases' rules, and under a move limit only a result whose end
comes within it. A result ``d`` moves from game ply ``p`` ends at ply ``p + d`` and ranks as
the kernel's own ends do.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from zerosum.compiled.engine import INF, NO_SCORE, Kernel, popcount, score_of_rank
from zerosum.compiled.kernels import CompiledGame
from zerosum.endgames import MAX_MEN as ENDGAMES_MAX_MEN
from zerosum.endgames import mapped
from zerosum.endgames.board import NINE_MENS_MORRIS
from zerosum.endgames.database import default_path
from zerosum.endgames.orbits import permutation_bytes
from zerosum.endgames.probe import MIN_MEN, solved_rules
from zerosum.endgames.reduced import apply
from zerosum.endgames.retro import binomials, rank_among
from zerosum.game import WIN, Game, Score
from zerosum.games import morris as game
from zerosum.games.morris_rules import Rules
from zerosum.jit import cached_njit

# The rules header.
SIZE: Final = 0
FULL: Final = 1
FLYING: Final = 2
REPETITION: Final = 3
MOVE_LIMIT: Final = 4
FULL_DRAW: Final = 5
MILL_COUNT: Final = 6
ENDGAMES: Final = 7
"""1 when the rules are those the endgame databases were solved for (see :func:`probe`)."""
ADJ: Final = 8
MILLS: Final = ADJ + 24
MILLS_AT: Final = MILLS + 20
"""Three slots per point: the mills through it, 0 where there are fewer."""
# The position.
MEN: Final = MILLS_AT + 3 * 24
"""White's bitboard, then Black's."""
HAND: Final = MEN + 2
SIDE: Final = HAND + 2
PLY: Final = SIDE + 1
QUIET: Final = PLY + 1
KEY: Final = QUIET + 1
RING: Final = 256
KEYS: Final = KEY + 1
QUIETS: Final = KEYS + RING
STATE_SIZE: Final = QUIETS + RING
MAX_PLY: Final = 64
WINDOW: Final = RING - MAX_PLY - 2
RANK_BASE: Final = 100_000
MAX_MOVES: Final = 800
"""Twelve men's morris: 3 flying men x 21 empty points x up to 12 removals, with room."""

PLACING: Final = game.PLACING
MOVING: Final = game.MOVING
FLYING_PHASE: Final = game.FLYING
STUCK: Final = game.STUCK
WEIGHTS: Final = np.array(game.WEIGHTS, dtype=np.int64)


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


ZOBRIST_MAN: Final = np.array(
    [[_signed(v) for v in row] for row in game.ZOBRIST_MAN], dtype=np.int64
)
ZOBRIST_HAND: Final = np.array(
    [[_signed(v) for v in row] for row in game.ZOBRIST_HAND], dtype=np.int64
)
ZOBRIST_BLACK: Final = _signed(game.ZOBRIST_BLACK)


def rules_header(rules: Rules) -> list[int]:
    """The first ``MEN`` fields of a state: the rules as numbers."""
    header = [0] * MEN
    header[SIZE] = rules.size
    header[FULL] = rules.full
    header[FLYING] = int(rules.flying)
    header[REPETITION] = rules.repetition or 0
    header[MOVE_LIMIT] = rules.move_limit or 0
    header[FULL_DRAW] = int(rules.full_board_draw)
    header[MILL_COUNT] = len(rules.mills)
    header[ENDGAMES] = int(solved_rules(rules))
    for point in range(rules.size):
        header[ADJ + point] = rules.adjacent[point]
        for slot, mill in enumerate(rules.mills_at(point)):
            header[MILLS_AT + 3 * point + slot] = mill
    for index, mill in enumerate(rules.mills):
        header[MILLS + index] = mill
    return header


def state_of(position: game.Morris) -> list[int]:
    """The kernel state of a pure-Python position, its recent keys included."""
    fields = rules_header(position.rules)
    fields += [0] * (STATE_SIZE - len(fields))
    ply = position.ply()
    fields[MEN], fields[MEN + 1] = position.men(0), position.men(1)
    fields[HAND], fields[HAND + 1] = position.in_hand(0), position.in_hand(1)
    fields[SIDE] = position.side_to_move()
    fields[PLY] = ply
    fields[QUIET] = position.moves_without_removal()
    fields[KEY] = _signed(position.key())
    for back, key in enumerate(reversed(position.recent_keys(RING))):
        fields[KEYS + (ply - back) % RING] = _signed(key)
    return fields


@cached_njit(nogil=True)
def _flies(st: Any, side: int) -> bool:
    return st[FLYING] != 0 and st[HAND + side] == 0 and popcount(st[MEN + side]) == 3


@cached_njit(nogil=True)
def _in_mill(st: Any, men: int, point: int) -> bool:
    for slot in range(3):
        mill = st[MILLS_AT + 3 * point + slot]
        if mill != 0 and men & mill == mill:
            return True
    return False


@cached_njit(nogil=True)
def removable(st: Any, side: int) -> int:
    """The bitboard of ``side``'s men that an opponent's mill may remove."""
    men = st[MEN + side]
    in_mills = 0
    for index in range(st[MILL_COUNT]):
        mill = st[MILLS + index]
        if men & mill == mill:
            in_mills |= mill
    free = men & ~in_mills
    return int(free if free != 0 else men)


@cached_njit(nogil=True)
def _loss(st: Any) -> int:
    return score_of_rank(-max(RANK_BASE - st[PLY], 1))


@cached_njit(nogil=True)
def _decided(st: Any, reach: int) -> int:
    """:func:`decided`, looking for repetitions at most ``reach`` plies back."""
    side = st[SIDE]
    if popcount(st[MEN + side]) + st[HAND + side] < 3:
        return _loss(st)
    quiet = st[QUIET]
    repetition = st[REPETITION]
    if repetition != 0 and quiet >= 2 * (repetition - 1):
        key, ply = st[KEY], st[PLY]
        seen = 0
        for back in range(2, min(quiet, reach) + 1, 2):
            if st[KEYS + (ply - back) % RING] == key:
                seen += 1
        if seen >= repetition - 1:
            return 0
    if st[MOVE_LIMIT] != 0 and quiet >= st[MOVE_LIMIT]:
        return 0
    if st[FULL_DRAW] != 0 and (st[MEN] | st[MEN + 1]) == st[FULL]:
        return 0
    return NO_SCORE


@cached_njit(nogil=True)
def decided(st: Any) -> int:
    """A loss with fewer than three men, the draws; ``NO_SCORE`` otherwise (``no_moves`` tells
    the loss of a player who cannot move)."""
    return _decided(st, WINDOW)


@cached_njit(nogil=True)
def no_moves(st: Any) -> int:
    return _loss(st)


@cached_njit(nogil=True)
def bounds(st: Any) -> tuple[int, int]:
    """No win before the next move ends the game, no loss before the move after."""
    ply = st[PLY]
    return score_of_rank(-max(RANK_BASE - ply - 2, 1)), score_of_rank(max(RANK_BASE - ply - 1, 1))


@cached_njit(nogil=True)
def rank_range(st: Any) -> tuple[int, int]:
    ply = st[PLY]
    return -max(RANK_BASE - ply - 2, 1), max(RANK_BASE - ply - 1, 1)


@cached_njit(nogil=True)
def key(st: Any) -> int:
    return int(st[KEY])


@cached_njit(nogil=True)
def _side_value(st: Any, side: int) -> int:
    """One side's share of :meth:`zerosum.games.morris.Morris.evaluate`."""
    mine, theirs = st[MEN + side], st[MEN + 1 - side]
    if st[HAND + side] != 0:
        phase = PLACING
    elif _flies(st, side):
        phase = FLYING_PHASE
    else:
        phase = MOVING
    closed = open_ = 0
    for index in range(st[MILL_COUNT]):
        mill = st[MILLS + index]
        own = popcount(mine & mill)
        if own == 3:
            closed += 1
        elif own == 2 and theirs & mill == 0:
            open_ += 1
    mobility = blocked = doubles = 0
    if phase != FLYING_PHASE:
        empty = st[FULL] & ~(mine | theirs)
        for point in range(st[SIZE]):
            if (mine >> point) & 1 == 0:
                continue
            free = st[ADJ + point] & empty
            if free == 0:
                blocked += 1
                continue
            mobility += popcount(free)
            if phase == MOVING and _in_mill(st, mine, point):
                rest = mine ^ (1 << point)
                for target in range(st[SIZE]):
                    if (free >> target) & 1 == 0:
                        continue
                    for slot in range(3):
                        mill = st[MILLS_AT + 3 * target + slot]
                        other = mill ^ (1 << target)
                        if mill != 0 and (mill >> point) & 1 == 0 and rest & other == other:
                            doubles += 1
                            break
    w = WEIGHTS[phase]
    men = popcount(mine) + st[HAND + side]
    value = (
        w[0] * men
        + w[1] * closed
        + w[2] * open_
        + w[3] * doubles
        + w[4] * mobility
        + w[5] * blocked
    )
    if phase == MOVING and mobility == 0:
        value += STUCK
    return int(value)


@cached_njit(nogil=True)
def evaluate(st: Any) -> int:
    side = st[SIDE]
    return _side_value(st, side) - _side_value(st, 1 - side)


@cached_njit(nogil=True)
def _open_point(st: Any, men: int, others: int, point: int) -> bool:
    """Whether ``point`` (empty) completes a mill of ``men`` (two men of it on the line)."""
    for slot in range(3):
        mill = st[MILLS_AT + 3 * point + slot]
        rest = mill ^ (1 << point)
        if mill != 0 and men & rest == rest and others & rest == 0:
            return True
    return False


@cached_njit(nogil=True)
def _emit(st: Any, out: Any, count: int, to: int, frm: int, side: int, free: int) -> int:
    """Write the moves of one placement or move (one per removal), with an ordering score in
    the bits above 16; ``free`` is the opponent's removable men (-1: not computed yet)."""
    mine = st[MEN + side] | (1 << to)
    if frm >= 0:
        mine &= ~(1 << frm)
    theirs = st[MEN + 1 - side]
    code = to | ((frm + 1) << 5)
    if theirs != 0 and _in_mill(st, mine, to):
        for point in range(st[SIZE]):
            if (free >> point) & 1:
                score = 8
                if _open_point_through(st, theirs, point):
                    score = 9
                out[count] = (score << 16) | code | ((point + 1) << 10)
                count += 1
        return count
    score = 0
    if _open_point(st, theirs, st[MEN + side], to):
        score = 6
    elif _open_point_after(st, mine, theirs, to):
        score = 3
    if frm >= 0 and _in_mill(st, st[MEN + side], frm):
        score += 1
    out[count] = (score << 16) | code
    return count + 1


@cached_njit(nogil=True)
def _open_point_through(st: Any, men: int, point: int) -> bool:
    """Whether the man on ``point`` is one of two on a line whose third point is empty."""
    empty = st[FULL] & ~(st[MEN] | st[MEN + 1])
    for slot in range(3):
        mill = st[MILLS_AT + 3 * point + slot]
        if mill != 0 and popcount(men & mill) == 2 and popcount(empty & mill) == 1:
            return True
    return False


@cached_njit(nogil=True)
def _open_point_after(st: Any, mine: int, theirs: int, to: int) -> bool:
    """Whether the man now on ``to`` makes two of ``mine`` on a line with its third point empty."""
    for slot in range(3):
        mill = st[MILLS_AT + 3 * to + slot]
        if mill != 0 and popcount(mine & mill) == 2 and theirs & mill == 0:
            return True
    return False


@cached_njit(nogil=True)
def _generate(st: Any, out: Any, in_game_order: bool) -> int:
    """Every placement or move of the side to move, each with its removals: scored for
    :func:`moves` (:func:`_emit`), or in the game's order for :func:`legal`
    (:func:`_emit_legal`). The number written to ``out``."""
    side = st[SIDE]
    mine, theirs = st[MEN + side], st[MEN + 1 - side]
    empty = st[FULL] & ~(mine | theirs)
    free = removable(st, 1 - side)
    size = st[SIZE]
    placing = st[HAND + side] != 0
    flying = not placing and _flies(st, side)
    count = 0
    for frm in range(-1, size):
        if frm < 0:  # placements (frm -1): only while men are in hand
            if not placing:
                continue
            targets = empty
        elif placing or not (mine >> frm) & 1:
            continue
        elif flying:
            targets = empty
        else:
            targets = st[ADJ + frm] & empty
        for to in range(size):
            if (targets >> to) & 1:
                if in_game_order:
                    count = _emit_legal(st, out, count, to, frm, side, free)
                else:
                    count = _emit(st, out, count, to, frm, side, free)
    return count


@cached_njit(nogil=True)
def moves(st: Any, out: Any) -> int:
    side = st[SIDE]
    if popcount(st[MEN + side]) + st[HAND + side] < 3:
        return 0
    count = _generate(st, out, False)
    # Best first (a stable insertion sort on the scores), then drop the scores.
    for i in range(1, count):
        item = out[i]
        j = i
        while j > 0 and (out[j - 1] >> 16) < (item >> 16):
            out[j] = out[j - 1]
            j -= 1
        out[j] = item
    for i in range(count):
        out[i] &= 0xFFFF
    return count


@cached_njit(nogil=True)
def play(st: Any, move: int) -> None:
    side = st[SIDE]
    to, frm, removed = move & 31, ((move >> 5) & 31) - 1, ((move >> 10) & 31) - 1
    ply = st[PLY]
    st[QUIETS + ply % RING] = st[QUIET]
    k = st[KEY] ^ ZOBRIST_BLACK ^ ZOBRIST_MAN[side, to]
    if frm < 0:
        hand = st[HAND + side]
        k ^= ZOBRIST_HAND[side, hand] ^ ZOBRIST_HAND[side, hand - 1]
        st[HAND + side] = hand - 1
        st[MEN + side] |= 1 << to
        st[QUIET] = 0
    else:
        k ^= ZOBRIST_MAN[side, frm]
        st[MEN + side] ^= (1 << frm) | (1 << to)
        st[QUIET] += 1
    if removed >= 0:
        k ^= ZOBRIST_MAN[1 - side, removed]
        st[MEN + 1 - side] ^= 1 << removed
        st[QUIET] = 0
    st[KEY] = k
    st[SIDE] = 1 - side
    st[PLY] = ply + 1
    st[KEYS + (ply + 1) % RING] = k


@cached_njit(nogil=True)
def undo(st: Any, move: int) -> None:
    ply = st[PLY] - 1
    side = 1 - st[SIDE]
    to, frm, removed = move & 31, ((move >> 5) & 31) - 1, ((move >> 10) & 31) - 1
    if removed >= 0:
        st[MEN + 1 - side] |= 1 << removed
    if frm < 0:
        st[HAND + side] += 1
        st[MEN + side] ^= 1 << to
    else:
        st[MEN + side] ^= (1 << frm) | (1 << to)
    st[SIDE] = side
    st[PLY] = ply
    st[QUIET] = st[QUIETS + ply % RING]
    st[KEY] = st[KEYS + ply % RING]


# -- Monte Carlo tree search: the game's move order and outcome ----------------------------------


@cached_njit(nogil=True)
def _emit_legal(st: Any, out: Any, count: int, to: int, frm: int, side: int, free: int) -> int:
    """Write the moves of one placement or move, one per removal in point order (the game's
    ``_with_removals``); ``free`` is the opponent's removable men."""
    mine = st[MEN + side] | (1 << to)
    if frm >= 0:
        mine &= ~(1 << frm)
    code = to | ((frm + 1) << 5)
    if st[MEN + 1 - side] == 0 or not _in_mill(st, mine, to):
        out[count] = code
        return count + 1
    for point in range(st[SIZE]):
        if (free >> point) & 1:
            out[count] = code | ((point + 1) << 10)
            count += 1
    return count


@cached_njit(nogil=True)
def legal(st: Any, out: Any) -> int:
    """Every legal move of a position that is not over, in the order of
    :meth:`zerosum.games.morris.Morris.legal_moves` (placements by point; moves by the man's
    point, then the target's; removals by point), unlike :func:`moves`, which puts the
    promising first for alpha-beta."""
    return _generate(st, out, True)


@cached_njit(nogil=True)
def _can_move(st: Any) -> bool:
    """Whether the side to move has a placement or a move (the game's ``_can_move``)."""
    side = st[SIDE]
    mine = st[MEN + side]
    empty = st[FULL] & ~(mine | st[MEN + 1 - side])
    if empty == 0:
        return False
    if st[HAND + side] != 0 or _flies(st, side):
        return True
    reach = 0
    for point in range(st[SIZE]):
        if (mine >> point) & 1:
            reach |= st[ADJ + point]
    return bool(reach & empty != 0)


@cached_njit(nogil=True)
def over(st: Any) -> int:
    """The game's ``outcome()`` as a score for the side to move (``NO_SCORE``: not over), its
    checks in its order. Repetitions are looked for up to ``RING - 1`` plies back, all the ring
    holds: right for a state that only ever moved forward from :func:`state_of` (as MCTS plays,
    on a copy of the root's), and the game's rule whenever the move limit is under ``RING``
    (the variants' default is 100; with ``moves=none`` a repetition further back is missed)."""
    score = _decided(st, RING - 1)
    if score != NO_SCORE:
        return score
    if not _can_move(st):
        return _loss(st)
    return NO_SCORE


# -- the endgame databases -------------------------------------------------------------------

MAX_MEN: Final = ENDGAMES_MAX_MEN
"""The largest class the compiled probe reads: every class the databases hold."""
OTHER_COUNTS: Final = mapped.other_counts()
"""``C(n - x, y)`` per class in the order of :data:`zerosum.endgames.mapped.CLASSES`: the
ways to place the opponent's men."""
BINOM: Final = binomials(NINE_MENS_MORRIS.size)
PERM: Final = permutation_bytes(NINE_MENS_MORRIS)
_SIDE_MEN: Final = mapped.SIDE_MEN
_TABLE_AT: Final = mapped.TABLE_AT
_RECORDS_AT: Final = mapped.RECORDS_AT
_REPS_AT: Final = mapped.REPS_AT
_TABLES: dict[str, np.ndarray[Any, Any]] = {}


def endgame_tables() -> np.ndarray[Any, Any]:
    """Every class stored in the default store (:func:`zerosum.endgames.database.default_path`)
    in one read-only ``uint8`` array, the layout of :mod:`zerosum.endgames.mapped` (its probe
    file mapped, written first if needed). Empty when there is no store or it holds no class.
    Loaded once per process and store path; nothing is ever built."""
    path = str(default_path())
    if path not in _TABLES:
        _TABLES[path] = mapped.probe_array(path)
    return _TABLES[path]


@cached_njit(nogil=True)
def _number(aux: Any, at: int, width: int) -> int:
    """The little-endian number of ``width`` bytes at ``aux[at]``."""
    value = 0
    for i in range(width):
        value |= int(aux[at + i]) << (8 * i)
    return value


@cached_njit(nogil=True)
def probe(st: Any, aux: Any) -> int:
    """The databases' exact score of the position (the array of :func:`endgame_tables`), or
    ``NO_SCORE`` where they do not decide it under the state's rules."""
    if aux.shape[0] == 0 or st[ENDGAMES] == 0 or st[HAND] != 0 or st[HAND + 1] != 0:
        return NO_SCORE
    side = st[SIDE]
    mine, theirs = st[MEN + side], st[MEN + 1 - side]
    x, y = popcount(mine), popcount(theirs)
    if x < MIN_MEN or x > MAX_MEN or y < MIN_MEN or y > MAX_MEN:
        return NO_SCORE
    kind = (x - MIN_MEN) * _SIDE_MEN + y - MIN_MEN
    if aux[kind] == 0:
        return NO_SCORE
    # The index of zerosum.endgames.reduced.lookup_index, its arrays read from aux.
    record = _number(aux, _RECORDS_AT + 8 * (x - MIN_MEN), 8) + 3 * rank_among(mine, 0, BINOM)
    orbit = _number(aux, record, 2)
    image = apply(int(aux[record + 2]), theirs, PERM)
    rep = _number(aux, _number(aux, _REPS_AT + 8 * (x - MIN_MEN), 8) + 3 * orbit, 3)
    at = orbit * OTHER_COUNTS[kind] + rank_among(image, rep, BINOM)
    code = int(aux[_number(aux, _TABLE_AT + 8 * kind, 8) + at])
    if code == 0:
        return 0
    moves = code - 1
    if st[MOVE_LIMIT] != 0 and st[QUIET] + moves > st[MOVE_LIMIT]:
        return NO_SCORE
    rank = max(RANK_BASE - st[PLY] - moves, 1)
    return score_of_rank(rank if moves % 2 == 1 else -rank)


KERNEL: Final = Kernel(
    name="morris",
    state_size=STATE_SIZE,
    max_moves=MAX_MOVES,
    max_ply=MAX_PLY,
    quick=decided,
    decided=decided,
    bounds=bounds,
    rank_range=rank_range,
    evaluate=evaluate,
    key=key,
    moves=moves,
    no_moves=no_moves,
    play=play,
    undo=undo,
    probe=probe,
    load_aux=endgame_tables,
    legal=legal,
    over=over,
)
assert score_of_rank.py_func(RANK_BASE) < INF


def _state(position: Game[Any]) -> list[int]:
    assert isinstance(position, game.Morris)
    return state_of(position)


def value_of(rank: int, ply: int) -> Score:
    """A game that ends at game ply ``p`` ranks ``RANK_BASE - p`` (negative for a loss)."""
    if rank == 0:
        return 0
    return (WIN - (RANK_BASE - abs(rank) - ply)) * (1 if rank > 0 else -1)


GAME: Final = CompiledGame(KERNEL, _state, value_of, lambda position: position.key(), exact=False)
"""Morris (and its variants) on this kernel: searched to a depth, never solved exactly (play
may go on for ever)."""
