"""Othello of every size for zerosum's compiled engine (a :class:`zerosum.compiled.engine.Kernel`).

The specs name these mappings (``kernel="zerosum_othello.compiled:GAME_6"``), so numba is only
imported by whoever runs the compiled engine.

State (an ``int64`` array): the discs of the side to move and of its opponent (the kernel swaps
them after every move, so one code path serves both colours), the ply, then the board's
geometry (the sizes share one set of compiled functions: the masks live in the state), then per
ply the discs the move made at that ply turned over, for ``undo``. 8x8 needs all 64 bits of a
word: the state holds them as signed ``int64`` words (:func:`signed`), and the shifts towards
the low bits are logical (:func:`_shr`), as numba's signed shifts would smear the sign bit.

Move codes are cells (``rank * size + file``, as in :mod:`zerosum_othello.othello`) and
:data:`PASS_CODE` for a pass. Scores: a game over at ply ``n`` (counted as the game's ``ply()``,
passes included) has rank ``MAX_PLIES[size] + 1 - n`` for the winner, so sooner wins rank
higher, as the search values ``WIN - plies`` do; the table key therefore includes the ply.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

from numba import njit

from zerosum.compiled.engine import NO_SCORE, Kernel, popcount, score_of_rank
from zerosum.compiled.kernels import CompiledGame
from zerosum.game import WIN, Game, Score
from zerosum_othello.othello import (
    CORNER_WEIGHT,
    DISC_WEIGHT,
    MOBILITY_WEIGHT,
    PASS,
    Othello,
    geometry,
)

# Fields of the state array.
MINE: Final = 0
THEIRS: Final = 1
PLY: Final = 2
SIZE: Final = 3
FULL: Final = 4
NOT_FIRST: Final = 5
"""Every cell but the first file: where a shift one file to the right may land."""
NOT_LAST: Final = 6
"""Every cell but the last file: where a shift one file to the left may land."""
CORNERS: Final = 7
ORDER: Final = 8
"""Four masks from here: the cells of each move-ordering class (``Geometry.order``)."""
TOP: Final = 12
"""The rank of a game over at ply 0: ``max plies + 1``."""
FLIPPED: Final = 13
"""From here, per ply, the discs turned over by the move made at that ply."""

PASS_CODE: Final = PASS
"""The move code of a pass: the game's own pass move (no cell of an 8x8 board or smaller)."""
SIZES: Final = (4, 6, 8)


def max_plies(size: int) -> int:
    """The most plies a game lasts: every placement fills a cell, and a pass is always followed
    by a placement or the end."""
    return 2 * (size * size - 4)


def signed(word: int) -> int:
    """A 64-bit board as the ``int64`` with the same bits (8x8 uses the sign bit)."""
    return word - (1 << 64) if word >> 63 else word


@njit(cache=True, nogil=True)
def _shr(bits: int, count: int) -> int:
    """``bits`` shifted ``count`` (1..63) places towards the low bits, zeros coming in."""
    return (bits >> count) & ((1 << (64 - count)) - 1)


@njit(cache=True, nogil=True)
def _step(bits: int, direction: int, st: Any) -> int:
    """``bits`` moved one cell in ``direction`` (0..7), dropping what leaves the board."""
    n: int = st[SIZE]
    not_first: int = st[NOT_FIRST]
    not_last: int = st[NOT_LAST]
    if direction == 0:
        return (bits << 1) & not_first
    if direction == 1:
        return _shr(bits, 1) & not_last
    if direction == 2:
        full: int = st[FULL]
        return (bits << n) & full
    if direction == 3:
        return _shr(bits, n)
    if direction == 4:
        return (bits << (n + 1)) & not_first
    if direction == 5:
        return _shr(bits, n + 1) & not_last
    if direction == 6:
        return (bits << (n - 1)) & not_last
    return _shr(bits, n - 1) & not_first


@njit(cache=True, nogil=True)
def placements(st: Any, own: int, opp: int) -> int:
    """The cells where the owner of ``own`` may place (as :func:`othello.placements`)."""
    empty = st[FULL] & ~(own | opp)
    found = 0
    for direction in range(8):
        run = _step(own, direction, st) & opp
        for _ in range(st[SIZE] - 3):
            run |= _step(run, direction, st) & opp
        found |= _step(run, direction, st) & empty
    return found


@njit(cache=True, nogil=True)
def flips(st: Any, own: int, opp: int, cell: int) -> int:
    """The discs that a disc of ``own``'s owner on ``cell`` turns over."""
    turned = 0
    for direction in range(8):
        line = 0
        probe = _step(1 << cell, direction, st)
        while probe & opp:
            line |= probe
            probe = _step(probe, direction, st)
        if probe & own:
            turned |= line
    return turned


@njit(cache=True, nogil=True)
def _final(st: Any) -> int:
    """The score of a finished game, by disc count, from the side to move."""
    difference = popcount(st[MINE]) - popcount(st[THEIRS])
    rank = st[TOP] - st[PLY]
    if difference > 0:
        return score_of_rank(rank)
    if difference < 0:
        return score_of_rank(-rank)
    return 0


@njit(cache=True, nogil=True)
def decided(st: Any) -> int:
    """The score if neither side can place (the game is over), else ``NO_SCORE``."""
    mine, theirs = st[MINE], st[THEIRS]
    if placements(st, mine, theirs) or placements(st, theirs, mine):
        return NO_SCORE
    return _final(st)


@njit(cache=True, nogil=True)
def bounds(st: Any) -> tuple[int, int]:
    """A game that goes on ends at the next ply at the soonest."""
    rank = st[TOP] - st[PLY] - 1
    return score_of_rank(-rank), score_of_rank(rank)


@njit(cache=True, nogil=True)
def rank_range(st: Any) -> tuple[int, int]:
    rank = st[TOP] - st[PLY] - 1
    return -rank, rank


@njit(cache=True, nogil=True)
def evaluate(st: Any) -> int:
    """:meth:`Othello.evaluate` on the state: discs, corners and mobility."""
    mine, theirs, corners = st[MINE], st[THEIRS], st[CORNERS]
    mobility = popcount(placements(st, mine, theirs)) - popcount(placements(st, theirs, mine))
    return (
        DISC_WEIGHT * (popcount(mine) - popcount(theirs))
        + CORNER_WEIGHT * (popcount(mine & corners) - popcount(theirs & corners))
        + MOBILITY_WEIGHT * mobility
    )


@njit(cache=True, nogil=True)
def _mix(x: int) -> int:
    """splitmix64's finaliser on a signed word (logical shifts by masking)."""
    x = (x ^ ((x >> 30) & 0x3FFFFFFFF)) * -4658895280553007687
    x = (x ^ ((x >> 27) & 0x1FFFFFFFFF)) * -7723592293110705685
    return x ^ ((x >> 31) & 0x1FFFFFFFF)


@njit(cache=True, nogil=True)
def key(st: Any) -> int:
    """A 64-bit hash of the discs of both sides and the ply (ranks depend on the ply)."""
    return _mix(st[MINE] ^ _mix(st[THEIRS] ^ _mix(st[PLY] + 1)))


@njit(cache=True, nogil=True)
def moves(st: Any, out: Any) -> int:
    """The placements in :class:`Othello`'s order (corners first), else a pass if the opponent
    can place, else none."""
    mine, theirs = st[MINE], st[THEIRS]
    found = placements(st, mine, theirs)
    if found == 0:
        if placements(st, theirs, mine) == 0:
            return 0
        out[0] = PASS_CODE
        return 1
    count = 0
    cells = st[SIZE] * st[SIZE]
    for order in range(4):
        chosen = found & st[ORDER + order]
        for cell in range(cells):
            if (chosen >> cell) & 1:
                out[count] = cell
                count += 1
    return count


@njit(cache=True, nogil=True)
def no_moves(st: Any) -> int:
    return _final(st)


@njit(cache=True, nogil=True)
def play(st: Any, move: int) -> None:
    mine, theirs, ply = st[MINE], st[THEIRS], st[PLY]
    turned = 0
    if move != PASS_CODE:
        turned = flips(st, mine, theirs, move)
        mine |= turned | (1 << move)
        theirs ^= turned
    st[FLIPPED + ply] = turned
    st[MINE], st[THEIRS], st[PLY] = theirs, mine, ply + 1


@njit(cache=True, nogil=True)
def undo(st: Any, move: int) -> None:
    ply = st[PLY] - 1
    mine, theirs = st[THEIRS], st[MINE]
    if move != PASS_CODE:
        turned = st[FLIPPED + ply]
        mine &= ~(turned | (1 << move))
        theirs |= turned
    st[MINE], st[THEIRS], st[PLY] = mine, theirs, ply


def _kernel(size: int) -> Kernel:
    return Kernel(
        name=f"othello_{size}",
        state_size=FLIPPED + max_plies(size) + 1,
        max_moves=size * size - 4,
        max_ply=max_plies(size) + 1,
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
        legal=moves,  # the game's order, with a pass where the game has PASS
        over=decided,  # neither side can place: nothing else ends the game
    )


def state_of(game: Game[Any]) -> list[int]:
    """The kernel's state of an :class:`Othello` position (any size), as ``int64`` values."""
    if not isinstance(game, Othello) or game.size not in SIZES:
        raise TypeError(f"{game!r} is not an Othello position of a size in {SIZES}")
    geo = geometry(game.size)
    size = geo.size
    first_file = sum(1 << rank * size for rank in range(size))
    last_file = first_file << size - 1
    black, white = game.discs()
    mine, theirs = (black, white) if game.side_to_move() == 0 else (white, black)
    classes = [0, 0, 0, 0]
    for cell, order in enumerate(geo.order):
        classes[order] |= 1 << cell
    head = [mine, theirs, game.ply(), size, geo.full, geo.full & ~first_file]
    head += [geo.full & ~last_file, geo.corners, *classes, max_plies(size) + 1]
    return [signed(word) for word in head] + [0] * (max_plies(size) + 1)


def value_of(size: int, rank: int, ply: int) -> Score:
    """A rank at a root with ``ply`` as a search value (``WIN - plies to the end``)."""
    if rank == 0:
        return 0
    end = max_plies(size) + 1 - abs(rank)
    return (WIN - (end - ply)) * (1 if rank > 0 else -1)


def canonical_key(game: Game[Any]) -> int:
    """A 63-bit key of the position and ply, shared by its colour-swapped twin (the side to
    move's discs and the opponent's, as the kernel sees them)."""
    mine, theirs, ply = state_of(game)[:3]
    digest = hashlib.blake2b(f"{mine} {theirs} {ply}".encode(), digest_size=8).digest()
    return int.from_bytes(digest) >> 1


def _game(size: int) -> CompiledGame:
    return CompiledGame(
        kernel=_kernel(size),
        state=state_of,
        value=lambda rank, ply: value_of(size, rank, ply),
        canonical_key=canonical_key,
    )


GAME_4: Final = _game(4)
"""Othello 4x4 on the kernel."""
GAME_6: Final = _game(6)
"""Othello 6x6 on the kernel."""
GAME_8: Final = _game(8)
"""Othello 8x8 on the kernel."""
