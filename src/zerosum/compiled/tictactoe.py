"""Tic-tac-toe for the compiled engine.

The state is ``[x, o, stones]``: the bitboards of :mod:`zerosum.games.tictactoe` (a1=0 ... c3=8)
and the stone count; ``x | o << 9`` is a unique key. Moves are cell indices. A win with the
``n``-th stone of the game has rank ``10 - n``, so sooner wins rank higher.
"""

from __future__ import annotations

from typing import Any, Final

from zerosum.compiled.engine import NO_SCORE, Kernel, popcount, score_of_rank
from zerosum.compiled.kernels import CompiledGame
from zerosum.game import WIN, Game, Score
from zerosum.games.tictactoe import LINE_WEIGHT, LINES, MOVE_ORDER
from zerosum.jit import cached_njit

X_STONES: Final = 0
O_STONES: Final = 1
STONES: Final = 2
_LINES: Final = LINES
_ORDER: Final = MOVE_ORDER
_WEIGHT: Final = LINE_WEIGHT


@cached_njit(nogil=True)
def has_line(stones: int) -> bool:
    for line in _LINES:  # noqa: SIM110  # numba compiles no generator expressions here
        if stones & line == line:
            return True
    return False


@cached_njit(nogil=True)
def decided(st: Any) -> int:
    stones = st[STONES]
    if stones > 0 and has_line(st[(stones - 1) & 1]):
        return score_of_rank(-(10 - stones))
    if stones == 9:
        return 0
    return NO_SCORE


@cached_njit(nogil=True)
def bounds(st: Any) -> tuple[int, int]:
    """No win sooner than with the next stone, no loss sooner than with the one after."""
    stones = st[STONES]
    return score_of_rank(-(10 - stones - 2)), score_of_rank(10 - stones - 1)


@cached_njit(nogil=True)
def rank_range(st: Any) -> tuple[int, int]:
    stones = st[STONES]
    return -(10 - stones - 2), 10 - stones - 1


@cached_njit(nogil=True)
def evaluate(st: Any) -> int:
    """The line values of :func:`zerosum.games.tictactoe.board_value`, from the side to move."""
    x, o = st[X_STONES], st[O_STONES]
    value = 0
    for line in _LINES:
        own, other = popcount(x & line), popcount(o & line)
        if own == 0:
            value -= _WEIGHT[other]
        elif other == 0:
            value += _WEIGHT[own]
    return value if st[STONES] & 1 == 0 else -value


@cached_njit(nogil=True)
def key(st: Any) -> int:
    return int(st[X_STONES] | (st[O_STONES] << 9))


@cached_njit(nogil=True)
def moves(st: Any, out: Any) -> int:
    taken = st[X_STONES] | st[O_STONES]
    count = 0
    for cell in _ORDER:
        if not (taken >> cell) & 1:
            out[count] = cell
            count += 1
    return count


@cached_njit(nogil=True)
def no_moves(st: Any) -> int:
    return 0


@cached_njit(nogil=True)
def play(st: Any, cell: int) -> None:
    st[st[STONES] & 1] |= 1 << cell
    st[STONES] += 1


@cached_njit(nogil=True)
def undo(st: Any, cell: int) -> None:
    st[STONES] -= 1
    st[st[STONES] & 1] &= ~(1 << cell)


KERNEL: Final = Kernel(
    name="tictactoe",
    state_size=3,
    max_moves=9,
    max_ply=10,
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
    legal=moves,  # every empty cell in MOVE_ORDER, as the game lists them
    over=decided,  # a line or a full board: nothing else
)


def state_of(game: Game[Any]) -> list[int]:
    """The kernel's state of a tic-tac-toe position: X's cells, O's cells, the ply."""
    x = o = 0
    for index, symbol in enumerate(game.position().replace("/", "")):
        cell = 3 * (2 - index // 3) + index % 3
        if symbol == "x":
            x |= 1 << cell
        elif symbol == "o":
            o |= 1 << cell
    return [x, o, game.ply()]


def value_of(rank: int, ply: int) -> Score:
    """A rank at a root with ``ply`` as a search value."""
    if rank == 0:
        return 0
    return (WIN - (10 - abs(rank) - ply)) * (1 if rank > 0 else -1)


def canonical_key(game: Game[Any]) -> int:
    x, o, _ = state_of(game)
    return x | o << 9


GAME: Final = CompiledGame(KERNEL, state_of, value_of, canonical_key)
"""Tic-tac-toe on this kernel."""
