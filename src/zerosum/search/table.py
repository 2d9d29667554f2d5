"""A bounded transposition table keyed by Zobrist keys.

Design: a fixed number of slots (a power of two), one entry per slot, the slot chosen by the
low bits of the key and the full key stored to detect collisions. Memory is therefore bounded
by the slot count whatever the search does.

Replacement scheme (depth-preferred with ageing): a new entry replaces the one in its slot when
the slot is empty, holds the same position, holds an entry from an earlier search (``new_search``
bumps the generation), or holds an entry searched no deeper than the new one. Otherwise the
deeper, current entry is kept: it saved more work.

Scores are stored relative to the node (see ``core.to_table``), so a mate found through a
transposition keeps its distance right wherever it is reached.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final, Generic, NamedTuple, TypeVar

M = TypeVar("M")

DEFAULT_ENTRIES: Final = 1 << 18


class Bound(IntEnum):
    """What a stored score says about the true value."""

    EXACT = 0
    LOWER = 1
    """The true value is at least the score (the search failed high)."""
    UPPER = 2
    """The true value is at most the score (the search failed low)."""

    @staticmethod
    def of(value: int, alpha: int, beta: int) -> Bound:
        """What a fail-soft search's ``value`` with the window ``(alpha, beta)`` (as on entry)
        says about the true value."""
        return Bound.LOWER if value >= beta else Bound.EXACT if value > alpha else Bound.UPPER


class Entry(NamedTuple, Generic[M]):
    key: int
    depth: int
    score: int
    bound: Bound
    move: M | None
    generation: int


class TranspositionTable(Generic[M]):
    """A fixed-size table of :class:`Entry` values."""

    def __init__(self, entries: int = DEFAULT_ENTRIES) -> None:
        if entries < 1:
            raise ValueError(f"table size {entries} is out of range: expected at least 1 entry")
        size = 1 << (entries - 1).bit_length()
        self._mask = size - 1
        self._slots: list[Entry[M] | None] = [None] * size
        self.generation = 0

    @property
    def capacity(self) -> int:
        return self._mask + 1

    def new_search(self) -> None:
        """Age every entry: entries of earlier searches become replaceable."""
        self.generation += 1

    def clear(self) -> None:
        self._slots = [None] * (self._mask + 1)

    def probe(self, key: int) -> Entry[M] | None:
        entry = self._slots[key & self._mask]
        return entry if entry is not None and entry.key == key else None

    def store(self, key: int, depth: int, score: int, bound: Bound, move: M | None) -> bool:
        """Store an entry under the replacement scheme; returns whether it was written."""
        index = key & self._mask
        old = self._slots[index]
        if old is None or old.key == key or old.generation != self.generation or old.depth <= depth:
            if move is None and old is not None and old.key == key:
                move = old.move
            self._slots[index] = Entry(key, depth, score, bound, move, self.generation)
            return True
        return False

    def __len__(self) -> int:
        return sum(entry is not None for entry in self._slots)
