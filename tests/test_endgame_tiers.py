"""Endgame tiers built in dependency order on an executor equal the serial build."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from test_cli_crash import ENV
from test_endgames import store  # noqa: F401  (the session's serially built classes)
from waiting import HANG_S

from zerosum.endgames.board import NINE_MENS_MORRIS
from zerosum.endgames.database import EndgameError, Endgames
from zerosum.endgames.tiers import (
    build_tier,
    build_tiers,
    count_unit,
    inputs_folder,
    tier_graph,
    work_folder,
    write_input,
)
from zerosum.runtime.executor import ProcessExecutor, SerialExecutor, WorkerError


def test_the_tier_graph_follows_the_removals() -> None:
    graph = tier_graph(5)
    assert graph[(3, 3)] == frozenset()
    assert graph[(3, 4)] == {(3, 3)}
    assert graph[(4, 4)] == {(3, 4)}
    assert graph[(3, 5)] == {(3, 4)}  # 3-5 removes to 4-3 and 2-5 (won): independent of 4-4
    assert graph[(4, 5)] == {(4, 4), (3, 5)}
    assert graph[(5, 5)] == {(4, 5)}
    order = list(graph)
    assert all(order.index(need) < order.index(tier) for tier in graph for need in graph[tier])


@pytest.mark.slow  # test_endgames' serial build of 3-3, 3-4 and 4-3 (slow), then the tiers
def test_tiers_on_worker_processes_equal_the_serial_build(
    store: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    seen = []
    with Endgames(tmp_path / "tiers.sqlite") as built, ProcessExecutor(2) as pool:
        infos = build_tiers(built, pool, 4, through=(4, 3), on_class=seen.append)
        assert [(i.mover, i.other) for i in infos] == [(3, 3), (3, 4), (4, 3)]
        assert [(i.mover, i.other) for i in seen] == [(3, 3), (3, 4), (4, 3)]
        with Endgames(store, create=False) as serial:
            for info in infos:
                key = (info.mover, info.other)
                assert np.array_equal(built.table(*key), serial.table(*key)), key
        again = build_tiers(built, pool, 4, through=(3, 4))
        assert all(not info.built_now for info in again)
    assert infos[0].entries == 2_691_920  # 3-3: Gasser's and Malom's count


class Recording(ProcessExecutor):
    """Worker processes that note every unit they are given."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.units: list[tuple[str, tuple[object, ...]]] = []

    def submit(self, fn, /, *args):  # type: ignore[no-untyped-def]
        self.units.append((fn.__name__, args))
        return super().submit(fn, *args)


def test_tiers_in_parts_equal_the_one_unit_build(
    store: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Parts of 200,000 entries split 3-4 and 4-3 into 5 each, step 1 and every level's two
    rounds; one part of 3-4 is built beforehand (as by an interrupted run) and is not built
    again."""
    path = tmp_path / "parts.sqlite"
    size = 200_000
    with Endgames(path) as built, Recording(2) as pool:
        build_tiers(built, pool, 3)  # 3-3, the input of 3-4's parts
        folder = work_folder(path, (3, 4), size)
        inputs = tmp_path / "inputs"
        write_input(built, inputs, 3, 3)
        count_unit(NINE_MENS_MORRIS, str(inputs), str(folder), 3, 4, 200_000, 400_000)
        infos = build_tiers(built, pool, 4, through=(4, 3), part_size=size)
        kinds = [name for name, _ in pool.units]
        assert kinds.count("build_tier") == 1  # 3-3, whole (no part size given)
        parts = [args for name, args in pool.units if name == "count_unit"]
        assert len(parts) == 5 + 5 - 1
        assert all(args[3:] != (3, 4, 200_000, 400_000) for args in parts)
        assert not inputs_folder(path).exists()  # removed at the end of the build
        levels = kinds.count("predecessors_unit")
        assert levels == kinds.count("apply_unit") and levels % 10 == 0 and levels >= 10 * 33
        assert kinds.count("finish_unit") == 1
        assert not folder.exists()  # removed once the tier is stored
        with Endgames(store, create=False) as serial:
            for info in infos:
                key = (info.mover, info.other)
                assert np.array_equal(built.table(*key), serial.table(*key)), key
                (same,) = [i for i in serial.classes() if i.name == info.name]
                counted = ("entries", "classes", "stored", "wins", "losses", "draws")
                assert [getattr(info, f) for f in counted] == [getattr(same, f) for f in counted]
    assert [i.name for i in infos] == ["3-3", "3-4", "4-3"]


def _levels_reached(folder: Path) -> int:
    """The next level the tier's passes will run, as the build recorded it (-1 before)."""
    from zerosum.endgames.split_levels import load_levels

    found = load_levels(folder)
    return -1 if found is None else found[0]


@pytest.mark.slow  # the 3-4 tier in parts, interrupted in its level passes, then resumed
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["kill -9", "ctrl-c"])
def test_a_build_interrupted_in_its_level_passes_resumes_there(
    store: Path,  # noqa: F811
    tmp_path: Path,
    how: signal.Signals,
) -> None:
    """``build-endgames`` is stopped while it runs the level passes of the 3-4 tier in parts
    (once it has recorded level 5: a state the test sees in the work folder, never a time).
    The rerun builds no part of step 1 again, resumes at the level recorded or later, and its
    tables equal the serial build's."""
    path = tmp_path / "levels.sqlite"
    size = 500_000  # two parts a class
    folder = work_folder(path, (3, 4), size)
    command = [sys.executable, "-m", "zerosum", "build-endgames", "morris", "--max-men", "4"]
    command += ["--workers", "2", "--part-size", str(size), "--store", str(path)]
    process = subprocess.Popen(command, env=ENV, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 600
        while _levels_reached(folder) < 5:
            assert process.poll() is None, "the build ended before its level passes"
            assert time.monotonic() < deadline, "no level 5 recorded"
            time.sleep(0.02)  # polling an observable state, not waiting a fixed time
        process.send_signal(how)
        code = process.wait(timeout=HANG_S)
        assert code == (-signal.SIGKILL if how is signal.SIGKILL else 130), code
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    reached = _levels_reached(folder)
    assert reached >= 5  # the record survives the signal
    with Endgames(path) as built, Recording(2) as pool:
        infos = build_tiers(built, pool, 4, through=(4, 3), part_size=size)
        kinds = [name for name, _ in pool.units]
        assert "count_unit" not in kinds  # step 1's parts were kept
        levels = [args[-1] for name, args in pool.units if name == "predecessors_unit"]
        assert levels and min(levels) == reached  # resumed at the level recorded
        assert not folder.exists()
        with Endgames(store, create=False) as serial:
            for key in [(3, 4), (4, 3)]:
                assert np.array_equal(built.table(*key), serial.table(*key)), key
    assert [i.name for i in infos] == ["3-3", "3-4", "4-3"]


def test_an_apply_unit_run_again_after_an_interruption_applies_once(tmp_path: Path) -> None:
    """A level's apply unit counts moves down, so it must not run twice on one part: run
    again after it stopped (its marker gone, its entries in any state), it puts its entries
    back from its journal and applies once; with its marker there, it does nothing."""
    import shutil

    from zerosum.endgames.orbits import table_size
    from zerosum.endgames.split_levels import (
        apply_unit,
        level_folder,
        predecessors_unit,
        state_file,
    )

    path = tmp_path / "three.sqlite"
    with Endgames(path) as endgames:
        endgames.build(3)  # 3-3: the input of 3-4's step 1
    folder, size = tmp_path / "work", 200_000
    parts = [
        (m, o, lo, min(lo + size, table_size(NINE_MENS_MORRIS, m, o)))
        for m, o in [(3, 4), (4, 3)]
        for lo in range(0, table_size(NINE_MENS_MORRIS, m, o), size)
    ]
    with Endgames(path) as endgames:
        write_input(endgames, tmp_path / "inputs", 3, 3)
    for m, o, lo, hi in parts:
        count_unit(NINE_MENS_MORRIS, str(tmp_path / "inputs"), str(folder), m, o, lo, hi)
        shutil.copyfile(folder / f"{m}-{o}.{lo}.npy", state_file(folder, m, o, lo))
    for level in (0, 1):  # level 1: the decided wins count their predecessors' moves down
        for m, o, lo, _ in parts:
            predecessors_unit(NINE_MENS_MORRIS, str(folder), m, o, lo, level)
        for m, o, lo, hi in parts[1:]:
            apply_unit(str(folder), m, o, lo, hi, level)
        m, o, lo, hi = parts[0]
        top, _ = apply_unit(str(folder), m, o, lo, hi, level)
        state = state_file(folder, m, o, lo)
        once = np.load(state).copy()
        marker = level_folder(folder, level) / f"applied.{m}-{o}.{lo}.npy"
        assert apply_unit(str(folder), m, o, lo, hi, level)[0] == top  # marked: not again
        assert np.array_equal(np.load(state), once)
        marker.unlink()  # as if stopped between its last change and its marker
        sources = len(list(level_folder(folder, level).glob(f"{o}-{m}.*.npy")))
        with pytest.raises(EndgameError, match=f"{sources} of the {sources + 1} lists of level"):
            apply_unit(str(folder), m, o, lo, hi, level, sources + 1)  # one not seen: refused
        assert np.array_equal(np.load(state), once)  # untouched
        journal = np.load(level_folder(folder, level) / f"undo.{m}-{o}.{lo}.npy")
        assert level == 0 or len(journal[0]) > 0
        arrays = np.load(state, mmap_mode="r+")
        arrays[1][journal[0]] = 7  # whatever an interrupted run left in its entries
        arrays.flush()
        del arrays
        assert apply_unit(str(folder), m, o, lo, hi, level, sources)[0] == top
        assert np.array_equal(np.load(state), once)


def test_a_unit_that_cannot_see_its_inputs_fails_in_one_line(tmp_path: Path) -> None:
    """A worker that does not see the folder of inputs (a node without the shared file
    system) stops the build with one line naming the file, directly and from a worker."""
    missing = str(tmp_path / "store.sqlite.parts" / "inputs")
    with pytest.raises(EndgameError, match=r"cannot read the input table .*3-3\.npy") as caught:
        count_unit(NINE_MENS_MORRIS, missing, str(tmp_path / "parts"), 3, 4, 0, 1000)
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "parts").exists()
    with ProcessExecutor(1) as pool:
        future = pool.submit(build_tier, NINE_MENS_MORRIS, missing, 3, 4)
        while not future.done():
            pool.wait([future], 1.0)
        with pytest.raises(WorkerError) as failed:
            future.result()
    assert str(failed.value).endswith(str(caught.value)) and "\n" not in str(failed.value)


def test_a_second_build_of_a_store_stops_at_once_while_one_runs(tmp_path: Path) -> None:
    """Two builds of one store at once would remove each other's inputs and level lists: a
    build that finds the store's build lock held stops before it does anything, in one line
    naming the holder. The holder killed (kill -9), its lock is gone with it, and the next
    build runs and leaves no work folder behind."""
    path = (tmp_path / "two.sqlite").resolve()
    script = (
        "import sys\n"
        "from zerosum.endgames.tiers import one_build\n"
        "with one_build(sys.argv[1]):\n"
        "    print('held', flush=True)\n"
        "    sys.stdin.read()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(path)],
        env=ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with Endgames(path) as endgames:
            with pytest.raises(EndgameError, match=r"another build of .* is running") as caught:
                build_tiers(endgames, SerialExecutor(), 3)
            assert endgames.classes() == []
        assert f"(process {holder.pid} on " in str(caught.value)
        assert "\n" not in str(caught.value)
    finally:
        holder.kill()
        holder.wait()
    with Endgames(path) as endgames:
        infos = build_tiers(endgames, SerialExecutor(), 3)
    assert [info.name for info in infos] == ["3-3"]
    assert not Path(f"{path}.parts").exists()
