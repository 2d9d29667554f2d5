"""Table snapshots: a worker's deepest table entries, to be loaded into another worker's table.

A distributed solve (:mod:`.distributed`) sends a stopped unit's table to the units of its
children, and a long unit's table to the other workers, as a :class:`TableSnapshot`: the entries
of the largest search depth (nearest the roots of the searches, so the ones that stand for the
most work), at most a given count, with the slots they lie in.

Choosing them is a pass over the whole table (4 M entries at the default 64 MB), made for nearly
every unit that runs a second or answers a bound. :func:`deepest_slots` makes it in two compiled
passes (a count of the entries per depth, then the slots kept): 37 ms against 99 ms for the
array operations of :func:`deepest_slots_reference`, its slow twin and the tests' oracle, on a
full 64 MB table (at 0.1 s a snapshot, the snapshots of a one-node solve of ``44534`` cost 2 of
its 13 seconds). The entries at those slots are taken (:func:`snapshot`) and put into another
table (:func:`load_snapshot`) by compiled loops too (:func:`_gather`, :func:`_put`), whose slow
twins are array operations (:func:`snapshot_reference`, :func:`load_snapshot_reference`). On a
64 MB table holding 3.7 M entries, 262,144 of them taken: a snapshot 16-17 ms (21-27 ms with
the array operations' gather), a load 3.6-3.8 ms (10-15 ms with array operations); a
two-node solve of ``44533`` makes about 26 snapshots and 19 loads (``docs/parallel.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from zerosum.compiled.engine import store
from zerosum.jit import cached_njit


@dataclass(frozen=True, eq=False)
class TableSnapshot:
    """A worker's table entries, to be loaded into another worker's table of the same size:
    the entries of the largest search depth, at most a given count (:func:`snapshot`)."""

    size: int
    """Slots of the table they come from."""
    slots: np.ndarray[Any, Any]
    """The slots they lie in."""
    keys: np.ndarray[Any, Any]
    """The table's ``keys`` at those slots."""
    data: np.ndarray[Any, Any]
    """The table's ``data`` (the packed entries) at those slots."""
    origin: str = ""
    """The worker process it comes from (host and process id), and its number there."""

    def __len__(self) -> int:
        return len(self.slots)

    @property
    def worker(self) -> str:
        """The worker process it comes from."""
        return self.origin.rpartition("#")[0]


@cached_njit(nogil=True)
def deepest_slots(data: Any, most: int) -> Any:
    """The slots (ascending) of the non-empty entries of ``data`` (a table's packed entries):
    all of them if there are at most ``most``, else the ``most`` of the largest search depth,
    those of the depth where the count is reached taken from the lowest slots."""
    # Step 1. How many entries each depth has.
    counts = np.zeros(256, np.int64)
    filled = 0
    for slot in range(data.shape[0]):
        entry = data[slot]
        if entry != 0:
            counts[(entry >> 40) & 255] += 1
            filled += 1
    # Step 2. The depth where ``most`` is reached from the deepest, and how many entries of
    # that depth fit.
    cut, room = -1, filled
    if filled > most:
        above = 0
        cut = 255
        while above + counts[cut] < most:
            above += counts[cut]
            cut -= 1
        room = most - above
    # Step 3. The slots, in order.
    slots = np.empty(min(filled, most), np.int64)
    taken = 0
    for slot in range(data.shape[0]):
        entry = data[slot]
        if entry != 0:
            depth = (entry >> 40) & 255
            if depth > cut:
                slots[taken] = slot
                taken += 1
            elif depth == cut and room > 0:
                slots[taken] = slot
                taken += 1
                room -= 1
    return slots


def deepest_slots_reference(data: np.ndarray[Any, Any], most: int) -> np.ndarray[Any, Any]:
    """:func:`deepest_slots` with array operations (its slow twin)."""
    slots = np.flatnonzero(data)
    if len(slots) > most:
        depths = (data[slots] >> 40) & 255  # the packed entry's search depth
        counts = np.cumsum(np.bincount(depths, minlength=256)[::-1])
        cut = 255 - int(np.searchsorted(counts, most))  # the depth where ``most`` is reached
        deeper = slots[depths > cut]
        slots = np.sort(np.concatenate([deeper, slots[depths == cut][: most - len(deeper)]]))
    return slots.astype(np.int64)


@cached_njit(nogil=True)
def _gather(keys: Any, data: Any, slots: Any) -> Any:
    """``keys[slots]`` and ``data[slots]``, in one loop."""
    kept_keys = np.empty(slots.shape[0], keys.dtype)
    kept_data = np.empty(slots.shape[0], data.dtype)
    for index in range(slots.shape[0]):
        kept_keys[index] = keys[slots[index]]
        kept_data[index] = data[slots[index]]
    return kept_keys, kept_data


@cached_njit(nogil=True)
def _put(keys: Any, data: Any, slots: Any, new_keys: Any, new_data: Any) -> None:
    """Each entry ``(new_keys[i], new_data[i])`` into slot ``slots[i]`` of the table ``(keys,
    data)`` (the slots distinct), over an entry of a smaller or equal search depth, or none."""
    for index in range(slots.shape[0]):
        slot = slots[index]
        held = data[slot]
        if held == 0 or ((held >> 40) & 255) <= ((new_data[index] >> 40) & 255):
            keys[slot] = new_keys[index]
            data[slot] = new_data[index]


def snapshot(
    keys: np.ndarray[Any, Any], data: np.ndarray[Any, Any], most: int, origin: str = ""
) -> TableSnapshot:
    """The entries of the table ``(keys, data)``, the ``most`` deepest of them if it holds
    more (of the depth where they are cut, those in the lowest slots)."""
    slots = deepest_slots(data, most)
    kept_keys, kept_data = _gather(keys, data, slots)
    return TableSnapshot(len(keys), slots, kept_keys, kept_data, origin)


def snapshot_reference(
    keys: np.ndarray[Any, Any], data: np.ndarray[Any, Any], most: int, origin: str = ""
) -> TableSnapshot:
    """:func:`snapshot` with array operations (its slow twin)."""
    slots = deepest_slots_reference(data, most)
    return TableSnapshot(len(keys), slots, keys[slots], data[slots], origin)


def load_snapshot(keys: np.ndarray[Any, Any], data: np.ndarray[Any, Any], table: Any) -> None:
    """Put the entries of ``table`` (a :class:`TableSnapshot`) into the table ``(keys, data)``:
    into the same slots for a table of the same size, over an entry of a smaller search depth
    (or none); else one by one as the search stores them."""
    if table.size == len(keys):
        _put(keys, data, table.slots, table.keys, table.data)
        return
    for stored, entry in zip(table.keys.tolist(), table.data.tolist(), strict=True):
        store(keys, data, stored ^ entry, entry)


def load_snapshot_reference(
    keys: np.ndarray[Any, Any], data: np.ndarray[Any, Any], table: Any
) -> None:
    """:func:`load_snapshot` with array operations (its slow twin)."""
    if table.size == len(keys):
        held = data[table.slots]
        depth = (table.data >> 40) & 255
        over = (held == 0) | (((held >> 40) & 255) <= depth)
        keys[table.slots[over]] = table.keys[over]
        data[table.slots[over]] = table.data[over]
        return
    for stored, entry in zip(table.keys.tolist(), table.data.tolist(), strict=True):
        store(keys, data, stored ^ entry, entry)
