"""The slow, obvious twin of :mod:`zerosum.endgames.retro`, in plain Python.

``children`` lists a position's moves from the rules as written (slide, or fly with three
men; a man that closes a mill removes one opponent man not in a mill, or any man if all are);
``solve_by_levels`` decides every position of a small board by scanning all undecided
positions once per distance: a position wins in ``d`` if a move leads to a loss in ``d - 1``
(or removes the opponent's third man when ``d == 1``), and loses in ``d`` if every move leads to
a win in at most ``d - 1`` and one in exactly ``d - 1`` (a position with no move loses in 0).
Tables use the byte code of :mod:`.retro` (0 draw, else ``1 + distance``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

from zerosum.endgames.board import Board, Points
from zerosum.endgames.retro import FLYING_MEN, MIN_MEN

Position = tuple[Points, Points]
"""``(mover, other)``: the men of the side to move and of its opponent."""


@dataclass(frozen=True)
class Child:
    """One move of a position and where it leads."""

    source: int
    target: int
    removed: int | None
    """The point of the removed man, or ``None``."""
    position: Position | None
    """The position after the move, the opponent to move; ``None`` when the opponent is left
    with fewer than three men (the move wins)."""


def children(board: Board, mover: Points, other: Points) -> Iterator[Child]:
    """Every legal move of the side to move (nothing in hand), from the rules."""
    empty = ((1 << board.size) - 1) & ~(mover | other)
    flying = mover.bit_count() == FLYING_MEN
    held = board.in_mills(other)
    victims = other & ~held or other
    for source in range(board.size):
        if not mover >> source & 1:
            continue
        targets = empty if flying else board.neighbours[source] & empty
        for target in range(board.size):
            if not targets >> target & 1:
                continue
            after = mover ^ (1 << source) ^ (1 << target)
            if not board.closes_mill(after, target):
                yield Child(source, target, None, (other, after))
                continue
            for removed in range(board.size):
                if victims >> removed & 1:
                    left = other ^ (1 << removed)
                    position = (left, after) if left.bit_count() >= MIN_MEN else None
                    yield Child(source, target, removed, position)


def positions(board: Board, x: int, y: int) -> Iterator[Position]:
    """Every position with ``x`` men to move against ``y``."""
    for mine in combinations(range(board.size), x):
        mover = sum(1 << p for p in mine)
        rest = [p for p in range(board.size) if not mover >> p & 1]
        for theirs in combinations(rest, y):
            yield mover, sum(1 << p for p in theirs)


def solve_by_levels(board: Board, max_men: int) -> dict[Position, int]:
    """The byte code of every position with 3..``max_men`` men a side."""
    value: dict[Position, int] = {}
    undecided: dict[Position, list[Position | None]] = {}
    for x in range(MIN_MEN, max_men + 1):
        for y in range(MIN_MEN, max_men + 1):
            for position in positions(board, x, y):
                undecided[position] = [c.position for c in children(board, *position)]
    level = 0
    quiet = 0
    while undecided and quiet < 2:
        decided = {}
        for position, moves in undecided.items():
            if level % 2:
                wins = any(
                    (level == 1 and child is None)
                    or (child is not None and value.get(child) == level)
                    for child in moves
                )
                if wins:
                    decided[position] = level + 1
            else:
                codes = [None if c is None else value.get(c) for c in moves]
                if all(code is not None and code % 2 == 0 for code in codes) and (
                    not codes or max(c for c in codes if c is not None) == level
                ):
                    decided[position] = level + 1
        # Two levels in a row that decide nothing: no later level can decide anything.
        quiet = 0 if decided else quiet + 1
        value.update(decided)
        for position in decided:
            del undecided[position]
        level += 1
    value.update(dict.fromkeys(undecided, 0))
    return value
