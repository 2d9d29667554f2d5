"""Table snapshots: the compiled choice of the deepest entries equals its slow twin's."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from zerosum.compiled.snapshots import (
    TableSnapshot,
    deepest_slots,
    deepest_slots_reference,
    load_snapshot,
    load_snapshot_reference,
    snapshot,
    snapshot_reference,
)
from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4


def _table(depths: list[int | None]) -> tuple[np.ndarray, np.ndarray]:
    """A table whose slot ``i`` holds an entry of search depth ``depths[i]`` (None: empty)."""
    data = np.zeros(len(depths), np.int64)
    for slot, depth in enumerate(depths):
        if depth is not None:
            data[slot] = (depth << 40) | (slot + 1)
    keys = np.arange(len(depths), dtype=np.int64) ^ data
    return keys, data


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.none() | st.integers(0, 255) | st.sampled_from([3, 7, 7, 200]), max_size=300),
    st.integers(0, 320),
)
def test_the_compiled_choice_is_its_twins(depths: list[int | None], most: int) -> None:
    _, data = _table(depths)
    fast, slow = deepest_slots(data, most), deepest_slots_reference(data, most)
    assert fast.tolist() == slow.tolist()
    assert len(fast) == min(most, sum(depth is not None for depth in depths))


def test_a_searched_tables_snapshot_is_the_twins_choice() -> None:
    solver = Solver("connect4", hash_mb=1, book=False)
    solver.solve(Connect4.from_position("3216462"))
    keys, data = solver.engine.keys, solver.engine.data
    assert np.count_nonzero(data) > 4096
    kept = snapshot(keys, data, 4096, "here:1#1")
    assert kept.slots.tolist() == deepest_slots_reference(data, 4096).tolist()
    assert (kept.keys == keys[kept.slots]).all() and (kept.data == data[kept.slots]).all()
    assert kept.worker == "here:1" and len(kept) == 4096
    # loaded into an empty table of the same size, the entries land in their slots
    copy_keys, copy_data = np.zeros_like(keys), np.zeros_like(data)
    load_snapshot(copy_keys, copy_data, kept)
    assert (copy_data[kept.slots] == kept.data).all()
    assert np.count_nonzero(copy_data) == 4096


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.none() | st.integers(0, 255) | st.sampled_from([3, 7, 7, 200]), max_size=300),
    st.lists(st.none() | st.integers(0, 255) | st.sampled_from([3, 7, 7, 200]), max_size=300),
    st.integers(0, 320),
)
def test_the_compiled_snapshot_and_load_are_their_twins(
    ours: list[int | None], theirs: list[int | None], most: int
) -> None:
    # Another worker's snapshot of a table of the same size, taken and loaded into this one
    # by the compiled loops and by the array operations: the same entries, the same table
    # (an entry goes over one of a smaller or equal depth, or an empty slot, only).
    size = max(len(ours), len(theirs))
    ours = ours + [None] * (size - len(ours))
    theirs = theirs + [None] * (size - len(theirs))
    their_keys, their_data = _table(theirs)
    their_data[their_data != 0] += 1 << 20  # other entries than ours in the same slots
    fast, slow = (
        take(their_keys, their_data, most, "there:2#1") for take in (snapshot, snapshot_reference)
    )
    for field in ("slots", "keys", "data"):
        assert getattr(fast, field).tolist() == getattr(slow, field).tolist()
    assert (fast.size, fast.origin) == (slow.size, slow.origin)
    tables = [_table(ours) for _ in range(2)]
    load_snapshot(*tables[0], fast)
    load_snapshot_reference(*tables[1], fast)
    assert tables[0][0].tolist() == tables[1][0].tolist()
    assert tables[0][1].tolist() == tables[1][1].tolist()


def test_a_snapshot_of_another_size_goes_in_as_the_search_stores() -> None:
    # A table of another size: each entry stored by the engine's own rule, by both twins.
    keys, data = _table([5, None, 9, 200, 3, None, 7, 7])
    kept = TableSnapshot(8, *(np.array(a) for a in (range(8), keys, data)), "there:2#1")
    tables = [(np.zeros(16, np.int64), np.zeros(16, np.int64)) for _ in range(2)]
    load_snapshot(*tables[0], kept)
    load_snapshot_reference(*tables[1], kept)
    assert tables[0][0].tolist() == tables[1][0].tolist()
    assert tables[0][1].tolist() == tables[1][1].tolist()
    assert np.count_nonzero(tables[0][1]) > 0
