"""A transposition table in shared memory, read and written by several processes without locks.

:class:`SharedTable` has the interface and the replacement scheme of
:class:`~zerosum.search.table.TranspositionTable` (a slot per key's low bits, depth-preferred
with ageing), but its slots are two 64-bit words in a :class:`SharedMemory` block that every
search process maps: what one worker stores, the others find at their next probe.

Layout. Slot ``i`` is the words ``2i`` (the check word) and ``2i + 1`` (the data word). The data
word packs an entry: its score plus ``2**23`` (24 bits), depth (8 bits), bound (2 bits),
generation (8 bits) and the code of its move (22 bits, see :class:`MoveCodes`); it is never 0,
so 0 marks an empty slot. The check word is ``key ^ data``. The words are read and written
through a ``memoryview`` cast to unsigned 64-bit words, which gives and takes plain Python
integers (a numpy element would be a numpy scalar: slower in Python code, and it does not mix
with 64-bit Python integers).

Concurrent writes. A writer stores the data word, then the check word, with no lock; two
writers may race on one slot and a reader may read a slot while it is being written. A reader
accepts an entry only if ``check ^ data`` equals the key it probes. Words from two different
entries (one writer's data word beside the other's check word, or a new data word beside the
old check word) give ``key_a ^ data_a ^ data_b``, which is the probed key only by a 64-bit
coincidence: a torn entry reads as a miss, never as another position's entry. Each 8-byte
word is written by one aligned store (the block is page-aligned), and even a word torn
within itself fails the check the same way. The worst a race does is lose an entry, which
costs work, not correctness: every entry that is read is one some search stored for that key,
so every bound stays true. Keys are the games' 64-bit Zobrist keys; a key outside
``[0, 2**64)`` is never stored (a probe of it misses).

Moves. The table keeps a move as a number that every process computes alike (:class:`MoveCodes`:
the move itself for small non-negative integers, else a CRC of its ``repr``); a process turns
a code back into a move from the moves it has coded, and else from the legal moves of the
position being probed (the table move is always asked for in that position). Two moves with
one code can only make a probe suggest the other one: the engine checks that a table move is
legal and only uses it to order moves, so a wrong one costs time, never a wrong value.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from multiprocessing.shared_memory import SharedMemory
from typing import Any, Final, Generic, TypeVar

import numpy as np

from zerosum.search.table import Bound, Entry, TranspositionTable

M = TypeVar("M")

SLOT_BYTES: Final = 16
"""Two 64-bit words per entry."""
KEY_LIMIT: Final = 1 << 64
SCORE_BIAS: Final = 1 << 23
SCORE_LIMIT: Final = 1 << 23
"""Scores in ``[-2**23, 2**23)`` are stored (every score of the project: wins are 10**6)."""
DEPTH_LIMIT: Final = 256
CODE_LIMIT: Final = 1 << 22
DECODED_LIMIT: Final = 1 << 16
"""Entries decoded by this process kept for the next probe of the same entry."""
_BOUNDS: Final = (Bound.EXACT, Bound.LOWER, Bound.UPPER, Bound.EXACT)


def table_bytes(entries: int) -> int:
    """The size of the shared block of a table of ``entries`` slots (a power of two)."""
    return entries * SLOT_BYTES


def slots_for(entries: int) -> int:
    """``entries`` rounded up to a power of two, as every transposition table does."""
    if entries < 1:
        raise ValueError(f"table size {entries} is out of range: expected at least 1 entry")
    return 1 << (entries - 1).bit_length()


class MoveCodes(Generic[M]):
    """Moves as numbers below ``2**22`` that every process computes alike, and back.

    ``legal_moves`` gives the moves of the position being probed: a code this process has not
    seen yet is looked up among them."""

    def __init__(self, legal_moves: Callable[[], list[M]]) -> None:
        self._legal_moves = legal_moves
        self.codes: dict[M | None, int] = {None: 0}
        """The codes of the moves coded so far (``None``: 0)."""
        self._moves: dict[int, M] = {}

    def code(self, move: M | None) -> int:
        """The code of ``move``; 0 for none."""
        code = self.codes.get(move)
        if code is None:
            code = self.codes[move] = _code_of(move)
            if move is not None:  # always: None is coded from the start
                self._moves.setdefault(code, move)
        return code

    def move(self, code: int) -> M | None:
        """The move of ``code`` (``None`` for 0, or if no move known here has that code)."""
        if code == 0:
            return None
        move = self._moves.get(code)
        if move is None:
            for legal in self._legal_moves():
                self.code(legal)
            move = self._moves.get(code)
        return move


def _code_of(move: Any) -> int:
    if type(move) is int and 0 <= move < CODE_LIMIT - 1:
        return move + 1
    return zlib.crc32(repr(move).encode()) % (CODE_LIMIT - 1) + 1


class SharedTable(TranspositionTable[M]):
    """A transposition table whose slots live in ``memory`` (see the module docstring): every
    process that makes one over the same block shares its entries. ``entries`` must be the
    block's slot count (:func:`table_bytes`)."""

    def __init__(self, memory: SharedMemory, entries: int, codes: MoveCodes[M]) -> None:
        # No call to the parent's __init__: the slots are the shared block, not a list.
        if entries != slots_for(entries) or memory.size < table_bytes(entries):
            raise ValueError(f"a shared table of {entries} entries needs a power of two")
        self._mask = entries - 1
        self.generation = 0
        self._memory = memory
        buffer = memory.buf
        assert buffer is not None  # an open block
        self._words = buffer[: table_bytes(entries)].cast("Q")
        self._released = False
        self._codes = codes
        self._coded = codes.codes
        self._decoded: dict[int, Entry[M]] = {}

    @property
    def name(self) -> str:
        """The name of the shared block (for another process to open it)."""
        return self._memory.name

    def release(self) -> None:
        """Let go of the block (it stays mapped by the others); the table is unusable after."""
        if not self._released:
            self._words.release()
            self._released = True

    def _view(self) -> memoryview:
        if self._released:
            raise RuntimeError("the shared table was released")
        return self._words

    def new_search(self) -> None:
        """Age every entry (the generation is this process's: each search sets its own)."""
        self.generation = (self.generation + 1) % DEPTH_LIMIT

    def clear(self) -> None:
        """Empty every slot (no other process may be searching meanwhile)."""
        np.frombuffer(self._view(), dtype=np.uint64)[:] = 0
        self._decoded.clear()

    def probe(self, key: int) -> Entry[M] | None:
        words = self._words
        index = (key & self._mask) << 1
        data = words[index + 1]
        check = words[index]
        if data == 0 or check ^ data != key:
            return None
        # An entry is decoded once: the check word names it (with the key, it gives the data).
        entry = self._decoded.get(check)
        if entry is None or entry.key != key:
            if len(self._decoded) >= DECODED_LIMIT:
                self._decoded.clear()
            entry = self._decoded[check] = Entry(
                key,
                (data >> 24) & 0xFF,
                (data & 0xFFFFFF) - SCORE_BIAS,
                _BOUNDS[(data >> 32) & 3],
                self._codes.move(data >> 42),
                (data >> 34) & 0xFF,
            )
        return entry

    def store(self, key: int, depth: int, score: int, bound: Bound, move: M | None) -> bool:
        """Store an entry under the replacement scheme; returns whether it was written."""
        if not (0 <= key < KEY_LIMIT and 0 <= depth < DEPTH_LIMIT):
            return False
        if not -SCORE_LIMIT <= score < SCORE_LIMIT:
            return False
        words = self._words
        index = (key & self._mask) << 1
        old = words[index + 1]
        code = self._coded.get(move)
        if code is None:
            code = self._codes.code(move)
        if old != 0:
            same = words[index] ^ old == key
            if not (same or (old >> 34) & 0xFF != self.generation or (old >> 24) & 0xFF <= depth):
                return False
            if code == 0 and same:
                code = old >> 42
        data = (score + SCORE_BIAS) | depth << 24 | bound << 32 | self.generation << 34 | code << 42
        words[index + 1] = data
        words[index] = key ^ data
        return True

    def __len__(self) -> int:
        return int(np.count_nonzero(np.frombuffer(self._view(), dtype=np.uint64)[1::2]))
