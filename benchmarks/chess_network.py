"""Would a small network evaluation pay? An offline test against the hand-tuned evaluation.

Issue 26, item 4: "a small network evaluation (768 inputs to a hidden layer per side, updated
incrementally in the compiled board)", "if the numbers say it pays". Nothing here changes
zerosum; the script answers two questions before any engine code is written:

1. **Does it evaluate better?** A network is trained from ``--seed`` on labelled positions
   (``tune_chess.py``'s files: FEN, result, game, Stockfish's score from White's side) and
   compared with :meth:`zerosum.games.chess.Chess.evaluate` (the Python twin of the compiled
   evaluation) on positions that neither saw (``--test``: other playouts of the balanced
   book). Both are judged as ``tune_chess.py tune`` judges a fit: the mean squared difference
   between ``sigmoid(K * eval)`` and Stockfish's ``sigmoid(cp)`` (``sigmoid(x) = 1 / (1 +
   10^(-x/400))``), ``K`` fitted for each on the training positions by the same search; also
   the share of positions where the sign agrees with Stockfish's (of those it scores beyond
   ±50 cp) and the mean absolute error of ``K * eval`` in centipawns (labels clipped to ±1,000).
2. **What does it cost?** The network as the compiled board would run it, in numba: integer
   weights (the accumulator scaled by :data:`QA`, the output weights by :data:`QB`), the
   accumulators of both sides refreshed from the mailbox, updated by a move's changed squares,
   and the forward pass, against ``chess_board.evaluate`` per call, on the test positions'
   states and their pseudo-legal moves (make, evaluate, unmake).

The network (the first layer shared by both sides, as NNUE's): 768 inputs per side (a piece
of the side whose view it is or of the other, its type, its square, mirrored for Black's view:
:func:`feature_index`), a hidden layer of ``--hidden`` units clipped to [0, 1], the side to
move's units then the other's into one output, ``400 * output`` centipawns from the side to
move. Trained by Adam on mini-batches (the first layer as a one-hot matrix product, BLAS held
to one thread), with an L2 decay; the epoch with the lowest loss on a held-out 20% of the
training games is kept. Then rounded to integers; the integer network is what is measured, in
numpy (:func:`quantized_forward`, the twin) and in numba (:func:`nn_forward` on
:func:`nn_refresh`'s or :func:`nn_update`'s accumulators): the tests check that both give the
same centipawns and that numba's feature indices equal :func:`feature_indices`'.

Run from the repository root (labels made by ``tune_chess.py playout``, seeds 5-8 not shipped:
``tune_chess.py playout --depth 8 --random 0.04 --seed S --out playout_sS.txt`` makes them;
docs/benchmarks.md, issue 26's fourteenth session, has the figures)::

    nice -n 19 .venv/bin/python benchmarks/chess_network.py \\
        --train benchmarks/data/chess_tune_playout_s?.txt.gz \\
        benchmarks/data/chess_tune_labelled.txt playout_s7.txt playout_s8.txt \\
        --test playout_s5.txt playout_s6.txt --hidden 32 --decay 1e-6,1e-5,1e-4,1e-3 --seed 1

``--residual`` trains the network as a correction added to the hand-tuned evaluation (times
its ``K``) instead.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one busy core for the training's matrix products

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any  # noqa: E402

import chess  # noqa: E402
import numba  # noqa: E402
import numpy as np  # noqa: E402

from zerosum.compiled import chess_board as cb  # noqa: E402

INPUTS = 768
"""Inputs per side: 2 colours (the viewer's, the other's) x 6 piece types x 64 squares."""
MAX_PIECES = 32
"""Feature slots per position and side (a legal position has at most 32 pieces)."""
PAD = INPUTS
"""The index of an empty slot: a row of zeros after the 768 inputs."""
OUTPUT_CP = 400.0
"""The output times this is the score in centipawns (so ``sigmoid`` of it is the output's
logistic in base 10)."""
QA = 1024
"""The integer network's scale of the first layer (its clip is [0, QA])."""
QB = 1024
"""The integer network's scale of the output weights (with 255 and 64, NNUE's int16 and int8
scales, the rounding moved an untrained network's scores by up to 11 cp)."""


def _tune_chess() -> ModuleType:
    """``tune_chess.py`` beside this file (its loss, its ``K`` search, its file reader)."""
    path = Path(__file__).resolve().with_name("tune_chess.py")
    spec = importlib.util.spec_from_file_location("tune_chess", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the features -----------------------------------------------------------------------------


def feature_index(piece: chess.Piece, square: int, perspective: bool) -> int:
    """The input of ``piece`` on ``square`` in the view of ``perspective`` (a colour): the
    viewer's pieces first (0..383), then the other side's; by piece type (pawn..king), then by
    square, mirrored top to bottom in Black's view."""
    relative = square if perspective == chess.WHITE else chess.square_mirror(square)
    other = 0 if piece.color == perspective else 384
    return other + 64 * (piece.piece_type - 1) + relative


def feature_indices(board: chess.Board, perspective: bool) -> list[int]:
    """The active inputs of ``board`` in the view of ``perspective``, sorted (the plain twin of
    :func:`nn_features`)."""
    return sorted(
        feature_index(piece, square, perspective) for square, piece in board.piece_map().items()
    )


def index_arrays(boards: Sequence[chess.Board]) -> tuple[np.ndarray, np.ndarray]:
    """The inputs of each board from the side to move's view and from the other's, as two
    ``(positions, MAX_PIECES)`` arrays padded with :data:`PAD`."""
    own = np.full((len(boards), MAX_PIECES), PAD, np.int64)
    other = np.full((len(boards), MAX_PIECES), PAD, np.int64)
    for row, board in enumerate(boards):
        mine = feature_indices(board, board.turn)
        theirs = feature_indices(board, not board.turn)
        own[row, : len(mine)] = mine
        other[row, : len(theirs)] = theirs
    return own, other


# -- the network in numpy: training and the integer twin --------------------------------------


@dataclass
class Network:
    """Float weights: ``w1`` (INPUTS + 1, hidden; the last row, :data:`PAD`'s, stays zero),
    ``b1`` (hidden), ``w2`` (2 * hidden: the side to move's units, then the other's), ``b2``."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float

    @classmethod
    def initial(cls, hidden: int, seed: int) -> Network:
        rng = np.random.default_rng(seed)
        w1 = rng.normal(0.0, 0.05, (INPUTS + 1, hidden)).astype(np.float32)
        w1[PAD] = 0.0
        b1 = np.full(hidden, 0.25, np.float32)
        w2 = rng.normal(0.0, 1.0 / math.sqrt(2 * hidden), 2 * hidden).astype(np.float32)
        return cls(w1, b1, w2, 0.0)

    def copy(self) -> Network:
        return Network(self.w1.copy(), self.b1.copy(), self.w2.copy(), self.b2)


def forward(net: Network, own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """The float network's centipawns from the side to move."""
    hidden = len(net.b1)
    a_own = np.clip(net.w1[own].sum(axis=1) + net.b1, 0.0, 1.0)
    a_other = np.clip(net.w1[other].sum(axis=1) + net.b1, 0.0, 1.0)
    raw = a_own @ net.w2[:hidden] + a_other @ net.w2[hidden:] + net.b2
    return np.asarray(OUTPUT_CP * raw, dtype=float)


def _one_hot(rows: np.ndarray) -> np.ndarray:
    x = np.zeros((len(rows), INPUTS + 1), np.float32)
    x[np.arange(len(rows))[:, None], rows] = 1.0
    return x


def train(
    net: Network,
    own: np.ndarray,
    other: np.ndarray,
    target: np.ndarray,
    valid: tuple[np.ndarray, np.ndarray, np.ndarray],
    *,
    epochs: int,
    batch: int,
    rate: float,
    decay: float,
    seed: int,
    base: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[Network, list[tuple[int, float, float]]]:
    """Adam on mini-batches of ``sigmoid(cp)`` against ``target``'s squared error plus
    ``decay`` times the squared weights; the step falls linearly to a tenth over the epochs.
    Returns the network of the epoch with the lowest loss on ``valid`` (inputs and targets)
    and each epoch's (number, training loss, validation loss). With ``base`` (centipawns of
    each training and each validation position), ``cp`` is the base plus the network's: the
    network learns a correction."""
    offset = np.zeros(len(target)) if base is None else base[0] / OUTPUT_CP
    v_offset = np.zeros(len(valid[2])) if base is None else base[1]
    rng = np.random.default_rng(seed)
    params = [net.w1, net.b1, net.w2, np.array([net.b2], np.float32)]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    hidden = len(net.b1)
    ln10 = math.log(10.0)
    step = 0
    best = (math.inf, net.copy(), 0)
    history = []
    steps_total = epochs * math.ceil(len(target) / batch)
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(target))
        seen = 0.0
        for first in range(0, len(order), batch):
            rows = order[first : first + batch]
            x_own, x_other = _one_hot(own[rows]), _one_hot(other[rows])
            z_own = x_own @ params[0] + params[1]
            z_other = x_other @ params[0] + params[1]
            a_own, a_other = np.clip(z_own, 0.0, 1.0), np.clip(z_other, 0.0, 1.0)
            raw = a_own @ params[2][:hidden] + a_other @ params[2][hidden:] + params[3][0]
            raw = raw + offset[rows]
            p = 1.0 / (1.0 + np.exp(-ln10 * raw))
            error = p - target[rows]
            seen += float(np.sum(error * error))
            d_raw = (2.0 * error * p * (1.0 - p) * ln10 / len(rows)).astype(np.float32)
            d_own = np.outer(d_raw, params[2][:hidden]) * ((z_own > 0) & (z_own < 1))
            d_other = np.outer(d_raw, params[2][hidden:]) * ((z_other > 0) & (z_other < 1))
            grads = [
                x_own.T @ d_own + x_other.T @ d_other + 2 * decay * params[0],
                d_own.sum(axis=0) + d_other.sum(axis=0),
                np.concatenate([d_raw @ a_own, d_raw @ a_other]) + 2 * decay * params[2],
                np.array([d_raw.sum()], np.float32),
            ]
            grads[0][PAD] = 0.0
            step += 1
            size = rate * (1.0 - 0.9 * (step - 1) / max(steps_total - 1, 1))
            for param, grad, m, v in zip(params, grads, moments, squares, strict=True):
                m *= 0.9
                m += 0.1 * grad
                v *= 0.999
                v += 0.001 * grad * grad
                m_hat = m / (1 - 0.9**step)
                v_hat = v / (1 - 0.999**step)
                param -= (size * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(param.dtype)
        current = Network(params[0], params[1], params[2], float(params[3][0]))
        v_own, v_other, v_target = valid
        v_cp = forward(current, v_own, v_other) + v_offset
        v_loss = float(np.mean((sigmoid(v_cp) - v_target) ** 2))
        history.append((epoch, seen / len(target), v_loss))
        if v_loss < best[0]:
            best = (v_loss, current.copy(), epoch)
    return best[1], history


@dataclass
class Quantized:
    """The integer network: ``w1`` (INPUTS + 1, hidden) and ``b1`` scaled by :data:`QA`,
    ``w2`` by :data:`QB`, ``b2`` by both (all ``int64``)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: int

    @classmethod
    def of(cls, net: Network) -> Quantized:
        return cls(
            np.round(net.w1 * QA).astype(np.int64),
            np.round(net.b1 * QA).astype(np.int64),
            np.round(net.w2 * QB).astype(np.int64),
            round(net.b2 * QA * QB),
        )


def quantized_forward(q: Quantized, own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """The integer network's centipawns from the side to move, in numpy (the twin of
    :func:`nn_forward` on :func:`nn_refresh`'s accumulators)."""
    hidden = len(q.b1)
    a_own = np.clip(q.w1[own].sum(axis=1) + q.b1, 0, QA)
    a_other = np.clip(q.w1[other].sum(axis=1) + q.b1, 0, QA)
    total = a_own @ q.w2[:hidden] + a_other @ q.w2[hidden:] + q.b2
    return np.asarray(total * int(OUTPUT_CP) // (QA * QB), dtype=np.int64)


def sigmoid(cp: np.ndarray, k: float = 1.0) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.power(10.0, -k * cp / 400.0)))


# -- the network in numba: what the compiled board would run ----------------------------------


@numba.njit(nogil=True)
def nn_feature(code: int, square: int, perspective: int) -> int:
    """:func:`feature_index` of the piece ``code`` (``piece + 8 * white``) on ``square`` in the
    view of ``perspective`` (1 White, 0 Black)."""
    relative = square if perspective == 1 else square ^ 56
    other = 0 if code >> 3 == perspective else 384
    return other + 64 * ((code & 7) - 1) + relative


@numba.njit(nogil=True)
def nn_features(st: Any, perspective: int, out: Any) -> int:
    """The active inputs of the state ``st`` in the view of ``perspective`` into ``out``
    (unsorted); returns their number."""
    n = 0
    for white in range(2):
        bits = st[cb.OCC + white]
        while bits:
            square = cb.lowest_square(bits)
            bits &= bits - 1
            out[n] = nn_feature(st[square], square, perspective)
            n += 1
    return n


@numba.njit(nogil=True)
def nn_refresh(st: Any, w1: Any, b1: Any, acc: Any) -> None:
    """Both accumulators of ``st`` from scratch: ``acc[1]`` in White's view, ``acc[0]`` in
    Black's (``b1`` plus the rows of the active inputs)."""
    hidden = b1.shape[0]
    for perspective in range(2):
        for j in range(hidden):
            acc[perspective, j] = b1[j]
    for white in range(2):
        bits = st[cb.OCC + white]
        while bits:
            square = cb.lowest_square(bits)
            bits &= bits - 1
            code = st[square]
            for perspective in range(2):
                row = nn_feature(code, square, perspective)
                for j in range(hidden):
                    acc[perspective, j] += w1[row, j]


@numba.njit(nogil=True)
def _apply(acc: Any, w1: Any, code: int, square: int, sign: int) -> None:
    hidden = acc.shape[1]
    for perspective in range(2):
        row = nn_feature(code, square, perspective)
        for j in range(hidden):
            acc[perspective, j] += sign * w1[row, j]


@numba.njit(nogil=True)
def nn_update(st: Any, move: int, w1: Any, parent: Any, child: Any) -> None:
    """The accumulators after ``move`` (pseudo-legal, in ``st`` before it is made; or
    :data:`chess_board.NULL_MOVE`) from ``parent``'s into ``child``: the squares
    ``chess_board.make`` changes, each a row added or taken off in both views."""
    child[:, :] = parent
    if move == cb.NULL_MOVE:
        return
    source, target, promotion = move & 63, (move >> 6) & 63, (move >> 12) & 7
    code = st[source]
    white = code >> 3
    captured = st[target]
    _apply(child, w1, code, source, -1)
    if code & 7 == cb.PAWN and target == st[cb.EP] and captured == 0 and (target - source) & 7:
        _apply(child, w1, cb.PAWN + 8 - 8 * white, target - 8 if white else target + 8, -1)
    elif captured != 0:
        _apply(child, w1, captured, target, -1)
    _apply(child, w1, promotion + 8 * white if promotion else code, target, 1)
    if code & 7 == cb.KING and abs(target - source) == 2:
        rook_from = source + 3 if target > source else source - 4
        rook_to = source + 1 if target > source else source - 1
        _apply(child, w1, cb.ROOK + 8 * white, rook_from, -1)
        _apply(child, w1, cb.ROOK + 8 * white, rook_to, 1)


@numba.njit(nogil=True)
def nn_forward(acc: Any, side: int, w2: Any, b2: int) -> int:
    """The integer network's centipawns for the side to move ``side`` (1 White, 0 Black) from
    both accumulators: each unit clipped to [0, QA], the side to move's first."""
    hidden = acc.shape[1]
    total = b2
    for j in range(hidden):
        total += min(max(acc[side, j], 0), QA) * w2[j]
        total += min(max(acc[1 - side, j], 0), QA) * w2[hidden + j]
    return total * 400 // (QA * QB)


@numba.njit(nogil=True)
def bench_evaluate(states: Any, rounds: int) -> int:
    """``chess_board.evaluate`` of each state ``rounds`` times in a row (the state stays in
    the cache, as the search's does)."""
    total = 0
    for i in range(states.shape[0]):
        for _ in range(rounds):
            total += cb.evaluate(states[i])
    return total


@numba.njit(nogil=True)
def bench_refresh_forward(states: Any, w1: Any, b1: Any, w2: Any, b2: int, rounds: int) -> int:
    acc = np.zeros((2, b1.shape[0]), np.int64)
    total = 0
    for i in range(states.shape[0]):
        for _ in range(rounds):
            nn_refresh(states[i], w1, b1, acc)
            total += nn_forward(acc, states[i][cb.SIDE], w2, b2)
    return total


@numba.njit(nogil=True)
def bench_forward(states: Any, accs: Any, w2: Any, b2: int, rounds: int) -> int:
    total = 0
    for i in range(states.shape[0]):
        for _ in range(rounds):
            total += nn_forward(accs[i], states[i][cb.SIDE], w2, b2)
    return total


@numba.njit(nogil=True)
def bench_moves(states: Any, accs: Any, w1: Any, w2: Any, b2: int, kind: int, rounds: int) -> int:
    """Every pseudo-legal move of every state: made and taken back, and between them nothing
    (``kind`` 0), the compiled evaluation (1), or the accumulators updated and the network's
    forward pass (2). Returns the sum of the scores (and the number of moves for kind 0)."""
    moves = np.empty(cb.MAX_MOVES, np.int64)
    child = np.zeros((2, accs.shape[2]), np.int64)
    total = 0
    for i in range(states.shape[0]):
        st = states[i]
        n = cb.pseudo_moves(st, moves, 0)
        for _ in range(rounds):
            for m in range(n):
                if kind == 2:
                    nn_update(st, moves[m], w1, accs[i], child)
                cb.make(st, moves[m])
                if kind == 1:
                    total += cb.evaluate(st)
                elif kind == 2:
                    total += nn_forward(child, st[cb.SIDE], w2, b2)
                else:
                    total += 1
                cb.unmake(st)
    return total


# -- the comparison ---------------------------------------------------------------------------


def _labelled(
    tc: ModuleType, paths: Sequence[str]
) -> tuple[list[chess.Board], np.ndarray, list[str]]:
    """Boards, Stockfish's centipawns from the side to move, and game names of the files."""
    rows = tc.read_labelled(paths)
    boards = [chess.Board(fen) for fen, _, _, _ in rows]
    cps = np.array(
        [cp if board.turn else -cp for (_, _, _, cp), board in zip(rows, boards, strict=True)]
    )
    return boards, cps, [game for _, _, game, _ in rows]


def _figures(tc: ModuleType, pred: np.ndarray, cps: np.ndarray, k: float) -> dict[str, float]:
    target = sigmoid(cps)
    decided = np.abs(cps) >= 50
    agree = np.sign(pred[decided]) == np.sign(cps[decided])
    return {
        "loss": float(np.mean((sigmoid(pred, k) - target) ** 2)),
        "sign": float(np.mean(agree)),
        "mae": float(np.mean(np.abs(np.clip(k * pred, -1000, 1000) - np.clip(cps, -1000, 1000)))),
    }


def _hand(boards: Sequence[chess.Board]) -> np.ndarray:
    """:meth:`Chess.evaluate` (the Python twin) of each board, from the side to move."""
    from zerosum.games.chess import Chess

    return np.array([float(Chess(board.fen()).evaluate()) for board in boards])


def costs(q: Quantized, boards: Sequence[chess.Board], rounds: int, runs: int) -> dict[str, float]:
    """Nanoseconds per call of the compiled evaluation and of the integer network's parts,
    on the states of ``boards`` (their pseudo-legal moves for the per-move figures), each
    state's calls in a row. The measures take turns, ``runs`` times over (each compiled by a
    first untimed run), and each keeps its fastest run: on a shared machine the load moves
    between runs, not within one turn."""
    states = np.stack([cb.state_of(board) for board in boards])
    hidden = len(q.b1)
    accs = np.zeros((len(boards), 2, hidden), np.int64)
    for i in range(len(boards)):
        nn_refresh(states[i], q.w1, q.b1, accs[i])
    calls = len(boards) * rounds
    moves = bench_moves(states, accs, q.w1, q.w2, q.b2, 0, 1) * rounds
    measures: dict[str, tuple[Any, tuple[Any, ...], int]] = {
        "evaluate": (bench_evaluate, (states, rounds), calls),
        "refresh+forward": (bench_refresh_forward, (states, q.w1, q.b1, q.w2, q.b2, rounds), calls),
        "forward": (bench_forward, (states, accs, q.w2, q.b2, rounds), calls),
        "make+unmake": (bench_moves, (states, accs, q.w1, q.w2, q.b2, 0, rounds), moves),
        "make+evaluate+unmake": (bench_moves, (states, accs, q.w1, q.w2, q.b2, 1, rounds), moves),
        "update+make+forward+unmake": (
            bench_moves,
            (states, accs, q.w1, q.w2, q.b2, 2, rounds),
            moves,
        ),
    }
    best = dict.fromkeys(measures, math.inf)
    for run in range(runs + 1):
        for name, (function, args, count) in measures.items():
            started = time.perf_counter()
            function(*args)
            if run:
                best[name] = min(best[name], (time.perf_counter() - started) / count)
    return {name: seconds * 1e9 for name, seconds in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", nargs="+", required=True, help="labelled files to train on")
    parser.add_argument("--test", nargs="+", required=True, help="labelled files no one saw")
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--rate", type=float, default=2e-3, help="Adam's first step")
    parser.add_argument(
        "--decay",
        type=lambda text: [float(x) for x in text.split(",")],
        default=[1e-5],
        help="L2 on the weights; several (comma-separated): the best on the held-out games is kept",
    )
    parser.add_argument(
        "--residual",
        action="store_true",
        help="the network learns a correction to the hand-tuned evaluation (times its K)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cost-positions", type=int, default=2000)
    parser.add_argument("--cost-rounds", type=int, default=20, help="calls of a state in a row")
    parser.add_argument("--cost-runs", type=int, default=5, help="turns of the measures")
    args = parser.parse_args()
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}", flush=True)
    tc = _tune_chess()
    started = time.perf_counter()
    boards, cps, games = _labelled(tc, args.train)
    test_boards, test_cps, _ = _labelled(tc, args.test)
    numbers = sorted(set(games))
    random.Random(f"split/{args.seed}").shuffle(numbers)
    training_games = set(numbers[: int(0.8 * len(numbers))])
    fit = np.array([i for i, game in enumerate(games) if game in training_games])
    held = np.array([i for i, game in enumerate(games) if game not in training_games])
    own, other = index_arrays(boards)
    t_own, t_other = index_arrays(test_boards)
    target = sigmoid(cps)
    print(
        f"{len(fit)} training positions, {len(held)} for the epoch's choice"
        f" ({len(numbers)} games); {len(test_boards)} test positions;"
        f" read in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    started = time.perf_counter()
    hand = _hand(boards)
    hand_test = _hand(test_boards)
    hand_k = tc.fit_k(hand[fit], target[fit])
    print(f"hand evaluation of the positions in {time.perf_counter() - started:.0f} s", flush=True)
    base = (hand_k * hand[fit], hand_k * hand[held]) if args.residual else None
    trials = []
    for decay in args.decay:
        started = time.perf_counter()
        trained, history = train(
            Network.initial(args.hidden, args.seed),
            own[fit],
            other[fit],
            target[fit],
            (own[held], other[held], target[held]),
            epochs=args.epochs,
            batch=args.batch,
            rate=args.rate,
            decay=decay,
            seed=args.seed,
            base=base,
        )
        seconds = time.perf_counter() - started
        best = min(history, key=lambda row: row[2])
        print(f"decay {decay:g}:")
        for epoch, train_loss, valid_loss in history:
            if epoch % 5 == 0 or epoch == best[0]:
                print(f"  epoch {epoch:3d}: training {train_loss:.6f}, held out {valid_loss:.6f}")
        print(f"  trained in {seconds:.0f} s; epoch {best[0]} kept", flush=True)
        trials.append((best[2], decay, trained))
    _, decay, net = min(trials, key=lambda trial: trial[0])
    print(f"decay {decay:g} kept")
    q = Quantized.of(net)
    plus, name = (hand_k * hand[fit], hand_k * hand_test), f"768x2-{args.hidden}-1"
    if not args.residual:
        plus = (np.zeros(len(fit)), np.zeros(len(test_boards)))
    else:
        name = f"K * hand + {name}"
    models = {
        "hand-tuned (Chess.evaluate)": (hand[fit], hand_test),
        f"{name}, float": (
            plus[0] + forward(net, own[fit], other[fit]),
            plus[1] + forward(net, t_own, t_other),
        ),
        f"{name}, integer": (
            plus[0] + quantized_forward(q, own[fit], other[fit]),
            plus[1] + quantized_forward(q, t_own, t_other),
        ),
    }
    print(f"\n{'model':<40} {'K':>7} {'loss':>9} {'sign':>7} {'MAE cp':>7}   (test positions)")
    for name, (train_pred, test_pred) in models.items():
        k = tc.fit_k(train_pred, target[fit])
        figures = _figures(tc, test_pred, test_cps, k)
        print(
            f"{name:<40} {k:7.4f} {figures['loss']:9.6f} {figures['sign']:7.2%}"
            f" {figures['mae']:7.1f}"
        )
    rng = random.Random(f"cost/{args.seed}")
    sample = rng.sample(test_boards, min(args.cost_positions, len(test_boards)))
    started = time.perf_counter()
    figures = costs(q, sample, args.cost_rounds, args.cost_runs)
    seconds = time.perf_counter() - started
    print(f"\nnanoseconds per call, {len(sample)} test positions ({seconds:.0f} s):")
    for name, value in figures.items():
        print(f"  {name:<28} {value:8.1f}")
    net_node = figures["update+make+forward+unmake"] - figures["make+unmake"]
    hand_node = figures["make+evaluate+unmake"] - figures["make+unmake"]
    print(f"  per move, less make+unmake: evaluation {hand_node:.1f}, network {net_node:.1f}")


if __name__ == "__main__":
    main()
