"""Connect four's opening book (``zerosum.games.connect4_book``): the shipped file, its format,
its keys, and the solvers and players that answer from it without a search."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

from zerosum.cli import main
from zerosum.compiled import connect4 as kernel
from zerosum.compiled.solver import Solver
from zerosum.engines import open_engine
from zerosum.games import get_game
from zerosum.games.connect4 import Connect4
from zerosum.games.connect4_book import (
    BookError,
    OpeningBook,
    _stones,
    canonical_key,
    check_book,
    opening_book,
    parse_book,
    read_book,
    write_book,
)
from zerosum.store import Store

PONS = Path(__file__).resolve().parent / "data" / "connect4" / "book_pons_sample"
"""Book positions with the score Pascal Pons's C++ solver gave them (``MOVES SCORE``)."""


@pytest.fixture(scope="module")
def book() -> OpeningBook:
    shipped = opening_book()
    assert shipped is not None, "the package ships connect four's opening book"
    return shipped


def random_position(rng: random.Random, plies: int) -> Connect4:
    game = Connect4()
    while game.ply() < plies and game.outcome() is None:
        game.make(rng.choice(game.legal_moves()))
    return game


def mirrored(game: Connect4) -> Connect4:
    return Connect4.from_position("".join(str(8 - int(c)) for c in game.position()))


def book_positions(book: OpeningBook, plies: int) -> list[Connect4]:
    """One position of every mirror pair of at most ``plies`` stones that the book holds."""
    found: list[Connect4] = []
    layer = {canonical_key(Connect4()): Connect4()}
    for ply in range(plies + 1):
        found.extend(game for key, game in layer.items() if key in book.scores)
        if ply == plies:
            break
        following: dict[int, Connect4] = {}
        for game in layer.values():
            for move in game.legal_moves():
                child = game.copy()
                child.make(move)
                if child.outcome() is None:
                    following.setdefault(canonical_key(child), child)
        layer = following
    return found


# -- the shipped file ---------------------------------------------------------------------


def test_the_shipped_book_loads_and_holds_together(book: OpeningBook) -> None:
    """Every key canonical, every score possible, every position up to its declared depth
    present, and every position whose moves it knows scored as the best of them."""
    assert len(book) > 0
    check_book(book)
    assert all(_stones(key) <= 5 for key in book.scores)


def test_the_book_agrees_with_pons_on_a_sample(book: OpeningBook) -> None:
    """The sample ``benchmarks/connect4_book.py check`` asked Pons's solver about."""
    lines = [line.split() for line in PONS.read_text().splitlines() if line]
    assert lines
    for moves, score in lines:
        assert book.score(Connect4.from_position(moves)) == int(score), moves


def test_book_entries_equal_a_fresh_solve_where_that_is_quick(
    book: OpeningBook, data_dir: Path
) -> None:
    """The book's positions from Pons's easy test set: the set's score, the book's and a
    fresh compiled solve (without the book) agree."""
    lines = (data_dir / "connect4" / "Test_L1_R1").read_text().splitlines()
    shallow = [line.split() for line in lines if line and len(line.split()[0]) <= 5]
    solver = Solver("connect4", hash_mb=8, book=False)
    checked = 0
    for moves, score in shallow:
        game = Connect4.from_position(moves)
        known = book.score(game)
        if known is None:
            continue
        fresh = solver.solve(game)
        assert known == fresh.rank == int(score), moves
        checked += 1
    assert checked >= 10


# -- keys and the file format -------------------------------------------------------------


def test_keys_are_the_compiled_engines_store_keys_and_mirror_blind() -> None:
    rng = random.Random(23)
    for _ in range(200):
        game = random_position(rng, rng.randrange(0, 30))
        if game.outcome() is not None:
            continue
        key = canonical_key(game)
        assert key == kernel.canonical_key(game)
        assert key == canonical_key(mirrored(game))
        assert _stones(key) == game.ply()


def test_a_book_round_trips_through_its_file(tmp_path: Path) -> None:
    scores = {canonical_key(Connect4.from_position(m)): s for m, s in [("4", -1), ("44", 1)]}
    path = tmp_path / "book.bin"
    size = write_book(path, OpeningBook(-1, scores))
    assert size == path.stat().st_size == 8 + 2 + 2 + 4 + 9 * 2
    again = read_book(path)
    assert again.plies == -1 and dict(again.scores) == scores
    assert again.score(Connect4.from_position("4")) == -1
    assert again.score(Connect4.from_position("44")) == 1
    assert again.score(Connect4.from_position("444")) is None


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "too short"),
        (b"NOTABOOK" + bytes(8), "not a connect four book"),
        (b"ZSC4BOOK\x01\x00\x00\x00\x02\x00\x00\x00" + bytes(9), "expected 34"),
    ],
)
def test_a_bad_file_is_refused_with_a_clear_error(data: bytes, words: str) -> None:
    with pytest.raises(BookError, match=words):
        parse_book(data)


def test_the_checker_names_what_is_wrong() -> None:
    start = canonical_key(Connect4())
    with pytest.raises(BookError, match="missing"):
        check_book(OpeningBook(0, {}))
    with pytest.raises(BookError, match="out of range"):
        check_book(OpeningBook(0, {start: 40}))
    # After "1", O to move has no stone: current 0, mask X's stone in the first cell (bit 0);
    # in the mirror image that stone is in the seventh column (bit 42).
    assert canonical_key(Connect4.from_position("1")) == 1
    with pytest.raises(BookError, match="not canonical"):
        check_book(OpeningBook(-1, {1 << 42: 0}))
    children = {canonical_key(Connect4.from_position(c)): -1 for c in "1234"}
    with pytest.raises(BookError, match="best of its moves"):
        check_book(OpeningBook(1, {start: 0, **children}))


# -- answered from the book ---------------------------------------------------------------


def test_the_solver_answers_book_positions_without_a_search(book: OpeningBook) -> None:
    solver = Solver("connect4", hash_mb=8)
    for game in book_positions(book, 5)[:40]:
        exact = solver.solve(game)
        assert exact.book and exact.stats.nodes == 0
        assert exact.rank == book.score(game)


def test_a_position_out_of_the_book_is_searched(tmp_path: Path) -> None:
    """A book that knows the position, and one that does not: the first answers with no
    node, the second leaves it to the solver, which finds the same score."""
    moves = "2252576253462244111563365343671351441"  # a late position: solved at once
    game = Connect4.from_position(moves)
    fresh = Solver("connect4", hash_mb=8, book=False).solve(game)
    solver = Solver("connect4", hash_mb=8)
    solver.book = OpeningBook(-1, {canonical_key(game): fresh.rank})
    answered = solver.solve(game)
    assert answered.book and answered.stats.nodes == 0 and answered.rank == fresh.rank
    solver.book = OpeningBook(-1, {})
    searched = solver.solve(game)
    assert not searched.book and searched.stats.nodes > 0 and searched.rank == fresh.rank


def test_a_store_built_by_book_reads_as_a_book(tmp_path: Path) -> None:
    """``zerosum book``'s store keys are the book's keys: a book made of a store's results
    answers every position the build solved, with the solver's scores."""
    root = Connect4.from_position("7422341735647741166133573473242566")
    with Store(tmp_path / "s.sqlite") as store:
        builder = Solver("connect4", hash_mb=8, store=store, book=False)
        assert builder.build_book(root, 2)
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        rows = db.execute("SELECT key, result FROM solved WHERE weak = 0").fetchall()
    scores = {int(key): int(result) for key, result in rows}
    book = OpeningBook(-1, scores)
    check_book(book)
    fresh = Solver("connect4", hash_mb=8, book=False)
    for move in root.legal_moves():
        child = root.copy()
        child.make(move)
        if child.outcome() is None:
            assert book.score(child) == fresh.solve(child).rank


def test_the_perfect_player_answers_from_the_book(book: OpeningBook) -> None:
    """Every position whose best move the book knows: exact value and best moves, no node;
    all of them where the book scores every move."""
    engine = open_engine(get_game("connect4"), task="play")
    solver = engine.solver  # type: ignore[attr-defined]  # the compiled engine's
    answered = every = 0
    for game in book_positions(book, 4):
        known = book.best_moves(game)
        if not known:
            continue
        found = engine.best_moves(game, depth=0)
        assert found.stats.nodes == 0 and found.solved
        assert found.value == solver.solve(game).value
        assert set(found.best_moves) == set(known)
        answered += 1
        scored = book.move_scores(game)
        if scored is not None:
            best = max(score for _, score in scored)
            assert set(known) == {move for move, score in scored if score == best}
            moves, cost = solver.best_moves_search(game, best)  # every move: no search either
            assert cost.nodes == 0 and moves == list(found.best_moves)
            every += 1
    assert every >= 1
    if book.plies >= 4:  # the complete book: every position of at most four plies
        assert answered == len(book_positions(book, 4))


def test_solve_answers_from_the_book_at_once(
    book: OpeningBook, capsys: pytest.CaptureFixture[str]
) -> None:
    game = next(g for g in book_positions(book, 4) if book.move_scores(g) is not None)
    moves = game.position() or "(start)"
    argv = ["solve", "connect4", "--json", *(["--moves", moves] if game.ply() else [])]
    assert main([*argv, "--all"]) == 0
    data = json.loads(capsys.readouterr().out)
    scored = dict(book.move_scores(game) or [])
    assert data["book"] is True and data["nodes"] == 0 and data["complete"] is True
    assert data["score"] == book.score(game)
    assert data["scores"] == {str(m + 1): scored.get(m) for m in range(7)}
    assert main([*argv, "--weak"]) == 0
    weak = json.loads(capsys.readouterr().out)
    sign = (data["score"] > 0) - (data["score"] < 0)
    assert weak["score"] == sign and weak["book"] is True
    signs = {str(m + 1) for m, s in scored.items() if (s > 0) - (s < 0) == sign}
    assert set(weak["best_moves"]) == signs
    assert main([a for a in argv if a != "--json"]) == 0  # the text answer
    assert "nodes 0 in" in capsys.readouterr().out


def test_book_without_the_book_proves_and_stores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``zerosum book --no-book`` (how the shipped book is rebuilt) stores what it proves."""
    store = str(tmp_path / "b.sqlite")
    moves = "7422341735647741166133573473242566"
    argv = ["book", "connect4", "--moves", moves, "--plies", "1", "--store", store]
    assert main([*argv, "--no-book", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["complete"] and data["solved"] == data["positions"] > 1
    # and a best move of each position it searched: one result more, deeper, for each
    assert data["store_results"] >= data["positions"]


# -- books that know only some best moves -------------------------------------------------

LATE = "7422341735647741166133573473242566"
"""A position whose subtrees solve in milliseconds."""


def test_a_book_build_proves_a_best_move_of_every_position(tmp_path: Path) -> None:
    """``build_book`` leaves every position it solved with a best move the store proves, and
    the moves the store shows as best are best (a fresh solver's every best move)."""
    root = Connect4.from_position(LATE)
    with Store(tmp_path / "s.sqlite") as store:
        builder = Solver("connect4", hash_mb=8, store=store, book=False)
        assert builder.build_book(root, 2)
        reader = Solver("connect4", hash_mb=8, store=store, book=False)
        fresh = Solver("connect4", hash_mb=8, book=False)
        positions = [root]
        for move in root.legal_moves():
            child = root.copy()
            child.make(move)
            if child.outcome() is None:
                positions.append(child)
                for reply in child.legal_moves():
                    grandchild = child.copy()
                    grandchild.make(reply)
                    if grandchild.outcome() is None:
                        positions.append(grandchild)
        for game in positions:
            exact = reader.solve(game)
            assert exact.stored, game.position()
            known = reader.known_best_moves(game, exact.rank)
            every = fresh.best_moves(game, fresh.solve(game).rank)
            assert known and set(known) <= set(every), game.position()


def test_the_first_best_move_is_proven_and_stored(tmp_path: Path) -> None:
    game = Connect4.from_position(LATE)
    with Store(tmp_path / "s.sqlite") as store:
        solver = Solver("connect4", hash_mb=8, store=store, book=False)
        rank = solver.solve(game).rank
        assert solver.known_best_moves(game, rank) == []
        first, _ = solver.best_moves_search(game, rank, first_only=True)
        assert first is not None and len(first) == 1
        assert solver.known_best_moves(game, rank) == first
        assert first[0] in Solver("connect4", hash_mb=8, book=False).best_moves(game, rank)


def partial_book(game: Connect4) -> tuple[OpeningBook, int, list[int]]:
    """A book that scores ``game`` and only the first of its best moves' positions; with
    the score and every best move, from a fresh solve."""
    fresh = Solver("connect4", hash_mb=8, book=False)
    rank = fresh.solve(game).rank
    every = fresh.best_moves(game, rank)
    child = game.copy()
    child.make(every[0])
    return OpeningBook(-1, {canonical_key(game): rank, canonical_key(child): -rank}), rank, every


def test_a_book_of_some_best_moves_names_them_only() -> None:
    game = Connect4.from_position(LATE)
    partial, rank, every = partial_book(game)
    assert partial.move_scores(game) is None
    assert partial.best_moves(game) == every[:1]
    assert partial.score(game) == rank
    assert OpeningBook(-1, {}).best_moves(game) == []


def test_the_perfect_player_plays_a_best_move_the_book_knows() -> None:
    game = Connect4.from_position(LATE)
    partial, _, every = partial_book(game)
    engine = open_engine(get_game("connect4"), task="play")
    engine.solver.book = partial  # type: ignore[attr-defined]  # the compiled engine's
    found = engine.best_moves(game, depth=0)
    assert found.solved and found.stats.nodes == 0
    assert list(found.best_moves) == every[:1]


def test_solve_answers_the_score_and_the_best_moves_the_book_knows(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without ``--all``, solve answers from a book that knows the score and one best move,
    and says that the best moves may not be all; ``--all`` proves every move instead."""
    game = Connect4.from_position(LATE)
    partial, rank, every = partial_book(game)
    monkeypatch.setattr("zerosum.games.connect4_book.book_for", lambda name: partial)
    argv = ["solve", "connect4", "--moves", LATE, "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["book"] is True and data["nodes"] == 0 and data["score"] == rank
    assert data["best_moves"] == [str(every[0] + 1)] and data["best_moves_complete"] is False
    assert main([a for a in argv if a != "--json"]) == 0
    assert "--all scores every move" in capsys.readouterr().out
    assert main([*argv, "--all", "--no-book"]) == 0
    proven = json.loads(capsys.readouterr().out)
    assert proven["book"] is False and proven["best_moves_complete"] is True
    assert proven["best_moves"] == [str(m + 1) for m in every]
