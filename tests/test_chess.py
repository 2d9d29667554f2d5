"""Chess on python-chess: perft through the protocol, the incremental key and evaluation
against their from-scratch twins, the draw rules and the notation."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest

from zerosum.game import MoveError, Outcome, PositionError
from zerosum.games import get_game
from zerosum.games.chess import Chess


def perft(game: Chess, depth: int) -> int:
    """Leaf count through the protocol only (legal_moves, make, undo)."""
    if depth == 0:
        return 1
    total = 0
    for move in game.legal_moves():
        game.make(move)
        total += perft(game, depth - 1)
        game.undo()
    return total


def perft_positions(data_dir: Path) -> list[tuple[str, dict[int, int]]]:
    rows = []
    for line in (data_dir / "chess" / "perft.epd").read_text().splitlines():
        if not line.strip():
            continue
        fen, *counts = line.split(";")
        depths = {int(c.split()[0][1:]): int(c.split()[1]) for c in counts}
        rows.append((fen.strip(), depths))
    return rows


def test_perft_shallow(data_dir: Path) -> None:
    rows = perft_positions(data_dir)
    assert len(rows) == 127
    for fen, counts in rows:
        game = Chess.from_position(fen)
        assert perft(game, 1) == counts[1], fen
    for fen, counts in rows[::8]:
        assert perft(Chess.from_position(fen), 2) == counts[2], fen


def test_perft_depth_3_from_the_start_and_kiwipete(data_dir: Path) -> None:
    rows = perft_positions(data_dir)
    assert perft(Chess(), 3) == 8902
    assert perft(Chess.from_position(rows[1][0]), 2) == rows[1][1][2]


def check_twins(game: Chess) -> None:
    assert game.key() == game.compute_key() == chess.polyglot.zobrist_hash(game.board)
    assert game.evaluate() == game.compute_evaluation()


@pytest.mark.parametrize(
    "fen",
    [
        chess.STARTING_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ],
)
def test_incremental_key_and_evaluation_on_random_games(fen: str) -> None:
    """Castling, en passant, promotions and captures all pass through make and undo."""
    rng = random.Random(fen)
    for _ in range(12):
        game = Chess(fen)
        keys = [game.key()]
        evals = [game.evaluate()]
        for _ply in range(rng.randrange(20, 80)):
            moves = game.legal_moves()
            if not moves:
                break
            # prefer captures and promotions a little, to exercise them
            tactical = game.tactical_moves()
            game.make(rng.choice(tactical if tactical and rng.random() < 0.4 else moves))
            check_twins(game)
            keys.append(game.key())
            evals.append(game.evaluate())
            if game.null_move_allowed() and not game.in_check() and rng.random() < 0.2:
                game.make_null()
                check_twins(game)
                game.undo_null()
        while game.ply():
            game.undo()
            keys.pop()
            evals.pop()
            assert (game.key(), game.evaluate()) == (keys[-1], evals[-1])


def test_tactical_and_quiet_moves_split_the_legal_moves() -> None:
    rng = random.Random(5)
    for _ in range(10):
        game = Chess("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1")
        for _ply in range(40):
            moves = game.legal_moves()
            if not moves:
                break
            tactical, quiet = game.tactical_moves(), game.quiet_moves()
            assert sorted(map(str, tactical + quiet)) == sorted(map(str, moves))
            assert all(not game.is_quiet(m) for m in tactical)
            assert all(game.is_quiet(m) for m in quiet)
            for move in tactical:
                assert game.board.is_capture(move) or move.promotion == chess.QUEEN
            game.make(rng.choice(moves))


def test_mvv_lva_order() -> None:
    game = Chess("4k3/8/8/R2q4/2P2r2/8/4N3/K7 w - - 0 1")
    names = [game.format_move(m) for m in game.tactical_moves()]
    assert names == ["c4d5", "a5d5", "e2f4"]


def test_threefold_repetition_is_a_draw() -> None:
    game = Chess()
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for text in shuffle:
        game.make(game.parse_move(text))
    assert game.drawn(), "the search counts the first repetition"
    assert game.outcome() is None and game.repetitions() == 2
    for text in shuffle:
        game.make(game.parse_move(text))
    assert game.repetitions() == 3
    assert game.outcome() is Outcome.DRAW
    assert game.legal_moves() == []
    with pytest.raises(MoveError, match="over"):
        game.parse_move("e2e4")
    game.undo()
    assert game.outcome() is None


def test_fifty_move_rule_and_mate_on_the_hundredth_ply() -> None:
    game = Chess("7k/8/8/8/8/8/R7/K7 w - - 99 80")
    game.make(game.parse_move("a2a3"))
    assert game.outcome() is Outcome.DRAW and game.legal_moves() == []
    mate = Chess("7k/8/6K1/8/8/8/8/R7 w - - 99 80")
    mate.make(mate.parse_move("a1a8"))
    assert mate.outcome() is Outcome.LOSS


def test_other_endings() -> None:
    assert Chess("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").outcome() is Outcome.DRAW  # stalemate
    assert Chess("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").outcome() is Outcome.LOSS  # mate
    assert Chess("8/8/4k3/8/8/3NK3/8/8 w - - 0 1").outcome() is Outcome.DRAW  # K+N v K
    assert Chess("8/8/4k3/8/8/3RK3/8/8 w - - 0 1").outcome() is None


def test_notation() -> None:
    game = Chess()
    assert game.parse_move("e2e4") == chess.Move.from_uci("e2e4")
    assert game.parse_move("Nf3") == chess.Move.from_uci("g1f3")
    castle = Chess("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert castle.format_move(castle.parse_move("O-O")) == "e1g1"
    assert castle.format_move(castle.parse_move("e1c1")) == "e1c1"
    with pytest.raises(MoveError, match="not legal"):
        castle.parse_move("e1h1")
    promote = Chess("8/4P3/8/8/8/8/k7/4K3 w - - 0 1")
    assert promote.format_move(promote.parse_move("e7e8q")) == "e7e8q"
    assert promote.format_move(promote.parse_move("e8=N")) == "e7e8n"
    for text in ("e2e5", "Qh5", "xyz", "e7e8k"):
        with pytest.raises(MoveError, match="expected"):
            game.parse_move(text)


@pytest.mark.parametrize(
    "fen",
    ["", "not a fen", "8/8/8/8/8/8/8/8 w - - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x"],
)
def test_bad_positions_are_rejected(fen: str) -> None:
    with pytest.raises(PositionError, match="expected"):
        Chess.from_position(fen)


def test_registered_and_rendered() -> None:
    spec = get_game("chess")
    game = spec.from_position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3")
    assert game.position() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert game.side_to_move() == 1
    drawing = game.render()
    assert "\u265a" in drawing and "\u2654" in drawing and "Black to move" in drawing


def test_quiescence_moves_are_the_promising_tactical_moves() -> None:
    # White's queen may take a pawn defended by a pawn (losing) or a loose knight.
    game = Chess("4k3/8/2p5/1p6/3n4/8/1Q6/4K3 w - - 0 1")
    assert [game.format_move(m) for m in game.tactical_moves()] == ["b2d4", "b2b5"]
    assert [game.format_move(m) for m in game.quiescence_moves(0)] == ["b2d4"]
    assert game.quiescence_moves(400) == []  # a knight is not worth 400
    rng = random.Random(9)
    for _ in range(5):
        game = Chess("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1")
        for _ply in range(30):
            moves = game.legal_moves()
            if not moves:
                break
            tactical = game.tactical_moves()
            for margin in (-1000, 0, 200, 400, 2000):
                chosen = game.quiescence_moves(margin)
                assert set(chosen) <= set(tactical)
            assert game.quiescence_moves(5000) == []
            game.make(rng.choice(moves))


def test_gives_check_matches_python_chess() -> None:
    rng = random.Random(13)
    for fen in (
        chess.STARTING_FEN,
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ):
        for _ in range(6):
            game = Chess(fen)
            for _ply in range(60):
                moves = game.legal_moves()
                if not moves:
                    break
                for move in moves:
                    assert game.gives_check(move) == game.board.gives_check(move), move
                game.make(rng.choice(moves))


def test_illegal_or_ambiguous_san_is_not_called_bad_notation() -> None:
    game = Chess()
    game.make(game.parse_move("e4"))
    for text in ("e4", "Qh5", "Nbd2", "O-O"):  # well-formed SAN, not legal for black here
        with pytest.raises(MoveError, match=rf"^{text} is not legal in .*: expected one of .*e7e5"):
            game.parse_move(text)
    with pytest.raises(MoveError, match="is not a chess move: expected UCI notation"):
        game.parse_move("zz")
    knights = Chess("k7/8/8/8/8/8/8/1N2KN2 w - - 0 1")
    with pytest.raises(
        MoveError, match=r"^Nd2 is ambiguous in .*: say which piece moves \(Nbd2, Nfd2\)"
    ):
        knights.parse_move("Nd2")
    assert knights.format_move(knights.parse_move("Nbd2")) == "b1d2"
