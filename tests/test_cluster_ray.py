"""Distributed solving on a local Ray cluster (skipped only when Ray is not installed)."""

from __future__ import annotations

import asyncio
import importlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")

from waiting import HANG_S

from zerosum.cli import main
from zerosum.compiled.distributed import _unit_solver, solve_distributed, solve_unit, warm_unit
from zerosum.endgames.board import NINE_MENS_MORRIS
from zerosum.endgames.database import EndgameError
from zerosum.endgames.tiers import count_unit
from zerosum.games.connect4 import Connect4
from zerosum.runtime import Executor, ProcessExecutor, SerialExecutor
from zerosum.runtime.cluster import RayTaskExecutor
from zerosum.search import Limit
from zerosum.store import Store

POSITION, SCORE = "32164625", 11
"""The first position of Test_L1_R1 and its exact score."""


def settle(executor: Executor, futures: list[Any], what: str) -> None:
    """Wait through ``executor`` until every one of ``futures`` is done (bounded against a
    hang only)."""
    deadline = time.monotonic() + HANG_S
    while not all(future.done() for future in futures):
        assert time.monotonic() < deadline, f"still waiting after {HANG_S:g} s: {what}"
        executor.wait([future for future in futures if not future.done()], 1.0)


def tell_once_it_runs(executor: Executor, future: Any, window: tuple[int, int]) -> None:
    """Tell ``future``'s unit the window ``window`` as soon as it runs (bounded against a hang
    only)."""
    deadline = time.monotonic() + HANG_S
    while not executor.narrow(future, window):
        assert time.monotonic() < deadline, "the unit never started"
        executor.wait([future], 0.05)


def start_endless(executor: Executor, window: tuple[int, int] = (-100, 99)) -> Any:
    """The empty board's unit (minutes of search) on ``executor``, once it runs, told
    ``window`` (by default one that decides nothing yet)."""
    endless = executor.submit(solve_unit, "connect4", "", (-100, 100), False, 16)
    tell_once_it_runs(executor, endless, window)
    return endless


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[RayTaskExecutor]:
    executor = RayTaskExecutor("auto", workers=2)
    yield executor
    executor.shutdown()


def test_a_solve_on_ray_gives_the_known_score(ray_cluster: RayTaskExecutor, tmp_path: Path) -> None:
    assert ray_cluster.workers == 2
    with Store(tmp_path / "ray.sqlite") as store:
        found = solve_distributed(
            Connect4.from_position(POSITION), executor=ray_cluster, store=store
        )
        assert found.rank == SCORE and found.solved > 0
        # what was proven is kept (symmetric twins share a row, so rows <= units solved): the
        # same solve again is answered from the store without a unit
        assert store.count("connect4") > 0
        again = solve_distributed(
            Connect4.from_position(POSITION), executor=ray_cluster, store=store
        )
        assert (again.rank, again.units, again.stored) == (SCORE, 0, True)


def test_an_interrupted_ray_solve_resumes(ray_cluster: RayTaskExecutor, tmp_path: Path) -> None:
    game = Connect4.from_position(POSITION)
    arrived: list[Any] = []
    path = tmp_path / "resume.sqlite"
    with Store(path) as store:
        stopped = solve_distributed(
            game,
            executor=ray_cluster,
            store=store,
            limit=Limit(stop=lambda: len(arrived) >= 2),
            on_unit=lambda position, rank: arrived.append(position),
        )
        assert stopped.rank is None and store.count() >= 2
    key = _unit_solver("connect4", 1).compiled.canonical_key
    again: list[Any] = []
    with Store(path) as store:
        resumed = solve_distributed(
            game,
            executor=ray_cluster,
            store=store,
            on_unit=lambda position, rank: again.append(position),
        )
    # What the first run kept is taken, never searched again. How many stored positions the
    # second tree meets depends on the order the units came back in (a stored inner position
    # hides the units below it), so from_store may be fewer than the units kept.
    assert resumed.rank == SCORE and resumed.from_store >= 1
    assert {key(position) for position in arrived}.isdisjoint(key(p) for p in again)
    # no budget, no split: the kept units are not units of the second run
    assert resumed.units + len({key(position) for position in arrived}) <= stopped.units


def test_the_command_line_joins_the_running_ray(
    ray_cluster: RayTaskExecutor, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(tmp_path / "cli.sqlite")
    argv = ["solve", "connect4", "--moves", POSITION, "--cluster", "auto", "--store", path]
    assert main([*argv, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["score"] == SCORE and first["complete"] and first["cluster"] == "auto"
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"score +{SCORE} (win in 13 plies)\nbest moves 3\n")
    assert out.rstrip().endswith("(from the store)")


def test_a_stopped_ray_task_answers_and_a_cancelled_one_frees_its_cpu(
    ray_cluster: RayTaskExecutor,
) -> None:
    # The empty board without a budget would run for minutes on each of the two CPUs.
    endless = [
        ray_cluster.submit(solve_unit, "connect4", "", (-100, 100), False, 16) for _ in range(2)
    ]
    assert ray_cluster.stop(endless[0])  # asked to stop: its answer comes, what it proved
    ray_cluster.cancel(endless[1])  # asked to stop, its answer dropped: its CPU is free again
    settle(ray_cluster, endless[:1], "the stopped unit's answer")
    answer = endless[0].result()
    assert answer.rank is None and answer.nodes >= 1
    small = [
        ray_cluster.submit(solve_unit, "connect4", POSITION, (-100, 100), False, 16)
        for _ in range(2)
    ]
    settle(ray_cluster, small, "two small units on the CPUs the endless ones held")
    assert [future.result().rank for future in small] == [SCORE, SCORE]


def test_a_units_bad_input_comes_back_as_raised_in_one_line(
    ray_cluster: RayTaskExecutor, tmp_path: Path
) -> None:
    """A unit's :class:`~zerosum.game.ZerosumError` is the caller's as the unit raised it (here:
    an endgame unit that cannot read its input table), not Ray's traceback around it."""
    missing = str(tmp_path / "inputs")
    future = ray_cluster.submit(count_unit, NINE_MENS_MORRIS, missing, str(tmp_path), 3, 4, 0, 9)
    while not future.done():
        ray_cluster.wait([future], 1.0)
    with pytest.raises(EndgameError) as caught:
        future.result()
    assert str(caught.value).startswith(f"cannot read the input table {missing}/3-3.npy")
    assert "\n" not in str(caught.value) and "ray::" not in str(caught.value)


FIELDS = ("game", "position", "algorithm", "weak", "score", "value", "value_text")
LOCAL_FIELDS = (*FIELDS, "best_moves", "complete", "scores", "unsolved", "move_values")


@pytest.mark.slow  # two more Ray starts
@pytest.mark.ray
@pytest.mark.parametrize("weak", [False, True])
def test_the_command_line_gives_the_local_solve(
    ray_cluster: RayTaskExecutor, capsys: pytest.CaptureFixture[str], weak: bool
) -> None:
    for every in ([], ["--all"]):
        argv = ["solve", "connect4", "--moves", POSITION, *every, *(["--weak"] * weak)]
        assert main([*argv, "--json"]) == 0
        local = json.loads(capsys.readouterr().out)
        assert main([*argv, "--cluster", "auto", "--json"]) == 0
        remote = json.loads(capsys.readouterr().out)
        assert {k: remote.get(k) for k in LOCAL_FIELDS} == {k: local.get(k) for k in LOCAL_FIELDS}
        assert remote["units_solved"] > 0 and not remote["stored"]
        assert main(argv) == 0
        local_text = capsys.readouterr().out.splitlines()
        assert main([*argv, "--cluster", "auto"]) == 0
        remote_text = capsys.readouterr().out.splitlines()
        # the same score, moves and best moves; then the units and nodes
        assert remote_text[:-2] == local_text[:-1]
    assert local["scores"]["1"] == (-1 if weak else -4)
    assert remote["best_moves"] == (["4", "3"] if weak else ["3"])  # weak: every win


# -- pool workers (zerosum.runtime.pool) ------------------------------------------------------


def _pool_solve(executor: Any) -> tuple[int | None, list[Any]]:
    with Store(":memory:") as store:
        found = solve_distributed(
            Connect4.from_position(POSITION), executor=executor, store=store, moves="best"
        )
    return found.rank, list(found.best_moves)


def test_pool_workers_outlive_their_command_and_only_their_own_code_reuses_them(
    ray_cluster: RayTaskExecutor,
) -> None:
    from zerosum.runtime.pool import NAMESPACE, RayPoolExecutor, pool_workers

    ray = ray_cluster._ray
    serial = _pool_solve(SerialExecutor())
    with RayPoolExecutor("auto", idle_s=HANG_S) as first:
        assert first.workers == first.ready() == 2 and first.made + first.reused == 2
        assert _pool_solve(first) == serial
    names = pool_workers(ray)
    assert len(names) == 2  # one per CPU of the node, alive after their command
    ids = {name: ray.get_actor(name, namespace=NAMESPACE)._actor_id for name in names}
    with RayPoolExecutor("auto", idle_s=HANG_S) as second:
        assert second.ready() == 2 and (second.reused, second.made) == (2, 0)
        assert _pool_solve(second) == serial
    assert {name: ray.get_actor(name, namespace=NAMESPACE)._actor_id for name in names} == ids
    # A command whose code differs from theirs (another version) neither uses nor stops them:
    # it has workers of its own, named for its code, made from the files of their node
    # (which are then taken as they are).
    with RayPoolExecutor("auto", idle_s=HANG_S, code="another version") as other:
        assert other.ready() == 2 and (other.reused, other.made) == (0, 2)
        assert _pool_solve(other) == serial
    theirs = sorted(set(pool_workers(ray)) - set(names))
    assert len(theirs) == 2
    assert {name: ray.get_actor(name, namespace=NAMESPACE)._actor_id for name in names} == ids
    with RayPoolExecutor("auto", idle_s=HANG_S) as back:  # they run this process's code
        assert back.ready() == 2 and (back.reused, back.made) == (2, 0)
    for name in theirs:  # the other version's go, as they would once idle
        ray.kill(ray.get_actor(name, namespace=NAMESPACE), no_restart=True)


def test_pool_workers_stop_units_when_asked_and_leave_when_idle(
    ray_cluster: RayTaskExecutor, tmp_path: Path
) -> None:
    from zerosum.runtime.pool import RayPoolExecutor, pool_workers

    with RayPoolExecutor("auto", idle_s=HANG_S) as pool:
        assert pool.ready() == 2  # both workers take units now: each starts at once
        # The empty board without a budget would run for minutes on each worker.
        endless = [pool.submit(solve_unit, "connect4", "", (-100, 100), False, 16) for _ in "ab"]
        waiting = pool.submit(solve_unit, "connect4", POSITION, (-100, 100), False, 16)
        assert not pool.split(waiting)  # not started: nothing to split
        assert pool.stop(endless[0])  # its answer comes, what it proved
        pool.cancel(endless[1])  # its answer is dropped, its worker free again
        settle(pool, [endless[0], waiting], "the stopped unit and the one that waited")
        assert endless[0].result().rank is None and waiting.result().rank == SCORE
        missing = str(tmp_path / "inputs")  # bad input: raised as the unit raised it
        bad = pool.submit(count_unit, NINE_MENS_MORRIS, missing, str(tmp_path), 3, 4, 0, 9)
        settle(pool, [bad], "a unit with bad input")
        with pytest.raises(EndgameError, match="cannot read the input table"):
            bad.result()
    # The last command's idle time is theirs: they leave once it has passed.
    with RayPoolExecutor("auto", idle_s=0.2):
        pass
    deadline = time.monotonic() + HANG_S
    while pool_workers(ray_cluster._ray):
        assert time.monotonic() < deadline, "the pool workers stayed after their idle time"
        time.sleep(0.1)  # polling an observable state, not waiting a fixed time


def _actors(ray: Any, name: str) -> int:
    """How many actors of class ``name`` the connected cluster has that are not dead."""
    state = importlib.import_module("ray._private.state")
    return sum(
        1
        for actor in state.actors().values()
        if actor.get("ActorClassName") == name and actor.get("State") != "DEAD"
    )


def test_a_pool_command_starts_no_actor_of_its_own(ray_cluster: RayTaskExecutor) -> None:
    # A Ray task's stop board is an actor of its command's: a Ray worker process started for
    # each command (0.5-0.9 CPU seconds of its node's). A pool command's units take their
    # stop requests and windows from their own workers: it starts none, and its units still
    # stop when asked and take the windows they are told.
    from zerosum.runtime.pool import RayPoolExecutor

    ray = ray_cluster._ray
    boards = _actors(ray, "_StopBoard")  # the task executor's own
    with RayPoolExecutor("auto", idle_s=HANG_S) as pool:
        assert pool.ready() == 2
        endless = start_endless(pool)
        assert _actors(ray, "_StopBoard") == boards
        assert pool.stop(endless)
        settle(pool, [endless], "the pool unit asked to stop")
        assert endless.result().rank is None


def test_a_pool_unit_reads_its_requests_and_its_commands_beats_on_its_worker() -> None:
    # What a pool worker keeps for its units, read by their stop checks without a message:
    # each unit's stop request and newest window (a window's calls may run out of order),
    # and its command's beats (a command that has not beaten for a while is gone).
    from zerosum.runtime.pool import PoolWorker

    worker = PoolWorker(idle_s=1e9)  # never leaves
    worker.beat("a")
    first, second = worker.check("a", 1, HANG_S), worker.check("a", 2, HANG_S)
    assert not first() and not second() and first.window() is None
    worker.narrow("a", 1, 2, -5, 5)
    worker.narrow("a", 1, 1, 0, 1)  # an older window, run late: changes nothing
    assert first.window() == (-5, 5) and second.window() is None
    worker.ask("a", 1)
    assert first() and not second()
    assert worker.check("b", 1, HANG_S)()  # a command never heard of is gone
    worker._beats["a"] -= HANG_S * 3 / 4  # "a" last beat a while ago
    assert worker.check("a", 2, HANG_S / 2)() and not second()
    worker._last -= HANG_S  # and so did this worker's last unit: a beat keeps it too
    worker.beat("a")
    assert not worker.check("a", 2, HANG_S / 2)()
    assert time.monotonic() - worker._last < HANG_S / 2
    # A unit's requests are dropped once it has run; a gone command's with it.
    worker.ask("a", 3)
    worker.narrow("a", 3, 1, 0, 1)
    worker.ask("c", 1)
    worker._beats["c"] = time.monotonic() - 2 * HANG_S
    assert worker.run([], "a", 3, int, ()) == (True, 0)
    assert ("a", 3) not in worker._asked and ("a", 3) not in worker._windows
    assert ("c", 1) not in worker._asked and "c" not in worker._beats
    assert ("a", 1) in worker._asked  # another unit's request stays until it runs


def test_a_running_units_beats_and_requests_pass_the_units_queued_behind_it(
    ray_cluster: RayTaskExecutor,
) -> None:
    # A pool worker runs one unit at a time and takes CALLS calls of units at once (other
    # commands' units wait there for the one that runs). Its control calls have slots of their
    # own: in the units' slots, a running unit's beats would wait behind the queue until the
    # unit stopped for want of them (GONE_S later) and freed it.
    from zerosum.runtime.pool import CALLS, RayPoolExecutor, _control

    with RayPoolExecutor("auto", idle_s=HANG_S) as pool:
        assert pool.ready() == 2
        endless = start_endless(pool)
        found = pool._unit(endless)
        assert found is not None and found[0] is not None
        actor = pool._slots[found[0]].actor
        queued = [actor.run.remote(pool._imports, None, 0, int, ()) for _ in range(CALLS)]
        pool._ray.get(_control(actor, "beat").remote(pool._command), timeout=HANG_S)
        assert not pool.wait([endless], 0.1)  # answered while the unit still runs
        assert pool.stop(endless)  # asked through the same slots
        settle(pool, [endless], "the running unit asked to stop behind a full queue")
        assert endless.result().rank is None
        assert pool._ray.get(queued, timeout=HANG_S) == [(True, 0)] * CALLS


@pytest.mark.slow  # GONE_S (10 s) of a unit left running
@pytest.mark.ray
def test_a_pool_unit_stops_once_its_command_no_longer_beats(ray_cluster: RayTaskExecutor) -> None:
    # A command killed with kill -9 beats no more: its unit (the empty board, minutes of
    # search) stops on its own after GONE_S, and its worker takes the next command's units.
    from zerosum.runtime.pool import GONE_S, RayPoolExecutor

    with RayPoolExecutor("auto", idle_s=HANG_S) as pool:
        assert pool.ready() == 2
        endless = start_endless(pool)
        pool._closed.set()  # its beats end, as with the command's process
        stopped = time.monotonic()
        settle(pool, [endless], "the unit whose command beats no more")
        assert endless.result().rank is None
        assert time.monotonic() - stopped >= GONE_S - 1.0  # not stopped before it was gone


def until_dead(ray: Any, actor: Any, command: str) -> None:
    """Wait until a call to ``actor`` fails as a dead actor's does (bounded against a hang)."""
    from zerosum.runtime.pool import _control

    deadline = time.monotonic() + HANG_S
    while True:
        try:
            ray.get(_control(actor, "beat").remote(command), timeout=HANG_S)
        except ray.exceptions.RayActorError:
            return
        assert time.monotonic() < deadline, "the killed worker still answers"


@pytest.mark.parametrize("request_", ["stop", "window"])
def test_a_unit_run_again_after_its_worker_died_is_told_what_its_command_asked(
    ray_cluster: RayTaskExecutor, request_: str
) -> None:
    # A pool worker keeps its units' stop requests and windows. When it dies, its unit runs
    # again on another worker: a stop request or a window sent to the dead one is told to
    # the new one, or the unit (the empty board in a wide window: minutes of search) would
    # run on unsplit, or in a window nobody needs, until it is solved.
    from zerosum.runtime.pool import RayPoolExecutor

    with RayPoolExecutor("auto", idle_s=HANG_S) as pool:
        assert pool.ready() == 2
        endless = start_endless(pool)
        ((index, _),) = pool._running.values()
        actor = pool._slots[index].actor
        ray_cluster._ray.kill(actor, no_restart=True)
        # ray.kill asks for the kill and returns: on a busy machine the worker could still
        # take the stop below and answer it (CI saw that once), and no run would be lost.
        until_dead(ray_cluster._ray, actor, pool._command)
        # Sent to the dead worker: the executor learns of its death only in wait(), and only
        # then runs the unit again on the other worker.
        if request_ == "stop":
            assert pool.stop(endless)
        else:
            assert pool.narrow(endless, (15, 16))  # does the first player win by move 8?
        settle(pool, [endless], "the unit run again after its worker died")
        assert pool.lost_runs == 1
        answer = endless.result()
        if request_ == "stop":
            assert answer.rank is None  # stopped at once, with what it proved
        else:
            assert answer.rank is not None and answer.proven is not None
            least, most = answer.proven
            assert least <= 1 <= most <= 15  # the empty board's score is +1


def test_a_running_unit_is_told_its_new_window(ray_cluster: RayTaskExecutor) -> None:
    # The empty board in a wide window would run for minutes; told that only (15, 16) matters
    # now (does the first player win by its eighth stone?), it answers within milliseconds,
    # with true bounds that decide that window. On Ray tasks, pool workers and local processes.
    from zerosum.runtime.pool import RayPoolExecutor

    with RayPoolExecutor("auto", idle_s=HANG_S) as pool, ProcessExecutor(1) as local:
        for executor in (ray_cluster, pool, local):
            endless = start_endless(executor, (15, 16))  # a window it decides at once
            settle(executor, [endless], "the unit told a window it decides at once")
            answer = endless.result()
            assert answer.rank is not None and answer.proven is not None
            least, most = answer.proven
            assert least <= 1 <= most <= 15  # the empty board's score is +1
            assert not executor.narrow(endless, (0, 1))  # done: nothing to tell


def test_a_pool_unit_sent_on_the_worker_of_another_runs_there_if_it_is_free(
    ray_cluster: RayTaskExecutor,
) -> None:
    # ``submit_on``: a split unit's first child goes to the worker whose table holds its
    # subtree. Each of two units that ran is followed by one sent on its worker, with both
    # workers free: it runs there, whichever worker is first in line.
    from zerosum.runtime.pool import RayPoolExecutor

    unit = (solve_unit, "connect4", POSITION, (-100, 100), False, 1)
    with RayPoolExecutor("auto", idle_s=HANG_S) as pool:
        first = [pool.submit(*unit) for _ in range(2)]
        settle(pool, first, "two units")
        for ran in first:
            again = pool.submit_on(ran, *unit)
            settle(pool, [again], "a unit sent on the worker of another")
            assert again.result().rank == SCORE
            assert pool._ran[again] == pool._ran[ran]


def test_a_unit_whose_board_is_gone_stops_on_its_own(ray_cluster: RayTaskExecutor) -> None:
    # A unit on a pool worker outlives its command: its stop check turns true once its board
    # (which dies with the command) has been unreachable for a while; a task's never does.
    from zerosum.runtime.raybase import _asks, stop_board

    ray = ray_cluster._ray
    board = stop_board(ray)
    ray.kill(board, no_restart=True)
    pooled, tasked = _asks(board, 1, gone_s=0.2), _asks(board, 1)
    deadline = time.monotonic() + HANG_S
    while not pooled():
        assert time.monotonic() < deadline, "the unit never learnt that its board is gone"
        assert not tasked()
        time.sleep(0.01)  # polling an observable state, not waiting a fixed time
    assert not tasked()


def test_a_told_window_outlives_its_board(ray_cluster: RayTaskExecutor) -> None:
    # The board dies after a unit was told a window and comes back empty: the executor tells
    # it the window again while it waits, and a window told after that is newer than any the
    # unit saw (numbered by the executor, not by the board, whose count would start again
    # at 1 and be ignored by a unit that saw 1 already), so the unit takes it and answers.
    ray = importlib.import_module("ray")
    endless = ray_cluster.submit(solve_unit, "connect4", "", (-100, 100), False, 16)
    board, number = ray_cluster._board, ray_cluster._numbers[endless]

    def kept() -> tuple[int, int, int] | None:
        try:
            _, *window = ray.get(board.watch.remote(number, 0, 0), timeout=HANG_S)
        except ray.exceptions.RayActorError:  # the call reached the board as it died
            return None
        return (window[0], window[1], window[2])

    assert ray_cluster.narrow(endless, (-100, 99))  # decides nothing: it searches on
    told = kept()
    assert told is not None and told[0] > 0 and told[1:] == (-100, 99)
    ray.kill(board, no_restart=False)  # as the kernel's kill -9 would
    deadline = time.monotonic() + HANG_S
    while kept() not in (None, (0, 0, 0)):  # the kill is asynchronous: wait until it took
        assert time.monotonic() < deadline, "the board was never restarted"
    while kept() != told:
        assert time.monotonic() < deadline, "the restarted board was never told the window"
        ray_cluster.wait([endless], 0.05)
    assert ray_cluster.narrow(endless, (15, 16))  # does it win by its eighth stone?
    settle(ray_cluster, [endless], "the unit told a window after its board restarted")
    answer = endless.result()
    assert answer.rank is not None and answer.proven is not None
    assert answer.proven[0] <= 1 <= answer.proven[1] <= 15  # the empty board's score is +1


def test_a_stop_request_outlives_its_board(ray_cluster: RayTaskExecutor) -> None:
    """(Last in this file: Ray tells the driver's output of each request sent while the board
    was down, after a delay, so a later test reading a command's output could see it.)

    The out-of-memory killer takes Ray's workers first: the actor that keeps the stop
    requests, killed after a unit was asked to stop, comes back empty; the executor sends the
    request again while it waits, and the unit stops (it searched the empty board for ever)."""
    ray = importlib.import_module("ray")
    endless = ray_cluster.submit(solve_unit, "connect4", "", (-100, 100), False, 16)
    assert ray_cluster.stop(endless)
    board, number = ray_cluster._board, ray_cluster._numbers[endless]
    assert ray.get(board.asked.remote(number), timeout=HANG_S)  # the request is on the board
    ray.kill(board, no_restart=False)  # as the kernel's kill -9 would
    settle(ray_cluster, [endless], "the unit asked to stop before its board died")
    assert endless.result().rank is None


def test_the_stop_board_answers_a_waiting_unit_when_it_is_asked() -> None:
    # The board's coroutines, run here as its actor runs them: a unit's wait returns as soon
    # as it is asked (not after its time), another unit's wait runs out, False; a unit asked
    # before it waits is told at once.
    from zerosum.runtime.raybase import _StopBoard

    async def scenario() -> tuple[bool, bool, bool, bool]:
        board = _StopBoard()
        first = asyncio.ensure_future(board.wait(1, HANG_S))
        other = asyncio.ensure_future(board.wait(2, 0.01))
        await asyncio.sleep(0)  # both wait now
        await board.ask(1)
        told = await asyncio.wait_for(first, HANG_S)
        await board.ask(3)
        return told, await other, await board.wait(3, HANG_S), await board.asked(1)

    assert asyncio.run(scenario()) == (True, False, True, True)


def test_the_stop_board_tells_a_waiting_unit_its_new_window() -> None:
    # A unit's watch returns as soon as it is told a window newer than the one it saw (not
    # after its time), with the window's version; one it saw already does not wake it; a stop
    # request still does.
    from zerosum.runtime.raybase import _StopBoard

    async def scenario() -> list[tuple[bool, int, int, int]]:
        board = _StopBoard()
        first = asyncio.ensure_future(board.watch(1, HANG_S, 0))
        await asyncio.sleep(0)
        await board.narrow(1, 1, -3, 4)
        told = await asyncio.wait_for(first, HANG_S)
        quiet = await board.watch(1, 0.01, told[1])  # nothing new: runs out
        again = asyncio.ensure_future(board.watch(1, HANG_S, told[1]))
        await asyncio.sleep(0)
        await board.ask(1)
        return [told, quiet, await asyncio.wait_for(again, HANG_S), await board.watch(2, 0.01, 0)]

    assert asyncio.run(scenario()) == [
        (False, 1, -3, 4),
        (False, 1, -3, 4),
        (True, 1, -3, 4),
        (False, 0, 0, 0),
    ]


def test_the_stop_board_keeps_the_newest_window_whatever_order_the_calls_run_in() -> None:
    # The board's coroutines may run two calls out of the order they were sent in: the
    # window numbered later by the executor is kept, and an older one arriving after it (or
    # the same one sent again) changes nothing and wakes no one.
    from zerosum.runtime.raybase import _StopBoard

    async def scenario() -> list[tuple[bool, int, int, int]]:
        board = _StopBoard()
        await board.narrow(1, 2, 0, 1)
        await board.narrow(1, 1, -3, 4)
        newest = await board.watch(1, 0.01, 0)
        waiting = asyncio.ensure_future(board.watch(1, 0.05, 2))
        await asyncio.sleep(0)
        await board.narrow(1, 2, 0, 1)  # sent again: nothing new
        return [newest, await waiting]

    assert asyncio.run(scenario()) == [(False, 2, 0, 1), (False, 2, 0, 1)]


def test_the_told_windows_are_numbered_and_sent_again_for_running_units_only() -> None:
    from zerosum.runtime.raybase import Told

    class Board:
        def __init__(self) -> None:
            self.calls: list[tuple[int, int, int, int]] = []
            self.narrow = self

        def remote(self, *args: int) -> None:
            self.calls.append((args[0], args[1], args[2], args[3]))

    board, told = Board(), Told()
    assert not told
    told.tell(board, 7, (-3, 4))
    told.tell(board, 7, (0, 1))
    told.tell(board, 8, (2, 3))
    told.again(board, {7})  # 8 ended: forgotten
    told.again(board, set())
    assert not told
    told.tell(board, 8, (4, 5))  # 8 sent again (its worker was lost): a newer number still
    assert board.calls == [(7, 1, -3, 4), (7, 2, 0, 1), (8, 3, 2, 3), (7, 2, 0, 1), (8, 4, 4, 5)]


def test_warming_the_workers_is_counted_nowhere(ray_cluster: RayTaskExecutor) -> None:
    ray = importlib.import_module("ray")
    before = sum(ray_cluster.units_per_node.values())
    ray_cluster.warm(warm_unit, "connect4", 16)
    assert len(ray_cluster._warming) == ray_cluster.workers
    assert ray.get(ray_cluster._warming, timeout=HANG_S)  # each ran, on a node
    assert sum(ray_cluster.units_per_node.values()) == before
