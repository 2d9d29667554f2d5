"""Every stored endgame class in one read-only byte array, memory-mapped, for the compiled probe.

The compiled morris search (:func:`zerosum.compiled.morris.probe`) reads the databases from one
``uint8`` array (its kernel's ``aux``). Through 6-6 the tables are 454 MB, and every worker
process of a parallel search loads its own ``aux``: so the array is a file beside the store,
``STORE.probe``, mapped read-only, which the processes share through the page cache and which
costs nothing until a probe touches a page. It is written (atomically) the first time an engine
needs it, and again whenever the store's classes change (:func:`probe_array`, which reports
the write to a callback: :mod:`.probe_file`); a store whose folder cannot be written gets the
same array in memory instead. ``$ZEROSUM_PROBE_DIR`` places the file in another folder
(:func:`.probe_file.probe_path`).

The array is self-describing, so that the compiled probe needs no table of its own but the
board's binomials and symmetries (the orbit arrays of six men take a third of a second to
compute, too long for an import):

* ``[0, 16)``: one byte per class ``x-y`` (``3 <= x, y <= 6``) at ``(x - 3) * 4 + (y - 3)``, 1
  when the class is there;
* ``[16, 144)``: per class, the little-endian 8-byte offset of its table in the array;
* ``[144, 176)``: per number of men ``k = 3..6``, the offset of its *records*: one per
  ``k``-set of points in rank order, 3 bytes each: the set's orbit (2 bytes) and a symmetry
  that maps it onto the orbit's representative (1 byte) (:class:`~.orbits.Orbits`);
* ``[176, 208)``: per ``k``, the offset of its representatives, 3 bytes each (the masks);
* then the records and representatives of every ``k`` some class needs (as the mover), and the
  tables, one byte a position up to symmetry (:mod:`.orbits`, the codes of :mod:`.retro`).

A position ``(S, O)`` of the class ``x-y`` is then at ``table + orbit * C(24 - x, y) +
rank(g(O) onto the points not in rep)``, as :func:`zerosum.endgames.reduced.lookup_index`
finds it; the tests check the compiled probe against :meth:`.database.Endgames.code`.

The file starts with 64 bytes of its own: a magic string, a digest of the store's class rows
(what is stored, its counts and build times) and the array's length.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import time
from collections.abc import Iterator, Mapping
from math import comb
from pathlib import Path
from typing import Any, Final

import numpy as np

from zerosum.endgames import MAX_MEN
from zerosum.endgames.board import NINE_MENS_MORRIS
from zerosum.endgames.database import EndgameError, Endgames
from zerosum.endgames.probe_file import ProbeListener, ProbeWrite, announce, announce_unusable
from zerosum.endgames.probe_file import probe_path as probe_path  # re-exported

MIN_MEN: Final = 3
SIDE_MEN: Final = MAX_MEN - MIN_MEN + 1
"""Men a side from ``MIN_MEN`` to ``MAX_MEN``: four."""
CLASSES: Final = [(x, y) for x in range(MIN_MEN, MAX_MEN + 1) for y in range(MIN_MEN, MAX_MEN + 1)]
"""The classes in the order of the presence bytes."""
TABLE_AT: Final = len(CLASSES)
"""Where the tables' offsets start (8 bytes each)."""
RECORDS_AT: Final = TABLE_AT + 8 * len(CLASSES)
"""Where the offsets of the records of ``k`` men start (8 bytes each)."""
REPS_AT: Final = RECORDS_AT + 8 * SIDE_MEN
"""Where the offsets of the representatives of ``k`` men start (8 bytes each)."""
HEADER: Final = REPS_AT + 8 * SIDE_MEN
"""The array's header: 208 bytes."""
_MAGIC: Final = b"ZSEGPRB1"
_PREFIX: Final = 64
"""The file's own bytes before the array: magic, digest (32 bytes), the array's length."""


def class_index(x: int, y: int) -> int:
    """The class ``x-y``'s place among the presence bytes and table offsets."""
    return (x - MIN_MEN) * SIDE_MEN + y - MIN_MEN


def _records(k: int) -> tuple[bytes, bytes]:
    """The records (orbit, symmetry) of every ``k``-set, and the representatives, as bytes."""
    from zerosum.endgames.orbits import orbits

    found = orbits(NINE_MENS_MORRIS, k)
    assert found.count < 1 << 16 and int(found.sym.max()) < 256
    records = np.empty((len(found.orbit), 3), np.uint8)
    records[:, 0] = found.orbit & 255
    records[:, 1] = found.orbit >> 8
    records[:, 2] = found.sym
    reps = np.empty((found.count, 3), np.uint8)
    for byte in range(3):
        reps[:, byte] = found.rep >> (8 * byte) & 255
    return records.tobytes(), reps.tobytes()


def _layout(present: list[tuple[int, int]]) -> tuple[bytes, list[bytes], int]:
    """The header and the record sections for the classes ``present``, and the array's total
    length (the tables follow the sections in the order of :data:`CLASSES`)."""
    from zerosum.endgames.orbits import table_size

    header = np.zeros(HEADER, np.uint8)
    words = header[TABLE_AT:].view("<i8")  # the offsets, little-endian
    at = HEADER
    sections = []
    for k in range(MIN_MEN, MAX_MEN + 1):
        if not any(x == k for x, _ in present):
            continue
        records, reps = _records(k)
        words[len(CLASSES) + k - MIN_MEN] = at
        at += len(records)
        words[len(CLASSES) + SIDE_MEN + k - MIN_MEN] = at
        at += len(reps)
        sections += [records, reps]
    for x, y in CLASSES:
        if (x, y) in present:
            header[class_index(x, y)] = 1
            words[class_index(x, y)] = at
            at += table_size(NINE_MENS_MORRIS, x, y)
    return header.tobytes(), sections, at


def _chunks(tables: Mapping[tuple[int, int], Any]) -> Iterator[bytes | np.ndarray[Any, Any]]:
    """The array's bytes in order, from ``tables`` (class -> its table, or a function that
    reads it: a class is read only when its turn comes)."""
    present = [key for key in CLASSES if key in tables]
    header, sections, _ = _layout(present)
    yield header
    yield from sections
    for key in present:
        table = tables[key]
        yield table() if callable(table) else table


def array_of(tables: Mapping[tuple[int, int], np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
    """The probe's array in memory, read-only, for the symmetric ``tables`` given (an empty
    array when there are none): what :func:`probe_array` maps from its file."""
    for key, table in tables.items():
        if key not in CLASSES:
            raise EndgameError(f"class {key[0]}-{key[1]} is outside 3..{MAX_MEN} men a side")
        if len(table) != _size(*key):
            raise EndgameError(
                f"class {key[0]}-{key[1]} has {len(table)} entries, not {_size(*key)}"
            )
    if not tables:
        joined = np.zeros(0, np.uint8)
    else:
        joined = np.concatenate([np.frombuffer(c, np.uint8) for c in _chunks(tables)])
    joined.flags.writeable = False
    return joined


def _size(x: int, y: int) -> int:
    from zerosum.endgames.orbits import table_size

    return table_size(NINE_MENS_MORRIS, x, y)


def _digest(endgames: Endgames) -> tuple[bytes, list[tuple[int, int]]]:
    """A digest of the store's class rows (what a probe file was made from), and the classes."""
    infos = [i for i in endgames.classes() if (i.mover, i.other) in CLASSES]
    rows = [
        (i.mover, i.other, i.stored, i.wins, i.losses, i.draws, i.longest_win, i.build_s)
        for i in infos
    ]
    text = repr((_MAGIC, str(endgames.path.resolve()), rows)).encode()
    return hashlib.sha256(text).digest(), [(i.mover, i.other) for i in infos]


def _read_prefix(path: Path) -> tuple[bytes, int] | None:
    """The digest and the array length a probe file says it holds, or ``None``."""
    try:
        with open(path, "rb") as file:
            prefix = file.read(_PREFIX)
            size = os.fstat(file.fileno()).st_size
    except OSError:
        return None
    if len(prefix) < _PREFIX or prefix[:8] != _MAGIC:
        return None
    length = int.from_bytes(prefix[40:48], "little")
    if size != _PREFIX + length:
        return None
    return prefix[8:40], length


def write_probe_file(endgames: Endgames, *, on_write: ProbeListener | None = None) -> Path:
    """Write (or rewrite) the probe file of ``endgames``'s store from its classes
    (:func:`.probe_file.probe_path`: beside the store, or in ``$ZEROSUM_PROBE_DIR``, made if
    missing), one table in memory at a time; atomically: a reader sees the old file or the new
    one whole. ``on_write`` hears of the start and of the end, or of the :class:`OSError`
    that stopped it (which is raised again)."""
    digest, present = _digest(endgames)
    target = probe_path(endgames.path)
    *_, length = _layout(present)
    size = _PREFIX + length
    readers = {key: (lambda key=key: endgames.table(*key, keep=False)) for key in present}
    temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    started = time.perf_counter()
    if on_write is not None:
        on_write(ProbeWrite(target, size))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(temporary, "wb") as out:
            out.write(_MAGIC + digest + length.to_bytes(8, "little") + bytes(_PREFIX - 48))
            for chunk in _chunks(readers):
                out.write(chunk if isinstance(chunk, bytes) else chunk.tobytes())
        os.replace(temporary, target)
    except OSError as error:
        if on_write is not None:
            reason = error.strerror or type(error).__name__
            on_write(ProbeWrite(target, size, time.perf_counter() - started, reason))
        raise
    finally:
        temporary.unlink(missing_ok=True)
    if on_write is not None:
        on_write(ProbeWrite(target, size, time.perf_counter() - started))
    return target


def probe_array(
    store: str | Path, *, on_write: ProbeListener | None = announce
) -> np.ndarray[Any, Any]:
    """The probe's array for the store at ``store``: its probe file mapped read-only, written
    first if it is missing or older than the store's classes (``on_write`` hears of the
    writing, by default this process's listeners: :func:`.probe_file.listen`); in memory when
    the file cannot be written; empty when there is no store or no class in it. Never builds
    a class."""
    try:
        endgames = Endgames(store, create=False)
    except EndgameError as error:
        if Path(store).exists():  # there, but damaged or unreadable: said, then left out
            announce_unusable(store, str(error))
        return array_of({})
    with endgames:
        try:
            digest, present = _digest(endgames)
            if not present:
                return array_of({})
            target = probe_path(endgames.path)
            found = _read_prefix(target)
            if found is None or found[0] != digest:
                try:
                    write_probe_file(endgames, on_write=on_write)
                except OSError:  # a folder this user cannot write: the same array, in memory
                    return array_of({key: endgames.table(*key, keep=False) for key in present})
                found = _read_prefix(target)
                if found is None or found[0] != digest:  # rewritten meanwhile, elsewhere
                    return array_of({key: endgames.table(*key, keep=False) for key in present})
        except Exception as error:  # a damaged table (or rows): said, then left out
            detail = str(error).splitlines()[0] if str(error) else type(error).__name__
            announce_unusable(endgames.path, f"cannot read {endgames.path}: {detail}")
            return array_of({})
    with open(target, "rb") as file:
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    array: np.ndarray[Any, Any] = np.frombuffer(mapped, np.uint8, offset=_PREFIX)
    return array


def other_counts() -> np.ndarray[Any, Any]:
    """``C(24 - x, y)`` per class in the order of :data:`CLASSES` (the compiled probe's)."""
    n = NINE_MENS_MORRIS.size
    return np.array([comb(n - x, y) for x, y in CLASSES], dtype=np.int64)
