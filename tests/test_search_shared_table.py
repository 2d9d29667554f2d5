"""The shared transposition table: its twin is the list-backed table, and torn writes miss."""

from __future__ import annotations

import multiprocessing
import random
import time
from collections.abc import Iterator
from multiprocessing.shared_memory import SharedMemory

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zerosum.search.shared_table import MoveCodes, SharedTable, table_bytes
from zerosum.search.table import Bound, TranspositionTable

MOVES = [chess.Move.from_uci(uci) for uci in ("e2e4", "g1f3", "e7e8q", "a7a8n", "e1g1")]


@pytest.fixture
def block() -> Iterator[SharedMemory]:
    memory = SharedMemory(create=True, size=table_bytes(1 << 10))
    try:
        yield memory
    finally:
        memory.close()
        memory.unlink()


def _table(block: SharedMemory, entries: int, moves: list[object]) -> SharedTable[object]:
    table: SharedTable[object] = SharedTable(block, entries, MoveCodes(lambda: list(moves)))
    table.clear()
    return table


operations = st.lists(
    st.tuples(
        st.integers(0, 40),  # which key (few keys in few slots: collisions and replacements)
        st.integers(0, 12),  # depth
        st.integers(-1_000_200, 1_000_200),  # score, mates included
        st.sampled_from(list(Bound)),
        st.sampled_from([None, *MOVES, 3, 0]),
        st.booleans(),  # a new search first
    ),
    max_size=80,
)


@settings(max_examples=150, deadline=None)
@given(operations)
def test_the_shared_table_answers_as_the_list_backed_one(
    ops: list[tuple[int, int, int, Bound, object, bool]],
) -> None:
    keys = [random.Random(key).getrandbits(64) for key in range(41)]
    memory = SharedMemory(create=True, size=table_bytes(16))
    try:
        shared = _table(memory, 16, [*MOVES, 3, 0])
        twin: TranspositionTable[object] = TranspositionTable(16)
        for key, depth, score, bound, move, new_search in ops:
            if new_search:
                shared.new_search()
                twin.new_search()
            k = keys[key]
            assert shared.store(k, depth, score, bound, move) == twin.store(
                k, depth, score, bound, move
            )
            for probe in keys:
                assert shared.probe(probe) == twin.probe(probe)
        assert len(shared) == len(twin)
        shared.release()
    finally:
        memory.close()
        memory.unlink()


def test_a_torn_entry_reads_as_a_miss(block: SharedMemory) -> None:
    table = _table(block, 1 << 10, MOVES)
    first, second = 5, 5 + (1 << 10)  # one slot
    table.store(first, 4, 17, Bound.EXACT, MOVES[0])
    words = block.buf.cast("Q")
    check_first, data_first = words[10], words[11]
    table.store(second, 6, -3, Bound.LOWER, MOVES[1])  # replaces it (deeper)
    assert table.probe(first) is None and table.probe(second) is not None
    words[11] = data_first  # the old entry's data beside the new entry's check word
    assert table.probe(first) is None and table.probe(second) is None
    words[10] = check_first  # now whole again
    entry = table.probe(first)
    assert entry is not None and (entry.score, entry.move) == (17, MOVES[0])
    words.release()
    table.release()


def test_keys_and_values_out_of_range_are_not_stored(block: SharedMemory) -> None:
    table = _table(block, 1 << 10, MOVES)
    assert not table.store(1 << 64, 3, 0, Bound.EXACT, None)
    assert not table.store(-1, 3, 0, Bound.EXACT, None)
    assert not table.store(7, 256, 0, Bound.EXACT, None)
    assert not table.store(7, 3, 1 << 23, Bound.EXACT, None)
    assert len(table) == 0
    table.release()


def test_a_move_is_known_to_a_process_that_never_coded_it(block: SharedMemory) -> None:
    writer = _table(block, 1 << 10, [])
    writer.store(99, 2, 5, Bound.UPPER, MOVES[2])
    reader: SharedTable[object] = SharedTable(block, 1 << 10, MoveCodes(lambda: list(MOVES)))
    entry = reader.probe(99)  # the legal moves of the probed position name the code
    assert entry is not None and entry.move == MOVES[2] and entry.bound == Bound.UPPER
    lost: SharedTable[object] = SharedTable(block, 1 << 10, MoveCodes(lambda: MOVES[:2]))
    found = lost.probe(99)  # not legal there: no move, the rest of the entry stands
    assert found is not None and found.move is None and found.score == 5
    for table in (writer, reader, lost):
        table.release()


def _entry_of(key: int) -> tuple[int, int, Bound, int]:
    """What every writer stores for ``key``: depth, score, bound, move."""
    return key % 50, (key >> 8) % 200_001 - 100_000, Bound((key >> 20) % 3), key % 64


def _hammer(name: str, entries: int, seed: int, seconds: float) -> None:
    memory = SharedMemory(name=name)
    table: SharedTable[int] = SharedTable(memory, entries, MoveCodes(lambda: list(range(64))))
    rng = random.Random(seed)
    keys = [random.Random(k).getrandbits(64) for k in range(4096)]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for _ in range(1000):
            key = keys[rng.randrange(4096)]
            depth, score, bound, move = _entry_of(key)
            table.store(key, depth, score, bound, move)
    table.release()
    memory.close()


def test_racing_writers_never_give_a_wrong_entry() -> None:
    """Two processes store into 64 slots as fast as they can while this one reads: every
    entry read is the one stored for its key (a torn one would read as a miss)."""
    entries = 64
    memory = SharedMemory(create=True, size=table_bytes(entries))
    context = multiprocessing.get_context("spawn")
    writers = [
        context.Process(target=_hammer, args=(memory.name, entries, seed, 1.5)) for seed in (1, 2)
    ]
    try:
        table: SharedTable[int] = SharedTable(memory, entries, MoveCodes(lambda: list(range(64))))
        table.clear()
        for writer in writers:
            writer.start()
        keys = [random.Random(k).getrandbits(64) for k in range(4096)]
        hits = probes = 0
        # Reads while the writers run, then once more after they have ended: a reader the
        # machine starved throughout their writing still reads what they left (the check
        # ``hits > 0`` must not depend on this process getting a turn while they ran).
        running = True
        while running:
            running = any(writer.is_alive() for writer in writers)
            for key in keys:
                probes += 1
                entry = table.probe(key)
                if entry is not None:
                    hits += 1
                    depth, score, bound, move = _entry_of(key)
                    assert (entry.depth, entry.score, entry.bound, entry.move) == (
                        depth,
                        score,
                        bound,
                        move,
                    )
        assert all(writer.exitcode == 0 for writer in writers)
        assert hits > 0 and probes > hits
        table.release()
    finally:
        for writer in writers:
            if writer.is_alive():
                writer.kill()
            writer.join()
        memory.close()
        memory.unlink()
