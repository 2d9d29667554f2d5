"""The compiled morris probe reads every class a store holds, 3-3 to 6-6, from the mapped file.

Building the classes past 4-4 takes minutes, so the store here holds made-up tables of the
real sizes: zeros (draws) except at the entries of sampled positions, which get distinct codes.
The compiled probe (:func:`zerosum.compiled.morris.probe`) must read for every sampled position
what the pure-Python probe reads (:meth:`zerosum.endgames.database.Endgames.code`), and a draw
elsewhere.
"""

from __future__ import annotations

import json
import random
import sqlite3
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from zerosum.cli import main
from zerosum.compiled import morris as kernel
from zerosum.compiled.engine import NO_SCORE
from zerosum.compiled.solver import rank_of
from zerosum.endgames import mapped
from zerosum.endgames import probe as endgames_probe
from zerosum.endgames.board import NINE_MENS_MORRIS
from zerosum.endgames.database import Endgames
from zerosum.endgames.orbits import orbits, permutation_bytes, table_size
from zerosum.endgames.probe_file import ENV_PROBE_DIR, ProbeWrite, listen
from zerosum.endgames.reduced import lookup_index
from zerosum.endgames.retro import binomials
from zerosum.games.morris import Morris

CLASSES = [(3, 3), (4, 6), (5, 5), (6, 3), (6, 6)]
"""Every number of men to move (3 to 6), six against, and the two largest tables."""
SAMPLES = 60


def _position(rng: random.Random, x: int, y: int) -> tuple[int, int]:
    points = rng.sample(range(24), x + y)
    return sum(1 << p for p in points[:x]), sum(1 << p for p in points[x:])


def _index(x: int, y: int, mine: int, theirs: int) -> int:
    """The entry of a position, by the compiled solve's own index (run as plain Python)."""
    found = orbits(NINE_MENS_MORRIS, x)
    count = int(binomials(24)[24 - x, y])
    perm, binom = permutation_bytes(NINE_MENS_MORRIS), binomials(24)
    index = lookup_index.py_func(
        mine, theirs, count, found.orbit, found.sym, found.rep, perm, binom
    )
    return int(index)


def _commit(path: Path, x: int, y: int, table: np.ndarray[Any, Any], build_s: float) -> None:
    """A class row as a build commits it (the counts do not matter to a probe)."""
    db = sqlite3.connect(path)
    with db:
        db.execute(
            "INSERT OR REPLACE INTO endgame_tables VALUES "
            "('morris', ?, ?, 0, 0, ?, 0, 0, 0, 0, 0, ?, 0, ?)",
            (x, y, len(table), build_s, zlib.compress(table.tobytes(), 1)),
        )
    db.close()


@pytest.fixture(scope="module")
def made_up(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[Any, Any]]]:
    """A store of made-up classes, and per class the sampled positions with their codes."""
    path = tmp_path_factory.mktemp("probe") / "endgames.sqlite"
    Endgames(path).close()  # the schema
    rng = random.Random(27)
    samples: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for x, y in CLASSES:
        table = np.zeros(table_size(NINE_MENS_MORRIS, x, y), np.uint8)
        samples[(x, y)] = []
        for k in range(SAMPLES):
            mine, theirs = _position(rng, x, y)
            code = 1 + k % 99  # wins and losses within the move limit
            table[_index(x, y, mine, theirs)] = code
            samples[(x, y)].append((mine, theirs, code))
        _commit(path, x, y, table, 1.0)
        del table
    yield path, samples


def _state(mine: int, theirs: int, *, counter: int = 0) -> np.ndarray[Any, Any]:
    board = ["."] * 24
    for p in range(24):
        board[p] = "W" if mine >> p & 1 else "B" if theirs >> p & 1 else "."
    game = Morris.from_position(f"{''.join(board)} w 0 0 {counter}")
    return np.array(kernel.state_of(game), np.int64)


def _read(found: int) -> int:
    """The code a probe's score stands for (a game from ply 0)."""
    rank = rank_of(found)
    if rank == 0:
        return 0
    return kernel.RANK_BASE - abs(rank) + 1


def test_the_compiled_probe_reads_every_class_as_the_pure_probe_does(
    made_up: tuple[Path, dict[Any, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, samples = made_up
    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(path))
    monkeypatch.setattr(kernel, "_TABLES", {})
    monkeypatch.setattr(endgames_probe, "_OPENED", {})
    aux = kernel.endgame_tables()
    assert mapped.probe_path(path).exists()  # mapped from the file beside the store
    assert [bool(b) for b in aux[:16]] == [key in CLASSES for key in mapped.CLASSES]
    rng = random.Random(5)
    with Endgames(path, create=False) as endgames:
        for (x, y), sampled in samples.items():
            for mine, theirs, code in sampled:
                assert endgames.code(mine, theirs) == code  # the oracle reads what was put
                found = kernel.probe(_state(mine, theirs), aux)
                assert _read(found) == code, (x, y, code)
                assert (found > 0) == (code % 2 == 0)  # an odd distance: the mover loses
                if x != y:  # (with x == y, the two sides' men may be images of each other)
                    assert endgames.code(theirs, mine) in (0, None)  # the other side to move
            for _ in range(SAMPLES):  # positions not sampled (nearly always): the same draw
                mine, theirs = _position(rng, x, y)
                expected = endgames.code(mine, theirs)
                assert expected is not None
                assert _read(kernel.probe(_state(mine, theirs), aux)) == expected
        # A class the store lacks, and a result past the move limit, are left to the search.
        mine, theirs = _position(rng, 5, 6)
        assert endgames.code(mine, theirs) is None
        assert kernel.probe(_state(mine, theirs), aux) == NO_SCORE
        mine, theirs, code = samples[(6, 6)][-1]
        assert kernel.probe(_state(mine, theirs, counter=100 - code + 2), aux) == NO_SCORE


def test_the_probe_file_is_the_array_and_follows_the_store(
    made_up: tuple[Path, dict[Any, Any]], tmp_path: Path
) -> None:
    source, _ = made_up
    path = tmp_path / "small.sqlite"
    Endgames(path).close()
    three = np.arange(table_size(NINE_MENS_MORRIS, 3, 3), dtype=np.int64).astype(np.uint8)
    _commit(path, 3, 3, three, 1.0)
    first = mapped.probe_array(path)
    assert np.array_equal(first, mapped.array_of({(3, 3): three}))
    assert not first.flags.writeable
    stamp = mapped.probe_path(path).stat().st_mtime_ns
    assert np.array_equal(mapped.probe_array(path), first)  # up to date: not written again
    assert mapped.probe_path(path).stat().st_mtime_ns == stamp
    with Endgames(source, create=False) as endgames:
        six = endgames.table(6, 3)
    _commit(path, 6, 3, six, 2.0)  # the store changed: the file is written again
    assert np.array_equal(mapped.probe_array(path), mapped.array_of({(3, 3): three, (6, 3): six}))
    assert len(first) == mapped.HEADER + 2024 * 3 + 158 * 3 + len(three)  # still readable
    assert len(mapped.probe_array(tmp_path / "none.sqlite")) == 0  # no store: nothing


def _small_store(folder: Path) -> tuple[Path, np.ndarray[Any, Any]]:
    """A store in ``folder`` with one made-up class, 3-3."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "small.sqlite"
    Endgames(path).close()
    three = np.arange(table_size(NINE_MENS_MORRIS, 3, 3), dtype=np.int64).astype(np.uint8)
    _commit(path, 3, 3, three, 1.0)
    return path, three


def test_the_probe_file_goes_to_the_folder_named_and_its_writing_is_heard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, three = _small_store(tmp_path / "store")
    elsewhere = tmp_path / "probes" / "made"  # made when the first file is written
    monkeypatch.setenv(ENV_PROBE_DIR, str(elsewhere))
    notes: list[ProbeWrite] = []
    array = mapped.probe_array(path, on_write=notes.append)
    assert np.array_equal(array, mapped.array_of({(3, 3): three}))
    (written,) = elsewhere.iterdir()
    assert written == mapped.probe_path(path)
    assert written.name.startswith("small.sqlite.") and written.suffix == ".probe"
    assert not Path(f"{path}.probe").exists()  # nothing beside the store
    start, end = notes
    assert start == ProbeWrite(written, written.stat().st_size)
    assert (end.path, end.size, end.error) == (written, start.size, None)
    assert end.seconds is not None and end.seconds >= 0
    notes.clear()
    assert np.array_equal(mapped.probe_array(path, on_write=notes.append), array)
    assert notes == []  # up to date: not written again
    other, _ = _small_store(tmp_path / "other")  # the same name in another folder
    assert mapped.probe_path(other).parent == elsewhere and mapped.probe_path(other) != written
    monkeypatch.setenv(ENV_PROBE_DIR, "")
    assert mapped.probe_path(path) == Path(f"{path}.probe")


def test_a_probe_folder_that_cannot_be_written_leaves_the_array_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, three = _small_store(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(ENV_PROBE_DIR, str(blocker / "probes"))  # under a file: never a folder
    notes: list[ProbeWrite] = []
    array = mapped.probe_array(path, on_write=notes.append)
    assert np.array_equal(array, mapped.array_of({(3, 3): three}))
    assert [note.error is not None for note in notes] == [False, True]
    assert sorted(tmp_path.rglob("*.probe*")) == []  # nor beside the store, nor a temporary


def test_build_endgames_says_in_one_line_when_the_probe_folder_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``build-endgames`` writes the probe file itself once the classes are stored: a folder
    it cannot write leaves the tables in memory for the engines, which the command says on
    stderr (its JSON's ``probe_file`` is null), and the build still succeeds."""
    path, _ = _small_store(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(ENV_PROBE_DIR, str(blocker / "probes"))
    argv = ["build-endgames", "morris", "--max-men", "3", "--store", str(path), "--json"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["probe_file"] is None
    (line,) = [line for line in err.splitlines() if "probe file" in line]
    assert line.startswith(f"zerosum: cannot write the endgame probe file {blocker / 'probes'}/")
    assert line.endswith(f"expected a writable folder in ${ENV_PROBE_DIR}")


def test_the_listeners_hear_of_an_engines_probe_file_until_they_stop(tmp_path: Path) -> None:
    path, _ = _small_store(tmp_path)
    notes: list[ProbeWrite] = []
    stop = listen(notes.append)
    try:
        mapped.probe_array(path)  # an engine's call: no callback of its own
    finally:
        stop()
    assert len(notes) == 2 and notes[1].seconds is not None
    mapped.probe_path(path).unlink()
    mapped.probe_array(path)
    assert len(notes) == 2  # stopped: not heard


def test_a_command_says_on_stderr_when_it_writes_the_probe_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The compiled morris engine of ``analyze`` meets a store without its probe file (as a
    copied store would be): the command says it writes the file, then that it is done."""
    path, _ = _small_store(tmp_path)
    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(path))
    monkeypatch.setenv("ZEROSUM_COMPILE", "wait")  # the compiled engine, not its twin
    monkeypatch.setattr(kernel, "_TABLES", {})
    argv = ["analyze", "morris", "--position", "WWW...............BBB... w 0 0"]
    assert main([*argv, "--algorithm", "compiled", "--depth", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    target = mapped.probe_path(path)
    assert target.exists() and out.startswith("{")
    assert err.splitlines() == [
        f"zerosum: writing the endgame probe file {target} (0.2 MB, once for this store)",
        err.splitlines()[1],
    ]
    assert err.splitlines()[1].startswith("zerosum: wrote the endgame probe file in ")


def _damaged(folder: Path, how: str) -> Path:
    """A store in ``folder`` damaged as ``how`` says: not a database at all, 8 KB overwritten
    after its first page, or a class whose table is not compressed data."""
    path, _ = _small_store(folder)
    if how == "junk":
        path.write_bytes(b"not a database, just text\n" * 400)
    elif how == "overwritten":
        with open(path, "r+b") as file:
            file.seek(4096)
            file.write(b"\xff" * 8192)
    else:
        db = sqlite3.connect(path)
        with db:
            db.execute("UPDATE endgame_tables SET data = randomblob(1000)")
        db.close()
    return path


@pytest.mark.parametrize("algorithm", ["alphabeta", "compiled"])
@pytest.mark.parametrize("how", ["junk", "overwritten", "table"])
def test_a_damaged_store_is_said_once_and_the_search_goes_on_without_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    how: str,
    algorithm: str,
) -> None:
    """issue 24: a damaged ``$ZEROSUM_ENDGAMES`` file was ignored silently. Now the command
    says so in one line (once, though the search probes at every node) and answers as it does
    without a store."""
    from zerosum.endgames import probe_file

    argv = ["analyze", "morris", "--position", "WWW...............BBB... w 0 0"]
    argv += ["--algorithm", algorithm, "--depth", "2", "--json"]
    monkeypatch.setenv("ZEROSUM_COMPILE", "wait")  # the compiled engine, not its twin
    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(tmp_path / "none.sqlite"))
    assert main(argv) == 0
    out, err = capsys.readouterr()
    expected = {k: v for k, v in json.loads(out).items() if k in ("value", "best_moves", "pv")}
    assert err == ""  # no store at all: nothing to say
    path = _damaged(tmp_path / how, how)
    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(path))
    monkeypatch.setattr(endgames_probe, "_OPENED", {})
    monkeypatch.setattr(probe_file, "_reported", set())
    monkeypatch.setattr(kernel, "_TABLES", {})
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert {k: v for k, v in json.loads(out).items() if k in expected} == expected
    lines = [line for line in err.splitlines() if "probe file" not in line]
    assert len(lines) == 1, err
    assert lines[0].startswith("zerosum: warning: the search goes on without an endgame store: ")
    assert str(path) in lines[0]
