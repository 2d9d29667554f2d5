"""The positional terms of the chess evaluation: hand-checked positions, symmetry, and the
compiled board's twin (zerosum.compiled.chess_board.positional_terms) against python-chess's."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from zerosum.compiled import chess_board as cb
from zerosum.games import chess_evaluation as ce
from zerosum.games.chess import EG, MG, Chess
from zerosum.games.chess_tables import MATERIAL_EG, MATERIAL_MG, PST_EG, PST_MG


def both_terms(fen: str) -> tuple[int, int]:
    """The positional terms of ``fen``, checked equal in both twins."""
    board = chess.Board(fen)
    terms = ce.positional_terms(board)
    assert cb.positional_terms(cb.state_of(board)) == terms, fen
    return terms


def test_symmetric_positions_score_the_tempo_only() -> None:
    game = Chess()
    assert game.evaluate() == ce.TEMPO
    for text in ("e2e4", "e7e5", "g1f3", "g8f6", "f1c4", "f8c5"):
        game.make(chess.Move.from_uci(text))
    assert game.board.turn == chess.WHITE and game.evaluate() == ce.TEMPO
    assert cb.evaluate(cb.state_of_game(game)) == ce.TEMPO


def test_a_passed_pawn_by_hand() -> None:
    # Kings in corners with no pawns in front: each loses two shield files; they cancel.
    # The d5 pawn: passed on its fifth rank (relative 4), isolated; the black king is 4
    # squares from d6, the white king 5.
    mg, eg = both_terms("7k/8/8/3P4/8/8/8/K7 w - - 0 1")
    assert mg == ce.PASSED_MG[4] - ce.ISOLATED[0]
    assert eg == (
        ce.PASSED_EG[4] - ce.ISOLATED[1] + 2 * (ce.PASSED_ENEMY_KING * 4 - ce.PASSED_OWN_KING * 5)
    )


def test_a_blocked_passed_pawn_is_worth_less_than_a_free_one() -> None:
    # The white king off its first ranks: only Black's shield (two empty files) counts.
    shield = 2 * ce.SHIELD_MISSING
    free = both_terms("7k/8/2K5/3P4/8/8/8/8 w - - 0 1")  # own king beside d6
    blocked = both_terms("7k/8/3K4/3P4/8/8/8/8 w - - 0 1")  # own king on d6
    assert free == (
        ce.PASSED_MG[4] - ce.ISOLATED[0] + shield,
        ce.PASSED_EG[4] - ce.ISOLATED[1] + 2 * (ce.PASSED_ENEMY_KING * 4 - ce.PASSED_OWN_KING),
    )
    assert blocked == (
        ce.PASSED_MG[4] // 2 - ce.ISOLATED[0] + shield,
        ce.PASSED_EG[4] // 2 - ce.ISOLATED[1] + 2 * ce.PASSED_ENEMY_KING * 4,
    )
    assert blocked[0] < free[0]


def test_a_pawn_with_an_enemy_pawn_ahead_on_a_file_beside_is_not_passed() -> None:
    passed = both_terms("7k/p7/8/3P4/8/8/8/K7 w - - 0 1")
    faced = both_terms("7k/2p5/8/3P4/8/8/8/K7 w - - 0 1")
    # Both black pawns are isolated; a7 is passed too (on its second rank), c7 is not.
    assert passed[0] - faced[0] == ce.PASSED_MG[4] - ce.PASSED_MG[1]
    assert faced[1] < passed[1]


def test_doubled_and_isolated_pawns_lose_against_connected_ones() -> None:
    doubled = both_terms("k7/8/8/8/8/4P3/4P3/7K w - - 0 1")
    connected = both_terms("k7/8/8/8/8/4P3/3P4/7K w - - 0 1")
    # e2: doubled and isolated; e3: isolated and passed (relative rank 2).
    assert doubled == (
        -ce.DOUBLED[0] - 2 * ce.ISOLATED[0] + ce.PASSED_MG[2],
        -ce.DOUBLED[1] - 2 * ce.ISOLATED[1] + ce.PASSED_EG[2],
    )
    # d2 and e3: both passed, neither isolated nor doubled; d2 defends e3.
    assert connected == (
        ce.PASSED_MG[1] + ce.PASSED_MG[2] + ce.PAWN_SUPPORTED[0],
        ce.PASSED_EG[1] + ce.PASSED_EG[2] + ce.PAWN_SUPPORTED[1],
    )


@pytest.mark.parametrize(
    ("name", "count"), [("THREAT_BY_PAWN", -2), ("THREAT_BY_MINOR", -1), ("PAWN_SUPPORTED", -1)]
)
def test_threats_and_supported_pawns_by_count(
    monkeypatch: pytest.MonkeyPatch, name: str, count: int
) -> None:
    # Black's c6 pawn attacks White's knight on b5 and bishop on d5 (two threats by a pawn);
    # Black's knight on g3 attacks the rook on h1 (one threat by a minor piece); Black's b7
    # pawn defends c6 (one supported pawn, Black's). Counts are White's less Black's.
    fen = "4k3/1p6/2p5/1N1B4/8/6n1/4P3/R3K2R w - - 0 1"
    before = both_terms(fen)
    mg, eg = getattr(ce, name)
    monkeypatch.setattr(ce, name, (mg + 1000, eg + 2000))
    after = ce.positional_terms(chess.Board(fen))
    assert (after[0] - before[0], after[1] - before[1]) == (1000 * count, 2000 * count)


@pytest.mark.parametrize(
    ("name", "index", "fen", "count"),
    [
        # Black's rook on d8 attacks White's queen on d4 (White loses once).
        ("THREAT_BY_ROOK", None, "3rk3/8/8/8/3Q4/8/8/4K3 w - - 0 1", -1),
        # d3: c4 beside it is ahead, and Black's e5 pawn attacks d4: backward. c4 is not (d3
        # is beside it and behind); e5 is isolated, and isolated pawns are not counted again.
        ("BACKWARD", None, "4k3/8/8/4p3/2P5/3P4/8/4K3 w - - 0 1", -1),
        # The knight on b5 reaches d6 and c7, from which it would check the king on e8.
        ("SAFE_CHECK_MG", chess.KNIGHT, "4k3/8/8/1N6/8/8/8/4K3 w - - 0 1", 2),
        ("SAFE_CHECK_EG", chess.KNIGHT, "4k3/8/8/1N6/8/8/8/4K3 w - - 0 1", 2),
        # Black's e7 pawn guards d6: only c7 is safe.
        ("SAFE_CHECK_MG", chess.KNIGHT, "4k3/4p3/8/1N6/8/8/8/4K3 w - - 0 1", 1),
        # The rook on a1 reaches a8 on the king's rank (e1 holds its own king).
        ("SAFE_CHECK_EG", chess.ROOK, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", 1),
        # The bishop on b2 and the king on h8 share a diagonal: c3 d4 e5 f6 g7.
        ("SAFE_CHECK_MG", chess.BISHOP, "7k/8/8/8/8/8/1B6/K7 w - - 0 1", 5),
        # The queen on d1 against the king on e8: d8 (its rank), e2 (its file), d7, a4 and h5
        # (its diagonals).
        ("SAFE_CHECK_MG", chess.QUEEN, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1", 5),
    ],
)
def test_threats_backward_pawns_and_safe_checks_by_count(
    monkeypatch: pytest.MonkeyPatch, name: str, index: int | None, fen: str, count: int
) -> None:
    before = both_terms(fen)
    values = list(getattr(ce, name))
    if index is None:
        values = [values[0] + 1000, values[1] + 2000]
        expected = (1000 * count, 2000 * count)
    else:
        values[index] += 1000
        expected = (1000 * count, 0) if name.endswith("_MG") else (0, 1000 * count)
    monkeypatch.setattr(ce, name, tuple(values))
    after = ce.positional_terms(chess.Board(fen))
    assert (after[0] - before[0], after[1] - before[1]) == expected


def test_mobility_shield_rooks_and_bishops_by_hand() -> None:
    # White: Kg1 behind f2 g2 h2 (three near shield pawns), a rook on the open a-file, two
    # bishops. Black: Kg8 behind f7 g7 h7, a knight on b8.
    fen = "1n4k1/5ppp/8/8/8/8/5PPP/R1B2BK1 w - - 0 1"
    mg, eg = both_terms(fen)
    rook = 7 + 1  # a2..a8 and b1 (c1 holds its own bishop)
    bishop_c1 = 6  # b2 a3 d2 e3 f4 g5 (h6: the g7 pawn attacks it)
    bishop_f1 = 5  # e2 d3 c4 b5 a6 (g2 holds a pawn)
    knight = 3  # a6 c6 d7
    white_mg = (
        ce.MOBILITY_MG[chess.ROOK][rook]
        + ce.MOBILITY_MG[chess.BISHOP][bishop_c1]
        + ce.MOBILITY_MG[chess.BISHOP][bishop_f1]
        + ce.ROOK_OPEN[0]
        + ce.BISHOP_PAIR[0]
    )
    white_eg = (
        ce.MOBILITY_EG[chess.ROOK][rook]
        + ce.MOBILITY_EG[chess.BISHOP][bishop_c1]
        + ce.MOBILITY_EG[chess.BISHOP][bishop_f1]
        + ce.ROOK_OPEN[1]
        + ce.BISHOP_PAIR[1]
    )
    black_mg = ce.MOBILITY_MG[chess.KNIGHT][knight]
    black_eg = ce.MOBILITY_EG[chess.KNIGHT][knight]
    # No pawn is passed, isolated or doubled; the shields (three near pawns each) cancel.
    assert (mg, eg) == (white_mg - black_mg, white_eg - black_eg)


def test_an_attack_on_the_king_zone_counts_with_two_attackers() -> None:
    # The queen on h5 attacks g6 h6 h7 (f7 holds a pawn); the knight on g5 attacks
    # f7 h7 (Black's f7 and h7 are in the zone of the g8 king).
    lone = ce.positional_terms(chess.Board("6k1/5ppp/8/7Q/8/8/5PPP/6K1 w - - 0 1"))
    both = ce.positional_terms(chess.Board("6k1/5ppp/8/6NQ/8/8/5PPP/6K1 w - - 0 1"))
    assert lone == both_terms("6k1/5ppp/8/7Q/8/8/5PPP/6K1 w - - 0 1")
    assert both == both_terms("6k1/5ppp/8/6NQ/8/8/5PPP/6K1 w - - 0 1")
    # More than the knight's mobility could be worth, from its least to its most.
    assert both[0] - lone[0] > max(ce.MOBILITY_MG[chess.KNIGHT]) - min(ce.MOBILITY_MG[chess.KNIGHT])


@pytest.mark.parametrize("seed", range(3))
def test_mirrored_positions_evaluate_alike_from_the_side_to_move(seed: int) -> None:
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(70):
        moves = list(board.legal_moves)
        if not moves or board.is_game_over():
            break
        board.push(rng.choice(moves))
        mirror = board.mirror()  # colours and the side to move swapped
        mg, eg = both_terms(board.fen())
        assert both_terms(mirror.fen()) == (-mg, -eg)
        assert Chess(mirror.fen()).evaluate() == Chess(board.fen()).evaluate()


def test_the_tables_hold_every_square_of_every_piece() -> None:
    assert len(PST_MG) == len(PST_EG) == 7
    assert all(len(row) == 64 for row in (*PST_MG, *PST_EG))
    assert MATERIAL_MG[chess.KING] == MATERIAL_EG[chess.KING] == 0
    # A white piece and its black mirror image score opposite amounts in both sums.
    for piece in chess.PIECE_TYPES:
        for square in (chess.A1, chess.E4, chess.G7):
            white = MG[piece + 8][square], EG[piece + 8][square]
            black = MG[piece][chess.square_mirror(square)], EG[piece][chess.square_mirror(square)]
            assert white == (-black[0], -black[1])
            assert white == (
                MATERIAL_MG[piece] + PST_MG[piece][square],
                MATERIAL_EG[piece] + PST_EG[piece][square],
            )


@pytest.mark.parametrize("seed", range(4))
def test_both_twins_evaluate_random_positions_alike(seed: int) -> None:
    # Each position is set up from its FEN (no incremental sums carried over), in both twins.
    rng = random.Random(1000 + seed)
    board = chess.Board()
    for _ in range(150):
        moves = list(board.legal_moves)
        if not moves or board.is_game_over():
            break
        tactical = [m for m in moves if board.is_capture(m) or m.promotion]
        board.push(rng.choice(tactical if tactical and rng.random() < 0.4 else moves))
        game = Chess(board.fen())
        value = game.evaluate()
        assert value == game.compute_evaluation() == cb.evaluate(cb.state_of(board)), board.fen()


def test_the_zero_weight_terms_compiled_in_agree_with_the_python_twin(tmp_path: Path) -> None:
    # The compiled board leaves the safe checks out while their weights are 0, which they are
    # as shipped: only a board compiled afresh with other weights shows that the counted
    # version agrees. A child process with every weight of the three terms raised compiles it
    # into a cache of its own and compares both twins on random games' positions.
    script = """
import random, sys
import chess
from zerosum.games import chess_evaluation as ce
ce.THREAT_BY_ROOK = (17, 23)
ce.BACKWARD = (11, 7)
ce.SAFE_CHECK_MG = (0, 0, 7, 5, 9, 3, 0)
ce.SAFE_CHECK_EG = (0, 0, 2, 4, 1, 6, 0)
from zerosum.compiled import chess_board as cb
assert cb.SAFE_CHECKS_COUNT
rng = random.Random(1)
positions = 0
for game in range(60):
    board = chess.Board()
    for ply in range(rng.randrange(10, 160)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        compiled = tuple(int(x) for x in cb.positional_terms(cb.state_of(board)))
        assert compiled == ce.positional_terms(board), board.fen()
        positions += 1
print(positions)
"""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) > 3000
