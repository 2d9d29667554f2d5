"""The compiled engine against the data sets, the pure-Python search and from-scratch oracles."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from test_search_exhaustive import INNER, ORACLE, POSITIONS
from waiting import HANG_S

from zerosum.compiled import connect4 as kernel
from zerosum.compiled import runner
from zerosum.compiled.engine import EXACT, LOWER, _bucket, _depth, _pack, probe, store
from zerosum.compiled.runner import Engine
from zerosum.compiled.solver import Solver
from zerosum.game import WIN
from zerosum.games.connect4 import Connect4, pons_score
from zerosum.games.tictactoe import TicTacToe
from zerosum.search import Limit, search, solve
from zerosum.store import Store


def read_set(data_dir: Path, name: str) -> list[tuple[str, int]]:
    lines = (data_dir / "connect4" / name).read_text().split("\n")
    return [(moves, int(score)) for moves, score in (line.split() for line in lines if line)]


@pytest.fixture(scope="module")
def connect4() -> Solver:
    return Solver("connect4", hash_mb=16)


@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1", "Test_L1_R1"])
def test_every_score_of_the_public_sets(connect4: Solver, data_dir: Path, name: str) -> None:
    wrong = []
    for moves, score in read_set(data_dir, name):
        game = Connect4.from_position(moves)
        exact = connect4.solve(game)
        assert exact.complete
        if exact.rank != score or exact.value != connect4.compiled.value(score, len(moves)):
            wrong.append((moves, score, exact.rank))
    assert wrong == []


def test_weak_solve_gives_the_sign(connect4: Solver, data_dir: Path) -> None:
    fresh = Solver("connect4", hash_mb=4)
    for moves, score in read_set(data_dir, "Test_L2_R1")[:200]:
        assert fresh.solve(Connect4.from_position(moves), weak=True).rank == (score > 0) - (
            score < 0
        )


def test_move_results_agree_with_the_solve(connect4: Solver, data_dir: Path) -> None:
    for moves, score in read_set(data_dir, "Test_L2_R1")[:40]:
        game = Connect4.from_position(moves)
        results = connect4.move_results(game)
        assert {move for move, _ in results} == set(game.legal_moves())
        assert max(exact.rank for _, exact in results) == score
        for move, exact in results:  # each one checked by solving the child afresh
            game.make(move)
            if game.outcome() is None:
                assert -connect4.solve(game).rank == exact.rank
            else:
                assert exact.rank == (43 - len(moves)) // 2
            game.undo()


def test_weak_best_moves_are_the_moves_with_the_best_weak_result(
    connect4: Solver, data_dir: Path
) -> None:
    """Every move whose child is lost (or drawn) as the weak score says is a best move, also
    when the move ends the game or the child's windowed solve answers a strong bound."""
    sample = [moves for moves, _ in read_set(data_dir, "Test_L2_R1")[:20]]
    for moves in [*sample, "2252576253462244111563365343671351441"]:
        game = Connect4.from_position(moves)
        weak = connect4.solve(game, weak=True).rank
        results = connect4.move_results(game, weak=True)
        expected = [move for move, exact in results if exact.rank == weak]
        assert sorted(connect4.best_moves(game, weak, weak=True)) == sorted(expected), moves


def test_pure_python_search_is_the_oracle(connect4: Solver, data_dir: Path) -> None:
    for moves, score in read_set(data_dir, "Test_L3_R1")[:25]:
        game = Connect4.from_position(moves)
        result = solve(game)
        assert result.solved
        assert pons_score(result.value, game.ply()) == score == connect4.solve(game).rank


def test_depth_limited_search_proves_only_true_values(connect4: Solver, data_dir: Path) -> None:
    proven = 0
    for moves, score in read_set(data_dir, "Test_L3_R1")[:60]:
        game = Connect4.from_position(moves)
        fresh = Solver("connect4", hash_mb=1)
        result = fresh.search(game, limit=Limit(depth=6))
        assert result.best_move in game.legal_moves()
        assert result.pv[0] == result.best_move
        if result.solved:
            proven += 1
            assert pons_score(result.value, game.ply()) == score, moves
    assert proven > 10


def test_a_child_of_a_solved_position_is_settled_by_its_proofs() -> None:
    # Every entry of an exact solve is a proof, whatever ply its solve started at: solved on
    # the parent's table, a child gets the rank of a fresh solve, and the best child, whose
    # bounds the parent's tests proved, takes almost no search when it comes first (its
    # entries are a ply shallower than the child's own root asks for, and were not taken
    # before). With ``keep`` (a distributed solve's units) it does so after its brothers too:
    # their solves leave the parent's deeper entries in place.
    for parent, heavy in [("32164625", ""), ("3216462", "6")]:
        for keep in (False, True):
            warm = Solver("connect4", hash_mb=16)
            top = warm.engine.solve(warm.state(Connect4.from_position(parent)), keep=keep)
            children = []
            for move in Connect4.from_position(parent).legal_moves():
                children.append(Connect4.from_position(parent))
                children[-1].make(move)
            # the heavy child first, or (with ``keep``) last
            children.sort(key=lambda child: (child.position()[-1:] == heavy) == keep)
            for child in children:
                move = child.position()[-1:]
                fresh = Solver("connect4", hash_mb=16)
                alone = fresh.engine.solve(fresh.state(child))
                after = warm.engine.solve(warm.state(child), keep=keep)
                assert after.rank == alone.rank, (parent, move, keep)
                if move == heavy:
                    assert -after.rank == top.rank
                    assert after.stats.nodes * 100 < alone.stats.nodes, (parent, move, keep)


def test_an_exact_solve_keeps_a_deeper_entry_of_an_earlier_search() -> None:
    # The first entry of a bucket gives way to a deeper one, and to any entry of a newer
    # generation; a solve that keeps proofs (``aging=False``: ``Engine.solve(keep=True)``)
    # keeps the deeper one and puts the newer in the bucket's second entry.
    deep = 12_345
    shallow = next(key for key in range(deep + 1, 1 << 20) if _bucket(key, 64) == _bucket(deep, 64))
    for aging in (True, False):
        keys, data = np.zeros(64, np.int64), np.zeros(64, np.int64)
        store(keys, data, deep, _pack(5, 2, 200, EXACT, 1))
        store(keys, data, shallow, _pack(7, 1, 40, LOWER, 2), aging)
        assert _depth(probe(keys, data, shallow)) == 40
        assert _depth(probe(keys, data, deep)) == (0 if aging else 200)


def test_tictactoe_exact_values_on_every_position() -> None:
    solver = Solver("tictactoe", hash_mb=1)
    for game in POSITIONS:
        assert solver.solve(game).value == ORACLE[game.position()][0], game.position()


def test_tictactoe_move_results_give_the_best_moves() -> None:
    solver = Solver("tictactoe", hash_mb=1)
    for game in INNER[::7]:
        value, best = ORACLE[game.position()]
        results = solver.move_results(game)
        top = max(exact.value for _, exact in results)
        assert top == value
        assert {move for move, exact in results if exact.value == top} == best


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_tictactoe_depth_limited_values_match_alphabeta(depth: int) -> None:
    """The kernel's evaluation is the game's, so fixed-depth values must be identical."""
    solver = Solver("tictactoe", hash_mb=1)
    for game in INNER[::5]:
        solver.engine.clear()
        ours = solver.search(game, limit=Limit(depth=depth))
        reference = search(game, algorithm="alphabeta", table=False, limit=Limit(depth=depth))
        assert ours.value == reference.value, game.position()


def test_iterative_deepening_ends_with_the_game_value() -> None:
    solver = Solver("tictactoe", hash_mb=1)
    result = solver.search(TicTacToe())
    assert result.value == 0 and result.solved and result.best_move in range(9)
    game = TicTacToe.from_position(".../.x./xo.")  # O to move loses: X makes two threats
    result = solver.search(game)
    assert result.value == ORACLE[game.position()][0] == -(WIN - 4)
    assert result.best_move == 8 and result.pv[0] == 8


def test_a_time_limit_stops_a_long_solve() -> None:
    solver = Solver("connect4", hash_mb=8, book=False)  # the opening book may know "4"
    exact = solver.solve(Connect4.from_position("4"), limit=Limit(time=0.2))
    assert not exact.complete
    # hours without the limit: a bound far from that, which no load reaches
    assert exact.stats.time_s < HANG_S


def test_a_node_limit_stops_a_long_solve() -> None:
    solver = Solver("connect4", hash_mb=8, book=False)
    exact = solver.solve(Connect4.from_position("4"), limit=Limit(nodes=50_000))
    assert not exact.complete
    assert 50_000 <= exact.stats.nodes < 60_000


def test_a_long_search_in_the_main_thread_restarts_in_a_thread_with_equal_results(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    """Past ``INLINE_NODES`` a search without a limit restarts in a helper thread (so that a
    signal can stop it); the restart must answer exactly as one uninterrupted search."""
    sample = read_set(data_dir, "Test_L2_R1")[:15]
    inline = Solver("connect4", hash_mb=8)
    expected = [inline.search(Connect4.from_position(m), limit=Limit(depth=9)) for m, _ in sample]
    monkeypatch.setattr(runner, "INLINE_NODES", 2_000)
    restarted = Solver("connect4", hash_mb=8)
    for (moves, score), want in zip(sample, expected, strict=True):
        game = Connect4.from_position(moves)
        exact = restarted.solve(game)
        assert exact.complete and exact.rank == score
        found = Solver("connect4", hash_mb=8).search(game, limit=Limit(depth=9))
        assert (found.value, found.best_move) == (want.value, want.best_move)


def test_ctrl_c_stops_a_long_solve_without_a_limit() -> None:
    """Python sees a signal only between bytecodes: a long compiled solve in the main thread
    must still stop at Ctrl-C, its search must have ended (it shares the solver's table and
    stack), and the solver must answer the next solve exactly."""
    solver = Solver("connect4", hash_mb=8, book=False)

    def interrupt_once_searching() -> None:
        # Ctrl-C once the search has visited nodes (an observable state: under load, the
        # solve's set-up alone may take longer than any fixed delay); the deadline bounds a hang.
        deadline = time.monotonic() + 600
        while not solver.live_nodes() and time.monotonic() < deadline:
            time.sleep(0.01)
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    timer = threading.Thread(target=interrupt_once_searching, daemon=True)
    timer.start()
    with pytest.raises(KeyboardInterrupt):  # the solve takes minutes: only Ctrl-C ends it
        solver.solve(Connect4.from_position("4"))
    timer.join()
    assert solver.exact.io[runner.ABORTED] == 1  # the search saw the stop and returned
    assert solver.solve(Connect4.from_position("4453444")).rank == 3


def test_the_table_never_grows_past_its_size() -> None:
    engine = Engine(kernel.KERNEL, hash_mb=2)
    assert engine.table_bytes <= 2 << 20
    before = engine.table_bytes
    engine.solve(engine.state([0, 0, 0]), limit=Limit(nodes=200_000))
    assert engine.table_bytes == before


def test_the_store_answers_again_without_search(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "c4.sqlite"
    sample = read_set(data_dir, "Test_L2_R1")[:10]
    with Store(path) as store:
        solver = Solver("connect4", hash_mb=4, store=store)
        first = [solver.solve(Connect4.from_position(moves)) for moves, _ in sample]
        assert not any(exact.stored for exact in first)
    with Store(path) as store:
        assert store.count("connect4") == 10
        solver = Solver("connect4", hash_mb=4, store=store)
        again = [solver.solve(Connect4.from_position(moves)) for moves, _ in sample]
    assert all(exact.stored and exact.stats.nodes == 0 for exact in again)
    assert [exact.rank for exact in again] == [score for _, score in sample]


def test_the_store_knows_mirrored_positions(tmp_path: Path, data_dir: Path) -> None:
    moves, score = read_set(data_dir, "Test_L2_R1")[0]
    mirrored = "".join(str(8 - int(char)) for char in moves)
    with Store(tmp_path / "c4.sqlite") as store:
        solver = Solver("connect4", hash_mb=4, store=store)
        left = solver.solve(Connect4.from_position(moves))
        right = solver.solve(Connect4.from_position(mirrored))
    assert not left.stored and right.stored
    assert right.rank == left.rank == score


def test_a_second_process_loads_the_compiled_search_from_the_cache() -> None:
    Solver("tictactoe", hash_mb=1).solve(TicTacToe())  # compiles and caches if needed
    script = textwrap.dedent(
        """
        from zerosum.compiled.solver import Solver
        from zerosum.games.tictactoe import TicTacToe
        solver = Solver("tictactoe", hash_mb=1)
        solver.solve(TicTacToe())
        compiled = solver.engine.compiled
        print(sum(compiled.solve.stats.cache_hits.values()))
        print(sum(compiled.solve.stats.cache_misses.values()))
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    )
    hits, misses = run.stdout.split()[-2:]
    assert (hits, misses) == ("1", "0"), run.stdout


def test_every_kernel_a_spec_names_loads_as_a_mapping() -> None:
    from zerosum.compiled import kernel_games
    from zerosum.compiled.kernels import CompiledGame, compiled_game

    assert {"connect4", "tictactoe", "morris"} <= set(kernel_games())
    for name in kernel_games():
        assert isinstance(compiled_game(name), CompiledGame)


def test_commands_without_the_compiled_engine_do_not_import_numba() -> None:
    script = "import sys, zerosum.cli; zerosum.cli.main(['games']); print('numba' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    )
    assert run.stdout.split()[-1] == "False"


def _slow_connect4_evaluation(moves: str) -> int:
    """The kernel's evaluation written out on a grid, cell by cell: its oracle."""
    width, height = 7, 6
    grid = [[0] * height for _ in range(width)]
    for ply, char in enumerate(moves):
        col = int(char) - 1
        grid[col][grid[col].index(0)] = 1 + ply % 2
    me = 1 + len(moves) % 2
    directions = ((1, 0), (0, 1), (1, 1), (1, -1))

    def lines(col: int, row: int) -> list[list[tuple[int, int]]]:
        found = []
        for dc, dr in directions:
            for back in range(4):
                cells = [(col + (i - back) * dc, row + (i - back) * dr) for i in range(4)]
                if all(0 <= c < width and 0 <= r < height for c, r in cells):
                    found.append(cells)
        return found

    value = 0
    for col in range(width):
        for row in range(height):
            owner = grid[col][row]
            if owner:
                value += len(lines(col, row)) * (1 if owner == me else -1)
                continue
            for player in (1, 2):
                completes = any(
                    all(grid[c][r] == player for c, r in line if (c, r) != (col, row))
                    for line in lines(col, row)
                )
                if completes:
                    good = row % 2 == (0 if player == 1 else 1)
                    points = 10 + 5 * (row < 3) + 15 * good
                    value += points if player == me else -points
    return value


def test_connect4_evaluation_matches_its_slow_twin(connect4: Solver) -> None:
    rng = random.Random(4)
    checked = 0
    while checked < 300:
        game = Connect4.from_position("")
        for _ in range(rng.randrange(30)):
            if game.outcome() is not None:
                break
            game.make(rng.choice(game.legal_moves()))
        if game.outcome() is not None:
            continue
        moves = game.position()
        assert kernel.evaluate(connect4.state(game)) == _slow_connect4_evaluation(moves), moves
        checked += 1
