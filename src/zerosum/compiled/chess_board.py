"""The compiled chess board: move generation, make/unmake, key, evaluation and draws in numba.

The position is one ``int64`` array (the *state*, layout below) that :func:`make` and
:func:`unmake` change in place. Design choices, each measured or forced by numba:

* a mailbox (``state[0:64]`` holds a piece code per square, ``piece + 8 * white`` as in
  :mod:`zerosum.games.chess`) with precomputed target lists for knights and kings and a
  bitboard per ray for the sliders, plus one occupancy bitboard per colour to visit a side's
  pieces without scanning 64 squares. A slider's attacks along a ray end at the ray's first
  occupied square, found by one bit scan (:func:`slider_attacks`), not by a branch per
  square. Bitboards with magic attack tables need unsigned 64-bit arithmetic, which numba
  mixes with signed integers into floats; everything stays in ``int64`` (bit 63 is the sign
  bit, which the bit scans and masks do not mind);
* pseudo-legal generation (castling checked in full), and a move is legal when the mover's
  king is not attacked after it (:func:`legal_moves` filters; the search skips illegal moves
  as it plays them);
* the Polyglot key (``chess.polyglot.zobrist_hash``) and the tapered material and
  piece-square evaluation of :mod:`zerosum.games.chess` are updated by ``make`` from the
  squares a move changes, and the sums before the move are kept on an undo stack inside the
  state, as are the keys since the last irreversible move for repetitions.

Moves are ints ``from | to << 6 | promotion << 12`` (squares 0 = a1 .. 63 = h8, promotion a
python-chess piece type or 0); :data:`NULL_MOVE` is a pass.

Everything here is the fast twin of :class:`zerosum.games.chess.Chess` (python-chess's rules
with that module's evaluation and key): the tests compare moves, keys, evaluations, draws and
perft counts on random games and on the perft suite.
"""

from __future__ import annotations

from typing import Any, Final

import chess
import chess.polyglot
import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros as _leading_zeros
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros

from zerosum.compiled.engine import popcount
from zerosum.games import chess_evaluation as ce
from zerosum.games.chess import EG, FULL_PHASE, MG, PHASE_WEIGHT, Chess
from zerosum.games.chess_tables import MATERIAL_MG
from zerosum.jit import cached_njit

leading_zeros: Any = _leading_zeros  # numba's intrinsics: typed as taking their context
trailing_zeros: Any = _trailing_zeros

PAWN: Final = 1
KNIGHT: Final = 2
BISHOP: Final = 3
ROOK: Final = 4
QUEEN: Final = 5
KING: Final = 6

# -- the state layout ------------------------------------------------------------------------
SIDE: Final = 64
"""1 when White is to move, 0 when Black is."""
CASTLING: Final = 65
"""Castling rights: 1 White short, 2 White long, 4 Black short, 8 Black long."""
EP: Final = 66
"""The square a pawn skipped on the last move (a double step), else -1 (python-chess's
``ep_square``)."""
HALFMOVE: Final = 67
"""Plies since the last capture or pawn move."""
KEY: Final = 68
"""The Polyglot key (as a signed 64-bit int)."""
MG_SUM: Final = 69
EG_SUM: Final = 70
PHASE: Final = 71
"""The middlegame and endgame sums (White's view) and the material phase."""
KINGS: Final = 72
"""The square of Black's king (``KINGS + 0``) and of White's (``KINGS + 1``)."""
OCC: Final = 74
"""The occupancy bitboard of Black (``OCC + 0``) and of White (``OCC + 1``)."""
NKEYS: Final = 76
"""How many keys the history holds (the current position's last)."""
START: Final = 77
"""The index in the history of the first position a repetition may look back to."""
TOP: Final = 78
"""How many moves the undo stack holds."""
FULLMOVE: Final = 79
PAWNS: Final = 80
"""The pawn bitboard of Black (``PAWNS + 0``) and of White (``PAWNS + 1``)."""
HISTORY: Final = 82
"""The keys of the positions since the last irreversible move."""
HISTORY_SIZE: Final = 480
UNDO: Final = HISTORY + HISTORY_SIZE
"""The undo stack: ``UNDO_FIELDS`` words per move made."""
UNDO_FIELDS: Final = 12
MAX_STACK: Final = 360
"""The most moves a state can take back (search plies plus the game loaded into it)."""
STATE_SIZE: Final = UNDO + UNDO_FIELDS * MAX_STACK
MAX_MOVES: Final = 256
"""More than the legal moves of any position (218 is the most known)."""

# Fields of an undo record.
_U_MOVE, _U_CAPTURED, _U_CASTLING, _U_EP, _U_HALFMOVE = 0, 1, 2, 3, 4
_U_KEY, _U_MG, _U_EG, _U_PHASE, _U_START = 5, 6, 7, 8, 9
_U_PAWNS = 10
"""Two fields: the pawn bitboards of Black and White."""

NULL_MOVE: Final = -1
_EN_PASSANT: Final = -1
"""The captured code recorded for an en passant capture (the pawn is not on the target)."""

# -- tables ----------------------------------------------------------------------------------


def _to_signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


_RANDOM = chess.polyglot.POLYGLOT_RANDOM_ARRAY
PIECE_KEYS = np.zeros((16, 64), np.int64)
for _piece in range(1, 7):
    for _white in (0, 1):
        for _square in range(64):
            PIECE_KEYS[_piece + 8 * _white, _square] = _to_signed(
                _RANDOM[64 * ((_piece - 1) * 2 + _white) + _square]
            )
CASTLING_KEYS = np.array([_to_signed(_RANDOM[768 + i]) for i in range(4)], np.int64)
EP_KEYS = np.array([_to_signed(_RANDOM[772 + f]) for f in range(8)], np.int64)
WHITE_KEY: Final = _to_signed(_RANDOM[780])

MG_TABLE = np.array(MG, np.int64)
EG_TABLE = np.array(EG, np.int64)
PHASE_TABLE = np.array(PHASE_WEIGHT, np.int64)
VALUE = np.array(MATERIAL_MG, np.int64)
"""Middlegame material by piece type, for move ordering and quiescence."""

BIT = np.array([_to_signed(1 << s) for s in range(64)], np.int64)


def _targets(steps: list[tuple[int, int]]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    count = np.zeros(64, np.int64)
    squares = np.zeros((64, 8), np.int64)
    for square in range(64):
        file, rank = square & 7, square >> 3
        for df, dr in steps:
            f, r = file + df, rank + dr
            if 0 <= f < 8 and 0 <= r < 8:
                squares[square, count[square]] = r * 8 + f
                count[square] += 1
    return count, squares


KNIGHT_COUNT, KNIGHT_TO = _targets(
    [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
)
KNIGHT_ATTACKS = np.array(
    [_to_signed(sum(1 << int(t) for t in KNIGHT_TO[s, : KNIGHT_COUNT[s]])) for s in range(64)],
    np.int64,
)
"""``KNIGHT_ATTACKS[s]``: the squares a knight on ``s`` attacks."""
KING_COUNT, KING_TO = _targets(
    [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
)
_DIRECTIONS = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)]
"""Rook directions first (0-3), then bishop directions (4-7)."""
RAY_LENGTH = np.zeros((64, 8), np.int64)
RAY = np.zeros((64, 8, 7), np.int64)
for _square in range(64):
    for _d, (_df, _dr) in enumerate(_DIRECTIONS):
        _f, _r = (_square & 7) + _df, (_square >> 3) + _dr
        while 0 <= _f < 8 and 0 <= _r < 8:
            RAY[_square, _d, RAY_LENGTH[_square, _d]] = _r * 8 + _f
            RAY_LENGTH[_square, _d] += 1
            _f, _r = _f + _df, _r + _dr
RAY_MASK = np.array(
    [
        [_to_signed(sum(1 << int(t) for t in RAY[s, d, : RAY_LENGTH[s, d]])) for d in range(8)]
        for s in range(64)
    ],
    np.int64,
)
"""``RAY_MASK[s, d]``: the squares of ``RAY[s, d]`` as a bitboard. The even directions run
to higher squares, the odd ones to lower squares."""
PAWN_FROM_COUNT = np.zeros((2, 64), np.int64)
PAWN_FROM = np.zeros((2, 64, 2), np.int64)
"""``PAWN_FROM[white, s]``: the squares from which a pawn of that colour attacks ``s``."""
for _square in range(64):
    for _white, _dr in ((1, -1), (0, 1)):
        for _df in (-1, 1):
            _f, _r = (_square & 7) + _df, (_square >> 3) + _dr
            if 0 <= _f < 8 and 0 <= _r < 8:
                PAWN_FROM[_white, _square, PAWN_FROM_COUNT[_white, _square]] = _r * 8 + _f
                PAWN_FROM_COUNT[_white, _square] += 1
CASTLING_KEEP = np.full(64, 15, np.int64)
"""The rights left after a move from or to each square (a king or rook moved or captured)."""
CASTLING_KEEP[chess.E1] = 15 & ~3
CASTLING_KEEP[chess.H1] = 15 & ~1
CASTLING_KEEP[chess.A1] = 15 & ~2
CASTLING_KEEP[chess.E8] = 15 & ~12
CASTLING_KEEP[chess.H8] = 15 & ~4
CASTLING_KEEP[chess.A8] = 15 & ~8
# The positional terms' tables (zerosum.games.chess_evaluation), as signed 64-bit words.
ADJACENT_FILES = np.array([_to_signed(b) for b in ce.ADJACENT_FILES], np.int64)
FILES = np.array([_to_signed(b) for b in chess.BB_FILES], np.int64)
FRONT_SPAN = np.array([[_to_signed(b) for b in row] for row in ce.FRONT_SPAN], np.int64)
PASSED_SPAN = np.array([[_to_signed(b) for b in row] for row in ce.PASSED_SPAN], np.int64)
KING_ZONE = np.array([_to_signed(b) for b in ce.KING_ZONE], np.int64)
DISTANCE = np.array(
    [[chess.square_distance(a, b) for b in chess.SQUARES] for a in chess.SQUARES], np.int64
)
PASSED_MG = np.array(ce.PASSED_MG, np.int64)
PASSED_EG = np.array(ce.PASSED_EG, np.int64)
MOBILITY = np.zeros((7, 2, 28), np.int64)
"""``ce.MOBILITY_MG`` and ``ce.MOBILITY_EG`` by piece type, phase and count (zeros for pawns,
kings and counts a piece cannot reach)."""
for _piece in range(7):
    for _phase, _table in enumerate((ce.MOBILITY_MG, ce.MOBILITY_EG)):
        MOBILITY[_piece, _phase, : len(_table[_piece])] = _table[_piece]
KING_ATTACK_UNITS = np.array(ce.KING_ATTACK_UNITS, np.int64)
SAFE_CHECK = np.array([ce.SAFE_CHECK_MG, ce.SAFE_CHECK_EG], np.int64)
SAFE_CHECKS_COUNT: Final = bool(SAFE_CHECK.any())
"""Whether any safe check is worth something: numba takes it as a constant, so with every
weight at 0 the checking squares are compiled out and cost nothing."""
BEHIND_BESIDE = np.array([[_to_signed(b) for b in row] for row in ce.BEHIND_BESIDE], np.int64)
NOT_FILE_A: Final = _to_signed(~chess.BB_FILE_A & chess.BB_ALL)
NOT_FILE_H: Final = _to_signed(~chess.BB_FILE_H & chess.BB_ALL)
_SQUARE_63: Final = _to_signed(1 << 63)
_DE_BRUIJN: Final = 0x03F79D71B4CB0A89
_BIT_INDEX = np.zeros(64, np.int64)
for _square in range(64):
    _BIT_INDEX[(((1 << _square) * _DE_BRUIJN) & ((1 << 64) - 1)) >> 58] = _square


# -- small helpers ---------------------------------------------------------------------------


@cached_njit(nogil=True)
def lowest_square(bits: int) -> int:
    """The square of the lowest set bit of a nonzero bitboard."""
    lowest = bits & -bits
    return int(_BIT_INDEX[((lowest * _DE_BRUIJN) >> 58) & 63])


@cached_njit(nogil=True)
def slider_attacks(square: int, first: int, last: int, occupied: int) -> int:
    """The squares a piece on ``square`` attacks along the directions ``first`` to ``last - 1``
    of :data:`RAY` (0-3 straight, 4-7 diagonal), each ray up to its first occupied square.

    Without a branch per square: a ray's first blocker is its lowest occupied square (even
    directions) or its highest (odd ones), found with one bit scan, and the ray beyond it is
    taken away. A sentinel square (63 or 0), from which the ray in that direction is empty,
    stands in for a ray with no blocker. Its slow twin in the tests is the walk along
    :data:`RAY` square by square, which this replaced."""
    attacks = 0
    for d in range(first, last):
        ray = RAY_MASK[square, d]
        sentinel = _SQUARE_63 if d % 2 == 0 else 1
        attacks |= ray ^ RAY_MASK[ray_blocker((ray & occupied) | sentinel, d), d]
    return attacks


@cached_njit(nogil=True)
def ray_blocker(blockers: int, d: int) -> int:
    """The square nearest to the ray's start among ``blockers`` (not 0), the squares of a
    ray in direction ``d``: the lowest for the even directions, the highest for the odd."""
    if d % 2 == 0:
        return int(trailing_zeros(blockers))
    return int(63 - leading_zeros(blockers))


@cached_njit(nogil=True)
def move_code(source: int, target: int, promotion: int) -> int:
    return source | (target << 6) | (promotion << 12)


@cached_njit(nogil=True)
def ep_key(st: Any) -> int:
    """The en passant part of the key: the file of the en passant square when a pawn of the
    side to move stands ready to capture there (Polyglot's rule), else 0."""
    ep = st[EP]
    if ep < 0:
        return 0
    white = st[SIDE]
    pawn = PAWN + 8 * white
    for i in range(PAWN_FROM_COUNT[white, ep]):
        if st[PAWN_FROM[white, ep, i]] == pawn:
            return int(EP_KEYS[ep & 7])
    return 0


@cached_njit(nogil=True)
def attacked(st: Any, square: int, by_white: int) -> bool:
    """Whether the side ``by_white`` (1 White, 0 Black) attacks ``square``."""
    mine = 8 * by_white
    for i in range(PAWN_FROM_COUNT[by_white, square]):
        if st[PAWN_FROM[by_white, square, i]] == PAWN + mine:
            return True
    for i in range(KNIGHT_COUNT[square]):
        if st[KNIGHT_TO[square, i]] == KNIGHT + mine:
            return True
    for i in range(KING_COUNT[square]):
        if st[KING_TO[square, i]] == KING + mine:
            return True
    # The pieces of that side that a rook or a bishop on the square would attack first.
    occupied = st[OCC] | st[OCC + 1]
    theirs = st[OCC + by_white]
    for first, slider in ((0, ROOK), (4, BISHOP)):
        bits = slider_attacks(square, first, first + 4, occupied) & theirs
        while bits != 0:
            code = st[lowest_square(bits)]
            if code == QUEEN + mine or code == slider + mine:
                return True
            bits &= bits - 1
    return False


@cached_njit(nogil=True)
def in_check(st: Any) -> bool:
    """Whether the side to move is in check."""
    white = st[SIDE]
    return attacked(st, st[KINGS + white], 1 - white)


# -- move generation -------------------------------------------------------------------------


@cached_njit(nogil=True)
def _add_pawn_moves(out: Any, n: int, source: int, target: int, kind: int) -> int:
    """Write the pawn move from ``source`` to ``target`` into ``out`` at ``n`` and return the
    new count; on the last rank its promotions: all four for ``kind`` 0 (and for captures,
    which are all tactical), the queen's for 1, the under-promotions for 2 (quiet)."""
    rank = target >> 3
    if rank == 7 or rank == 0:
        for promotion in (QUEEN, KNIGHT, ROOK, BISHOP):
            if kind == 0 or (kind == 1) == (promotion == QUEEN):
                out[n] = move_code(source, target, promotion)
                n += 1
        return n
    out[n] = move_code(source, target, 0)
    return n + 1


@cached_njit(nogil=True)
def pseudo_moves(st: Any, out: Any, kind: int) -> int:
    """Write the pseudo-legal moves of the side to move into ``out``; returns their count.

    ``kind`` 0: every move; 1: the tactical moves (captures, en passant, promotions to a
    queen); 2: the quiet moves (the rest). Castling is generated only when legal."""
    white = st[SIDE]
    mine = 8 * white
    n = 0
    bits = st[OCC + white]
    want_captures = kind != 2
    want_quiet = kind != 1
    occupied = st[OCC] | st[OCC + 1]
    theirs = st[OCC + 1 - white]
    while bits != 0:
        source = lowest_square(bits)
        bits &= bits - 1
        piece = st[source] - mine
        if piece == PAWN:
            forward = 8 if white else -8
            target = source + forward
            if st[target] == 0:
                rank = target >> 3
                promoting = rank == 7 or rank == 0
                if want_quiet or promoting:
                    n = _add_pawn_moves(out, n, source, target, kind)
                start = 1 if white else 6
                if want_quiet and (source >> 3) == start and st[target + forward] == 0:
                    out[n] = move_code(source, target + forward, 0)
                    n += 1
            if want_captures:
                file = source & 7
                for df in (-1, 1):
                    if 0 <= file + df < 8:
                        target = source + forward + df
                        victim = st[target]
                        if victim != 0 and victim // 8 != white:
                            n = _add_pawn_moves(out, n, source, target, 0)
                        elif target == st[EP] and victim == 0:
                            out[n] = move_code(source, target, 0)
                            n += 1
        elif piece in (KNIGHT, KING):
            count = KNIGHT_COUNT[source] if piece == KNIGHT else KING_COUNT[source]
            for i in range(count):
                target = KNIGHT_TO[source, i] if piece == KNIGHT else KING_TO[source, i]
                victim = st[target]
                if (victim == 0 and want_quiet) or (
                    victim != 0 and victim // 8 != white and want_captures
                ):
                    out[n] = move_code(source, target, 0)
                    n += 1
        else:
            first = 4 if piece == BISHOP else 0
            last = 4 if piece == ROOK else 8
            # Each ray nearest square first: its empty squares, then its first piece.
            for d in range(first, last):
                ray = RAY_MASK[source, d]
                blocker = ray_blocker((ray & occupied) | (_SQUARE_63 if d % 2 == 0 else 1), d)
                if want_quiet:
                    empty = ray & ~RAY_MASK[blocker, d] & ~occupied
                    while empty != 0:
                        target = ray_blocker(empty, d)
                        empty ^= BIT[target]
                        out[n] = move_code(source, target, 0)
                        n += 1
                if want_captures and ray & BIT[blocker] & theirs:
                    out[n] = move_code(source, blocker, 0)
                    n += 1
    if want_quiet:
        n = _castling_moves(st, out, n, white)
    return n


@cached_njit(nogil=True)
def _castling_moves(st: Any, out: Any, n: int, white: int) -> int:
    rights = st[CASTLING] >> (0 if white else 2)
    if rights & 3 == 0:
        return n
    king = 4 if white else 60
    rook = ROOK + 8 * white
    if st[king] != KING + 8 * white:
        return n
    # The squares between king and rook empty first: the attacks are the expensive part.
    short = rights & 1 != 0 and st[king + 1] == 0 and st[king + 2] == 0 and st[king + 3] == rook
    long = (
        rights & 2 != 0
        and st[king - 1] == 0
        and st[king - 2] == 0
        and st[king - 3] == 0
        and st[king - 4] == rook
    )
    if not (short or long) or attacked(st, king, 1 - white):
        return n
    if short and not attacked(st, king + 1, 1 - white) and not attacked(st, king + 2, 1 - white):
        out[n] = move_code(king, king + 2, 0)
        n += 1
    if long and not attacked(st, king - 1, 1 - white) and not attacked(st, king - 2, 1 - white):
        out[n] = move_code(king, king - 2, 0)
        n += 1
    return n


@cached_njit(nogil=True)
def legal_after(st: Any, move: int) -> bool:
    """Whether the pseudo-legal ``move`` leaves the mover's king safe."""
    white = st[SIDE]
    make(st, move)
    safe = not attacked(st, st[KINGS + white], 1 - white)
    unmake(st)
    return safe


@cached_njit(nogil=True)
def legal_moves(st: Any, out: Any, kind: int) -> int:
    """The legal moves of ``kind`` (see :func:`pseudo_moves`) in ``out``; returns the count."""
    n = pseudo_moves(st, out, kind)
    kept = 0
    for i in range(n):
        if legal_after(st, out[i]):
            out[kept] = out[i]
            kept += 1
    return kept


@cached_njit(nogil=True)
def has_legal_move(st: Any) -> bool:
    out = np.empty(MAX_MOVES, np.int64)
    n = pseudo_moves(st, out, 0)
    for i in range(n):  # noqa: SIM110  # numba compiles no generator expressions
        if legal_after(st, out[i]):
            return True
    return False


# -- make and unmake -------------------------------------------------------------------------


@cached_njit(nogil=True)
def _lift(st: Any, code: int, square: int, key: int) -> int:
    """Take ``code`` off ``square`` (sums, occupancy and pawns; the key is returned)."""
    st[square] = 0
    st[OCC + code // 8] ^= BIT[square]
    st[MG_SUM] -= MG_TABLE[code, square]
    st[EG_SUM] -= EG_TABLE[code, square]
    if code & 7 == PAWN:
        st[PAWNS + code // 8] ^= BIT[square]
    return int(key ^ PIECE_KEYS[code, square])


@cached_njit(nogil=True)
def _drop(st: Any, code: int, square: int, key: int) -> int:
    """Put ``code`` on the empty ``square`` (sums, occupancy and pawns; the key is
    returned)."""
    st[square] = code
    st[OCC + code // 8] ^= BIT[square]
    st[MG_SUM] += MG_TABLE[code, square]
    st[EG_SUM] += EG_TABLE[code, square]
    if code & 7 == PAWN:
        st[PAWNS + code // 8] ^= BIT[square]
    return int(key ^ PIECE_KEYS[code, square])


@cached_njit(nogil=True)
def _push_undo(st: Any, move: int, captured: int) -> None:
    u = UNDO + UNDO_FIELDS * st[TOP]
    st[TOP] += 1
    st[u + _U_MOVE] = move
    st[u + _U_CAPTURED] = captured
    st[u + _U_CASTLING] = st[CASTLING]
    st[u + _U_EP] = st[EP]
    st[u + _U_HALFMOVE] = st[HALFMOVE]
    st[u + _U_KEY] = st[KEY]
    st[u + _U_MG] = st[MG_SUM]
    st[u + _U_EG] = st[EG_SUM]
    st[u + _U_PHASE] = st[PHASE]
    st[u + _U_START] = st[START]
    st[u + _U_PAWNS] = st[PAWNS]
    st[u + _U_PAWNS + 1] = st[PAWNS + 1]


@cached_njit(nogil=True)
def make(st: Any, move: int) -> None:
    """Play the pseudo-legal ``move`` (or :data:`NULL_MOVE`, a pass)."""
    white = st[SIDE]
    key = st[KEY] ^ ep_key(st)
    if move == NULL_MOVE:
        _push_undo(st, move, 0)
        st[EP] = -1
        st[HALFMOVE] += 1
        st[START] = st[NKEYS]
    else:
        source, target, promotion = move & 63, (move >> 6) & 63, (move >> 12) & 7
        code = st[source]
        piece = code & 7
        captured = st[target]
        if piece == PAWN and target == st[EP] and captured == 0 and (target - source) & 7:
            captured = _EN_PASSANT
        _push_undo(st, move, captured)
        key = _lift(st, code, source, key)
        if captured == _EN_PASSANT:
            key = _lift(st, PAWN + 8 - 8 * white, target - 8 if white else target + 8, key)
        elif captured != 0:
            key = _lift(st, captured, target, key)
            st[PHASE] -= PHASE_TABLE[captured & 7]
        if promotion:
            key = _drop(st, promotion + 8 * white, target, key)
            st[PHASE] += PHASE_TABLE[promotion]
        else:
            key = _drop(st, code, target, key)
        if piece == KING:
            st[KINGS + white] = target
            if target - source == 2:
                key = _lift(st, ROOK + 8 * white, source + 3, key)
                key = _drop(st, ROOK + 8 * white, source + 1, key)
            elif source - target == 2:
                key = _lift(st, ROOK + 8 * white, source - 4, key)
                key = _drop(st, ROOK + 8 * white, source - 1, key)
        rights = st[CASTLING]
        kept = rights & CASTLING_KEEP[source] & CASTLING_KEEP[target]
        if kept != rights:
            for i in range(4):
                if (rights ^ kept) & (1 << i):
                    key ^= CASTLING_KEYS[i]
            st[CASTLING] = kept
        st[EP] = (source + target) // 2 if piece == PAWN and abs(target - source) == 16 else -1
        if piece == PAWN or captured != 0:
            st[HALFMOVE] = 0
            st[START] = st[NKEYS]
        else:
            st[HALFMOVE] += 1
    if white == 0:
        st[FULLMOVE] += 1
    st[SIDE] = 1 - white
    key ^= WHITE_KEY
    key ^= ep_key(st)
    st[KEY] = key
    st[HISTORY + st[NKEYS]] = key
    st[NKEYS] += 1


@cached_njit(nogil=True)
def unmake(st: Any) -> None:
    """Take back the last move :func:`make` played."""
    st[TOP] -= 1
    u = UNDO + UNDO_FIELDS * st[TOP]
    move = st[u + _U_MOVE]
    white = 1 - st[SIDE]
    st[SIDE] = white
    if white == 0:
        st[FULLMOVE] -= 1
    st[NKEYS] -= 1
    if move != NULL_MOVE:
        source, target, promotion = move & 63, (move >> 6) & 63, (move >> 12) & 7
        code = PAWN + 8 * white if promotion else st[target]
        st[target] = 0
        st[OCC + white] ^= BIT[target] | BIT[source]
        st[source] = code
        captured = st[u + _U_CAPTURED]
        if captured == _EN_PASSANT:
            square = target - 8 if white else target + 8
            st[square] = PAWN + 8 - 8 * white
            st[OCC + 1 - white] ^= BIT[square]
        elif captured != 0:
            st[target] = captured
            st[OCC + 1 - white] ^= BIT[target]
        if code & 7 == KING:
            st[KINGS + white] = source
            if target - source == 2:
                rook_from, rook_to = source + 3, source + 1
            elif source - target == 2:
                rook_from, rook_to = source - 4, source - 1
            else:
                rook_from = rook_to = -1
            if rook_from >= 0:
                st[rook_to] = 0
                st[rook_from] = ROOK + 8 * white
                st[OCC + white] ^= BIT[rook_to] | BIT[rook_from]
    st[CASTLING] = st[u + _U_CASTLING]
    st[EP] = st[u + _U_EP]
    st[HALFMOVE] = st[u + _U_HALFMOVE]
    st[KEY] = st[u + _U_KEY]
    st[MG_SUM] = st[u + _U_MG]
    st[EG_SUM] = st[u + _U_EG]
    st[PHASE] = st[u + _U_PHASE]
    st[START] = st[u + _U_START]
    st[PAWNS] = st[u + _U_PAWNS]
    st[PAWNS + 1] = st[u + _U_PAWNS + 1]


# -- evaluation, key and draws, from scratch and incrementally -------------------------------


@cached_njit(nogil=True)
def evaluate(st: Any) -> int:
    """The tapered evaluation from the side to move, tempo included (:meth:`Chess.evaluate`):
    the incremental sums plus the positional terms."""
    extra_mg, extra_eg = positional_terms(st)
    phase = min(st[PHASE], FULL_PHASE)
    mg = st[MG_SUM] + extra_mg
    eg = st[EG_SUM] + extra_eg
    value = mg * phase + eg * (FULL_PHASE - phase)
    return int((value if st[SIDE] else -value) // FULL_PHASE) + ce.TEMPO


@cached_njit(nogil=True)
def positional_terms(st: Any) -> tuple[int, int]:
    """The (middlegame, endgame) positional terms from White's side
    (:func:`zerosum.games.chess_evaluation.positional_terms`), from the mailbox and the
    pawn bitboards in one pass over each side's pieces."""
    black_pawns, white_pawns = st[PAWNS], st[PAWNS + 1]
    black_pawn_attacks = ((black_pawns & NOT_FILE_A) >> 9) | ((black_pawns & NOT_FILE_H) >> 7)
    white_pawn_attacks = ((white_pawns & NOT_FILE_A) << 7) | ((white_pawns & NOT_FILE_H) << 9)
    occupied = st[OCC] | st[OCC + 1]
    total_mg = total_eg = 0
    # By side (0 Black, 1 White): the squares its knights and bishops attack, its rooks and
    # queens, the squares its rooks attack and its queens (threats by minor pieces and by
    # rooks, counted once both sides are known).
    minor_black = minor_white = majors_black = majors_white = 0
    rooks_black = rooks_white = queens_black = queens_white = 0
    for white in range(2):
        own = st[OCC + white]
        own_pawns = st[PAWNS + white]
        enemy_pawns = st[PAWNS + 1 - white]
        own_pawn_attacks = white_pawn_attacks if white else black_pawn_attacks
        enemy_pawn_attacks = black_pawn_attacks if white else white_pawn_attacks
        safe = ~own & ~enemy_pawn_attacks
        own_king, enemy_king = st[KINGS + white], st[KINGS + 1 - white]
        zone = KING_ZONE[enemy_king]
        # The squares from which a knight, or a piece moving straight or diagonally, would
        # attack the enemy king.
        knight_checks = straight_checks = diagonal_checks = 0
        if SAFE_CHECKS_COUNT:
            knight_checks = KNIGHT_ATTACKS[enemy_king]
            straight_checks = slider_attacks(enemy_king, 0, 4, occupied)
            diagonal_checks = slider_attacks(enemy_king, 4, 8, occupied)
        mg = eg = units = attackers = bishops = minor = majors = rook_attacks = queens = 0
        bits = own
        while bits != 0:
            square = lowest_square(bits)
            bits &= bits - 1
            piece = st[square] & 7
            if piece == PAWN:
                # Pawn structure.
                if own_pawn_attacks & BIT[square]:
                    mg += ce.PAWN_SUPPORTED[0]
                    eg += ce.PAWN_SUPPORTED[1]
                if FRONT_SPAN[white, square] & own_pawns:
                    mg -= ce.DOUBLED[0]
                    eg -= ce.DOUBLED[1]
                stop = square + 8 if white else square - 8
                if ADJACENT_FILES[square & 7] & own_pawns == 0:
                    mg -= ce.ISOLATED[0]
                    eg -= ce.ISOLATED[1]
                elif BEHIND_BESIDE[white, square] & own_pawns == 0 and (
                    enemy_pawn_attacks & BIT[stop]
                ):
                    mg -= ce.BACKWARD[0]
                    eg -= ce.BACKWARD[1]
                if (
                    PASSED_SPAN[white, square] & enemy_pawns == 0
                    and FRONT_SPAN[white, square] & own_pawns == 0
                ):
                    relative = (square >> 3) if white else 7 - (square >> 3)
                    bonus_mg, bonus_eg = PASSED_MG[relative], PASSED_EG[relative]
                    if occupied & BIT[stop]:
                        bonus_mg //= 2
                        bonus_eg //= 2
                    mg += bonus_mg
                    eg += bonus_eg
                    if relative >= 3:
                        eg += (relative - 2) * (
                            ce.PASSED_ENEMY_KING * DISTANCE[enemy_king, stop]
                            - ce.PASSED_OWN_KING * DISTANCE[own_king, stop]
                        )
            elif piece == KING:
                # The pawn shield of a king on its first two ranks.
                file, rank = square & 7, square >> 3
                if (rank if white else 7 - rank) <= 1:
                    step = 8 if white else -8
                    for f in range(max(file - 1, 0), min(file + 1, 7) + 1):
                        if own_pawns & BIT[square - file + f + step]:
                            mg += ce.SHIELD_NEAR
                        elif own_pawns & BIT[square - file + f + 2 * step]:
                            mg += ce.SHIELD_FAR
                        elif own_pawns & FILES[f] == 0:
                            mg -= ce.SHIELD_MISSING
            else:
                # Threats by pawns, mobility and the attack on the enemy king's zone, counted
                # on the squares the piece attacks.
                if enemy_pawn_attacks & BIT[square]:
                    mg -= ce.THREAT_BY_PAWN[0]
                    eg -= ce.THREAT_BY_PAWN[1]
                if piece == KNIGHT:
                    attacks = KNIGHT_ATTACKS[square]
                    checking = knight_checks
                    minor |= attacks
                elif piece == BISHOP:
                    attacks = slider_attacks(square, 4, 8, occupied)
                    checking = diagonal_checks
                    minor |= attacks
                    bishops += 1
                elif piece == ROOK:
                    attacks = slider_attacks(square, 0, 4, occupied)
                    checking = straight_checks
                    rook_attacks |= attacks
                else:
                    attacks = slider_attacks(square, 0, 8, occupied)
                    checking = straight_checks | diagonal_checks
                count = popcount(attacks & safe)
                hits = popcount(attacks & zone)
                checks = popcount(attacks & safe & checking) if SAFE_CHECKS_COUNT else 0
                mg += MOBILITY[piece, 0, count] + SAFE_CHECK[0, piece] * checks
                eg += MOBILITY[piece, 1, count] + SAFE_CHECK[1, piece] * checks
                if hits:
                    attackers += 1
                    units += hits * KING_ATTACK_UNITS[piece]
                if piece >= ROOK:
                    majors |= BIT[square]
                if piece == QUEEN:
                    queens |= BIT[square]
                if piece == ROOK:
                    if FILES[square & 7] & (own_pawns | enemy_pawns) == 0:
                        mg += ce.ROOK_OPEN[0]
                        eg += ce.ROOK_OPEN[1]
                    elif FILES[square & 7] & own_pawns == 0:
                        mg += ce.ROOK_HALF_OPEN[0]
                        eg += ce.ROOK_HALF_OPEN[1]
        if attackers >= 2:
            mg += min(units * units // 4, ce.KING_ATTACK_CAP)
        if bishops >= 2:
            mg += ce.BISHOP_PAIR[0]
            eg += ce.BISHOP_PAIR[1]
        if white:
            total_mg += mg
            total_eg += eg
            minor_white, majors_white = minor, majors
            rooks_white, queens_white = rook_attacks, queens
        else:
            total_mg -= mg
            total_eg -= eg
            minor_black, majors_black = minor, majors
            rooks_black, queens_black = rook_attacks, queens
    # Rooks and queens that enemy minor pieces attack, queens that enemy rooks attack: White's
    # count less Black's.
    threatened = popcount(majors_white & minor_black) - popcount(majors_black & minor_white)
    total_mg -= ce.THREAT_BY_MINOR[0] * threatened
    total_eg -= ce.THREAT_BY_MINOR[1] * threatened
    threatened = popcount(queens_white & rooks_black) - popcount(queens_black & rooks_white)
    total_mg -= ce.THREAT_BY_ROOK[0] * threatened
    total_eg -= ce.THREAT_BY_ROOK[1] * threatened
    return total_mg, total_eg


@cached_njit(nogil=True)
def compute_sums(st: Any) -> tuple[int, int, int]:
    """The middlegame sum, endgame sum and phase added up from the board."""
    mg = eg = phase = 0
    for square in range(64):
        code = st[square]
        if code != 0:
            mg += MG_TABLE[code, square]
            eg += EG_TABLE[code, square]
            phase += PHASE_TABLE[code & 7]
    return mg, eg, phase


@cached_njit(nogil=True)
def compute_key(st: Any) -> int:
    """The Polyglot key added up from the board, rights, en passant file and side."""
    key = 0
    for square in range(64):
        if st[square] != 0:
            key ^= PIECE_KEYS[st[square], square]
    for i in range(4):
        if st[CASTLING] & (1 << i):
            key ^= CASTLING_KEYS[i]
    key ^= ep_key(st)
    if st[SIDE]:
        key ^= WHITE_KEY
    return key


@cached_njit(nogil=True)
def insufficient_material(st: Any) -> bool:
    """python-chess's ``is_insufficient_material``, for positions of at most four pieces (the
    only ones :meth:`Chess.drawn` asks about); False with more. Called at every node, so it
    counts in scalars (no array to allocate)."""
    both = st[OCC] | st[OCC + 1]
    bits, pieces = both, 0
    while bits != 0:
        bits &= bits - 1
        pieces += 1
        if pieces > 4:
            return False
    knights_black = knights_white = bishops_black = bishops_white = 0
    total_black = total_white = light = dark = 0
    while both != 0:
        square = lowest_square(both)
        both &= both - 1
        code = st[square]
        piece, white = code & 7, code // 8
        if piece in (PAWN, ROOK, QUEEN):
            return False  # that side can mate
        if white:
            total_white += 1
        else:
            total_black += 1
        if piece == KNIGHT:
            if white:
                knights_white += 1
            else:
                knights_black += 1
        elif piece == BISHOP:
            if white:
                bishops_white += 1
            else:
                bishops_black += 1
            if ((square & 7) + (square >> 3)) % 2 == 0:
                dark += 1
            else:
                light += 1
    # A side with knights: one knight alone, against neither knight nor bishop (selfmate).
    if knights_white and (total_white > 2 or knights_black + bishops_black > 0):
        return False
    if knights_black and (total_black > 2 or knights_white + bishops_white > 0):
        return False
    # Bishops (without knights): all on one colour, and no knight anywhere.
    bishops = bishops_white + bishops_black
    return bishops == 0 or ((light == 0 or dark == 0) and knights_white + knights_black == 0)


@cached_njit(nogil=True)
def repetitions(st: Any) -> int:
    """How many times the position occurred since the last irreversible move, this time
    included (:meth:`Chess.repetitions`)."""
    key = st[KEY]
    count = 1
    for index in range(st[NKEYS] - 3, st[START] - 1, -2):
        if st[HISTORY + index] == key:
            count += 1
    return count


@cached_njit(nogil=True)
def draw_by_rule(st: Any, times: int) -> bool:
    """The fifty-move rule, too little material, or the position seen ``times`` times."""
    if st[HALFMOVE] >= 100:
        return True
    if insufficient_material(st):
        return True
    if st[NKEYS] - st[START] <= 4:
        return False
    return repetitions(st) >= times


@cached_njit(nogil=True)
def drawn(st: Any) -> bool:
    """A draw whatever follows, for the search: a repetition counts (:meth:`Chess.drawn`)."""
    return draw_by_rule(st, 2)


# -- perft -----------------------------------------------------------------------------------


@cached_njit(nogil=True)
def perft(st: Any, depth: int) -> int:
    """The number of legal move sequences of ``depth`` plies (the last ply counted in bulk).
    Raises ``ValueError`` when the state has no room for ``depth`` more moves."""
    if depth <= 0:
        return 1
    if depth > MAX_STACK - st[TOP] or st[NKEYS] + depth > HISTORY_SIZE:
        raise ValueError("perft depth is out of range: more moves than the state can take back")
    buf = np.empty((depth, MAX_MOVES), np.int64)
    return _perft(st, depth, buf)


@cached_njit(nogil=True)
def _perft(st: Any, depth: int, buf: Any) -> int:
    out = buf[depth - 1]
    n = legal_moves(st, out, 0)
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        make(st, out[i])
        total += _perft(st, depth - 1, buf)
        unmake(st)
    return total


# -- from and to python-chess ----------------------------------------------------------------


def new_state() -> np.ndarray[Any, Any]:
    return np.zeros(STATE_SIZE, np.int64)


def state_of(board: chess.Board, history: list[int] | None = None) -> np.ndarray[Any, Any]:
    """The state of a python-chess board. ``history``: the keys (as Python ints, the current
    position's last) since the last irreversible move, for repetitions; default: none known."""
    st = new_state()
    for square, piece in board.piece_map().items():
        code = piece.piece_type + 8 * piece.color
        st[square] = code
        st[OCC + int(piece.color)] |= BIT[square]
        if piece.piece_type == chess.PAWN:
            st[PAWNS + int(piece.color)] |= BIT[square]
    st[SIDE] = 1 if board.turn else 0
    rights = 0
    for bit, rook in enumerate((chess.H1, chess.A1, chess.H8, chess.A8)):
        if board.castling_rights & chess.BB_SQUARES[rook]:
            rights |= 1 << bit
    st[CASTLING] = rights
    st[EP] = -1 if board.ep_square is None else board.ep_square
    st[HALFMOVE] = board.halfmove_clock
    st[FULLMOVE] = board.fullmove_number
    st[KINGS + 1] = board.king(chess.WHITE)
    st[KINGS + 0] = board.king(chess.BLACK)
    st[MG_SUM], st[EG_SUM], st[PHASE] = compute_sums(st)
    st[KEY] = compute_key(st)
    keys = [_to_signed(k) for k in (history or [])][-(HISTORY_SIZE // 4) :]
    if not keys or keys[-1] != st[KEY]:
        keys.append(int(st[KEY]))
    st[HISTORY : HISTORY + len(keys)] = keys
    st[NKEYS] = len(keys)
    return st


def unsigned_key(st: np.ndarray[Any, Any]) -> int:
    """The key of ``st`` as python-chess writes it (an unsigned 64-bit int)."""
    return int(st[KEY]) & ((1 << 64) - 1)


def to_move(code: int) -> chess.Move:
    """The python-chess move of a move code."""
    promotion = (code >> 12) & 7
    return chess.Move(code & 63, (code >> 6) & 63, promotion or None)


def from_move(move: chess.Move) -> int:
    """The move code of a python-chess move."""
    return move.from_square | (move.to_square << 6) | ((move.promotion or 0) << 12)


def moves_of(st: np.ndarray[Any, Any], kind: int = 0) -> list[chess.Move]:
    """The legal moves of ``kind`` (0 all, 1 tactical, 2 quiet) as python-chess moves."""
    out = np.empty(MAX_MOVES, np.int64)
    n = legal_moves(st, out, kind)
    return [to_move(int(code)) for code in out[:n]]


def state_of_game(game: Chess) -> np.ndarray[Any, Any]:
    """The state of a :class:`~zerosum.games.chess.Chess` position, with the keys a
    repetition may look back to."""
    return state_of(game.board, game.recent_keys())
