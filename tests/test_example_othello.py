"""The worked example: Othello from the separately installed package ``zerosum-othello``.

The rules are held to a reference written here from scratch (a grid of symbols, walked by
coordinates), the 4x4 game value to a brute-force negamax over that reference.
"""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from functools import cache, partial
from importlib.metadata import entry_points
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from zerosum_othello import PASS, Othello, make_spec, options, spec
from zerosum_othello.compiled import FLIPPED, GAME_4, GAME_6, GAME_8, PASS_CODE, state_of

import zerosum
from zerosum.compiled.engine import NO_SCORE, PROVEN
from zerosum.game import (
    HEURISTIC_LIMIT,
    WIN,
    MoveError,
    Outcome,
    PositionError,
    ProtocolError,
    ZerosumError,
)
from zerosum.games import get_game
from zerosum.testing import check_game
from zerosum.web.app import create_app

Grid = tuple[tuple[str, ...], ...]
"""A board as rows of ``x``, ``o`` or ``.``, indexed ``grid[rank][file]``, rank 0 at the bottom."""

STEPS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if df or dr]
FILES = "abcdefgh"


# -- the reference ------------------------------------------------------------------------


def parse(text: str) -> tuple[Grid, str]:
    """The grid and the side to move (``x`` or ``o``) of a position string."""
    rows, side = text.split()
    return tuple(tuple(row) for row in reversed(rows.split("/"))), side


def other(side: str) -> str:
    return "o" if side == "x" else "x"


def turned(grid: Grid, side: str, file: int, rank: int) -> list[tuple[int, int]]:
    """The cells a disc of ``side`` on the empty ``(file, rank)`` turns over."""
    size = len(grid)
    cells = []
    for df, dr in STEPS:
        line = []
        f, r = file + df, rank + dr
        while 0 <= f < size and 0 <= r < size and grid[r][f] == other(side):
            line.append((f, r))
            f, r = f + df, r + dr
        if line and 0 <= f < size and 0 <= r < size and grid[r][f] == side:
            cells += line
    return cells


def reference_moves(grid: Grid, side: str) -> list[str]:
    """The placements of ``side`` by name, else ``["pass"]`` or ``[]`` (the game is over)."""
    size = len(grid)

    def places(who: str) -> list[str]:
        return sorted(
            f"{FILES[f]}{r + 1}"
            for r in range(size)
            for f in range(size)
            if grid[r][f] == "." and turned(grid, who, f, r)
        )

    mine = places(side)
    if mine:
        return mine
    return ["pass"] if places(other(side)) else []


def reference_play(grid: Grid, side: str, move: str) -> Grid:
    if move == "pass":
        return grid
    file, rank = FILES.index(move[0]), int(move[1:]) - 1
    rows = [list(row) for row in grid]
    for f, r in [(file, rank), *turned(grid, side, file, rank)]:
        rows[r][f] = side
    return tuple(tuple(row) for row in rows)


def text_of(grid: Grid, side: str) -> str:
    return "/".join("".join(row) for row in reversed(grid)) + " " + side


@cache
def brute_force(grid: Grid, side: str) -> int:
    """The negamax value for ``side``: ``±(WIN - plies to the end)`` or 0, every line played
    out (no pruning, no table beyond this memo of exact values)."""
    moves = reference_moves(grid, side)
    if not moves:
        flat = [cell for row in grid for cell in row]
        difference = flat.count(side) - flat.count(other(side))
        return WIN if difference > 0 else -WIN if difference < 0 else 0
    best = -WIN - 1
    for move in moves:
        value = brute_force(reference_play(grid, side, move), other(side))
        # One ply further from the end, seen from the other side.
        value = -(value - (value > 0) + (value < 0))
        best = max(best, value)
    return best


# -- rules ----------------------------------------------------------------------------------


def random_games(size: int, count: int, seed: int) -> Iterator[Othello]:
    """``count`` random games of ``size``, each yielded at every position to the end."""
    rng = random.Random(seed)
    for _ in range(count):
        game = Othello(size)
        while True:
            yield game
            moves = game.legal_moves()
            if not moves:
                break
            game.make(rng.choice(moves))


@pytest.mark.parametrize("size", [4, 6, 8])
def test_start_position(size: int) -> None:
    game = Othello(size)
    half = size // 2
    empty = "." * size
    middle = "." * (half - 1)
    rows = [empty] * (half - 1)
    rows += [middle + "ox" + middle, middle + "xo" + middle]
    rows += [empty] * (half - 1)
    assert game.position() == "/".join(rows) + " x"
    assert game.side_to_move() == 0 and game.ply() == 0 and game.outcome() is None
    assert game.name == ("othello" if size == 6 else f"othello:{size}")
    assert Othello(4).position() == "..../.ox./.xo./.... x"
    moves = {game.format_move(move) for move in game.legal_moves()}
    assert moves == set(reference_moves(*parse(game.position())))
    assert len(moves) == 4


def test_flips_in_all_eight_directions() -> None:
    # c3 (file 2, rank 2) meets a White disc then a Black one in each of the 8 directions;
    # d5 and e4 are White but on no line through c3; f3 ends a White run with an empty cell.
    grid = [["."] * 8 for _ in range(8)]
    for df, dr in STEPS:
        grid[2 + dr][2 + df] = "o"
        grid[2 + 2 * dr][2 + 2 * df] = "x"
    grid[4][3] = grid[3][4] = "o"  # d5, e4: the centre cells not on a line through c3
    text = text_of(tuple(tuple(row) for row in grid), "x")
    game = Othello.from_position(text, size=8)
    game.make(game.parse_move("c3"))
    after, side = parse(game.position())
    assert side == "o"
    assert sum(row.count("o") for row in after) == 2, "every White disc next to c3 turned"
    assert after[4][3] == after[3][4] == "o"
    assert after[2][2] == "x"
    game.undo()
    assert game.position() == text


def test_a_run_open_at_the_end_does_not_turn() -> None:
    # From d3, c3 then b3 (Black) encloses c3; c2 then b1 (empty) encloses nothing.
    game = Othello.from_position("..../.xo./.oo./.... x", size=4)
    # the natural order: corners first
    assert [game.format_move(m) for m in game.legal_moves()] == ["d1", "b1", "d3"]
    game.make(game.parse_move("d3"))
    assert game.position() == "..../.xxx/.oo./.... o"


def test_pass_is_the_only_move_without_a_placement() -> None:
    # Black's only enclosable line is the top row, which runs into the edge: Black must pass.
    game = Othello.from_position("ooo./.xx./.xxx/.... x", size=4)
    assert game.legal_moves() == [PASS] and game.outcome() is None
    assert game.format_move(PASS) == "pass" and game.parse_move("PASS") == PASS
    key = game.key()
    game.make(PASS)
    assert game.position() == "ooo./.xx./.xxx/.... o" and game.side_to_move() == 1
    assert game.key() == game.compute_key() != key
    assert PASS not in game.legal_moves()
    with pytest.raises(MoveError, match="pass is only legal when no placement is: expected"):
        game.parse_move("pass")
    game.undo()
    assert game.key() == key and game.side_to_move() == 0


@pytest.mark.parametrize(
    ("text", "outcome"),
    [
        ("xxxx/xxxx/oooo/oooo x", Outcome.DRAW),
        ("xxxx/xxxx/xooo/oooo o", Outcome.LOSS),
        ("xxxx/xxxx/xooo/oooo x", Outcome.WIN),
        ("..../.xx./.xx./.... o", Outcome.LOSS),  # wiped out, with cells to spare
    ],
)
def test_the_game_ends_when_neither_side_can_place(text: str, outcome: Outcome) -> None:
    game = Othello.from_position(text, size=4)
    assert game.outcome() == outcome
    assert game.legal_moves() == []
    with pytest.raises(MoveError, match="the game is over"):
        game.parse_move("a1")


@pytest.mark.parametrize("size", [4, 6, 8])
def test_random_games_follow_the_reference(size: int) -> None:
    for game in random_games(size, 12, seed=size):
        text = game.position()
        grid, side = parse(text)
        moves = [game.format_move(move) for move in game.legal_moves()]
        assert sorted(moves) == reference_moves(grid, side), text
        assert (game.outcome() is None) == bool(moves)
        assert game.key() == game.compute_key(), text
        assert game.evaluate() == game.compute_evaluation(), text
        assert -HEURISTIC_LIMIT < game.evaluate() < HEURISTIC_LIMIT
        assert Othello.from_position(text, size=size).key() == game.key()
        for move in game.legal_moves():
            assert game.parse_move(game.format_move(move)) == move
        if moves:
            snapshot = (text, game.key(), game.evaluate())
            twin = game.copy()
            move = random.Random(text).choice(game.legal_moves())
            twin.make(move)
            twin.undo()
            twin.make(move)
            assert (game.position(), game.key(), game.evaluate()) == snapshot
            game.make(move)
            after = reference_play(grid, side, game.format_move(move))
            assert game.position() == text_of(after, other(side))
            assert twin.position() == game.position() and twin.key() == game.key()
            game.undo()
            assert (game.position(), game.key(), game.evaluate()) == snapshot


def test_keys_tell_the_side_to_move_apart() -> None:
    black = Othello.from_position("ooo./.xx./.xxx/.... x", size=4)
    white = Othello.from_position("ooo./.xx./.xxx/.... o", size=4)
    assert black.key() != white.key()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "is not a 6x6 Othello position: expected 6 rows"),
        ("..../.ox./.xo./.... x", "is not a 6x6 Othello position"),
        ("....../....../..ox../..xo../....../......", "is not a 6x6 Othello position"),
        ("....../....../..ox../..xo../....../...... b", "side to move 'x' or 'o'"),
        ("....../....../..oz../..xo../....../...... x", "expected 6 rows"),
        ("....../....../..o.../..xo../....../...... x", "a centre cell is empty"),
    ],
)
def test_bad_positions_are_rejected(text: str, expected: str) -> None:
    with pytest.raises(PositionError, match=expected):
        spec.from_position(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "is not an Othello move: expected a cell a1..d4 or pass"),
        ("e1", "is not an Othello move: expected a cell a1..d4 or pass"),
        ("a0", "is not an Othello move"),
        ("b2", "b2 is taken: expected one of c1 d2 a3 b4"),
        ("a1", "a1 flips no disc: expected one of c1 d2 a3 b4"),
        ("pass", "pass is only legal when no placement is: expected one of c1 d2 a3 b4"),
    ],
)
def test_bad_moves_are_rejected(text: str, expected: str) -> None:
    with pytest.raises(MoveError, match=expected):
        Othello(4).parse_move(text)


def test_render_draws_the_board() -> None:
    assert Othello(4).render() == "4 . . . .\n3 . O X .\n2 . X O .\n1 . . . .\n  a b c d"


# -- the spec -------------------------------------------------------------------------------


def test_spec_and_its_options() -> None:
    assert spec.name == "othello" and spec.sides == ("Black", "White")
    assert spec.variants == ("othello:4", "othello:8")
    assert options("6") is spec and options("4") is make_spec(4)
    assert [options(size).name for size in ("4", "8")] == ["othello:4", "othello:8"]
    assert options("4").new().position() == "..../.ox./.xo./.... x"
    assert options("8").from_position(Othello(8).position()).position() == Othello(8).position()
    for bad in ("", "5", "10", "big", "4x4"):
        with pytest.raises(ZerosumError, match="not a board size: expected one of 4, 6, 8"):
            options(bad)


# -- the 4x4 game value ---------------------------------------------------------------------

VALUE_4X4 = -(WIN - 12)
"""4x4 Othello is a loss for Black, the first player: the game lasts 12 plies (11 discs and a
pass) against White's best defence."""


def test_4x4_value_by_brute_force() -> None:
    grid, side = parse(Othello(4).position())
    assert brute_force(grid, side) == VALUE_4X4
    openings = reference_moves(grid, side)
    values = [-brute_force(reference_play(grid, side, move), "o") for move in openings]
    assert values == [-(WIN - 11)] * 4


def test_4x4_solve_agrees_with_brute_force() -> None:
    result = zerosum.solve(Othello(4))
    assert result.solved and result.value == VALUE_4X4
    game = Othello(4)
    # The start is symmetric: every opening loses as fast.
    assert sorted(game.format_move(move) for move in result.best_moves) == ["a3", "b4", "c1", "d2"]
    grid, side = parse(game.position())
    for move, value in result.move_values:
        child = reference_play(grid, side, game.format_move(move))
        assert value == -(brute_force(child, "o") - 1)


@pytest.mark.parametrize("algorithm", ["engine", "alphabeta"])
def test_solves_after_every_4x4_reply_are_proven(algorithm: str) -> None:
    """Passes bring a board back at another ply: the table's proven entries of an earlier
    iteration must not keep a solve from knowing it is done (it deepened to MAX_PLY)."""
    game = Othello(4)
    grid, side = parse(game.position())
    for opening in reference_moves(grid, side):
        position = Othello(4)
        position.make(position.parse_move(opening))
        result = zerosum.solve(position, algorithm=algorithm)
        after = reference_play(grid, side, opening)
        assert result.solved and result.depth < 20
        assert result.value == brute_force(after, "o")


# -- the plugin in every front end ----------------------------------------------------------
# Each command runs in a fresh interpreter: the game comes from the installed package's entry
# point, as it would for a user, and never from this test module's imports.

ZEROSUM = [sys.executable, "-m", "zerosum.cli"]


def cli(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``zerosum *argv`` in a new process; a hang guard, not a timing assertion, bounds it."""
    return subprocess.run(
        [*ZEROSUM, *argv],
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        timeout=600,
    )


def cli_json(*argv: str) -> Any:
    done = cli(*argv, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_package_declares_its_entry_point() -> None:
    (point,) = entry_points(group="zerosum.games", name="othello")
    assert point.value == "zerosum_othello:spec"
    assert point.load() is spec


def test_the_registry_has_the_plugin_and_its_variants() -> None:
    assert get_game("othello") is spec
    assert get_game("othello:4") is make_spec(4)
    assert get_game("othello:8").new().position() == Othello(8).position()


def test_cli_games_and_legal() -> None:
    games = {game["name"]: game["title"] for game in cli_json("games")["games"]}
    assert games["othello"] == "Othello 6x6"
    done = cli("legal", "othello")
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split()) == ["b4", "c5", "d2", "e3"]
    data = cli_json("legal", "othello:4", "--position", "ooo./.xx./.xxx/.... x")
    assert data["moves"] == ["pass"]
    bad = cli("legal", "othello:4", "--position", "....../...... x")
    assert bad.returncode == 2 and "is not a 4x4 Othello position" in bad.stderr


def test_cli_analyze_serial_and_with_workers() -> None:
    serial = cli_json("analyze", "othello", "--depth", "4")
    assert serial["depth"] == 4 and serial["complete"] and len(serial["pv"]) == 4
    assert serial["best_move"] in ("b4", "c5", "d2", "e3")
    assert not serial["solved"] and abs(serial["value"]) < HEURISTIC_LIMIT
    # The worker processes build the game from the plugin too.
    parallel = cli_json("analyze", "othello", "--depth", "4", "--workers", "2")
    assert parallel["depth"] == 4 and parallel["value"] == serial["value"]
    text = cli("analyze", "othello", "--depth", "4", "--workers", "2")
    assert text.returncode == 0, text.stderr
    assert "best move" in text.stdout


def test_cli_solves_4x4() -> None:
    data = cli_json("solve", "othello:4")
    assert data["solved"] and data["value"] == VALUE_4X4
    assert data["value_text"] == "loss in 12 plies"
    assert sorted(data["best_moves"]) == ["a3", "b4", "c1", "d2"]
    assert data["move_values"] == dict.fromkeys(["c1", "b4", "d2", "a3"], VALUE_4X4)
    assert len(data["pv"]) == 12
    text = cli("solve", "othello:4")
    assert text.returncode == 0 and "loss in 12 plies" in text.stdout


def test_cli_play_through_stdin() -> None:
    # A move the rules refuse, a move and the computer's reply, undo, another move and reply.
    done = cli("play", "othello:4", "--level", "3", "--seed", "1", stdin="a1\nc1\nundo\nd2\nquit\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Othello 4x4: you play Black, the computer plays at level 3 of 4 (search depth 4)" in out
    assert "a1 flips no disc: expected one of c1 d2 a3 b4" in out
    assert "1 . . X ." in out  # the board after c1
    assert "2 . X X X" in out  # the board after d2
    assert out.count("\ncomputer plays ") == 2
    assert out.rstrip().endswith("Game abandoned.")


def test_cli_match() -> None:
    data = cli_json("match", "othello", "--a", "level=2", "--b", "level=1", "--games", "2")
    assert data["games"] == 2 and data["wins"] + data["draws"] + data["losses"] == 2
    assert len(data["records"]) == 2
    for record in data["records"]:
        replay = spec.new()
        for text in record["moves"]:
            replay.make(replay.parse_move(text))
        outcome = replay.outcome()
        assert outcome is not None, "a match game stops only at the end"
        if outcome != Outcome.DRAW:
            mover = replay.side_to_move()
            winner = mover if outcome == Outcome.WIN else mover ^ 1
            assert record["termination"] == f"{spec.sides[winner]} wins"


def test_web_api_lists_and_plays_othello() -> None:
    with TestClient(create_app()) as client:
        names = [game["name"] for game in client.get("/api/games").json()["games"]]
        assert {"othello", "othello:4", "othello:8"} <= set(names)
        response = client.post("/api/sessions", json={"game": "othello:4"})
        assert response.status_code == 201, response.text
        state = response.json()
        assert state["legal"] == ["c1", "d2", "a3", "b4"] and state["side_to_move"] == 0
        sid = state["id"]
        state = client.post(f"/api/sessions/{sid}/moves", json={"move": "c1"}).json()
        assert state["moves"] == ["c1"] and state["position"] == "..../.ox./.xx./..x. o"
        refused = client.post(f"/api/sessions/{sid}/moves", json={"move": "a1"})
        assert refused.status_code == 422 and "a1 flips no disc" in refused.text
        # The search runs in a process of its own, which must find the plugin too.
        answer = client.post(f"/api/sessions/{sid}/think", json={"depth": 0, "play": True})
        assert answer.status_code == 200, answer.text
        result = answer.json()["result"]
        assert result["solved"] and result["played"]
        assert result["value"] == WIN - 11  # White, to move, wins in 11 plies


class NoPass(Othello):
    """Breaks the protocol: where it must pass it offers no move, yet the game is not over."""

    def legal_moves(self) -> list[int]:
        return [move for move in super().legal_moves() if move != PASS]


def test_check_game_passes_othello() -> None:
    for game in (spec, *(get_game(name) for name in spec.variants)):
        check_game(game)


def test_check_game_names_the_broken_rule() -> None:
    broken = dataclasses.replace(
        make_spec(4),
        new=partial(NoPass, 4),
        from_position=partial(NoPass.from_position, size=4),
    )
    with pytest.raises(ProtocolError) as caught:
        check_game(broken)
    message = str(caught.value)
    assert "'a position with no legal moves is over (a pass is a move)'" in message
    # the position it names is one where White must pass
    text = message.split("at position '")[1].split("'")[0]
    assert Othello.from_position(text, size=4).legal_moves() == [PASS]


# -- the compiled kernel ---------------------------------------------------------------------


@pytest.mark.parametrize("size", [4, 6, 8])
def test_the_kernel_follows_the_game(size: int) -> None:
    compiled = {4: GAME_4, 6: GAME_6, 8: GAME_8}[size]
    kernel = compiled.kernel
    out = np.zeros(kernel.max_moves, np.int64)
    for game in random_games(size, 6, seed=100 + size):
        st = np.array(state_of(game), np.int64)
        count = kernel.moves(st, out)
        codes = [PASS_CODE if move == PASS else move for move in game.legal_moves()]
        assert list(out[:count]) == codes, game.position()
        assert kernel.evaluate(st) == game.evaluate()
        outcome, decided = game.outcome(), kernel.decided(st)
        if outcome is None:
            assert decided == NO_SCORE
        else:
            rank = decided - PROVEN if decided > 0 else decided + PROVEN if decided < 0 else 0
            assert compiled.value(rank, game.ply()) == int(outcome) * WIN
        for move, code in zip(game.legal_moves(), codes, strict=True):
            before = st.copy()
            kernel.play(st, code)
            game.make(move)
            child = np.array(state_of(game), np.int64)
            assert list(st[:FLIPPED]) == list(child[:FLIPPED]), "play differs from make"
            assert kernel.key(st) == kernel.key(child) != kernel.key(before)
            game.undo()
            kernel.undo(st, code)
            assert list(st[:FLIPPED]) == list(before[:FLIPPED]), "undo did not restore the state"


def test_the_compiled_solve_agrees_with_brute_force() -> None:
    data = cli_json("solve", "othello:4", "--algorithm", "compiled", "--all")
    assert data["value"] == VALUE_4X4 and data["value_text"] == "loss in 12 plies"
    assert data["move_values"] == dict.fromkeys(["c1", "d2", "a3", "b4"], VALUE_4X4)
    # After c1 White's three replies end the game at different plies.
    data = cli_json("solve", "othello:4", "--algorithm", "compiled", "--all", "--moves", "c1")
    grid, _ = parse(Othello(4).position())
    after_c1 = reference_play(grid, "x", "c1")
    expected = {}
    for move in reference_moves(after_c1, "o"):
        value = brute_force(reference_play(after_c1, "o", move), "x")
        expected[move] = -(value - (value > 0) + (value < 0))
    assert data["move_values"] == expected
    assert data["value"] == max(expected.values()) == WIN - 11


@pytest.mark.slow  # a deep 6x6 search with threads
def test_the_compiled_engine_searches_6x6_with_worker_threads() -> None:
    serial = cli_json("analyze", "othello", "--algorithm", "compiled", "--depth", "5")
    assert serial["depth"] == 5 and serial["best_move"] in ("b4", "c5", "d2", "e3")
    parallel = cli_json(
        "analyze", "othello", "--algorithm", "compiled", "--depth", "5", "--workers", "2"
    )
    assert parallel["complete"] and parallel["best_move"] in ("b4", "c5", "d2", "e3")
