"""The compiled tactical search of chess against its readable twin, the pure-Python tactical
search: equal values at fixed depths with nothing selective on, and the driver's contract
(limits, stop, MultiPV, searchmoves, threads, mates and draws) with everything on."""

from __future__ import annotations

import dataclasses
import os
import random
import threading
from collections.abc import Iterator

import chess
import pytest

from zerosum.compiled import chess_board as cb
from zerosum.compiled import chess_search as cs
from zerosum.compiled.chess_engine import CoreSearch
from zerosum.compiled.engine import _GOLDEN as GOLDEN
from zerosum.game import WIN
from zerosum.games.chess import Chess
from zerosum.search.core import Limit
from zerosum.search.table import Bound, Entry, TranspositionTable
from zerosum.search.tactical import EXACT_OPTIONS, Options, TacticalSearch

POSITIONS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "rnbqkb1r/pp1p1ppp/2p2n2/4p3/2B1P3/2N5/PPPP1PPP/R1BQK1NR w KQkq - 0 4",
]


@pytest.mark.parametrize("fen", POSITIONS)
def test_equal_values_at_fixed_depth_with_the_exact_options(fen: str) -> None:
    fast = CoreSearch(Chess(fen), options=EXACT_OPTIONS, hash_mb=1)
    slow = TacticalSearch(Chess(fen), options=EXACT_OPTIONS)
    for depth in (1, 2, 3):
        found = fast.search(Limit(depth=depth))
        expected = slow.search(Limit(depth=depth))
        assert found.value == expected.value, (fen, depth)
        assert found.best_move in Chess(fen).legal_moves()


class BucketTable(TranspositionTable[chess.Move]):
    """The compiled table (``zerosum.compiled.engine``) written again in Python: buckets of two
    slots at the same index, the first slot kept for the deeper entry of the current
    generation, the second taking the rest. With it, the Python twin keeps and loses the same
    entries as the compiled one, so both search the same trees even where keys collide (the
    Python table's single slot would keep and lose others)."""

    def __init__(self, size: int) -> None:
        super().__init__(1)
        self._size = size
        self._buckets: list[Entry[chess.Move] | None] = [None] * size

    def _index(self, key: int) -> int:
        return (((key * GOLDEN) % (1 << 64)) >> 24) & (self._size - 2)

    def probe(self, key: int) -> Entry[chess.Move] | None:
        i = self._index(key)
        for entry in self._buckets[i : i + 2]:
            if entry is not None and entry.key == key:
                return entry
        return None

    def store(
        self, key: int, depth: int, score: int, bound: Bound, move: chess.Move | None
    ) -> bool:
        i = self._index(key)
        old = self._buckets[i]
        new = Entry(key, min(depth, 255), score, bound, move, self.generation % 256)
        if (
            old is None
            or old.key == key
            or old.generation != new.generation
            or new.depth >= old.depth
        ):
            self._buckets[i] = new
        else:
            self._buckets[i + 1] = new
        return True

    def clear(self) -> None:
        self._buckets = [None] * self._size

    def __len__(self) -> int:
        return sum(entry is not None for entry in self._buckets)


def twins(
    fen: str | Chess, options: Options | None = None, *, hash_mb: int = 1
) -> tuple[CoreSearch, TacticalSearch[chess.Move]]:
    """The compiled search and its Python twin on ``fen``, each with a table of the same
    buckets (:class:`BucketTable`)."""
    game = Chess(fen) if isinstance(fen, str) else fen
    options = options or Options()
    fast = CoreSearch(game.copy(), options=options, hash_mb=hash_mb)
    table = BucketTable(fast.keys.shape[0])
    return fast, TacticalSearch(game.copy(), options=options, table=table)


def assert_same_search(fen: str, options: Options, depths: tuple[int, ...]) -> None:
    """Both twins search the same tree: equal values and, as they order the moves alike (ties
    by move code) and keep the same entries (:class:`BucketTable`), equal node counts."""
    fast, slow = twins(fen, options)
    for depth in depths:
        found, expected = fast.search(Limit(depth=depth)), slow.search(Limit(depth=depth))
        assert (found.value, found.stats.nodes) == (expected.value, expected.stats.nodes), (
            fen,
            depth,
        )


@pytest.mark.parametrize("fen", POSITIONS)
def test_equal_trees_with_every_option_but_reductions(fen: str) -> None:
    # Check extension, null move, futility, quiescence's delta pruning and aspiration windows
    # prune by the window, so their values depend on the order of the moves: the twins order
    # alike (a QGD position gave 56 and 48 at depth 2 while the quiet moves were ordered by the
    # history of the node's entry in one twin and of their stage in the other).
    assert_same_search(fen, dataclasses.replace(Options(), reductions=False), (1, 2, 3))


@pytest.mark.parametrize("fen", POSITIONS)
def test_equal_trees_with_every_option_in_roomy_tables(fen: str) -> None:
    # With the reductions, which quiet moves are reduced (from depth 3 on) and which are
    # pruned depend on the move order, the history and the killers, all kept alike by the
    # twins. Tables with room for every entry keep the one difference between the twins
    # (their replacement) out of the way.
    assert_same_search(fen, Options(), (4,))


def test_equal_trees_with_singular_extensions() -> None:
    # Singular extensions start at depth 6 (``tactical.SINGULAR_DEPTH``) and test the table
    # move in a search that leaves it out: in the rook endgame they change the tree from depth
    # 7 on, alike in both twins.
    fen = POSITIONS[2]
    singular = Options(singular_extension=True)
    assert_same_search(fen, singular, (6, 7, 8))
    with_them = CoreSearch(Chess(fen), options=singular, hash_mb=64).search(Limit(depth=7))
    without = CoreSearch(Chess(fen), hash_mb=64).search(Limit(depth=7))
    assert with_them.stats.nodes != without.stats.nodes


@pytest.mark.parametrize("fen", POSITIONS)
def test_equal_values_with_every_option(fen: str) -> None:
    fast = CoreSearch(Chess(fen), hash_mb=1)
    slow = TacticalSearch(Chess(fen))
    for depth in (1, 2, 3):
        assert fast.search(Limit(depth=depth)).value == slow.search(Limit(depth=depth)).value


def test_equal_values_after_moves_that_repeat() -> None:
    # The history reaches the compiled board: a repetition inside the search is a draw there too.
    game = Chess()
    for text in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"):
        game.make(chess.Move.from_uci(text))
    for depth in (2, 3):
        fast = CoreSearch(game, options=EXACT_OPTIONS, hash_mb=1).search(Limit(depth=depth))
        slow = TacticalSearch(game, options=EXACT_OPTIONS).search(Limit(depth=depth))
        assert fast.value == slow.value
    assert game.ply() == 6


@pytest.mark.parametrize("contempt", [-150, 50])
def test_contempt_scores_repetitions_alike_in_both_twins(contempt: int) -> None:
    # White may repeat with Ng1 (a draw: scored -contempt for the side to move at the root).
    game = Chess()
    for text in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"):
        game.make(chess.Move.from_uci(text))
    options = dataclasses.replace(EXACT_OPTIONS, contempt=contempt)
    for depth in (2, 3):
        fast = CoreSearch(game, options=options, hash_mb=1).search(Limit(depth=depth))
        slow = TacticalSearch(game, options=options).search(Limit(depth=depth))
        assert fast.value == slow.value
        if contempt < 0:  # the repetition, worth 150 to White, beats every other move here
            assert fast.value == -contempt and fast.best_move == chess.Move.from_uci("f3g1")
        else:
            assert fast.best_move != chess.Move.from_uci("f3g1")


def test_finds_mates_and_keeps_node_counts_reproducible() -> None:
    mate_in_two = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 0"
    found = CoreSearch(Chess(mate_in_two), hash_mb=4).search(Limit(depth=6))
    assert found.value == WIN - 3 and found.best_move == chess.Move.from_uci("d5f6")
    counts = {CoreSearch(Chess(POSITIONS[3]), hash_mb=4).search(Limit(depth=6)).stats.nodes}
    counts.add(CoreSearch(Chess(POSITIONS[3]), hash_mb=4).search(Limit(depth=6)).stats.nodes)
    assert len(counts) == 1


def test_a_long_search_in_the_main_thread_completes(monkeypatch: pytest.MonkeyPatch) -> None:
    # The main thread runs only the first INLINE_NODES nodes of a search nothing can stop,
    # then the search restarts in a helper thread (Ctrl-C stays possible): every iteration.
    monkeypatch.setattr("zerosum.compiled.runner.INLINE_NODES", 3000)
    reports = list(CoreSearch(Chess(POSITIONS[1]), hash_mb=4).iterate(Limit(depth=6)))
    assert [r.depth for r in reports] == [1, 2, 3, 4, 5, 6]
    assert all(r.complete for r in reports) and reports[-1].nodes > 3000


def test_limits_stop_multipv_and_searchmoves() -> None:
    game = Chess(POSITIONS[3])
    search = CoreSearch(game, hash_mb=4)
    result = search.search(Limit(nodes=5000))
    assert not result.complete or result.stats.nodes <= 5000 + 1024
    assert result.best_move in game.legal_moves()
    stop = threading.Event()
    stop.set()
    stopped = search.search(Limit(stop=stop.is_set))
    assert stopped.best_move in game.legal_moves() and not stopped.complete
    reports = list(search.iterate(Limit(depth=3), multipv=3))
    assert [r.line for r in reports[-3:]] == [1, 2, 3]
    assert len({r.pv[0] for r in reports[-3:]}) == 3
    assert reports[-1].value <= reports[-2].value <= reports[-3].value
    only = chess.Move.from_uci("a2a3")
    assert search.search(Limit(depth=3), root_moves=[only]).best_move == only
    assert game.position() == Chess(POSITIONS[3]).position()


def test_threads_share_the_table_and_agree_on_a_mate() -> None:
    mate_in_one = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"
    found = CoreSearch(Chess(mate_in_one), hash_mb=4, threads=2).search(Limit(depth=4))
    assert found.value == WIN - 1 and found.best_move == chess.Move.from_uci("d1d8")
    busy = CoreSearch(Chess(POSITIONS[1]), hash_mb=4, threads=2).search(Limit(depth=5))
    assert busy.best_move in Chess(POSITIONS[1]).legal_moves()


def test_a_stop_ends_a_threaded_search_and_its_helpers() -> None:
    stop = threading.Event()
    search = CoreSearch(Chess(POSITIONS[3]), hash_mb=4, threads=2)

    def on_report(report: object) -> None:
        if getattr(report, "depth", 0) >= 4:
            stop.set()

    found = search.search(Limit(stop=stop.is_set), on_report=on_report)
    assert stop.is_set() and found.depth >= 4
    assert found.best_move in Chess(POSITIONS[3]).legal_moves()
    # The helper threads are joined: the next search runs on the same contexts at once.
    assert search.search(Limit(depth=3)).complete


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="threads"):
        CoreSearch(Chess(), threads=0)
    with pytest.raises(ValueError, match="hash size"):
        CoreSearch(Chess(), hash_mb=0)
    with pytest.raises(ValueError, match="over"):
        CoreSearch(Chess("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1")).search(Limit(depth=1))


class Recorder:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)


def test_uci_runs_the_compiled_search_with_hash_threads_and_hashfull() -> None:
    from zerosum.engines.compiled_tactical import CompiledTacticalEngine
    from zerosum.uci import UciEngine

    out = Recorder()
    uci = UciEngine(out)
    for line in ("setoption name Hash value 8", "setoption name Threads value 2", "isready"):
        uci.handle(line)
    assert isinstance(uci.engine, CompiledTacticalEngine)
    assert (uci.engine.hash_mb, uci.engine.threads) == (8, 2)
    uci.handle("position startpos moves e2e4 e7e5")
    uci.handle("go depth 5")
    uci._thread.join()  # type: ignore[union-attr]  # go started it
    infos = [line for line in out.lines if line.startswith("info depth")]
    assert len(infos) >= 5 and all(" hashfull " in line and " nps " in line for line in infos)
    best = out.lines[-1].split()[1]
    assert chess.Move.from_uci(best) in Chess(uci.game.position()).legal_moves()
    uci.handle("setoption name Clear Hash")
    assert uci.engine.hashfull() == 0
    uci.handle("setoption name Threads value 1")
    assert uci.engine is None  # reopened with the new option at the next search
    uci.close()


def test_cli_refuses_too_many_threads(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from zerosum.cli import main

    monkeypatch.setattr(os, "cpu_count", lambda: 64)  # --workers allows 4 a core
    assert main(["analyze", "chess", "--workers", "100", "--depth", "1"]) == 2
    assert "100 threads is out of range: expected 1..64" in capsys.readouterr().err


def test_equal_trees_with_every_option_but_reductions_on_random_positions() -> None:
    # 30 positions of random games, at depths 2 and 3.
    options = dataclasses.replace(Options(), reductions=False)
    rng = random.Random(5)
    for _ in range(6):
        board = chess.Board()
        for ply in range(40):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if ply % 8 == 7 and not board.is_game_over():
                assert_same_search(board.fen(), options, (2, 3))


def history_handover(inherit: bool) -> tuple[int, int]:
    """The nodes each twin searches at depth 4 after a move of the QGD position, in a new
    searcher on the last one's table that takes its history (``inherit``) or not."""
    fast, slow = twins(POSITIONS[3], hash_mb=64)
    found, expected = fast.search(Limit(depth=4)), slow.search(Limit(depth=4))
    assert (found.value, found.stats.nodes) == (expected.value, expected.stats.nodes)
    game = Chess(POSITIONS[3])
    game.make(found.best_move)
    fast_next = CoreSearch(game, table=(fast.keys, fast.data))
    fast_next.generation = fast.generation  # as the compiled engine hands it on
    slow_next = TacticalSearch(game.copy(), table=slow.table)
    if inherit:
        fast_next.inherit(fast)
        slow_next.inherit(slow)
        assert slow_next.history and slow_next.history is not slow.history
        for move, score in slow.history.items():  # the same scores, in the twins' own terms
            assert fast_next._contexts[0][6][cb.from_move(move) & 0x7FFF] == score
    found, expected = fast_next.search(Limit(depth=4)), slow_next.search(Limit(depth=4))
    assert (found.value, found.best_move) == (expected.value, expected.best_move)
    return found.stats.nodes, expected.stats.nodes


def test_both_twins_hand_the_history_to_the_next_positions_searcher_alike() -> None:
    # zerosum uci searches every move of a game with a new searcher, which inherits the last
    # one's move-ordering history: the twins search the same tree after it, and it counts.
    fresh, kept = history_handover(False), history_handover(True)
    assert fresh[0] == fresh[1] and kept[0] == kept[1]
    assert kept != fresh


def deepen_both_twins(fen: str, options: Options) -> tuple[CoreSearch, TacticalSearch[chess.Move]]:
    """Both twins searched to depths 4, 5 and 6 in one searcher each, with equal values and
    node counts at each depth; returns the searchers."""
    fast, slow = twins(fen, options, hash_mb=64)
    for depth in (4, 5, 6):
        found, expected = fast.search(Limit(depth=depth)), slow.search(Limit(depth=depth))
        assert (found.value, found.stats.nodes) == (expected.value, expected.stats.nodes)
    return fast, slow


def changes_the_tree(fen: str, options: Options, other: Options | None = None) -> bool:
    """Whether the compiled search counts other nodes with ``options`` than with ``other``
    (the defaults), at some depth of 4, 5 and 6 (one searcher each, deepening)."""
    with_it = CoreSearch(Chess(fen), options=options)
    without = CoreSearch(Chess(fen), options=other or Options())
    return any(
        with_it.search(Limit(depth=depth)).stats.nodes
        != without.search(Limit(depth=depth)).stats.nodes
        for depth in (4, 5, 6)
    )


def test_equal_trees_with_correction_history() -> None:
    # Correction history moves the evaluation that pruning reads by what it was off in
    # earlier nodes with the same pawns; the twins learn and apply it alike, and it carries
    # over from one depth to the next in the same searcher.
    corrected = Options(correction_history=True)
    for fen in (POSITIONS[1], POSITIONS[3]):
        _, slow = deepen_both_twins(fen, corrected)
        assert any(slow.correction.values())
    assert changes_the_tree(POSITIONS[3], corrected, Options(correction_history=False))


def random_game_positions(seed: int, games: int, most_plies: int) -> Iterator[Chess]:
    """The positions of ``games`` seeded random games of up to ``most_plies`` moves each, the
    start included, each with a legal move (the same game object, moved on after each)."""
    rng = random.Random(seed)
    for _ in range(games):
        game = Chess()
        for _ in range(rng.randrange(1, most_plies)):
            moves = game.legal_moves()
            if not moves:
                break
            yield game
            game.make(rng.choice(moves))


def test_the_correction_key_is_the_compiled_boards() -> None:
    from zerosum.search.tactical import CORRECTION_ENTRIES

    keys = set()
    for game in random_game_positions(4, 30, 80):
        key = game.correction_key()
        assert 0 <= key < CORRECTION_ENTRIES
        assert cs.correction_slot(cb.state_of_game(game)) == cs.HISTORY_ENTRIES + key
        keys.add(key)
    assert len(keys) > 500  # the pawns spread over the entries


def test_a_correction_moves_towards_the_error_and_stays_bounded() -> None:
    from zerosum.search.tactical import CORRECTION_GRAIN, CORRECTION_MAX, correction_update

    entry = 0
    for _ in range(200):
        entry = correction_update(entry, 40, 10)
    assert 39 * CORRECTION_GRAIN <= entry <= 40 * CORRECTION_GRAIN
    assert correction_update(0, 40, 0) == 40  # depth 0: 1/256 of the way
    assert correction_update(CORRECTION_MAX, 10_000, 30) == CORRECTION_MAX
    assert correction_update(-CORRECTION_MAX, -10_000, 30) == -CORRECTION_MAX


def test_equal_trees_with_continuation_history() -> None:
    # Continuation history orders quiet moves by what they scored after the moves one and two
    # plies before; the twins learn and read it alike, depth after depth in one searcher, with
    # and without correction history beside it. (Deeper, or in other positions, the Python
    # table's one slot per index may drop an entry the compiled buckets keep: tables roomier
    # than the tests' keep the twins equal there too.)
    for options in (
        Options(continuation_history=True),
        Options(continuation_history=True, correction_history=True),
    ):
        for fen in (POSITIONS[1], POSITIONS[3]):
            fast, slow = deepen_both_twins(fen, options)
            assert any(slow.continuation.values())
            # The same scores in the compiled history array.
            history = fast._contexts[0][6]
            for pair, score in slow.continuation.items():
                assert history[cs.CONTINUATION_BASE + pair] == score
    assert changes_the_tree(POSITIONS[3], Options(continuation_history=True))
    with_it = CoreSearch(Chess(POSITIONS[3]), options=Options(continuation_history=True))
    without = CoreSearch(Chess(POSITIONS[3]))
    for depth in (4, 5):
        with_it.search(Limit(depth=depth))
        without.search(Limit(depth=depth))
    # The next position's searcher takes the history whether or not it keeps a continuation
    # history of its own.
    game = Chess(POSITIONS[3])
    game.make(game.legal_moves()[0])
    for giver, taker in (
        (with_it, CoreSearch(game)),
        (without, CoreSearch(game, options=Options(continuation_history=True))),
    ):
        taker.inherit(giver)
        assert taker.search(Limit(depth=3)).best_move in game.legal_moves()


def test_the_move_key_is_the_compiled_boards() -> None:
    from zerosum.search.tactical import MOVE_KEYS

    keys = set()
    for game in random_game_positions(6, 20, 120):
        state = cb.state_of_game(game)
        for move in game.legal_moves():
            key = game.move_key(move)
            assert 0 <= key < MOVE_KEYS
            assert cs.move_key(state, cb.from_move(move)) == key
            keys.add(key)
    assert len(keys) > 400  # pieces of both colours on many squares
