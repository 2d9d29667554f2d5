"""The compiled chess board against its slow twins: python-chess's rules (perft, legal moves,
checks, draws) and zerosum.games.chess (the Polyglot key, the evaluation, the move kinds)."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.polyglot
import numpy as np
import pytest

from zerosum.compiled import chess_board as cb
from zerosum.games.chess import Chess


def perft_rows(data_dir: Path) -> list[tuple[str, dict[int, int]]]:
    rows = []
    for line in (data_dir / "chess" / "perft.epd").read_text().splitlines():
        if line.strip():
            fen, *counts = line.split(";")
            rows.append((fen.strip(), {int(c.split()[0][1:]): int(c.split()[1]) for c in counts}))
    return rows


def python_chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total


def test_perft_of_every_suite_position_to_depth_3(data_dir: Path) -> None:
    rows = perft_rows(data_dir)
    assert len(rows) == 127
    for fen, counts in rows:
        state = cb.state_of(chess.Board(fen))
        for depth in (1, 2, 3):
            assert cb.perft(state, depth) == counts[depth], (fen, depth)
        assert np.array_equal(live(state), live(cb.state_of(chess.Board(fen))))  # left as it was


def test_perft_equals_python_chess_counted_move_by_move(data_dir: Path) -> None:
    # The suite's numbers are python-chess's too: check a few positions with it directly.
    for fen, _ in perft_rows(data_dir)[::16]:
        board = chess.Board(fen)
        assert cb.perft(cb.state_of(board), 2) == python_chess_perft(board, 2), fen


def live(state: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
    """The part of a state that means something: the board fields, the keys held and the undo
    records below the top (those above it are stale)."""
    keys = cb.HISTORY + int(state[cb.NKEYS])
    undo = cb.UNDO + cb.UNDO_FIELDS * int(state[cb.TOP])
    return np.concatenate([state[:keys], state[cb.UNDO : undo]])


def check_twins(game: Chess, state: np.ndarray) -> None:  # type: ignore[type-arg]
    board = game.board
    fen = board.fen()
    assert set(cb.moves_of(state)) == set(board.legal_moves), fen
    assert set(cb.moves_of(state, 1)) == set(game.tactical_moves()), fen
    assert set(cb.moves_of(state, 2)) == set(game.quiet_moves()), fen
    assert cb.unsigned_key(state) == chess.polyglot.zobrist_hash(board) == game.key(), fen
    assert cb.compute_key(state) == state[cb.KEY], fen
    assert cb.evaluate(state) == game.evaluate(), fen
    assert cb.compute_sums(state) == tuple(state[[cb.MG_SUM, cb.EG_SUM, cb.PHASE]]), fen
    for colour in (chess.BLACK, chess.WHITE):  # the incremental pawn bitboards
        pawns = int(state[cb.PAWNS + int(colour)]) & chess.BB_ALL
        assert pawns == board.pawns & board.occupied_co[colour], fen
    assert cb.in_check(state) == board.is_check(), fen
    assert cb.drawn(state) == game.drawn(), fen
    assert cb.repetitions(state) == game.repetitions(), fen
    assert cb.has_legal_move(state) == any(board.legal_moves), fen
    if len(board.piece_map()) <= 4:
        assert cb.insufficient_material(state) == board.is_insufficient_material(), fen


@pytest.mark.parametrize("seed", range(6))
def test_random_games_agree_move_by_move_and_unwind(seed: int) -> None:
    rng = random.Random(seed)
    game = Chess()
    state = cb.state_of_game(game)
    snapshots = [state.copy()]
    for _ in range(160):
        check_twins(game, state)
        moves = list(game.board.legal_moves)
        if not moves:
            break
        # Prefer captures and promotions now and then, so games reach endgames.
        tactical = [m for m in moves if game.board.is_capture(m) or m.promotion]
        move = rng.choice(tactical if tactical and rng.random() < 0.5 else moves)
        game.make(move)
        cb.make(state, cb.from_move(move))
        snapshots.append(state.copy())
    check_twins(game, state)
    while len(snapshots) > 1:
        snapshots.pop()
        cb.unmake(state)
        assert np.array_equal(live(state), live(snapshots[-1]))


def test_repetition_fifty_moves_and_null_moves_as_the_twin() -> None:
    game = Chess()
    state = cb.state_of_game(game)
    for text in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3"):
        move = chess.Move.from_uci(text)
        game.make(move)
        cb.make(state, cb.from_move(move))
        check_twins(game, state)
    assert cb.repetitions(state) == 2 and cb.drawn(state)
    cb.make(state, cb.NULL_MOVE)
    game.make_null()
    check_twins(game, state)
    assert not cb.drawn(state)  # a pass is irreversible for repetitions
    cb.unmake(state)
    game.undo_null()
    check_twins(game, state)
    fifty = Chess.from_position("8/8/3k4/8/8/3K4/3R4/8 w - - 99 80")
    state = cb.state_of_game(fifty)
    assert not cb.drawn(state)
    fifty.make(chess.Move.from_uci("d2d1"))
    cb.make(state, cb.from_move(chess.Move.from_uci("d2d1")))
    assert cb.drawn(state) and fifty.drawn()


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/3k4/8/8/3K4/8/8 w - - 0 1",
        "8/8/3k4/8/8/3K4/3N4/8 w - - 0 1",
        "8/8/3k4/8/8/3K4/3B4/8 b - - 0 1",
        "8/8/3k4/2b5/8/3K4/3B4/8 w - - 0 1",
        "8/8/3k4/3b4/8/3K4/3B4/8 w - - 0 1",
        "8/8/3k4/3n4/8/3K4/3N4/8 w - - 0 1",
        "8/8/3k4/3q4/8/3K4/3N4/8 w - - 0 1",
        "8/8/3k4/3p4/8/3K4/3B4/8 w - - 0 1",
        "8/8/3k4/8/8/3K4/2NN4/8 w - - 0 1",
        "8/8/3k4/8/8/3K4/2BB4/8 w - - 0 1",
        "8/8/3k4/8/8/3K4/3Q4/8 w - - 0 1",
    ],
)
def test_insufficient_material_as_python_chess(fen: str) -> None:
    board = chess.Board(fen)
    assert cb.insufficient_material(cb.state_of(board)) == board.is_insufficient_material()


def test_special_moves_key_and_evaluation() -> None:
    # En passant (with and without a capturing pawn for the key), castling both ways, every
    # promotion with and without a capture.
    for fen, moves in [
        ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", ["e5f6", "e7f6"]),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["e1g1", "e8c8", "f1f8", "d8f8"]),
        ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", ["e8g8", "e1c1", "a8a1"]),
        ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", ["a7b8n", "e8e7", "b8c6"]),
        ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", ["a7a8r", "b8a8"]),
        ("4k3/8/8/8/1p6/8/P1P5/4K3 w - - 0 1", ["a2a4", "b4a3", "c2c4", "a3a2"]),
    ]:
        game = Chess.from_position(fen)
        state = cb.state_of_game(game)
        for text in moves:
            move = chess.Move.from_uci(text)
            assert move in game.board.legal_moves, (fen, text)
            game.make(move)
            cb.make(state, cb.from_move(move))
            check_twins(game, state)


def test_insufficient_material_on_random_few_piece_boards() -> None:
    rng = random.Random(5)
    checked = 0
    while checked < 400:
        board = chess.Board(None)
        squares = rng.sample(range(64), 4)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for square in squares[2 : 2 + rng.randrange(3)]:
            board.set_piece_at(square, chess.Piece.from_symbol(rng.choice("NBNBnbnbPRQ")))
        if not board.is_valid():
            continue
        checked += 1
        state = cb.state_of(board)
        assert cb.insufficient_material(state) == board.is_insufficient_material(), board.fen()


def test_perft_refuses_more_moves_than_the_state_holds() -> None:
    with pytest.raises(ValueError, match="out of range"):
        cb.perft(cb.state_of(chess.Board()), cb.MAX_STACK + 1)


def test_static_exchange_twins_agree_on_random_games() -> None:
    from zerosum.compiled import chess_exchange as cx
    from zerosum.games import chess_exchange as px
    from zerosum.games.chess_tables import MATERIAL_MG

    # Known exchanges: a free pawn; a knight for a pawn (d3xe5, d7xe5, and the rook and
    # bishop behind do not win it back); a bishop for a knight is within the tolerance.
    pawn, knight = MATERIAL_MG[chess.PAWN], MATERIAL_MG[chess.KNIGHT]
    bishop = MATERIAL_MG[chess.BISHOP]
    for fen, uci, value in (
        ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", pawn),
        ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2KQ4 w - - 0 1", "d3e5", pawn - knight),
        ("4k3/8/2p5/3n4/8/5B2/8/4K3 w - - 0 1", "f3d5", knight - bishop),
    ):
        board = chess.Board(fen)
        move = chess.Move.from_uci(uci)
        code = move.from_square | (move.to_square << 6)
        assert (
            px.exchange_value(board, move) == value == cx.exchange_value(cb.state_of(board), code)
        )
    assert not Chess("4k3/8/2p5/3n4/8/5B2/8/4K3 w - - 0 1").loses_material(
        chess.Move.from_uci("f3d5")
    )
    rng = random.Random(3)
    captures = losing = 0
    for _ in range(40):
        board = chess.Board()
        for _ in range(rng.randrange(20, 100)):
            moves = list(board.legal_moves)
            if not moves:
                break
            state = cb.state_of(board)
            for move in moves:
                if board.piece_type_at(move.to_square) is None:
                    continue
                code = move.from_square | (move.to_square << 6) | ((move.promotion or 0) << 12)
                value = cx.exchange_value(state, code)
                assert px.exchange_value(board, move) == value, (board.fen(), move)
                # The bound without the list of gains, at and around the value and elsewhere.
                for threshold in (value - 1, value, value + 1, -330, -100, 0, 100, 330):
                    assert cx.exchange_at_least(state, code, threshold) == (value >= threshold)
                lost = px.loses_material(board, move)
                assert lost == cx.loses_material(state, code)
                captures += 1
                losing += lost
            board.push(rng.choice(moves))
    assert captures > 1000 and 0 < losing < captures


def test_slider_attacks_equal_the_walk_along_each_ray() -> None:
    # The oracle: every square of the ray up to and including its first occupied square.
    def walk(square: int, first: int, last: int, occupied: int) -> int:
        attacks = 0
        for d in range(first, last):
            for i in range(int(cb.RAY_LENGTH[square, d])):
                target = int(cb.RAY[square, d, i])
                attacks |= 1 << target
                if occupied >> target & 1:
                    break
        return attacks

    rng = random.Random(5)
    for density in (0.0, 0.1, 0.3, 0.6, 1.0):
        for _ in range(8):
            occupied = sum(1 << s for s in range(64) if rng.random() < density)
            signed = occupied - (1 << 64) if occupied >> 63 else occupied
            for square in range(64):
                for first, last in ((0, 4), (4, 8), (0, 8)):
                    got = cb.slider_attacks(square, first, last, signed) & chess.BB_ALL
                    assert got == walk(square, first, last, occupied), (square, first, occupied)
