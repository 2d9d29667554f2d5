"""The morris endgame databases: the compiled retrograde solve against its obvious twin, the
published 3-3 figures, one-ply consistency with the morris game's own rules, the store, the
search's probe and the command line."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from waiting import HANG_S

from zerosum.cli import main
from zerosum.endgames import database, mapped
from zerosum.endgames import probe as endgames_probe
from zerosum.endgames.board import GRID, NINE_MENS_MORRIS, SQUARE, Board
from zerosum.endgames.database import ClassInfo, EndgameResult, Endgames, parse_position
from zerosum.endgames.reference import children, solve_by_levels
from zerosum.endgames.retro import Geometry, class_size, solve_all
from zerosum.game import WIN, Outcome
from zerosum.games import get_game
from zerosum.games.morris import Morris
from zerosum.games.morris_endgames import probe, score, solve_endgame
from zerosum.search import Limit, search

# The slow set: the session's store builds the 3-3, 3-4 and 4-3 classes (minutes).
pytestmark = pytest.mark.slow

POINTS = NINE_MENS_MORRIS.points


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A store with the classes 3-3, 3-4 and 4-3 (4-4 is left to the benchmark)."""
    path = tmp_path_factory.mktemp("endgames") / "endgames.sqlite"
    with Endgames(path) as endgames:
        endgames.build(through=(3, 4))
    yield path


@pytest.fixture
def endgames(store: Path) -> Iterator[Endgames]:
    with Endgames(store, create=False) as opened:
        yield opened


def text_of(white: list[int], black: list[int], side: str) -> str:
    board = ["."] * 24
    for p in white:
        board[p] = "W"
    for p in black:
        board[p] = "B"
    return f"{''.join(board)} {side} 0 0"


def random_position(rng: random.Random, mover: int, other: int) -> Morris:
    points = rng.sample(range(24), mover + other)
    side = rng.choice("wb")
    mine, theirs = points[:mover], points[mover:]
    white, black = (mine, theirs) if side == "w" else (theirs, mine)
    return Morris.from_position(text_of(white, black, side))


def position_at(code_table: np.ndarray, index: int, mover: int, other: int) -> Morris:
    """The position of the class ``mover-other`` at ``index`` of its stored (symmetric) table."""
    from zerosum.endgames.orbits import orbits
    from zerosum.endgames.retro import spread, subsets

    others = subsets(24 - mover, other)
    mine = int(orbits(NINE_MENS_MORRIS, mover).rep[index // len(others)])
    theirs = int(spread(int(others[index % len(others)]), mine, 24))
    as_list = [p for p in range(24) if mine >> p & 1], [p for p in range(24) if theirs >> p & 1]
    return Morris.from_position(text_of(*as_list, "w"))


# -- the compiled solve and its twin ------------------------------------------------------


@pytest.mark.parametrize("board", [SQUARE, GRID], ids=lambda b: b.name)
def test_retrograde_matches_the_level_by_level_solver(board: Board) -> None:
    reference = solve_by_levels(board, 4)
    tables = solve_all(board, 4)
    geometry = Geometry(board)
    assert sum(len(t) for t in tables.values()) == len(reference)
    indices: dict[tuple[int, int], set[int]] = {}
    for mover, other in reference:
        indices.setdefault((mover.bit_count(), other.bit_count()), set()).add(
            geometry.index(mover, other)
        )
    assert {key: len(found) for key, found in indices.items()} == {
        key: len(table) for key, table in tables.items()
    }  # the index is a bijection onto 0..size-1
    assert all(max(found) == len(tables[key]) - 1 for key, found in indices.items())
    for (mover, other), code in reference.items():
        table = tables[mover.bit_count(), other.bit_count()]
        assert table[geometry.index(mover, other)] == code, (board.name, mover, other)
    codes = set(reference.values())
    assert 0 in codes or board is SQUARE  # draws exist on the grid
    assert any(c > 1 and c % 2 == 0 for c in codes)  # wins
    assert any(c > 0 and c % 2 == 1 for c in codes)  # losses


@pytest.mark.parametrize("board", [SQUARE, GRID], ids=lambda b: b.name)
def test_the_symmetric_solve_matches_the_level_by_level_solver(board: Board) -> None:
    from zerosum.endgames import reduced
    from zerosum.endgames.orbits import orbits, permutation_bytes, table_size
    from zerosum.endgames.retro import class_pairs

    reference = solve_by_levels(board, 4)
    tables: dict[tuple[int, int], np.ndarray] = {}
    for x, y in class_pairs(4):
        tables.update(reduced.solve_pair(board, x, y, tables))
    binom = Geometry(board).binom
    for (mover, other), code in reference.items():
        x, y = mover.bit_count(), other.bit_count()
        table = tables[x, y]
        assert len(table) == table_size(board, x, y)
        mine = orbits(board, x)
        at = reduced.lookup_index(
            mover,
            other,
            len(reduced.subsets(board.size - x, y)),
            mine.orbit,
            mine.sym,
            mine.rep,
            permutation_bytes(board),
            binom,
        )
        assert table[at] == code, (board.name, mover, other)


def test_symmetric_tables_equal_the_full_tables_through_four_men() -> None:
    """Every position of every class up to 4-4: the symmetric solve (expanded) and the
    full-table solve give the same byte."""
    from zerosum.endgames import reduced, retro

    full: dict[tuple[int, int], np.ndarray] = {}
    symmetric: dict[tuple[int, int], np.ndarray] = {}
    for x, y in retro.class_pairs(4):
        full.update(retro.solve_pair(NINE_MENS_MORRIS, x, y, full))
        symmetric.update(reduced.solve_pair(NINE_MENS_MORRIS, x, y, symmetric))
    for key, table in full.items():
        assert len(symmetric[key]) * 12 < len(table)  # 12.8 at 3-3, 14.0 at 4-4
        assert np.array_equal(reduced.expand(NINE_MENS_MORRIS, *key, symmetric[key]), table), key


def test_plain_python_index_matches_the_compiled_one(endgames: Endgames) -> None:
    from zerosum.endgames.orbits import orbits, permutation_bytes, table_size
    from zerosum.endgames.reduced import lookup_index

    geometry = Geometry(NINE_MENS_MORRIS)
    perm = permutation_bytes(NINE_MENS_MORRIS)
    rng = random.Random(5)
    for _ in range(500):
        x, y = rng.choice([(3, 3), (3, 4), (4, 3), (4, 4), (6, 5)])
        points = rng.sample(range(24), x + y)
        mover = sum(1 << p for p in points[:x])
        other = sum(1 << p for p in points[x:])
        index = endgames._index(mover, other)
        mine = orbits(NINE_MENS_MORRIS, x)
        count = class_size(NINE_MENS_MORRIS, x, y) // len(mine.orbit)
        expected = lookup_index(
            mover, other, count, mine.orbit, mine.sym, mine.rep, perm, geometry.binom
        )
        assert index == expected
        assert 0 <= index < table_size(NINE_MENS_MORRIS, x, y)


def test_three_men_each_reproduces_the_published_figures(endgames: Endgames) -> None:
    info = {c.name: c for c in endgames.classes()}["3-3"]
    assert info.entries == 2_691_920
    assert (info.wins, info.losses, info.draws) == (2_232_160, 455_648, 4_112)
    assert (info.longest_win, info.longest_loss) == (25, 26)
    assert info.classes == 169_626  # symmetry.class_count(3, 3)
    assert info.stored == len(endgames.table(3, 3)) == 158 * 1330
    table = endgames.full_table(3, 3)  # the stored blob, every position counted again
    distance = table.astype(np.int64) - 1
    assert len(table) == 2_691_920
    assert int(((table > 0) & (distance % 2 == 1)).sum()) == 2_232_160
    assert int((table == 0).sum()) == 4_112
    assert int(distance.max()) == 26


def test_three_against_four_figures(endgames: Endgames) -> None:
    """The side with three men to move never loses against four (it flies onto any threat);
    four men to move win only by closing a mill at once."""
    info = {c.name: c for c in endgames.classes()}
    three, four = info["3-4"], info["4-3"]
    assert three.entries == four.entries == 2024 * 5985
    assert three.classes == four.classes == 760_398
    assert (three.wins, three.losses, three.draws) == (1_629_336, 0, 10_484_304)
    assert (four.wins, four.losses, four.draws) == (1_201_560, 48_720, 10_863_360)
    assert (three.longest_win, four.longest_win, four.longest_loss) == (33, 1, 32)


# -- one-ply consistency with the morris game's own rules ---------------------------------


def expected_from_children(game: Morris, endgames: Endgames) -> EndgameResult:
    """What a position's value must be, given its children's values: the morris game's legal
    moves are the oracle for what the children are."""
    side = game.side_to_move()
    after = []
    for move in game.legal_moves():
        game.make(move)
        if game.men(side ^ 1).bit_count() < 3:
            after.append(EndgameResult(Outcome.WIN, 1))
        else:
            child = endgames.lookup(game.men(side ^ 1), game.men(side))
            if child.moves_to_end is None:
                after.append(child)
            else:
                after.append(EndgameResult(Outcome(-child.outcome), child.moves_to_end + 1))
        game.undo()
    wins = [r.moves_to_end for r in after if r.outcome is Outcome.WIN]
    if wins:
        return EndgameResult(Outcome.WIN, min(w for w in wins if w is not None))
    if all(r.outcome is Outcome.LOSS for r in after):
        return EndgameResult(Outcome.LOSS, max((r.moves_to_end or 0 for r in after), default=0))
    return EndgameResult(Outcome.DRAW, None)


@pytest.mark.parametrize("men", [(3, 3), (3, 4), (4, 3)])
def test_random_entries_agree_with_their_children(endgames: Endgames, men: tuple[int, int]) -> None:
    rng = random.Random(sum(men))
    table = endgames.table(*men)
    # Random positions, plus the slowest wins, slowest losses and some draws of the class.
    picks = [random_position(rng, *men) for _ in range(150)]
    for code in (int(table.max()), int(table.max()) - 1, 0):
        for index in np.flatnonzero(table == code)[:5]:
            picks.append(position_at(table, int(index), *men))
    for game in picks:
        side = game.side_to_move()
        stored = endgames.lookup(game.men(side), game.men(side ^ 1))
        assert stored == expected_from_children(game, endgames), game.position()


def test_the_twin_rules_list_the_morris_games_moves() -> None:
    rng = random.Random(11)
    for _ in range(200):
        game = random_position(rng, *rng.choice([(3, 3), (3, 4), (4, 3), (4, 4)]))
        side = game.side_to_move()
        ours = set()
        for child in children(NINE_MENS_MORRIS, game.men(side), game.men(side ^ 1)):
            text = f"{POINTS[child.source]}-{POINTS[child.target]}"
            ours.add(text if child.removed is None else f"{text}x{POINTS[child.removed]}")
        assert ours == {game.format_move(m) for m in game.legal_moves()}, game.position()


# -- the store ----------------------------------------------------------------------------


def test_a_second_build_finds_everything_stored(store: Path) -> None:
    seen: list[ClassInfo] = []
    with Endgames(store) as endgames:
        endgames.build(through=(4, 3), on_class=seen.append)
    assert [(c.name, c.built_now) for c in seen] == [("3-3", False), ("3-4", False), ("4-3", False)]


def test_a_killed_build_keeps_the_classes_it_finished(tmp_path: Path) -> None:
    path = tmp_path / "killed.sqlite"
    env = {**os.environ, "ZEROSUM_ENDGAMES": str(path)}
    command = [sys.executable, "-m", "zerosum.cli", "build-endgames", "morris"]
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # the 3-3 class is stored; 3-4 is being built
        assert line.startswith("endgames 3-3:"), line
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=HANG_S)
    finally:
        if process.poll() is None:
            process.kill()
    check = sqlite3.connect(path)  # the file is whole after the kill, the class readable
    try:
        assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        check.close()
    with Endgames(path) as endgames:
        assert [c.name for c in endgames.classes()] == ["3-3"]
        assert len(endgames.table(3, 3)) == endgames.classes()[0].stored
        seen: list[ClassInfo] = []
        endgames.build(3, on_class=seen.append)
        assert [(c.name, c.built_now) for c in seen] == [("3-3", False)]  # found, not rebuilt


def test_a_file_that_is_not_a_store_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(database.EndgameError, match="cannot be used as an endgame store"):
        Endgames(bad)
    with pytest.raises(database.EndgameError, match="no endgame store"):
        Endgames(tmp_path / "missing.sqlite", create=False)
    with (
        Endgames(tmp_path / "empty.sqlite") as empty,
        pytest.raises(database.EndgameError, match="build-endgames"),
    ):
        empty.table(3, 3)


def test_default_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(tmp_path / "x.sqlite"))
    assert database.default_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("ZEROSUM_ENDGAMES")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert database.default_path() == tmp_path / "zerosum" / "endgames.sqlite"


def test_parse_position() -> None:
    setup = parse_position("WB.....W...............B b 0 0")
    assert (setup.white, setup.black, setup.white_to_move) == (1 | 1 << 7, 2 | 1 << 23, False)
    assert (setup.mover, setup.other) == (setup.black, setup.white)
    for bad in ("WB b 0 0", "W" * 24 + " x 0 0", "." * 24 + " w 0", "." * 24 + " w a 0"):
        with pytest.raises(database.PositionError):
            parse_position(bad)


# -- answers for a morris game ------------------------------------------------------------


def test_solve_gives_every_moves_result(endgames: Endgames) -> None:
    table = endgames.table(3, 3)
    game = position_at(table, int(np.flatnonzero(table == 26)[0]), 3, 3)
    solution = solve_endgame(game, endgames)
    assert solution.result == EndgameResult(Outcome.WIN, 25)
    assert len(solution.moves) == len(game.legal_moves())
    assert solution.best_moves
    for move in solution.best_moves:
        game.make(move)
        side = game.side_to_move()
        assert endgames.lookup(game.men(side), game.men(side ^ 1)) == EndgameResult(
            Outcome.LOSS, 24
        )
        game.undo()
    assert score(solution.result) == WIN - 25


def test_probe_answers_only_what_the_databases_decide(endgames: Endgames) -> None:
    game = Morris.from_position("WWW...............BBB... b 0 0")
    assert probe(game, endgames) == (Outcome.WIN, 3)
    assert probe(Morris.from_position("WWW...............BBB... b 1 0"), endgames) is None
    five = Morris.from_position("WWWWW.............BBB... b 0 0")
    assert probe(five, endgames) is None
    assert probe(Morris.from_position("WWW.........BBBB........ b 0 0"), endgames) == (
        Outcome.DRAW,
        0,
    )
    for variant in ("morris:flying=off", "morris:six"):
        spec = get_game(variant)
        text = "WWW...............BBB... b 0 0" if variant.endswith("off") else None
        if text is not None:
            assert probe(spec.from_position(text), endgames) is None  # type: ignore[arg-type]
    assert probe(Morris.from_position("WWWW........BBBB........ w 0 0"), endgames) is None  # 4-4
    # A win that the move limit would cut short is left to the search.
    near_limit = Morris.from_position("WWW...............BBB... b 0 0 98")
    assert probe(near_limit, endgames) is None


def test_the_search_scores_database_positions_exactly(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(store))
    monkeypatch.setattr(endgames_probe, "_OPENED", {})
    with Endgames(store, create=False) as endgames:
        table = endgames.table(3, 3)
        game = position_at(table, int(np.flatnonzero(table == 26)[0]), 3, 3)
        result = search(game, limit=Limit(depth=1), all_best=True)
        assert result.value == WIN - 25
        assert result.solved
        best = set(solve_endgame(game, endgames).best_moves)
    assert set(result.best_moves) == best
    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(store.parent / "none.sqlite"))
    unprobed = search(game, limit=Limit(depth=1))
    assert not unprobed.solved


# -- the command line ---------------------------------------------------------------------


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    status = main([*argv, "--json"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    data: dict[str, object] = json.loads(captured.out)
    return data


def test_solve_morris_json(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    position = "WWW...............BBB... b 0 0"
    data = run_json(capsys, "solve", "morris", "--position", position, "--store", str(store))
    assert (data["result"], data["moves_to_end"], data["value"]) == ("win", 3, WIN - 3)
    moves = data["moves"]
    assert isinstance(moves, dict)
    assert set(data["best_moves"]) == {  # type: ignore[arg-type]
        m for m, r in moves.items() if r == {"result": "win", "moves_to_end": 3}
    }
    drawn = run_json(
        capsys,
        "solve",
        "morris",
        "--position",
        "WWW.........BBBB........ b 0 0",
        "--store",
        str(store),
    )
    assert (drawn["result"], drawn["moves_to_end"], drawn["value"]) == ("draw", None, 0)


def test_build_endgames_command(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "build-endgames", "morris", "--max-men", "3", "--store", str(store))
    assert [(c["name"], c["built_now"]) for c in data["classes"]] == [("3-3", False)]  # type: ignore[index, union-attr]
    assert main(["build-endgames", "morris", "--max-men", "7", "--store", str(store)]) == 2
    assert "3..6" in capsys.readouterr().err
    assert main(["build-endgames", "connect4", "--store", str(store)]) == 2
    assert "'connect4' has no endgame databases: expected one of morris" in capsys.readouterr().err


def test_solve_builds_on_first_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "first.sqlite"
    data = run_json(
        capsys,
        "solve",
        "morris",
        "--position",
        "WWW...............BBB... w 0 0",
        "--store",
        str(path),
    )
    assert data["result"] == "win"
    assert [c.name for c in Endgames(path).classes()] == ["3-3"]


def test_positions_outside_the_databases_fall_back_to_search(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["solve", "morris", "--position", "WWW...............BBB... b 1 0", "--time", "1"]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert "endgame" not in out
    with_store = [
        "solve",
        "morris",
        "--position",
        "WWWWWWW.....BBBB........ b 0 0",
        "--store",
        str(store),
    ]
    assert main(with_store) == 2
    assert "outside the endgame databases" in capsys.readouterr().err
    # 5-4 is in the databases' reach, but solve builds on first use only up to 4-4
    five = [
        "solve",
        "morris",
        "--position",
        "WWWWW.......BBBB........ b 0 0",
        "--store",
        str(store),
    ]
    assert main(five) == 2
    err = capsys.readouterr().err
    assert "class 4-5 is not in" in err and "build-endgames morris --max-men 5" in err


def test_players_take_the_databases_best_moves_at_the_root(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zerosum.cli.play import Computer
    from zerosum.search.probing import probe_root

    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(store))
    monkeypatch.setattr(endgames_probe, "_OPENED", {})
    with Endgames(store, create=False) as endgames:
        table = endgames.table(4, 3)
        game = position_at(table, int(np.flatnonzero(table == 33)[0]), 4, 3)  # loses in 32
        solution = solve_endgame(game, endgames)
    probed = probe_root(game)
    assert probed is not None
    value, scored = probed
    assert value == score(solution.result) == -(WIN - 32)
    assert scored == [(move, score(result)) for move, result in solution.moves]
    computer = Computer(get_game("morris"), 1, random.Random(1), None)  # the compiled engine
    moves, text = computer.best(game, depth=1)
    assert set(moves) == set(solution.best_moves)
    assert text == "loss in 32 plies"
    assert probe_root(Morris.from_position("WWW...............BBB... b 1 0")) is None


def test_the_file_can_also_be_a_store_of_proven_results(store: Path, tmp_path: Path) -> None:
    import shutil

    from zerosum.store import Store

    path = tmp_path / "both.sqlite"
    shutil.copy(store, path)
    with Store(path) as results:
        results.put("connect4", 12345, -2)
    with Endgames(path) as endgames:
        assert [c.name for c in endgames.classes()] == ["3-3", "3-4", "4-3"]
        assert endgames.lookup(0b1011, 0b111 << 21) == EndgameResult(Outcome.WIN, 1)  # a7 d7 b6
    with Store(path) as results:
        assert results.get("connect4", 12345) == -2
        assert results.count() == 1


# -- the compiled engine's probe ----------------------------------------------------------


@pytest.fixture
def compiled_store(store: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The session store as the default one, for the compiled engine and the pure search."""
    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(store))
    monkeypatch.setattr(endgames_probe, "_OPENED", {})
    return store


def test_the_compiled_probe_reads_what_the_databases_store(
    compiled_store: Path, endgames: Endgames
) -> None:
    from zerosum.compiled import morris as kernel
    from zerosum.compiled.engine import NO_SCORE
    from zerosum.compiled.solver import rank_of

    aux = kernel.endgame_tables()
    stored = [bool(aux[mapped.class_index(*c)]) for c in [(3, 3), (3, 4), (4, 3), (4, 4)]]
    assert stored == [True, True, True, False]  # 4-4 is not
    rng = random.Random(11)
    for mover, other in [(3, 3), (3, 4), (4, 3), (4, 4), (3, 5)] * 40:
        game = random_position(rng, mover, other)
        state = np.array(kernel.state_of(game), np.int64)
        found = kernel.probe(state, aux)
        exact = probe(game, endgames)
        if exact is None:
            assert found == NO_SCORE
        else:
            # A game that ends at game ply p ranks RANK_BASE - p; this one starts at ply 0.
            rank = rank_of(found)
            moves = kernel.RANK_BASE - abs(rank) if rank else 0
            assert (int(np.sign(rank)), moves) == (int(exact[0]), exact[1])
    # Under a move limit a result that would end after it is left to the search.
    near_limit = Morris.from_position("WWW...............BBB... b 0 0 98")
    assert kernel.probe(np.array(kernel.state_of(near_limit), np.int64), aux) == NO_SCORE
    flying_off = get_game("morris:flying=off").from_position("WWW...............BBB... b 0 0")
    state = np.array(kernel.state_of(flying_off), np.int64)  # type: ignore[arg-type]
    assert kernel.probe(state, aux) == NO_SCORE


def test_the_compiled_search_scores_database_positions_exactly(
    compiled_store: Path, monkeypatch: pytest.MonkeyPatch, endgames: Endgames
) -> None:
    from zerosum.compiled.solver import Solver

    table = endgames.table(3, 3)
    longest = position_at(table, int(np.flatnonzero(table == 26)[0]), 3, 3)
    four = endgames.table(3, 4)
    slow = position_at(four, int(np.flatnonzero(four == four.max())[0]), 3, 4)
    for game, depth in [(longest, 1), (slow, 2)]:
        result = Solver("morris").search(game, limit=Limit(depth=depth))
        assert result.solved
        assert result.value == score(endgames.lookup(*(game.men(0), game.men(1))))
    monkeypatch.setenv("ZEROSUM_ENDGAMES", str(compiled_store.parent / "none.sqlite"))
    unprobed = Solver("morris").search(longest, limit=Limit(depth=1))
    assert not unprobed.solved  # a heuristic value, as before the databases


def test_the_compiled_search_agrees_with_the_probing_search(compiled_store: Path) -> None:
    from zerosum.compiled.solver import Solver

    rng = random.Random(3)
    games = [random_position(rng, *men) for men in [(3, 3), (3, 4), (4, 3), (4, 4)] * 3]
    games.append(Morris.from_position("WWW...............BBB... b 0 0 97"))
    solver = Solver("morris")
    for game in games:
        for depth in (1, 2):
            expected = search(game, limit=Limit(depth=depth))
            found = solver.search(game, limit=Limit(depth=depth))
            assert found.value == expected.value, (game.position(), depth)
            assert found.solved == expected.solved
