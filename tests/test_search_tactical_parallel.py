"""Root splitting of the tactical engine: its serial twin is the oracle."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import pytest
from waiting import HANG_S

from zerosum.games.chess import Chess
from zerosum.search import Limit
from zerosum.search.parallel import SearchPool
from zerosum.search.tactical import EXACT_OPTIONS, TacticalSearch
from zerosum.search.tactical_parallel import ParallelTacticalSearch, tactical_search

POSITIONS = (
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",  # mate in one
    "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
)


@pytest.fixture(scope="module")
def pool() -> Iterator[SearchPool]:
    with SearchPool(2) as pool:
        yield pool


@pytest.mark.parametrize("fen", POSITIONS)
def test_parallel_equals_serial_without_pruning(pool: SearchPool, fen: str) -> None:
    for depth in (1, 2, 3):
        serial = TacticalSearch(Chess.from_position(fen), options=EXACT_OPTIONS)
        one = serial.search(Limit(depth=depth))
        game = Chess.from_position(fen)
        many = ParallelTacticalSearch(game, pool, options=EXACT_OPTIONS).search(Limit(depth=depth))
        assert many.value == one.value, (fen, depth)
        assert many.depth == one.depth and many.complete  # a proven mate ends the deepening
        assert game.position() == Chess.from_position(fen).position()  # left as it was
        board = chess.Board(fen)
        for move in many.pv:  # the principal variation is a legal line
            assert board.is_legal(move)
            board.push(move)


@pytest.mark.parametrize("fen", POSITIONS[:2])
def test_splitting_the_whole_principal_variation_keeps_the_serial_value(
    pool: SearchPool, fen: str
) -> None:
    """Every node of the principal variation split (``split_depth=1``): the first move of
    each searched by the parent's recursion, the others by the workers."""
    for depth in (2, 4):
        one = TacticalSearch(Chess.from_position(fen), options=EXACT_OPTIONS)
        serial = one.search(Limit(depth=depth))
        game = Chess.from_position(fen)
        split = ParallelTacticalSearch(game, pool, options=EXACT_OPTIONS, split_depth=1)
        many = split.search(Limit(depth=depth))
        assert many.value == serial.value, (fen, depth)
        assert chess.Board(fen).is_legal(many.best_move)
        assert game.position() == Chess.from_position(fen).position()


@pytest.mark.slow  # a deep chess search, serial and split
def test_the_default_split_keeps_the_serial_value(pool: SearchPool) -> None:
    """Depth 5 with the default split depth: the root and the PV nodes with 4 plies left are
    split, cutoffs leave workers to finish as orphans, and the value is the serial one."""
    fen = POSITIONS[1]
    serial = TacticalSearch(Chess.from_position(fen), options=EXACT_OPTIONS)
    one = serial.search(Limit(depth=5))
    split = ParallelTacticalSearch(Chess.from_position(fen), pool, options=EXACT_OPTIONS)
    many = split.search(Limit(depth=5))
    assert many.value == one.value
    assert not split._orphans  # every worker answered before the search returned
    assert not any(pool.connection(worker).poll(0.05) for worker in range(pool.workers))


def test_the_split_of_a_game_without_chess_capabilities(pool: SearchPool) -> None:
    """Tic-tac-toe and connect four have none of the optional capabilities: the parent's PV
    nodes fall back as the serial engine does."""
    from zerosum.games.connect4 import Connect4
    from zerosum.games.tictactoe import TicTacToe

    for game in (TicTacToe.from_position("x../.o./..."), Connect4.from_position("4453")):
        for depth in (3, 6):
            serial = TacticalSearch(game.copy(), options=EXACT_OPTIONS).search(Limit(depth=depth))
            split = ParallelTacticalSearch(game.copy(), pool, options=EXACT_OPTIONS, split_depth=1)
            assert split.search(Limit(depth=depth)).value == serial.value


def test_pruned_parallel_search_is_sane(pool: SearchPool) -> None:
    game = Chess.from_position(POSITIONS[1])
    searcher = ParallelTacticalSearch(game, pool)
    reports = list(searcher.iterate(Limit(depth=4), multipv=2))
    assert [(r.depth, r.line) for r in reports[-2:]] == [(4, 1), (4, 2)]
    assert reports[-1].pv[0] != reports[-2].pv[0]
    assert all(chess.Board(POSITIONS[1]).is_legal(r.pv[0]) for r in reports)
    # Line 1's value is at least line 2's only where the values are exact: pruned, each line
    # is a search of its own over a table the workers filled in the order they ran, so a
    # later line may come out above an earlier one on some schedules.
    exact = ParallelTacticalSearch(game.copy(), pool, options=EXACT_OPTIONS, split_depth=1)
    lines = list(exact.iterate(Limit(depth=3), multipv=3))[-3:]
    assert [r.line for r in lines] == [1, 2, 3] and len({r.pv[0] for r in lines}) == 3
    assert lines[0].value >= lines[1].value >= lines[2].value
    mate = ParallelTacticalSearch(Chess.from_position(POSITIONS[2]), pool).search(Limit(depth=6))
    assert mate.best_move == chess.Move.from_uci("d1d8") and mate.depth == 1


def test_stop_is_prompt_and_the_pool_is_reused(pool: SearchPool) -> None:
    game = Chess.from_position(POSITIONS[1])
    result = ParallelTacticalSearch(game, pool).search(Limit(time=0.5))  # else: hours
    assert not result.complete and chess.Board(POSITIONS[1]).is_legal(result.best_move)
    again = ParallelTacticalSearch(game, pool).search(Limit(depth=2))  # every worker idle
    assert again.complete and again.depth == 2


def test_closing_the_pool_frees_the_shared_table() -> None:
    from multiprocessing.shared_memory import SharedMemory

    with SearchPool(2) as own:
        searcher = ParallelTacticalSearch(Chess.from_position(POSITIONS[0]), own)
        assert searcher.search(Limit(depth=2)).complete
        names = [block.name for block in own._blocks.values()]
        assert len(names) == 1
    with pytest.raises(FileNotFoundError):
        SharedMemory(name=names[0])


def test_one_worker_is_the_serial_engine() -> None:
    assert isinstance(tactical_search(Chess()), TacticalSearch)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.update(map(int, (task / "children").read_text().split()))
        except OSError:
            continue
    return found


def test_uci_threads_in_a_session() -> None:
    """UCI's Threads runs the compiled core's Lazy SMP threads inside the engine's process:
    searches and moves stay legal, and quitting leaves no child process behind."""
    command = [sys.executable, "-m", "zerosum", "uci"]
    # HANG_S bounds a hang only: isready loads the compiled search (a minute when cold and busy)
    engine = chess.engine.SimpleEngine.popen_uci(command, timeout=HANG_S)
    try:
        assert engine.options["Threads"].max >= 2
        engine.configure({"Threads": 2})
        engine.ping()
        board = chess.Board(POSITIONS[0])
        info = engine.analyse(board, chess.engine.Limit(depth=3))
        assert info["depth"] == 3 and board.is_legal(info["pv"][0])
        played = engine.play(board, chess.engine.Limit(depth=3))
        assert played.move is not None and board.is_legal(played.move)
        pid = engine.transport.get_pid()
        children = _children(pid)
    finally:
        engine.quit()
    deadline = time.monotonic() + HANG_S  # bounds a hang only
    while any(map(_alive, [pid, *children])) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, [pid, *children]))


def test_uci_stop_is_prompt_with_threads() -> None:
    command = [sys.executable, "-m", "zerosum", "uci"]
    engine = chess.engine.SimpleEngine.popen_uci(command, timeout=HANG_S)  # bounds a hang only
    try:
        engine.configure({"Threads": 2})
        board = chess.Board(POSITIONS[1])
        with engine.analysis(board) as analysis:  # go infinite
            for info in analysis:  # the search runs: it has sent a principal variation
                if "pv" in info:
                    break
            analysis.stop()
            analysis.wait()  # bestmove after stop (else go infinite never ends)
        assert board.is_legal(analysis.info["pv"][0])
    finally:
        engine.quit()


def test_analyze_chess_with_workers(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from zerosum.cli import main

    assert (
        main(["analyze", "chess", "--position", POSITIONS[2], "--depth", "3", "--workers", "2"])
        == 0
    )
    text = capsys.readouterr().out
    assert "Rd8#" in text  # SAN for people
    assert main(["analyze", "chess", "--depth", "3", "--workers", "2", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert chess.Board().is_legal(chess.Move.from_uci(found["best_move"]))
