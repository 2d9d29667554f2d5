"""Distributed solving in work units kept in the store, on the local process pool."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import Future
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_compiled import read_set
from test_search_exhaustive import POSITIONS
from waiting import HANG_S

from zerosum.cli import main
from zerosum.compiled.book_units import book_distributed
from zerosum.compiled.distributed import (
    HANDOVER_NODES,
    SHARE_S,
    SIBLINGS_WAIT_S,
    Budget,
    SplitError,
    TableSnapshot,
    UnitAnswer,
    _loaded,
    _siblings_last,
    _Tree,
    _unit_solver,
    hands_over,
    load_coordinator,
    load_snapshot,
    root_tests,
    snapshot,
    solve_distributed,
    solve_unit,
    warm_unit,
)
from zerosum.compiled.engine import (
    ABORTED,
    FIRST,
    LEAST,
    LIVE_SIZE,
    MOST,
    NO_SCORE,
    RETEST,
    STOP,
    WINDOW_HI,
    WINDOW_LO,
    next_test,
    solve_bounds,
)
from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4
from zerosum.games.tictactoe import TicTacToe
from zerosum.runtime.cluster import ClusterError, open_executor
from zerosum.runtime.executor import (
    Executor,
    ProcessExecutor,
    SerialExecutor,
    run_unit,
    unit_window,
)
from zerosum.search import Limit
from zerosum.store import Store


@pytest.fixture(scope="module")
def executor() -> Iterator[ProcessExecutor]:
    pool = ProcessExecutor(2)
    yield pool
    pool.shutdown()


def test_units_give_the_known_scores(executor: ProcessExecutor, data_dir: Path) -> None:
    sample = read_set(data_dir, "Test_L2_R1")[:8] + read_set(data_dir, "Test_L1_R1")[:4]
    for moves, score in sample:
        game = Connect4.from_position(moves)
        with Store(":memory:") as store:
            found = solve_distributed(game, executor=executor, store=store, split=2)
            assert found.rank == score, moves
            weak = solve_distributed(game, executor=executor, store=store, weak=True)
            assert weak.rank == (score > 0) - (score < 0), moves


def test_tic_tac_toe_units_give_the_serial_ranks(executor: ProcessExecutor) -> None:
    serial = Solver("tictactoe")
    inner = [game for game in POSITIONS if game.outcome() is None and game.ply() < 6]
    games = [TicTacToe(), *random.Random(3).sample(inner, 12)]
    for game in games:
        with Store(":memory:") as store:
            found = solve_distributed(game, executor=executor, store=store, split=2)
            assert found.rank == serial.solve(game).rank, game.position()


def test_an_interrupted_solve_resumes_from_the_store(
    executor: ProcessExecutor, tmp_path: Path
) -> None:
    game = Connect4.from_position("32164625")  # Test_L1_R1: score 11
    arrived: list[Any] = []
    with Store(tmp_path / "units.sqlite") as store:
        stopped = solve_distributed(
            game,
            executor=executor,
            store=store,
            limit=Limit(stop=lambda: len(arrived) >= 3),
            on_unit=lambda position, rank: arrived.append(position),
        )
        assert not stopped.complete and stopped.rank is None
        kept = store.count("connect4")
        assert kept >= 3
    key = _unit_solver("connect4", 1).compiled.canonical_key
    again: list[Any] = []
    with Store(tmp_path / "units.sqlite") as store:
        assert all(store.get("connect4", key(position)) is not None for position in arrived)
        resumed = solve_distributed(
            game,
            executor=executor,
            store=store,
            on_unit=lambda position, rank: again.append(position),
        )
        assert resumed.rank == 11
        # What the first run kept is taken, never searched again. (How many stored positions the
        # second tree meets depends on the order the units came back in: a stored inner
        # position hides the units below it, so from_store may be fewer than the units kept.)
        assert resumed.from_store >= 1
        assert {key(position) for position in arrived}.isdisjoint(key(p) for p in again)
        # Without a budget no unit is split: each run's units are the tree's, less those at or
        # under a stored position, so none of the kept ones is a unit again. (Was: solved +
        # from_store <= units, which counts answers: a unit answered with a bound is solved
        # again in a new window, as often as the order of the answers asks.)
        assert resumed.units + len({key(position) for position in arrived}) <= stopped.units
        again = solve_distributed(game, executor=executor, store=store)
        assert again.rank == 11 and again.solved == 0 and again.from_store == 1


def test_bad_requests() -> None:
    with pytest.raises(ClusterError, match="malformed"):
        open_executor("no-port-here")
    with pytest.raises(ClusterError, match="no Ray cluster answers"):
        open_executor("127.0.0.1:1")
    with Store(":memory:") as store, pytest.raises(ValueError, match="split"):
        solve_distributed(Connect4(), executor=ProcessExecutor(1), store=store, split=0)
    with Store(":memory:") as store, pytest.raises(ValueError, match="tests_at_once"):
        solve_distributed(Connect4(), executor=ProcessExecutor(1), store=store, tests_at_once=0)


def test_a_split_too_deep_to_expand_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 24: ``--split 1000`` expanded the whole game tree below the root in this process,
    without end; past ``MAX_TREE`` positions the split is refused (a small bound here)."""
    import zerosum.compiled.distributed as distributed

    monkeypatch.setattr(distributed, "MAX_TREE", 300)
    with Store(":memory:") as store, pytest.raises(SplitError, match=r"split 3: .* passes 300"):
        solve_distributed(Connect4(), executor=ProcessExecutor(1), store=store, split=3)
    with Store(":memory:") as store:  # 1 + 7 + 49 positions: within the bound
        tree = distributed._Tree(distributed._unit_solver("connect4", 1), store, Connect4(), 2,
                                 weak=False)  # fmt: skip
        assert len(tree.units) == 25  # 49 positions two plies down, a mirror image one unit


@pytest.mark.usefixtures("without_ray")
def test_a_cluster_without_ray_is_a_clear_error() -> None:
    with pytest.raises(ClusterError, match=r"pip install zerosum\[ray\]"):
        open_executor("auto")


def test_shutting_the_local_pool_without_waiting_ends_its_workers() -> None:
    pool = ProcessExecutor(1)
    pool.submit(time.sleep, 3600)  # a task that never ends by itself
    processes = list(pool.processes)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(timeout=HANG_S)  # bounds a hang only: the task would run for an hour
    assert not any(process.is_alive() for process in processes)


def _local_moves(solver: Solver, game: Any, weak: bool) -> tuple[int, list[Any], list[Any]]:
    """The local solver's rank, best moves and every move's rank. Best moves are the ones
    whose rank is the position's (``solve --all``'s): after a weak solve, every losing move
    when all lose (``Solver.best_moves`` then keeps only the moves whose exact score is best)."""
    rank = solver.solve(game, weak=weak).rank
    every = [(move, exact.rank) for move, exact in solver.move_results(game, weak=weak)]
    best = [move for move, child in every if child == rank]
    if not weak:
        assert best == solver.best_moves(game, rank)
    return rank, best, every


def test_best_moves_and_every_move_equal_the_local_solve(
    executor: ProcessExecutor, data_dir: Path
) -> None:
    tictactoe, connect4 = Solver("tictactoe"), Solver("connect4")
    inner = [game for game in POSITIONS if game.outcome() is None and game.ply() < 6]
    cases = [(tictactoe, game) for game in [TicTacToe(), *random.Random(5).sample(inner, 8)]]
    cases += [
        (connect4, Connect4.from_position(m)) for m, _ in read_set(data_dir, "Test_L3_R1")[:3]
    ]
    for solver, game in cases:
        for weak in (False, True):
            rank, best, every = _local_moves(solver, game, weak)
            with Store(":memory:") as store:
                found = solve_distributed(
                    game, executor=executor, store=store, moves="best", weak=weak
                )
                assert (found.rank, list(found.best_moves)) == (rank, best), game.position()
                assert found.moves_complete and not found.stored
                full = solve_distributed(
                    game, executor=executor, store=store, moves="all", weak=weak
                )
                assert full.stored  # the root's rank is in the store now
                assert (full.rank, list(full.moves), list(full.best_moves)) == (rank, every, best)


def test_a_finished_game_has_no_moves(executor: ProcessExecutor) -> None:
    game = Connect4.from_position("1212121")
    with Store(":memory:") as store:
        found = solve_distributed(game, executor=executor, store=store, moves="all")
    assert found.rank == Solver("connect4").solve(game).rank
    assert found.moves == () and found.best_moves == () and found.moves_complete


def test_a_stopped_solve_of_every_move_keeps_what_it_proved(executor: ProcessExecutor) -> None:
    game = Connect4.from_position("32164625")
    arrived: list[Any] = []
    with Store(":memory:") as store:
        stopped = solve_distributed(
            game,
            executor=executor,
            store=store,
            moves="all",
            limit=Limit(stop=lambda: len(arrived) >= 3),
            on_unit=lambda position, rank: arrived.append(rank),
        )
    assert not stopped.moves_complete and stopped.best_moves == ()
    every = dict(_local_moves(Solver("connect4"), game, False)[2])
    assert all(every[move] == rank for move, rank in stopped.moves)
    with pytest.raises(ValueError, match="moves="):
        solve_distributed(game, executor=executor, store=Store(":memory:"), moves="some")


@pytest.mark.slow  # deep connect four units
def test_deeper_units_answer_with_bounds_outside_their_window(
    executor: ProcessExecutor, data_dir: Path
) -> None:
    # The engine fails soft: a unit solved in (6, 9) whose rank is 12 may answer 10, a bound.
    # Taken as exact, it once gave move 1 of 32164625 the score -3 instead of -4 (split 3).
    game = Connect4.from_position("32164625")
    rank, best, every = _local_moves(Solver("connect4"), game, False)
    with Store(":memory:") as store:
        found = solve_distributed(game, executor=executor, store=store, split=3, moves="all")
    assert (found.rank, list(found.moves), list(found.best_moves)) == (rank, every, best)
    for moves, score in read_set(data_dir, "Test_L2_R1")[:4]:
        with Store(":memory:") as store:
            deep = solve_distributed(
                Connect4.from_position(moves), executor=executor, store=store, split=3
            )
        assert deep.rank == score, moves


class EagerSplits(Executor):
    """A deterministic twin of the pool for the coordinator's splitting: ``workers`` workers
    that run their units in this process, one at each :meth:`wait`, whose clock moves a second
    at each wait; a unit asked to split stops at its first look at a budget (1,024 nodes), so
    every unit larger than that is split whenever a worker would otherwise idle."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.units: list[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = []
        self.asked: set[Future[Any]] = set()
        self.now = 0.0

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_running_or_notify_cancel()
        self.units.append((future, fn, args))
        return future

    def clock(self) -> float:
        return self.now

    def warm(self, fn: Callable[..., Any], /, *args: Any) -> None:
        fn(*args)  # as a worker does: a kept table is cleared, so every solve starts alike

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        self.now += 1.0
        if self.units:
            future, fn, args = self.units.pop(0)
            if future in self.asked:  # solve_unit's budget: the first look stops it
                args = (*args[:5], Budget(nodes=1), *args[6:])
            future.set_result(fn(*args))
        return {future for future in futures if future.done()}

    def split(self, future: Future[Any]) -> bool:
        self.asked.add(future)
        return True

    def cancel(self, future: Future[Any]) -> None:
        self.units = [unit for unit in self.units if unit[0] is not future]

    def stop(self, future: Future[Any]) -> bool:
        self.cancel(future)
        return False

    def close(self) -> None:
        pass


def test_units_split_for_idle_workers_give_the_serial_results(data_dir: Path) -> None:
    tictactoe, connect4 = Solver("tictactoe"), Solver("connect4")
    cases = [(tictactoe, TicTacToe()), (connect4, Connect4.from_position("32164625"))]
    cases += [
        (connect4, Connect4.from_position(m)) for m, _ in read_set(data_dir, "Test_L2_R1")[:1]
    ]
    splits = 0
    for solver, game in cases:
        for weak in (False, True) if game.position() == "32164625" else (False,):
            rank, best, every = _local_moves(solver, game, weak)
            with Store(":memory:") as store:
                found = solve_distributed(
                    game,
                    executor=EagerSplits(4),
                    store=store,
                    split=1,
                    moves="best",
                    weak=weak,
                    budget=Budget(seconds=0.5),
                )
            assert (found.rank, list(found.best_moves)) == (rank, best), game.position()
            splits += found.splits
            if game.position() not in ("", "32164625"):
                continue
            with Store(":memory:") as store:
                full = solve_distributed(
                    game,
                    executor=EagerSplits(4),
                    store=store,
                    moves="all",
                    weak=weak,
                    budget=Budget(seconds=0.5),
                )
            assert (full.rank, list(full.moves)) == (rank, every), game.position()
            splits += full.splits
    assert splits > 0


def test_units_split_on_the_pool_give_the_serial_results(
    executor: ProcessExecutor, data_dir: Path
) -> None:
    # Whether a unit is split depends on when the workers come free: only the values are
    # checked here (EagerSplits above checks the splitting itself).
    solver = Solver("connect4")
    for moves, _ in read_set(data_dir, "Test_L2_R1")[:2]:
        game = Connect4.from_position(moves)
        rank, best, _ = _local_moves(solver, game, False)
        with Store(":memory:") as store:
            found = solve_distributed(
                game,
                executor=executor,
                store=store,
                split=1,
                moves="best",
                budget=Budget(nodes=1),
            )
        assert (found.rank, list(found.best_moves)) == (rank, best), moves


def test_a_stopped_unit_sends_back_true_bounds() -> None:
    game = Connect4.from_position("3216462")
    answer = solve_unit("connect4", game.position(), (-100, 100), False, 16, Budget(nodes=50_000))
    assert answer.rank is None and answer.nodes >= 50_000 and answer.bounds
    serial = Solver("connect4")
    ranks: dict[int, int] = {}

    def walk(position: Connect4, below: int) -> None:
        if position.outcome() is not None:
            return
        ranks[serial.compiled.canonical_key(position)] = serial.solve(position).rank
        if below:
            for move in position.legal_moves():
                child = position.copy()
                child.make(move)
                walk(child, below - 1)

    walk(game, 1)  # two plies would cost a minute on a loaded machine
    for key, lo, hi in answer.bounds:
        if key not in ranks:
            continue
        assert lo <= ranks[key] <= hi


def test_a_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="budget of 0 nodes"):
        Budget(nodes=0)
    with pytest.raises(ValueError, match="budget of -1 s"):
        Budget(seconds=-1)


def test_a_book_on_the_pool_stores_what_the_serial_book_stores(
    executor: ProcessExecutor,
) -> None:
    game = Connect4.from_position("32164625")
    with Store(":memory:") as serial_store, Store(":memory:") as store:
        assert Solver("connect4", store=serial_store).build_book(game, 2)
        seen: list[Any] = []
        done = book_distributed(
            game,
            2,
            executor=executor,
            store=store,
            on_position=lambda position, exact: seen.append((position.position(), exact.rank)),
        )
        # The serial book also proves a best move of each position it searched (one ply
        # deeper); the units prove scores only.
        assert done and store.count("connect4") == len(seen) <= serial_store.count("connect4")
        for position, rank in seen:
            key = Solver("connect4").compiled.canonical_key(Connect4.from_position(position))
            assert serial_store.get("connect4", key) == rank == store.get("connect4", key)
        again: list[Any] = []
        assert book_distributed(
            game, 2, executor=executor, store=store, on_position=lambda p, e: again.append(e)
        )
        assert len(again) == len(seen) and all(exact.stored for exact in again)


def test_a_cancelled_unit_stops_and_frees_its_worker() -> None:
    # The empty board without a budget would run for minutes: the one worker is free for the
    # next unit only if the first one stopped when it was cancelled.
    with ProcessExecutor(1) as pool:
        endless = pool.submit(solve_unit, "connect4", "", (-100, 100), False, 16)
        pool.cancel(endless)
        small = pool.submit(solve_unit, "connect4", "32164625", (-100, 100), False, 16)
        while not small.done():
            pool.wait([small], 1.0)
        assert small.result().rank == 11
        answer = endless.result()  # cancelled while it ran: its answer came, and was not used
        assert answer.rank is None and answer.nodes >= 1


def test_a_stopped_unit_answers_with_what_it_proved() -> None:
    with ProcessExecutor(1) as pool:
        endless = pool.submit(solve_unit, "connect4", "", (-100, 100), False, 16)
        assert pool.stop(endless)  # running: asked to stop, its answer kept
        while not endless.done():
            pool.wait([endless], 1.0)
        answer = endless.result()
        assert answer.rank is None and answer.nodes >= 1
        waiting = pool.submit(solve_unit, "connect4", "", (-100, 100), False, 16)
        other = pool.submit(solve_unit, "connect4", "32164625", (-100, 100), False, 16)
        assert not pool.split(other) and not other.cancelled()  # not started: left to run
        assert not pool.stop(other)  # not started yet: cancelled, it never runs
        assert other.cancelled()
        pool.cancel(waiting)


def test_units_cancelled_while_they_run_stop_and_the_values_stay_serial(
    executor: ProcessExecutor, data_dir: Path
) -> None:
    solver = Solver("connect4")
    stopped = 0
    for moves, _ in read_set(data_dir, "Test_L2_R1")[:3]:
        game = Connect4.from_position(moves)
        rank, best, _ = _local_moves(solver, game, False)
        with Store(":memory:") as store:
            found = solve_distributed(game, executor=executor, store=store, moves="best")
        assert (found.rank, list(found.best_moves)) == (rank, best), moves
        assert found.stopped <= found.cancelled
        stopped += found.stopped


def test_the_scheduling_options_give_the_serial_results(data_dir: Path) -> None:
    # ``preempt``: a unit later in the tree's order that has run its budget stops when an
    # earlier one waits for a worker, and is sent again from its table; ``young_wait``: units
    # below an unsettled eldest brother go last; ``root_tests``: the root's rank by null-window
    # tests (``tests_at_once`` of them at once); ``doubling=True``: budgets that double
    # with the splits above; ``narrow=False, edges=False``: no window moved, no first test at a
    # re-search's edge; ``split_busy``: the unit first in the tree's order split once past
    # its budget, workers busy or not; ``settled_scouts``: null-window tests only against a
    # brother's exact rank. On EagerSplits (every run deterministic) preemption happens, and
    # the values stay the serial ones with each option.
    connect4 = Solver("connect4")
    cases = [Connect4.from_position("32164625")]
    cases += [Connect4.from_position(m) for m, _ in read_set(data_dir, "Test_L2_R1")[:1]]
    options: list[dict[str, Any]] = [
        {"preempt": True},
        {"preempt": True, "young_wait": True},
        {"root_tests": True},
        {"root_tests": True, "preempt": True},
        {"root_tests": True, "tests_at_once": 3},
        {"root_tests": True, "tests_at_once": 7, "preempt": True},
        {"doubling": True},
        {"narrow": False, "edges": False},
        {"split_busy": True},
        {"settled_scouts": True},
    ]
    preempted = 0
    for game in cases:
        rank, best, every = _local_moves(connect4, game, False)
        for chosen in options:
            for moves in ("best", "all"):
                with Store(":memory:") as store:
                    found = solve_distributed(
                        game,
                        executor=EagerSplits(4),
                        store=store,
                        split=1,
                        moves=moves,
                        budget=Budget(seconds=0.5),
                        **chosen,
                    )
                assert (found.rank, list(found.best_moves)) == (rank, best), (game, chosen)
                if moves == "all":
                    assert list(found.moves) == every, (game.position(), chosen)
                if chosen.get("preempt"):
                    preempted += found.preempted
    assert preempted > 0
    game = cases[0]
    rank, best, _ = _local_moves(connect4, game, True)
    with Store(":memory:") as store:
        found = solve_distributed(
            game, executor=EagerSplits(4), store=store, moves="best", weak=True, root_tests=True
        )
    assert (found.rank, list(found.best_moves)) == (rank, best)


def test_root_tests_at_once_are_the_engines_next_tests_whatever_the_outcomes() -> None:
    # The first is the engine's next test; they are distinct ranks of the interval, as many
    # as asked while any are left.
    for lo in range(-6, 7):
        for hi in range(lo, 8):
            for count in (1, 2, 3, 7, 50):
                tests = root_tests(lo, hi, count)
                assert len(tests) == len(set(tests)) == min(count, hi - lo), (lo, hi, count)
                assert all(lo <= middle < hi for middle in tests)
                if tests:
                    assert tests[0] == next_test(lo, hi)
                # Whatever the rank, the first log2(count + 1) tests the engine would run
                # for it are all there: one round of them halves the interval that often.
                for rank in range(lo, hi + 1):
                    low, high = lo, hi
                    for _ in range((min(count, hi - lo) + 1).bit_length() - 1):
                        if low >= high:
                            break
                        middle = int(next_test(low, high))
                        assert middle in tests, (lo, hi, count, rank)
                        low, high = (low, middle) if rank <= middle else (middle + 1, high)


def test_a_unit_that_answers_a_bound_hands_its_table_to_its_next_run() -> None:
    # A null-window scout that fails high after HANDOVER_NODES nodes sends its table back; the
    # unit's run in its next window starts from it: the serial rank, with fewer nodes than from
    # a cleared table.
    game = Connect4.from_position("3216462")
    serial = Solver("connect4").solve(game).rank
    engine = _unit_solver("connect4", 16).engine
    engine.clear()
    scout = solve_unit("connect4", game.position(), (serial - 1, serial), False, 16)
    assert scout.rank is not None and scout.rank >= serial
    assert hands_over((serial - 1, serial), scout) == (scout.nodes >= HANDOVER_NODES)
    assert scout.nodes >= HANDOVER_NODES and isinstance(scout.table, TableSnapshot)
    engine.clear()
    cold = solve_unit("connect4", game.position(), (serial - 1, 100), False, 16)
    engine.clear()
    warm = solve_unit("connect4", game.position(), (serial - 1, 100), False, 16, None, scout.table)
    assert cold.rank == warm.rank == serial and cold.table is None
    assert warm.nodes < cold.nodes
    # An exact answer, or a bound found in few nodes, sends none.
    assert not hands_over((serial - 1, 100), UnitAnswer(serial, 1 << 30, 1.0))
    assert not hands_over((serial - 1, serial), UnitAnswer(serial, HANDOVER_NODES - 1, 1.0))


def test_a_split_units_children_start_from_its_table() -> None:
    # What a stopped unit proved goes to its children's units with its table: a child solved
    # from that table gives the serial rank, with fewer nodes than from a cleared table.
    parent = Connect4.from_position("3216462")
    engine = _unit_solver("connect4", 16).engine
    engine.clear()
    stopped = solve_unit(
        "connect4", parent.position(), (-100, 100), False, 16, Budget(nodes=300_000)
    )
    assert stopped.rank is None and isinstance(stopped.table, TableSnapshot) and stopped.table
    child = parent.copy()
    child.make(parent.legal_moves()[3])
    serial = Solver("connect4").solve(child).rank
    engine.clear()
    cold = solve_unit("connect4", child.position(), (-100, 100), False, 16)
    engine.clear()
    warm = solve_unit("connect4", child.position(), (-100, 100), False, 16, None, stopped.table)
    assert cold.rank == warm.rank == serial
    assert warm.nodes < cold.nodes
    # A table of another size takes the entries one by one, with the same rank.
    other = _unit_solver("connect4", 1).engine
    other.clear()
    moved = solve_unit("connect4", child.position(), (-100, 100), False, 1, None, stopped.table)
    assert moved.rank == serial


def test_a_snapshot_keeps_the_deepest_entries() -> None:
    keys = np.zeros(64, np.int64)
    data = np.zeros(64, np.int64)
    for slot, depth in [(3, 10), (7, 250), (20, 40), (41, 200), (60, 1)]:
        data[slot] = (depth << 40) | 5
        keys[slot] = slot ^ data[slot]
    kept = snapshot(keys, data, 2)
    assert list(kept.slots) == [7, 41] and kept.size == 64
    assert list(kept.keys ^ kept.data) == [7, 41]
    assert len(snapshot(keys, data, 10)) == 5
    copy_keys, copy_data = np.zeros(64, np.int64), np.zeros(64, np.int64)
    load_snapshot(copy_keys, copy_data, snapshot(keys, data, 10))
    assert (copy_keys == keys).all() and (copy_data == data).all()


@pytest.mark.slow  # every unit of two positions, twice, in this process
def test_scouts_give_the_serial_results() -> None:
    solver = Solver("connect4")
    for moves in ("32164625", "3216462"):
        game = Connect4.from_position(moves)
        rank, best, every = _local_moves(solver, game, False)
        for scouts in (True, False):
            with Store(":memory:") as store:
                found = solve_distributed(
                    game,
                    executor=EagerSplits(3),
                    store=store,
                    split=2,
                    moves="best",
                    budget=Budget(seconds=0.5),
                    scouts=scouts,
                )
            assert (found.rank, list(found.best_moves)) == (rank, best), (moves, scouts)
        if moves == "32164625":
            with Store(":memory:") as store:
                full = solve_distributed(game, executor=EagerSplits(3), store=store, moves="all")
            assert (full.rank, list(full.moves)) == (rank, every)


def test_a_long_unit_shares_its_table_with_the_other_workers() -> None:
    engine = _unit_solver("connect4", 16).engine
    engine.clear()
    # No sharing asked: no table back; asked (nothing to take in yet): its table comes back.
    assert solve_unit("connect4", "3216462", (-100, 100), False, 16).table is None
    engine.clear()
    answer = solve_unit("connect4", "3216462", (-100, 100), False, 16, None, None, ())
    if answer.seconds < SHARE_S:  # a fast machine: too short a unit to share
        return
    mine = answer.table
    assert isinstance(mine, TableSnapshot) and mine.worker and mine.origin not in _loaded
    # Its own table is not taken in again; another worker's is, once.
    solve_unit("connect4", "32164625", (-100, 100), False, 16, None, None, (mine,))
    assert mine.origin not in _loaded
    other = replace(mine, origin="elsewhere:1#1")
    solve_unit("connect4", "32164625", (-100, 100), False, 16, None, None, (other,))
    assert other.origin in _loaded


@pytest.mark.slow  # a pool of its own and four distributed solves
def test_shared_tables_on_the_pool_give_the_serial_results(data_dir: Path) -> None:
    solver = Solver("connect4")
    with ProcessExecutor(2) as pool:
        for moves in ("3216462", read_set(data_dir, "Test_L2_R1")[0][0]):
            game = Connect4.from_position(moves)
            rank, best, _ = _local_moves(solver, game, False)
            for share in (True, False):
                with Store(":memory:") as store:
                    found = solve_distributed(
                        game,
                        executor=pool,
                        store=store,
                        split=2,
                        moves="best",
                        budget=Budget(nodes=100_000),
                        share_tables=share,
                    )
                assert (found.rank, list(found.best_moves)) == (rank, best), (moves, share)


class _Recorded(SerialExecutor):
    """This process, one worker, keeping every unit's arguments."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        self.sent.append(args)
        return super().submit(fn, *args)


def test_one_worker_is_sent_no_table_and_sends_none_back() -> None:
    # Its own table holds every unit's work already: no shared tables go out, no unit hands
    # its table over (shared None, handover False), and nothing comes back but from a stop.
    solver = Solver("connect4")
    game = Connect4.from_position("32164625")
    rank, best, _ = _local_moves(solver, game, False)
    executor = _Recorded()
    with Store(":memory:") as store:
        found = solve_distributed(game, executor=executor, store=store, moves="best")
    assert (found.rank, list(found.best_moves)) == (rank, best)
    assert executor.sent and all(args[7] is None and args[8] is False for args in executor.sent)


def test_the_command_line_finds_the_score_by_tests_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["solve", "connect4", "--moves", "32164625", "--json"]
    assert main([*argv, "--no-book"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*argv, "--cluster", "local", "--workers", "2", "--root-tests", "3"]) == 0
    tested = json.loads(capsys.readouterr().out)
    assert (tested["score"], tested["best_moves"]) == (local["score"], local["best_moves"])
    assert tested["units_narrowed"] >= 0  # windows told to running units (timing decides how many)
    assert main([*argv, "--cluster", "local", "--root-tests", "-1"]) == 2
    assert (
        capsys.readouterr().err.strip().endswith("--root-tests -1: expected 0 (none) or more tests")
    )
    for bad in ("-1", "nan", "inf", "0.5", "86401"):  # how long pool workers stay: checked first
        assert main([*argv, "--cluster", "127.0.0.1:1", "--keep-workers", bad]) == 2
        error = capsys.readouterr().err.strip()
        assert error.endswith(f"--keep-workers {bad}: expected 0 (none) or 10 to 86400 seconds")


def test_the_command_loads_the_kernel_after_joining_not_beside_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both are Python's work under one interpreter lock: side by side they took longer than
    # one after the other. The kernel loads in the command's own thread, once the executor
    # is open; the answer is the local solve's.
    import threading

    import zerosum.compiled.distributed as distributed
    import zerosum.runtime.cluster as cluster

    steps: list[tuple[str, bool]] = []
    opened, loaded = cluster.open_executor, distributed.load_coordinator

    def open_executor(*args: Any, **keywords: Any) -> Any:
        steps.append(("open", threading.current_thread() is threading.main_thread()))
        executor = opened(*args, **keywords)
        steps.append(("opened", threading.current_thread() is threading.main_thread()))
        return executor

    def load_coordinator(game: Any) -> None:
        steps.append(("load", threading.current_thread() is threading.main_thread()))
        loaded(game)

    monkeypatch.setattr(cluster, "open_executor", open_executor)
    monkeypatch.setattr(distributed, "load_coordinator", load_coordinator)
    argv = ["solve", "connect4", "--moves", "32164625", "--json"]
    assert main([*argv, "--cluster", "local"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert steps == [("open", True), ("opened", True), ("load", True)]
    assert main([*argv, "--no-book"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert (found["score"], found["best_moves"]) == (local["score"], local["best_moves"])


def test_warming_the_pool_leaves_the_results_serial() -> None:
    # Each worker gets a warm-up before the units (best effort); the solve is the serial one.
    game = Connect4.from_position("32164625")
    with ProcessExecutor(2) as pool, Store(":memory:") as store:
        pool.warm(warm_unit, "connect4", 16)
        found = solve_distributed(game, executor=pool, store=store, moves="best")
    rank, best, _ = _local_moves(Solver("connect4"), game, False)
    assert (found.rank, list(found.best_moves)) == (rank, best)
    warm_unit("connect4", 16)
    assert _unit_solver.cache_info().currsize >= 1


def test_the_coordinator_loads_its_kernel_ahead() -> None:
    game = Connect4.from_position("4453")
    load_coordinator(game)  # what solve --cluster runs while Ray connects
    assert _unit_solver.cache_info().currsize >= 1
    assert load_coordinator(Connect4.from_position("1212121")) is None  # a finished game too


class EagerNarrows(EagerSplits):
    """:class:`EagerSplits` whose units learn the windows the coordinator moves them to
    (:meth:`Executor.narrow`): each runs with the latest window told before it ran as its
    :func:`~zerosum.runtime.executor.unit_window`, so a compiled solve starts in it (it looks
    before its first test) and :attr:`seen` counts the looks that found a moved window."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.windows: dict[Future[Any], tuple[int, int]] = {}
        self.told = 0
        self.seen = 0
        """How many times a unit looked at its window and found it moved."""

    def narrow(self, future: Future[Any], window: tuple[int, int]) -> bool:
        self.windows[future] = window
        self.told += 1
        return True

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        self.now += 1.0
        if self.units:
            future, fn, args = self.units.pop(0)
            if future in self.asked:
                args = (*args[:5], Budget(nodes=1), *args[6:])
            moved = self.windows.get(future)
            future.set_result(run_unit(None, fn, *args, window=partial(self._look, moved)))
        return {future for future in futures if future.done()}

    def _look(self, moved: tuple[int, int] | None) -> tuple[int, int] | None:
        """A unit's look at its window: ``moved``, counted when there is one."""
        self.seen += moved is not None
        return moved


def test_units_whose_windows_move_while_they_run_give_the_serial_results(
    data_dir: Path,
) -> None:
    # A sibling sent before its eldest brother answers, in the whole window, is told the
    # window that the answer leaves it (a null window, say) and goes on in it; it answers the
    # bounds its tests proved. Values equal the serial ones, with and without splits.
    connect4 = Solver("connect4")
    cases = [Connect4.from_position("32164625")]
    cases += [Connect4.from_position(m) for m, _ in read_set(data_dir, "Test_L2_R1")[:2]]
    told = seen = 0
    for game in cases:
        rank, best, every = _local_moves(connect4, game, False)
        for budget in (None, Budget(seconds=0.5)):
            for moves in ("best", "all"):
                executor = EagerNarrows(4)
                with Store(":memory:") as store:
                    found = solve_distributed(
                        game, executor=executor, store=store, moves=moves, budget=budget
                    )
                assert (found.rank, list(found.best_moves)) == (rank, best), game.position()
                if moves == "all":
                    assert list(found.moves) == every, game.position()
                assert found.narrowed == executor.told
                told += found.narrowed
                seen += executor.seen
    assert told > 0
    assert seen > 0  # units started (and ran) in windows they were told
    executor = EagerNarrows(4)
    with Store(":memory:") as store:
        found = solve_distributed(cases[1], executor=executor, store=store, narrow=False)
    assert found.rank == _local_moves(connect4, cases[1], False)[0]
    assert found.narrowed == executor.told == 0


def test_a_solve_whose_window_moves_proves_true_bounds() -> None:
    # The compiled solve reads its window before each test, and drops a running test that the
    # new window no longer needs (io[STOP] = RETEST): whatever the windows, its bounds hold
    # the serial rank, and a window that never moves gives the plain solve's rank and nodes.
    solver = Solver("connect4", hash_mb=16)
    engine = solver.engine
    for position in ("4453444", "44534447", "3216462"):
        state = solver.state(Connect4.from_position(position))
        engine.clear()
        plain = engine.solve(state, limit=Limit(stop=lambda: False))  # in a thread, as below
        engine.clear()
        still = engine.solve(state, live=lambda: None)
        assert (still.rank, still.stats.nodes, still.bounds) == (
            plain.rank,
            plain.stats.nodes,
            (plain.rank, plain.rank),
        )
        for first, then in [((-17, 18), (plain.rank, plain.rank + 1)), ((5, 6), (-9, 9))]:
            engine.clear()
            moved = engine.solve(state, window=first, live=lambda then=then: then)
            least, most = moved.bounds or (0, -1)
            assert moved.complete and least <= plain.rank <= most, (position, first, then)
            low, high = then
            assert least >= high or most <= low or least == most  # the last window is decided
            assert moved.rank == (least if least >= min(most, high) else most)


def test_a_test_dropped_for_a_moved_window_is_searched_again() -> None:
    # The kernel itself: a RETEST request (the watcher's, when the window moves under a
    # running test) aborts the running test, which the solve clears and follows with the next
    # test of its window; the rank and bounds are the plain solve's. Set before the call, the
    # request reaches the first test at its first look (a test of millions of nodes here).
    solver = Solver("connect4", hash_mb=16)
    engine = solver.engine
    state = solver.state(Connect4.from_position("4453444"))
    engine.clear()
    plain = engine.solve(state)
    engine.clear()
    io = engine._io(None)
    io[STOP] = RETEST
    slots = np.zeros(LIVE_SIZE, np.int64)
    slots[WINDOW_LO], slots[WINDOW_HI] = plain.rank, plain.rank + 1
    slots[FIRST] = NO_SCORE
    lo, hi = solve_bounds(False, None)
    found = engine.compiled.solve_live(
        state.copy(), lo, hi, engine.keys, engine.data, io, engine.buf, engine.aux, slots
    )
    assert (io[STOP], io[ABORTED]) == (0, 0)  # dropped, cleared, and searched again
    assert slots[LEAST] <= plain.rank <= slots[MOST]
    assert found == plain.rank


def test_a_local_unit_is_told_its_new_window() -> None:
    with ProcessExecutor(1) as pool:
        future = pool.submit(_told_window, 30.0)
        assert pool.narrow(future, (-3, 4))
        assert pool.wait([future], 30.0) == {future}
        assert future.result() == (-3, 4)
        assert not pool.narrow(future, (1, 2))  # done: nothing to tell


def _told_window(seconds: float) -> tuple[int, int] | None:
    """The first window this unit is told (None after ``seconds``)."""
    check = unit_window()
    deadline = time.monotonic() + seconds
    while check is not None and time.monotonic() < deadline:
        window = check()
        if window is not None:
            return window
        time.sleep(0.01)  # polling an observable state, not waiting a fixed time
    return None


def test_a_window_fits_one_word_with_its_units_number() -> None:
    from zerosum.runtime.executor import _packed, _unpacked

    for number, window in [(1, (-17, 18)), (65_537, (-32_768, 32_767)), (7, (0, 1))]:
        word = _packed(number, window)
        assert word is not None and _unpacked(word, number) == window
        assert _unpacked(word, number + 1) is None
    assert _packed(1, (-40_000, 0)) is None


def test_a_re_search_tests_next_to_the_bound_it_failed_at_first() -> None:
    # After a null-window test proved "at most g" (or "at least g"), the unit's run in its
    # wide window starts with the test next to g, where the rank most often lies (PVS): the
    # same bounds as the engine's own order of tests, in fewer nodes here.
    game = Connect4.from_position("44534435")
    serial = Solver("connect4").solve(game).rank
    engine = _unit_solver("connect4", 16).engine
    runs = {}
    for first in (None, serial - 1):
        engine.clear()
        runs[first] = solve_unit(
            "connect4", game.position(), (-17, serial), False, 16, None, None, None, True, first
        )
    plain, edge = runs[None], runs[serial - 1]
    assert plain.proven == edge.proven and edge.proven is not None
    assert edge.proven[0] == serial  # at least ``serial``: with "at most", exact
    assert edge.nodes < plain.nodes
    with Store(":memory:") as store:
        tree = _Tree(Solver("connect4"), store, game, 1, weak=False)
    key = next(iter(tree.units))
    assert tree.first_test(key, (-17, 2)) is None  # nothing proven of it yet
    tree.learn(key, -17, 2)
    assert tree.first_test(key, (-17, 2)) == 1
    assert tree.first_test(key, (1, 2)) is None  # a null window has one test anyway
    tree.learn(key, 0, 2)
    assert tree.first_test(key, (0, 5)) == 0


class EldestLast(EagerSplits):
    """:class:`EagerSplits` that runs the latest unit sent at each wait, so the first unit
    keeps running (a long eldest brother) while the later ones answer; :attr:`sent` lists every
    unit's position in the order sent, :attr:`stops` the positions of the units asked to
    stop (split or preempted)."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.sent: list[str] = []
        self.stops: list[str] = []
        self.positions: dict[Future[Any], str] = {}

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        future = super().submit(fn, *args)
        if fn is solve_unit:
            self.sent.append(args[1])
            self.positions[future] = args[1]
        self.units.insert(0, self.units.pop())
        return future

    def split(self, future: Future[Any]) -> bool:
        self.stops.append(self.positions.get(future, ""))
        return super().split(future)


@pytest.mark.parametrize("siblings_wait", [True, False])
def test_the_younger_brothers_of_a_long_unit_wait_for_it(siblings_wait: bool) -> None:
    # Two workers: the eldest unit runs on while its brother answers at the first wait. After
    # a second (SIBLINGS_WAIT_S), with siblings_wait the next unit sent is a unit of another
    # parent (the next root move's), not the eldest's next brother; without it, the tree's
    # order.
    assert SIBLINGS_WAIT_S <= 1.0  # EagerSplits' clock moves a second a wait
    game = Connect4.from_position("4453444433")
    rank, best, _ = _local_moves(Solver("connect4"), game, False)
    executor = EldestLast(2)
    with Store(":memory:") as store:
        found = solve_distributed(
            game, executor=executor, store=store, moves="best", siblings_wait=siblings_wait
        )
    assert (found.rank, list(found.best_moves)) == (rank, best)
    first, brother, third = executor.sent[:3]
    assert first[:-1] == brother[:-1]  # the eldest and its brother, side by side
    assert (third[:-1] != first[:-1]) == siblings_wait, executor.sent[:4]


def test_only_the_younger_brothers_of_a_long_unit_wait() -> None:
    # The second child of the first root move runs long: its elder brother keeps its place,
    # the running unit is not moved, its younger brothers go after every other parent's units.
    game = Connect4.from_position("44534")  # no two units' positions mirror each other
    with Store(":memory:") as store:
        tree = _Tree(Solver("connect4"), store, game, 2, weak=False)
    order = [child for move in tree.root.children for child in move.children if child.unit]
    assert len(order) == len({child.key for child in order})  # no transpositions
    wanted = {child.key: (-1, 1) for child in order}
    mine = [child.key for child in tree.root.children[0].children if child.unit]
    elder, long, *younger = mine
    future: Future[UnitAnswer] = Future()
    running = {future: (long, wanted[long])}
    others = [key for key in wanted if key not in mine]
    assert list(_siblings_last(tree, wanted, running, {long}, {future: 0.0}, 1.0)) == [
        elder, long, *others, *younger
    ]  # fmt: skip
    # a unit sent after ``since`` is not long yet: nothing moves
    assert list(_siblings_last(tree, wanted, running, {long}, {future: 2.0}, 1.0)) == list(wanted)


def test_preempt_never_stops_the_long_eldest_whose_brothers_wait() -> None:
    # With preempt, the units stopped for waiting ones are the latest in the tree's order; the
    # siblings' wait reorders only what is sent, so the long eldest (first in the tree's order)
    # is not asked to stop for its own younger brothers.
    game = Connect4.from_position("4453444433")
    rank, best, _ = _local_moves(Solver("connect4"), game, False)
    executor = EldestLast(2)
    with Store(":memory:") as store:
        found = solve_distributed(
            game,
            executor=executor,
            store=store,
            moves="best",
            preempt=True,
            budget=Budget(seconds=0.5),
        )
    assert (found.rank, list(found.best_moves)) == (rank, best)
    assert executor.sent[0] not in executor.stops, executor.stops
