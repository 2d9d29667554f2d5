"""Parallel exact solves (worker threads or processes sharing one table) against serial ones."""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import pytest
from test_compiled import read_set

from zerosum.cli import main
from zerosum.compiled import parallel as parallel_module
from zerosum.compiled.engine import (
    ABORTED,
    INF,
    NODE_LIMIT,
    NODES,
    new_io,
    new_stack,
    new_table,
    score_of_rank,
)
from zerosum.compiled.kernels import compiled_game
from zerosum.compiled.parallel import POLL_NODES, ParallelEngine, _NodeBudget
from zerosum.compiled.runner import NO_NODE_LIMIT, compiled
from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4
from zerosum.runtime.scheduler import Split
from zerosum.search import Limit


@pytest.fixture(scope="module")
def parallel() -> Iterator[Solver]:
    with Solver("connect4", hash_mb=16, workers=2, book=False) as solver:  # searches "4"
        yield solver


def test_parallel_solves_equal_the_serial_ones(parallel: Solver, data_dir: Path) -> None:
    serial = Solver("connect4", hash_mb=16)
    sample = read_set(data_dir, "Test_L2_R1")[:40] + read_set(data_dir, "Test_L1_R1")[:10]
    for moves, score in sample:
        game = Connect4.from_position(moves)
        assert parallel.solve(game).rank == serial.solve(game).rank == score, moves
        weak = (score > 0) - (score < 0)
        assert parallel.solve(game, weak=True).rank == weak, moves


def test_parallel_best_moves_equal_the_serial_ones(parallel: Solver, data_dir: Path) -> None:
    serial = Solver("connect4", hash_mb=16)
    for moves, score in read_set(data_dir, "Test_L2_R1")[40:50]:
        game = Connect4.from_position(moves)
        assert parallel.best_moves(game, score) == serial.best_moves(game, score)


def test_a_time_limit_stops_every_worker(parallel: Solver) -> None:
    exact = parallel.solve(Connect4.from_position("4"), limit=Limit(time=0.3))
    assert not exact.complete
    # the workers are free again: the next solve answers
    end_game = Connect4.from_position("2252576253462244111563365343671351441")
    assert parallel.solve(end_game).rank == -1


def test_closing_leaves_no_process_behind() -> None:
    solver = Solver("connect4", hash_mb=4, workers=2)
    workers = list(solver.exact._processes)  # type: ignore[union-attr]
    assert all(worker.is_alive() for worker in workers)
    solver.close()
    assert not any(worker.is_alive() for worker in workers)
    engine = ParallelEngine("connect4", compiled_game("connect4").kernel, workers=2, threads=False)
    processes = list(engine._processes)
    assert all(isinstance(process, BaseProcess) and process.is_alive() for process in processes)
    engine.close()
    assert not any(process.is_alive() for process in processes)


@pytest.mark.parametrize("threads", [True, False])
def test_worker_threads_and_processes_give_the_serial_ranks(
    threads: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every solve goes to the workers (the first try in this process gets 1,000 nodes)."""
    monkeypatch.setattr(parallel_module, "SERIAL_NODES", 1_000)
    kernel = compiled_game("connect4").kernel
    serial = Solver("connect4", hash_mb=4)
    with ParallelEngine("connect4", kernel, workers=2, hash_mb=4, threads=threads) as engine:
        assert engine.threads == threads
        assert (len(set(engine.pids)) == 1) == threads  # threads: this process's id
        # Positions of 0.3 to 3 million nodes (up to 0.2 s) in a serial solve.
        for moves in ("4453444332", "445344433", "44444332", "44534443"):
            game = Connect4.from_position(moves)
            engine.activity.reset()
            rank = engine.solve(serial.state(game)).rank
            assert rank == serial.solve(game).rank, moves
            assert engine.activity.tasks > 0, moves  # the workers searched


def test_the_command_line_takes_workers(capsys: pytest.CaptureFixture[str]) -> None:
    moves = "52753311433677442422121"
    assert main(["solve", "connect4", "--moves", moves, "--workers", "2", "--json"]) == 0
    assert '"score": 8' in capsys.readouterr().out
    assert main(["solve", "connect4", "--workers", "none"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_a_node_limit_is_shared_by_the_workers(parallel: Solver) -> None:
    # Each search gets a share of what the searches that ended left and the running ones do
    # not hold (without the shared limit the solve of "4" runs for hours). The sum passes the
    # limit only by the last few nodes' search (under one poll of the compiled search, the
    # serial engine's bound), however the threads interleave; the scripted test below plays
    # the order that passed it by a worker's share before.
    limit = 200_000
    for _ in range(3):
        exact = parallel.solve(Connect4.from_position("4"), limit=Limit(nodes=limit))
        assert not exact.complete
        assert 0 < exact.stats.nodes < limit + POLL_NODES, exact.stats.nodes
    found = parallel.exact.search(
        parallel.state(Connect4.from_position("4")), 30, limit=Limit(nodes=limit)
    )
    assert not found.complete and found.stats.nodes < limit + POLL_NODES, found.stats.nodes
    tiny = parallel.solve(Connect4.from_position("4"), limit=Limit(nodes=1_000))
    assert not tiny.complete and tiny.stats.nodes < 1_000 + POLL_NODES, tiny.stats.nodes


def test_the_node_budget_never_grants_past_the_limit() -> None:
    budget = _NodeBudget(10_000, workers=2)
    assert budget.grant(0, spent=0) == 4 * POLL_NODES  # half of 10,000, whole polls
    assert budget.grant(1, spent=0) == 5 * POLL_NODES  # what worker 0 does not hold
    budget.settle(0)  # worker 0 ended after 100 nodes
    assert budget.grant(0, spent=100) == 4 * POLL_NODES  # 10,000 - 100 - 5,120: 4,780
    budget.settle(0)
    budget.settle(1)  # both spent their shares: 100 + 4,096 + 5,120 = 9,316 nodes
    assert budget.grant(0, spent=9_316) == 684  # the tail: under one poll
    assert budget.grant(1, spent=9_316) is None  # one tail at a time
    budget.settle(0)
    assert budget.grant(1, spent=10_000) is None  # nothing left
    assert _NodeBudget(None, workers=2).grant(0, spent=10**9) == NO_NODE_LIMIT


class ScriptedWorkers:
    """Two workers whose searches end in a scripted order, for :class:`Split` (a ``Link``):
    worker 0's first search ends after ``EARLY`` nodes while worker 1's runs on; when worker 0
    takes its next search, both run out of budget, each spending all it was granted (the
    most the compiled search spends: it stops at its budget's first poll)."""

    EARLY = 1_000

    def __init__(self, engine: ParallelEngine) -> None:
        self.engine = engine
        self.pipes = [multiprocessing.Pipe(duplex=False) for _ in range(2)]
        self.sent: list[int] = []
        self.granted: list[int] = []

    @property
    def workers(self) -> int:
        return 2

    def answer(self, worker: int, nodes: int, aborted: bool, score: int) -> None:
        io = self.engine.ios[worker]
        io[NODES], io[ABORTED] = nodes, int(aborted)
        self.pipes[worker][1].send(score)

    def send(self, worker: int, message: Any) -> None:
        granted = int(self.engine.ios[worker, NODE_LIMIT])
        self.sent.append(worker)
        self.granted.append(granted)
        score = message[3]  # the child fails high: the root's window stays open
        if len(self.sent) == 1:  # worker 0's first search ends early
            self.answer(worker, self.EARLY, False, score)
        elif len(self.sent) == 3:  # worker 0's second search: both spend their budgets
            self.answer(1, self.granted[1], True, 0)
            self.answer(0, granted, True, 0)

    def connection(self, worker: int) -> Connection:
        return self.pipes[worker][0]

    def halt(self, workers: Any) -> None:
        pass

    def lost(self) -> None:
        pass


def test_a_node_limit_holds_whichever_search_ends_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(parallel_module, "SERIAL_NODES", 1_000)  # the first try: 1,024 nodes
    kernel = compiled_game("connect4").kernel
    limit = 100_000
    with ParallelEngine("connect4", kernel, workers=2, hash_mb=4) as engine:
        scripted = ScriptedWorkers(engine)
        engine._scheduler = Split(scripted, activity=engine.activity)
        root = Solver("connect4").state(Connect4.from_position("4"))
        exact = engine.solve(root, limit=Limit(nodes=limit))
        assert scripted.sent == [0, 1, 0]  # the script ran as written
        assert not exact.complete
        # first try + worker 0's early end + both searches' whole budgets
        assert exact.stats.nodes == 1_024 + ScriptedWorkers.EARLY + sum(scripted.granted[1:])
        assert exact.stats.nodes <= limit, (exact.stats.nodes, scripted.granted)


def test_depth_limited_searches_equal_the_serial_ones(parallel: Solver, data_dir: Path) -> None:
    sample = read_set(data_dir, "Test_L2_R1")[50:65] + read_set(data_dir, "Test_L1_R1")[10:25]
    for moves, _ in [("4453", 0), ("", 0), *sample]:
        game = Connect4.from_position(moves)
        for depth in (3, 8, 12):
            serial = Solver("connect4", hash_mb=4)
            parallel.exact.table[:] = 0  # type: ignore[union-attr]  # both start empty
            one = serial.search(game, limit=Limit(depth=depth))
            many = parallel.search(game, limit=Limit(depth=depth))
            assert many.value == one.value, (moves, depth)
            assert many.depth == one.depth and many.best_move in game.legal_moves()


def test_a_time_limit_stops_a_parallel_search(parallel: Solver) -> None:
    result = parallel.search(Connect4(), limit=Limit(time=3))
    # How deep 3 s reach depends on the machine's load (depth 0 when starved): not checked.
    assert not result.complete and result.best_move in Connect4().legal_moves()


def test_a_stopped_parallel_search_keeps_its_finished_iterations(parallel: Solver) -> None:
    iterations: list[int] = []
    result = parallel.search(
        Connect4(),
        limit=Limit(stop=lambda: bool(iterations)),  # stops once an iteration has finished
        on_iteration=lambda found: iterations.append(found.depth),
    )
    assert not result.complete and result.depth == iterations[-1] >= 1


def test_analyze_takes_workers_with_the_compiled_engine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["analyze", "connect4", "--moves", "4453", "--algorithm", "compiled", "--depth", "12"]
    assert main([*argv, "--json"]) == 0
    serial = capsys.readouterr().out
    assert main([*argv, "--workers", "2", "--json"]) == 0
    parallel = capsys.readouterr().out
    assert json.loads(parallel)["value"] == json.loads(serial)["value"]


# -- batches: each worker solves whole positions ------------------------------------------------


def test_a_batch_gives_the_serial_results_in_order(parallel: Solver, data_dir: Path) -> None:
    sample = read_set(data_dir, "Test_L1_R1")[100:160] + read_set(data_dir, "Test_L2_R1")[100:130]
    # a harder position first: the easy ones behind it finish earlier but come out after it
    sample.insert(0, ("4453444", 3))
    games = [Connect4.from_position(moves) for moves, _ in sample]
    serial = Solver("connect4", hash_mb=16)
    for weak in (False, True):
        many = list(parallel.solve_many(games, weak=weak))
        one = list(serial.solve_many(games, weak=weak))
        assert [exact.rank for exact in many] == [exact.rank for exact in one]
        expected = [score if not weak else (score > 0) - (score < 0) for _, score in sample]
        assert [exact.rank for exact in many] == expected
        assert all(exact.complete and exact.stats.nodes > 0 for exact in many)
    assert sum(parallel.exact.activity.nodes) > 0  # type: ignore[union-attr]


def test_a_batch_takes_finished_games_and_stored_results(parallel: Solver, tmp_path: Path) -> None:
    from zerosum.store import Store

    won = Connect4.from_position("1212121")  # the first player has four in column 1
    games = [Connect4.from_position("2252576253462244111563365343671351441"), won]
    with Store(tmp_path / "proven.sqlite") as store:
        parallel.store = store
        try:
            first = list(parallel.solve_many(games))
            again = list(parallel.solve_many(games))
        finally:
            parallel.store = None
    assert [exact.rank for exact in first] == [exact.rank for exact in again] == [-1, -18]
    assert not first[0].stored and again[0].stored


def test_a_node_limit_applies_to_each_position_of_a_batch(parallel: Solver) -> None:
    games = [
        Connect4.from_position(moves) for moves in ("4", "2252576253462244111563365343671351441")
    ]
    results = list(parallel.solve_many(games, limit=Limit(nodes=20_000)))
    assert [exact.complete for exact in results] == [False, True]
    assert results[1].rank == -1


def test_a_time_limit_stops_a_batch_and_every_worker(parallel: Solver) -> None:
    games = [Connect4.from_position(moves) for moves in ("", "4", "44", "43", "45", "3")]
    results = list(parallel.solve_many(games, limit=Limit(time=0.3)))
    assert results and not results[-1].complete and len(results) < len(games)
    end_game = Connect4.from_position("2252576253462244111563365343671351441")
    assert [exact.rank for exact in parallel.solve_many([end_game])] == [-1]  # free again


def test_leaving_a_batch_early_stops_the_workers(parallel: Solver) -> None:
    end_game = Connect4.from_position("2252576253462244111563365343671351441")
    games = [end_game, Connect4(), Connect4.from_position("4"), end_game]
    results = parallel.solve_many(games)
    assert next(results).rank == -1
    results.close()  # the empty board and "4" are still being solved: stop them
    assert [exact.rank for exact in parallel.solve_many([end_game])] == [-1]


def test_a_serial_batch_stops_at_a_time_limit() -> None:
    serial = Solver("connect4", hash_mb=4, book=False)
    games = [Connect4.from_position("2252576253462244111563365343671351441"), Connect4()]
    results = list(serial.solve_many(games, limit=Limit(time=0.2)))
    # The end game takes a millisecond, but a loaded machine may not give it one within the
    # 0.2 s: then it comes back incomplete and the batch ends there. The empty board takes
    # hours: never complete.
    assert [exact.complete for exact in results] in ([True, False], [False])
    # A stop callback raised after the first result: that one complete, the next stopped.
    seen: list[bool] = []
    for exact in serial.solve_many(games, limit=Limit(stop=lambda: bool(seen))):
        seen.append(exact.complete)
    assert seen == [True, False]


def test_the_command_line_solves_a_positions_file(
    capsys: pytest.CaptureFixture[str], data_dir: Path, tmp_path: Path
) -> None:
    sample = read_set(data_dir, "Test_L1_R1")[:12]
    path = tmp_path / "set.txt"
    unscored, truth = read_set(data_dir, "Test_L2_R1")[0]
    lines = [f"{moves} {score}\n" for moves, score in sample]
    path.write_text("".join(lines) + f"\n# no score:\n{unscored}\n")
    assert main(["solve", "connect4", "--positions", str(path), "--workers", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 14 and out[0].split()[:4] == ["1", sample[0][0], f"{sample[0][1]:+d}", "ok"]
    assert out[12].split()[:3] == ["15", unscored, f"{truth:+d}"]  # no score: not checked
    assert out[13].startswith("13 of 13 positions solved in ")
    assert "12 checked against the file's scores: 0 mismatches" in out[13]
    assert main(["solve", "connect4", "--positions", str(path), "--weak", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["positions"], data["solved"], data["checked"], data["mismatches"]) == (
        13,
        13,
        12,
        0,
    )
    assert [row["score"] for row in data["results"][:12]] == [
        (score > 0) - (score < 0) for _, score in sample
    ]
    weak = (truth > 0) - (truth < 0)
    assert data["results"][12] == data["results"][12] | {"line": 15, "score": weak, "ok": None}


def test_the_command_line_reports_a_mismatch(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "wrong.txt"
    path.write_text("2252576253462244111563365343671351441 -1\n4453444 2\n")
    assert main(["solve", "connect4", "--positions", str(path)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH: expected +2" in out and "1 mismatch" in out
    assert "mismatch: line 2 4453444: solved +3, the file says +2" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4453 -2\n44x 1\n", "line 2: '44x': move 3 ('x') is not a column"),
        ("4444444 1\n", "line 1: '4444444': move 7 (4) is in a full column"),
        ("4453 -2 0\n", "line 1: '4453 -2 0' has 3 fields: expected 'POSITION [SCORE]'"),
        ("\n4453 two\n", "line 2: the score 'two' is not a whole number"),
        ("# nothing\n\n", "no positions in"),
    ],
)
def test_a_bad_positions_file_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    assert main(["solve", "connect4", "--positions", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zerosum: error: ") and message in err and err.count("\n") == 1


def test_positions_options_that_do_not_fit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "set.txt"
    path.write_text("4453 -2\n")
    for argv, message in (
        (["--positions", str(tmp_path / "missing.txt")], "cannot read the positions file"),
        (["--positions", str(path), "--moves", "4"], "expected no --moves"),
        (["--positions", str(path), "--all"], "expected no --all"),
        (["--positions", str(path), "--algorithm", "negamax"], "expected no --algorithm"),
    ):
        assert main(["solve", "connect4", *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("zerosum: error: ") and message in err, argv
    assert main(["solve", "chess", "--positions", str(path)]) == 2
    assert "no compiled engine" in capsys.readouterr().err


def test_tables_keep_an_entrys_words_together_and_io_rows_apart(
    parallel: Solver, data_dir: Path
) -> None:
    serial = Solver("connect4", hash_mb=1)
    keys, data = serial.engine.keys, serial.engine.data
    assert keys.strides == data.strides == (16,) and keys.base is data.base
    assert data.ctypes.data - keys.ctypes.data == 8  # key word, then data word, per entry
    engine = parallel.exact
    assert isinstance(engine, ParallelEngine)
    assert engine.table[0].strides == engine.table[1].strides == (16,)
    assert engine.table[1].ctypes.data - engine.table[0].ctypes.data == 8
    assert engine.ios.strides[0] >= 128  # no two workers' counters on one cache line
    # the layout changes no result: two plain arrays give the same values and node counts
    plain = Solver("connect4", hash_mb=1)
    plain.engine.keys, plain.engine.data = new_table(1)
    for moves, _ in read_set(data_dir, "Test_L2_R1")[200:230]:
        game = Connect4.from_position(moves)
        one, other = serial.solve(game), plain.solve(game)
        assert (one.rank, one.stats.nodes) == (other.rank, other.stats.nodes)
    for depth in (6, 10):
        one_found = serial.search(Connect4(), limit=Limit(depth=depth))
        other_found = plain.search(Connect4(), limit=Limit(depth=depth))
        assert one_found.value == other_found.value
        assert one_found.stats.nodes == other_found.stats.nodes


def test_a_limit_stops_the_search_for_best_moves(parallel: Solver) -> None:
    game = Connect4.from_position("4453")  # -2: each move's null window takes seconds
    for solver in (parallel, Solver("connect4", hash_mb=4, book=False)):
        assert solver.best_moves_within(game, -2, limit=Limit(time=0.3)) is None
        assert solver.best_moves_within(game, -2, limit=Limit(stop=lambda: True)) is None
        end_game = Connect4.from_position("225257625346224411156336534367135144")
    exact = parallel.solve(end_game)
    # A limit that never stops it (a time would depend on the machine's load): every move.
    assert parallel.best_moves_within(end_game, exact.rank, limit=Limit(stop=lambda: False)) == (
        Solver("connect4", hash_mb=4).best_moves(end_game, exact.rank)
    )


def test_the_command_line_stops_while_it_looks_for_best_moves(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from zerosum.store import Store

    path = tmp_path / "proven.sqlite"
    solver = Solver("connect4", hash_mb=4)
    with Store(path) as store:  # the score comes from the store, the best moves take seconds
        store.put("connect4", solver.compiled.canonical_key(Connect4.from_position("4453")), -2)
    argv = ["solve", "connect4", "--moves", "4453", "--store", str(path), "--time", "0.3"]
    argv.append("--no-book")  # the opening book knows 4453's moves
    assert main([*argv, "--workers", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["score"], data["best_moves"], data["complete"]) == (-2, [], False)
    assert main(argv) == 0
    assert "best moves not known: stopped" in capsys.readouterr().out


def test_the_command_line_stops_a_positions_file_at_a_time_limit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from zerosum.store import Store

    end_game = "2252576253462244111563365343671351441"
    path = tmp_path / "set.txt"
    path.write_text(f"{end_game} -1\n4453 -2\n44\n")
    # The first position's score is in the store, so that it is answered whatever the 0.3 s
    # leave on a loaded machine; 4453 takes seconds, so the time limit stops it.
    store = tmp_path / "proven.sqlite"
    solver = Solver("connect4", hash_mb=4)
    with Store(store) as opened:
        opened.put("connect4", solver.compiled.canonical_key(Connect4.from_position(end_game)), -1)
    argv = ["solve", "connect4", "--positions", str(path), "--time", "0.3", "--no-book"]
    argv += ["--store", str(store)]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert "not solved (stopped)" in out[1] and out[-1] == "stopped: 2 positions not solved"
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["solved"], data["complete"], len(data["results"])) == (1, False, 2)
    assert data["results"][1]["score"] is None


def test_workers_take_the_entries_a_serial_solve_stored() -> None:
    """The workers search the root's children at the serial depths, so a window the serial
    solve already searched on the same table is settled by its entries in few nodes.

    One worker: with two, the count depends on how the threads are scheduled (a second
    worker searches another child, or the same one in another order, until the first one's
    answer stops it: 467 to 37,326 nodes were seen, and more on a loaded machine)."""
    kernel = compiled_game("connect4").kernel
    with ParallelEngine("connect4", kernel, workers=1, hash_mb=16) as engine:
        root = Solver("connect4").state(Connect4.from_position("4453444"))
        rank = compiled(kernel).solve(
            root.copy(),
            -INF,
            INF,
            engine.table[0],
            engine.table[1],
            new_io(),
            new_stack(kernel),
            kernel.load_aux(),
        )
        kernel.decided(root)
        children = engine._expand(root)
        engine._nodes = 0
        alpha, beta = score_of_rank(rank - 1), score_of_rank(rank)
        assert engine._root(children, alpha, beta, None, None) == beta
        # 467 nodes, the same in every run; searched to ``DEPTH_INF`` below the root, as
        # before, the children took about 820,000.
        assert engine._nodes < 5_000, engine._nodes
