"""Connect four for the compiled engine, and an exact solver in Pons's score convention.

The state is ``[current, mask, stones, scratch]``: Pascal Pons's bitboard, seven bits per column
(six cells and a spare bit that keeps columns apart), ``current`` holding the side to move's
stones and ``mask`` all stones; ``current + mask`` is a unique key. Moves are column indices 0..6.

What the kernel adds to the generic search is what makes connect four solvers fast: a win on
the next move is seen at once; the moves are only those that do not hand the opponent an
immediate win (none left means a loss in two plies, and an opponent threat that must be blocked
leaves only that move); a position can then score at most a win in three plies and at least a
loss in four, which narrows the window; moves are ordered by how many threats they create,
centre first among equals. ``quick`` leaves the non-losing moves in ``scratch`` for ``moves``.

Ranks are Pons's scores: a win with the side's ``k``-th stone is ``22 - k``; 0 is a draw.
"""

from __future__ import annotations

from typing import Any, Final

from zerosum.compiled.engine import NO_SCORE, Kernel, popcount, score_of_rank
from zerosum.compiled.kernels import CompiledGame
from zerosum.game import Game
from zerosum.games.connect4 import Connect4, value_from_pons
from zerosum.jit import cached_njit

WIDTH: Final = 7
HEIGHT: Final = 6
CELLS: Final = WIDTH * HEIGHT
BOTTOM: Final = sum(1 << (col * (HEIGHT + 1)) for col in range(WIDTH))
BOARD: Final = BOTTOM * ((1 << HEIGHT) - 1)
ORDER: Final = (3, 2, 4, 1, 5, 0, 6)
"""Columns from the centre outwards: more lines run through the centre."""


def _lines_through_cells() -> dict[int, int]:
    """Each cell's bit and how many lines of four run through it (3 in a corner, 13 at the
    heart of the board)."""
    counts = {}
    for col in range(WIDTH):
        for row in range(HEIGHT):
            count = 0
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                for back in range(4):
                    c0, r0 = col - back * dc, row - back * dr
                    cells = [(c0 + i * dc, r0 + i * dr) for i in range(4)]
                    count += all(0 <= c < WIDTH and 0 <= r < HEIGHT for c, r in cells)
            counts[1 << (col * (HEIGHT + 1) + row)] = count
    return counts


def _masks_by_weight() -> tuple[tuple[int, ...], tuple[int, ...]]:
    by_weight: dict[int, int] = {}
    for bit, weight in _lines_through_cells().items():
        by_weight[weight] = by_weight.get(weight, 0) | bit
    weights = tuple(sorted(by_weight))
    return weights, tuple(by_weight[w] for w in weights)


CELL_WEIGHTS, CELL_MASKS = _masks_by_weight()

CURRENT: Final = 0
MASK: Final = 1
STONES: Final = 2
SCRATCH: Final = 3


@cached_njit(nogil=True)
def column_mask(col: int) -> int:
    return ((1 << HEIGHT) - 1) << (col * (HEIGHT + 1))


@cached_njit(nogil=True, inline="always")
def _line_ends(position: int, shift: int) -> int:
    pair = (position << shift) & (position << 2 * shift)
    found = pair & (position << 3 * shift)
    found |= pair & (position >> shift)
    pair = (position >> shift) & (position >> 2 * shift)
    found |= pair & (position << shift)
    return found | (pair & (position >> 3 * shift))


@cached_njit(nogil=True)
def winning_cells(position: int, mask: int) -> int:
    """The empty cells (playable now or later) that would complete four for ``position``."""
    # Vertical: three stones right below.
    found = (position << 1) & (position << 2) & (position << 3)
    # Horizontal (shift 7) and the two diagonals (shifts 6 and 8): the empty cell can be at either
    # end of the four or in one of the two middle places.
    found |= _line_ends(position, HEIGHT + 1)
    found |= _line_ends(position, HEIGHT)
    found |= _line_ends(position, HEIGHT + 2)
    return found & (BOARD ^ mask)


@cached_njit(nogil=True)
def has_four(position: int) -> bool:
    """Whether ``position`` holds four in a row."""
    for shift in (1, HEIGHT + 1, HEIGHT, HEIGHT + 2):
        pair = position & (position >> shift)
        if pair & (pair >> 2 * shift):
            return True
    return False


@cached_njit(nogil=True)
def playable(mask: int) -> int:
    """The lowest empty cell of every column that is not full."""
    return (mask + BOTTOM) & BOARD


@cached_njit(nogil=True)
def non_losing(st: Any) -> int:
    """The playable cells after which the opponent cannot win at once (0 if there are none)."""
    current, mask = st[CURRENT], st[MASK]
    possible = playable(mask)
    threats = winning_cells(current ^ mask, mask)
    forced = possible & threats
    if forced:
        if forced & (forced - 1):
            return 0  # two threats to block: lost
        possible = forced
    return possible & ~(threats >> 1)  # never play right below an opponent's threat


@cached_njit(nogil=True)
def quick(st: Any) -> int:
    """Inside the search the side to move cannot win at once (its parent only plays moves that
    prevent that), so only a forced loss and a full board are left to see."""
    stones = st[STONES]
    moves = non_losing(st)
    st[SCRATCH] = moves
    if moves == 0:
        return score_of_rank(-((CELLS - stones) // 2))
    if stones >= CELLS - 2:
        return 0
    return NO_SCORE


@cached_njit(nogil=True)
def decided(st: Any) -> int:
    stones = st[STONES]
    if stones > 0 and has_four(st[CURRENT] ^ st[MASK]):
        return score_of_rank(-((CELLS + 2 - stones) // 2))
    if stones == CELLS:
        return 0
    if winning_cells(st[CURRENT], st[MASK]) & playable(st[MASK]):
        return score_of_rank((CELLS + 1 - stones) // 2)
    return quick(st)


@cached_njit(nogil=True)
def bounds(st: Any) -> tuple[int, int]:
    """After ``quick``: no win next move, no loss on the opponent's next move."""
    stones = st[STONES]
    return score_of_rank(-((CELLS - 2 - stones) // 2)), score_of_rank((CELLS - 1 - stones) // 2)


@cached_njit(nogil=True)
def rank_range(st: Any) -> tuple[int, int]:
    stones = st[STONES]
    return -((CELLS - stones) // 2), (CELLS + 1 - stones) // 2


@cached_njit(nogil=True)
def evaluate(st: Any) -> int:
    """The side to move's advantage, for depth-limited search (exact solves never call it).

    Threat cells (empty cells that would complete four) of the side to move minus the
    opponent's, 10 each, 5 more for a threat in the lowest three rows and 15 more for a threat
    on the owner's good rows (odd rows counted from 1 for the first player, even rows for the
    second: those decide the endgame by zugzwang), plus every stone's cell weight (the number
    of lines of four through it). Without the weights most opening positions scored 0 and the
    deeper searches chose at random among tied moves."""
    current, mask = st[CURRENT], st[MASK]
    mine = winning_cells(current, mask)
    theirs = winning_cells(current ^ mask, mask)
    low = BOTTOM * 0b000111
    value = 10 * (popcount(mine) - popcount(theirs))
    value += 5 * (popcount(mine & low) - popcount(theirs & low))
    first_rows, second_rows = BOTTOM * 0b010101, BOTTOM * 0b101010
    if st[STONES] & 1:  # the second player to move
        first_rows, second_rows = second_rows, first_rows
    value += 15 * (popcount(mine & first_rows) - popcount(theirs & second_rows))
    other = current ^ mask
    for i in range(len(CELL_WEIGHTS)):
        cells = CELL_MASKS[i]
        value += CELL_WEIGHTS[i] * (popcount(current & cells) - popcount(other & cells))
    return value


@cached_njit(nogil=True)
def key(st: Any) -> int:
    return int(st[CURRENT] + st[MASK])


@cached_njit(nogil=True)
def moves(st: Any, out: Any) -> int:
    """The non-losing moves left in ``scratch`` by ``quick``, most threats first (``out`` holds
    ``2 * WIDTH`` codes; the upper half keeps the sort keys)."""
    candidates = st[SCRATCH]
    current, mask = st[CURRENT], st[MASK]
    count = 0
    scores = out[WIDTH:]
    for col in ORDER:
        cell = candidates & column_mask(col)
        if cell:
            score = popcount(winning_cells(current | cell, mask))
            at = count
            while at > 0 and scores[at - 1] < score:
                scores[at] = scores[at - 1]
                out[at] = out[at - 1]
                at -= 1
            scores[at] = score
            out[at] = col
            count += 1
    return count


@cached_njit(nogil=True)
def no_moves(st: Any) -> int:
    return score_of_rank(-((CELLS - st[STONES]) // 2))


@cached_njit(nogil=True)
def play(st: Any, col: int) -> None:
    mask = st[MASK]
    st[CURRENT] ^= mask
    st[MASK] = mask | ((mask + (1 << (col * (HEIGHT + 1)))) & column_mask(col))
    st[STONES] += 1


@cached_njit(nogil=True)
def undo(st: Any, col: int) -> None:
    mask = st[MASK]
    top = ((mask & column_mask(col)) + (1 << (col * (HEIGHT + 1)))) >> 1
    st[MASK] = mask ^ top
    st[CURRENT] ^= st[MASK]
    st[STONES] -= 1


@cached_njit(nogil=True)
def legal(st: Any, out: Any) -> int:
    """Every open column in :data:`ORDER` (the game's ``legal_moves()`` order)."""
    open_cells = playable(st[MASK])
    count = 0
    for col in ORDER:
        if open_cells & column_mask(col):
            out[count] = col
            count += 1
    return count


@cached_njit(nogil=True)
def over(st: Any) -> int:
    """The score of a finished game (the side to move lost to four in a row, or the board is
    full: a draw), else ``NO_SCORE``."""
    stones = st[STONES]
    if stones > 0 and has_four(st[CURRENT] ^ st[MASK]):
        return score_of_rank(-((CELLS + 2 - stones) // 2))
    if stones == CELLS:
        return 0
    return NO_SCORE


@cached_njit(nogil=True)
def decisive(st: Any, out: Any) -> int:
    """A decisive playout's choices (see :class:`Kernel`): the first column in :data:`ORDER`
    that wins at once, alone; else the non-losing columns; else every open column."""
    current, mask = st[CURRENT], st[MASK]
    open_cells = playable(mask)
    choices = winning_cells(current, mask) & open_cells
    first_only = choices != 0
    if not first_only:
        choices = non_losing(st)
        if choices == 0:
            choices = open_cells
    count = 0
    for col in ORDER:
        if choices & column_mask(col):
            out[count] = col
            count += 1
            if first_only:
                break
    return count


KERNEL: Final = Kernel(
    name="connect4",
    state_size=4,
    max_moves=2 * WIDTH,
    max_ply=CELLS + 2,
    quick=quick,
    decided=decided,
    bounds=bounds,
    rank_range=rank_range,
    evaluate=evaluate,
    key=key,
    moves=moves,
    no_moves=no_moves,
    play=play,
    undo=undo,
    legal=legal,
    over=over,
    decisive=decisive,
)


def state_of(game: Game[Any]) -> list[int]:
    """The kernel's state of a connect four position: the side to move's stones, all stones,
    the ply."""
    assert isinstance(game, Connect4)
    x, o = game.stones()
    mine = x if game.side_to_move() == 0 else o
    return [mine, x | o, game.ply()]


def _mirror(bits: int) -> int:
    stride = HEIGHT + 1
    column = (1 << stride) - 1
    mirrored = 0
    for index in range(WIDTH):
        mirrored |= (bits >> index * stride & column) << (WIDTH - 1 - index) * stride
    return mirrored


def canonical_key(game: Game[Any]) -> int:
    """One key for a position and its mirror image."""
    current, mask, _ = state_of(game)
    return min(current + mask, _mirror(current) + _mirror(mask))


GAME: Final = CompiledGame(KERNEL, state_of, value_from_pons, canonical_key)
"""Connect four on this kernel; ranks are Pons's scores."""
