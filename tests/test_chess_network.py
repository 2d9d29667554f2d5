"""``benchmarks/chess_network.py``: the network's features and its numba and numpy twins agree."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import chess
import numpy as np
import pytest

from zerosum.compiled import chess_board as cb


@pytest.fixture(scope="module")
def network() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "chess_network.py"
    spec = importlib.util.spec_from_file_location("chess_network", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["chess_network"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _boards(count: int, seed: int) -> list[chess.Board]:
    """Positions of seeded random games, with castling, en passant and promotions on the way
    (the FENs below) and the start."""
    rng = random.Random(seed)
    boards = [
        chess.Board(),
        chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        chess.Board("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"),
        chess.Board("8/1P4k1/8/8/8/8/6Kp/8 b - - 0 1"),
    ]
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randrange(1, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        boards.append(board)
    return boards


def _quantized(network: ModuleType, hidden: int, seed: int) -> object:
    net = network.Network.initial(hidden, seed)
    rng = np.random.default_rng(seed)
    net.w1 += rng.normal(0.0, 0.2, net.w1.shape).astype(np.float32)
    net.w1[network.PAD] = 0.0
    net.b2 = 0.3
    return network.Quantized.of(net)


def test_the_feature_index_of_a_board_equals_the_plain_twin(network: ModuleType) -> None:
    out = np.empty(network.MAX_PIECES, np.int64)
    for board in _boards(60, 1):
        st = cb.state_of(board)
        for perspective in (chess.WHITE, chess.BLACK):
            n = network.nn_features(st, int(perspective), out)
            assert sorted(out[:n].tolist()) == network.feature_indices(board, perspective)


def test_the_feature_index_mirrors_for_black(network: ModuleType) -> None:
    piece = chess.Piece(chess.KNIGHT, chess.WHITE)
    assert network.feature_index(piece, chess.G1, chess.WHITE) == 64 + chess.G1
    assert network.feature_index(piece, chess.G1, chess.BLACK) == 384 + 64 + chess.G8
    board = chess.Board()
    assert network.feature_indices(board, chess.WHITE) == network.feature_indices(
        board, chess.BLACK
    )


def test_the_numba_forward_equals_the_numpy_forward(network: ModuleType) -> None:
    q = _quantized(network, 16, 2)
    boards = _boards(60, 3)
    own, other = network.index_arrays(boards)
    expected = network.quantized_forward(q, own, other)
    acc = np.zeros((2, 16), np.int64)
    got = []
    for board in boards:
        st = cb.state_of(board)
        network.nn_refresh(st, q.w1, q.b1, acc)
        got.append(network.nn_forward(acc, int(st[cb.SIDE]), q.w2, q.b2))
    assert got == expected.tolist()
    assert len(set(got)) > 30  # the weights are not all alike


def test_the_integer_network_follows_the_float_one(network: ModuleType) -> None:
    net = network.Network.initial(16, 4)
    boards = _boards(40, 5)
    own, other = network.index_arrays(boards)
    exact = network.forward(net, own, other)
    rounded = network.quantized_forward(network.Quantized.of(net), own, other)
    assert np.max(np.abs(exact - rounded)) < 5


def test_an_updated_accumulator_equals_a_refreshed_one(network: ModuleType) -> None:
    q = _quantized(network, 8, 6)
    moves = np.empty(cb.MAX_MOVES, np.int64)
    parent = np.zeros((2, 8), np.int64)
    child = np.zeros((2, 8), np.int64)
    fresh = np.zeros((2, 8), np.int64)
    kinds = set()
    for board in _boards(40, 7):
        st = cb.state_of(board)
        network.nn_refresh(st, q.w1, q.b1, parent)
        n = cb.pseudo_moves(st, moves, 0)
        for move in [*moves[:n].tolist(), cb.NULL_MOVE]:
            network.nn_update(st, move, q.w1, parent, child)
            if move != cb.NULL_MOVE:
                python_move = cb.to_move(move)
                kinds.add(
                    "castle"
                    if board.is_castling(python_move)
                    else "en passant"
                    if board.is_en_passant(python_move)
                    else "promotion"
                    if python_move.promotion
                    else "capture"
                    if board.is_capture(python_move)
                    else "quiet"
                )
            cb.make(st, move)
            network.nn_refresh(st, q.w1, q.b1, fresh)
            cb.unmake(st)
            assert (child == fresh).all(), (board.fen(), move)
    assert kinds == {"castle", "en passant", "promotion", "capture", "quiet"}


def test_training_lowers_the_loss(network: ModuleType) -> None:
    boards = _boards(200, 8)
    rng = np.random.default_rng(8)
    target = rng.uniform(0.2, 0.8, len(boards))
    own, other = network.index_arrays(boards)
    net = network.Network.initial(8, 8)
    before = float(np.mean((network.sigmoid(network.forward(net, own, other)) - target) ** 2))
    trained, history = network.train(
        net,
        own,
        other,
        target,
        (own, other, target),
        epochs=5,
        batch=32,
        rate=1e-2,
        decay=0.0,
        seed=8,
    )
    after = float(np.mean((network.sigmoid(network.forward(trained, own, other)) - target) ** 2))
    assert after < before
    assert min(row[2] for row in history) == pytest.approx(after, rel=1e-5)


def test_a_residual_network_learns_a_correction_to_its_base(network: ModuleType) -> None:
    boards = _boards(200, 9)
    rng = np.random.default_rng(9)
    cps = rng.normal(0.0, 300.0, len(boards))
    target = network.sigmoid(cps)
    own, other = network.index_arrays(boards)
    settings = {"epochs": 2, "batch": 32, "rate": 1e-3, "decay": 0.0, "seed": 9}
    data = (own, other, target, (own, other, target))
    _, alone = network.train(network.Network.initial(8, 9), *data, **settings)
    base = cps - 20.0
    trained, based = network.train(
        network.Network.initial(8, 9), *data, **settings, base=(base, base)
    )
    corrected = network.forward(trained, own, other) + base
    loss = float(np.mean((network.sigmoid(corrected) - target) ** 2))
    assert min(row[2] for row in based) == pytest.approx(loss, rel=1e-5)
    assert min(row[2] for row in based) < min(row[2] for row in alone) / 3
