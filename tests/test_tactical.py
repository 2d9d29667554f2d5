"""The tactical engine against the reference search, and on mates."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import chess
import pytest

from zerosum.game import WIN, Game, play_moves
from zerosum.games import get_game
from zerosum.games.chess import Chess
from zerosum.search import Limit, search
from zerosum.search.tactical import EXACT_OPTIONS, Options, Report, TacticalSearch, best_first

CHESS_POSITIONS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "7k/8/6K1/8/8/8/8/1Q6 w - - 0 1",
]


@pytest.mark.parametrize("fen", CHESS_POSITIONS)
def test_exact_options_equal_the_reference_on_chess(fen: str) -> None:
    """With nothing selective on, the fast path's value is alpha-beta's (= minimax's)."""
    for depth in (1, 2, 3):
        if depth == 3 and fen.startswith("r3k2r/p1pp"):
            continue  # kiwipete at depth 3: too many nodes for the reference in a unit test
        game = Chess(fen)
        reference = search(game, algorithm="alphabeta", limit=Limit(depth=depth), table=False)
        fast = TacticalSearch(game, options=EXACT_OPTIONS).search(Limit(depth=depth))
        assert fast.value == reference.value, (fen, depth)
        assert game.position() == fen


@pytest.mark.parametrize(
    ("name", "moves", "depth"),
    [
        ("tictactoe", "", 9),
        ("tictactoe", "b2 a1", 4),
        ("connect4", "4453", 5),
        ("connect4", "", 4),
    ],
)
def test_games_without_capabilities_match_minimax(name: str, moves: str, depth: int) -> None:
    """A game without the optional capabilities gets no selectivity: minimax's values."""
    spec = get_game(name)
    game: Game[Any] = spec.new()
    play_moves(game, [t for word in moves.split() for t in spec.split_moves(word)])
    for d in range(1, depth + 1):
        reference = search(game, algorithm="minimax", limit=Limit(depth=d))
        assert TacticalSearch(game).search(Limit(depth=d)).value == reference.value


def read_fens(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def test_every_mate_in_one(data_dir: Path) -> None:
    fens = read_fens(data_dir / "chess" / "mate1.fen")
    assert len(fens) == 8
    for fen in fens:
        game = Chess.from_position(fen)
        result = TacticalSearch(game).search(Limit(depth=2))
        assert result.value == WIN - 1, fen
        game.make(result.best_move)
        assert game.board.is_checkmate(), fen


def test_a_sample_of_mates_in_two(data_dir: Path) -> None:
    fens = read_fens(data_dir / "chess" / "mate2.fen")
    assert len(fens) == 212
    for fen in fens[::21]:
        game = Chess.from_position(fen)
        result = TacticalSearch(game).search(Limit(depth=4))
        assert result.value == WIN - 3, fen
        assert result.pv and len(result.pv) == 3
        for move in result.pv:
            game.make(move)
        assert game.board.is_checkmate(), (fen, result.pv)


def test_shortest_mate_is_preferred() -> None:
    # Mate in one (Qb8#) is available beside slower wins.
    game = Chess("7k/8/6K1/8/8/8/8/1Q6 w - - 0 1")
    result = TacticalSearch(game).search(Limit(depth=5))
    assert result.value == WIN - 1
    game.make(result.best_move)
    assert game.board.is_checkmate()


def test_repetition_is_scored_as_a_draw() -> None:
    game = Chess("4k3/8/8/8/8/8/8/RN2K3 b - - 0 1")  # Black a rook and a knight down
    play_moves(game, ["e8d8", "b1c3", "d8e8", "c3b1", "e8d8", "b1c3", "d8e8"])
    back = chess.Move.from_uci("c3b1")
    assert TacticalSearch(game).search(Limit(depth=3)).value > 500
    result = TacticalSearch(game).search(Limit(depth=3), root_moves=[back])
    assert result.best_move == back and result.value == 0


def test_limits_stop_and_leave_the_game_unchanged() -> None:
    game = Chess(CHESS_POSITIONS[1])
    before = game.position(), game.key()
    result = TacticalSearch(game).search(Limit(nodes=3000))
    assert not result.complete
    assert result.best_move in game.legal_moves()
    assert (game.position(), game.key()) == before
    assert result.stats.nodes <= 3000 + 1

    calls = itertools.count()
    result = TacticalSearch(game).search(Limit(stop=lambda: next(calls) > 3))
    assert result.best_move in game.legal_moves()
    assert (game.position(), game.key()) == before


def test_multipv_and_root_moves() -> None:
    game = Chess()
    reports = list(TacticalSearch(game).iterate(Limit(depth=3), multipv=3))
    last = [r for r in reports if r.depth == 3]
    assert [r.line for r in last] == [1, 2, 3]
    assert len({r.pv[0] for r in last}) == 3
    assert last[0].value >= last[1].value >= last[2].value
    only = chess.Move.from_uci("a2a3")
    result = TacticalSearch(game).search(Limit(depth=2))
    restricted = list(TacticalSearch(game).iterate(Limit(depth=2), root_moves=[only]))
    assert all(r.pv[0] == only for r in restricted)
    assert result.best_move != only


def test_multipv_lines_are_reported_best_first() -> None:
    """A later line can come back better than an earlier one (its own pruned tree over a table
    the earlier ones filled; seen on a loaded machine as line 2 at +50 after line 1 at +46):
    the lines of an iteration go out best first, numbered again, ties in the order searched."""
    a3, h3, e4 = (chess.Move.from_uci(uci) for uci in ("a2a3", "h2h3", "e2e4"))
    searched = [
        Report(3, 7, 46, (a3,), 1087, 0.1, line=1),
        Report(3, 7, 50, (h3,), 1312, 0.2, line=2),
        Report(3, 7, 46, (e4,), 1500, 0.3, line=3),
    ]
    ranked = best_first(searched)
    assert [(r.pv[0], r.value, r.line) for r in ranked] == [(h3, 50, 1), (a3, 46, 2), (e4, 46, 3)]
    assert [r.nodes for r in ranked] == [1312, 1087, 1500]  # each line keeps its own figures


def test_selective_options_can_be_switched_off_one_by_one() -> None:
    game = Chess(CHESS_POSITIONS[3])
    values = set()
    for name in (
        "quiescence",
        "check_extension",
        "null_move",
        "reductions",
        "aspiration",
        "futility",
    ):
        options = Options(**{name: False})
        result = TacticalSearch(game, options=options).search(Limit(depth=3))
        assert result.best_move in game.legal_moves()
        values.add(result.value)
    assert values
