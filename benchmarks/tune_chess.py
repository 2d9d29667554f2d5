"""Texel-style tuning of the chess evaluation's positional weights on labelled positions.

Three steps, each reproducible from ``--seed``, each writing a file the next one reads:

1. ``collect``: zerosum plays itself (the compiled engine at ``--nodes`` nodes a move, its
   choices among equal moves seeded) from the balanced book's openings; every ``--every``-th
   position after the book is kept if the side to move is not in check. One line per position:
   FEN, the game's result from White's side (1, 1/2, 0) and the game's number.
2. ``label``: Stockfish (``/usr/games/stockfish``; a labeller only, never a dependency of
   zerosum) searches each position to ``--depth``; the position is kept when its best move is
   quiet (no capture or promotion: the static evaluation cannot see a pending exchange) and
   its score is no mate and within ``--max-cp``. Adds Stockfish's score from White's side.
3. ``tune``: the evaluation of :class:`zerosum.games.chess.Chess` from White's side is linear
   in the weights of :mod:`zerosum.games.chess_evaluation` listed in :data:`WEIGHTS` (the king
   attack's squared units and cap are not linear and stay fixed, as do material and the
   piece-square tables). Each weight's coefficient in a position is measured on the Python
   twin itself: ``positional_terms`` again with that weight raised by :data:`STEP`, the
   difference divided by it. The prediction ``sigmoid(K * eval)`` (``sigmoid(x) = 1 / (1 +
   10^(-x/400))``) is fitted to Stockfish's ``sigmoid(cp)`` (or, with ``--result-weight``, a
   blend with the game's result) by least squares: first the scale ``K`` with the weights as
   they are, then the weights by Adam from the current values, with an L2 pull of
   ``--l2`` towards them, on the positions of a training part of the games (a seeded 80%
   split by game, since the positions of one game are alike); the other games' positions only
   measure. The tuned weights (rounded) go to a JSON file, with the losses before and
   after on both parts.

Nothing here changes zerosum: adopting the weights means writing them into
``chess_evaluation.py`` (both twins read them there) and accepting them only if a sequential
test (``zerosum match --sprt``) says they gain (docs/benchmarks.md).

Run from the repository root::

    nice -n 10 .venv/bin/python benchmarks/tune_chess.py collect --games 40 --out positions.txt
    nice -n 10 .venv/bin/python benchmarks/tune_chess.py label positions.txt --out labelled.txt
    .venv/bin/python benchmarks/tune_chess.py tune labelled.txt --out tuned.json
    .venv/bin/python benchmarks/tune_chess.py apply tuned.json SRC/zerosum/games/chess_evaluation.py

``apply`` writes the tuned weights into a ``chess_evaluation.py`` (of a copy SRC of the sources, to
play it against the current one with ``zerosum match --sprt``).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import chess
import chess.engine
import numpy as np

from zerosum.games import chess_evaluation as ce
from zerosum.games.chess import EG, FULL_PHASE, MG, PHASE_WEIGHT

STOCKFISH = "/usr/games/stockfish"
STEP = 1000
"""How far a weight is raised to measure its coefficient (large, so that the halving of a
blocked passed pawn's bonus rounds away: the error is at most 1/STEP)."""


# -- the weights ------------------------------------------------------------------------------


def _indexed(name: str, index: int) -> tuple[str, Callable[[], int], Callable[[int], None]]:
    def get() -> int:
        return int(getattr(ce, name)[index])

    def put(value: int) -> None:
        row = list(getattr(ce, name))
        row[index] = value
        setattr(ce, name, tuple(row))

    return f"{name}[{index}]", get, put


def _scalar(name: str) -> tuple[str, Callable[[], int], Callable[[int], None]]:
    return name, lambda: int(getattr(ce, name)), lambda value: setattr(ce, name, value)


def _mobility(piece: int, phase: int) -> tuple[str, Callable[[], int], Callable[[int], None]]:
    def get() -> int:
        return int(ce.MOBILITY[piece][phase])

    def put(value: int) -> None:
        row = list(ce.MOBILITY[piece])
        row[phase] = value
        ce.MOBILITY[piece] = (row[0], row[1], row[2])

    return f"MOBILITY[{chess.piece_name(piece)}][{'mg' if phase == 0 else 'eg'}]", get, put


WEIGHTS = [
    *(_indexed("PASSED_MG", rank) for rank in range(1, 7)),
    *(_indexed("PASSED_EG", rank) for rank in range(1, 7)),
    _scalar("PASSED_ENEMY_KING"),
    _scalar("PASSED_OWN_KING"),
    *(_indexed(name, phase) for name in ("DOUBLED", "ISOLATED") for phase in (0, 1)),
    *(
        _mobility(piece, phase)
        for piece in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
        for phase in (0, 1)
    ),
    _scalar("SHIELD_NEAR"),
    _scalar("SHIELD_FAR"),
    _scalar("SHIELD_MISSING"),
    *(
        _indexed(name, phase)
        for name in ("BISHOP_PAIR", "ROOK_OPEN", "ROOK_HALF_OPEN")
        for phase in (0, 1)
    ),
]
"""(name, read, write) of each tuned weight of ``chess_evaluation`` (TEMPO comes last, apart:
it is added after the taper)."""


# -- step 1: positions from self-play ---------------------------------------------------------


def collect(args: argparse.Namespace) -> None:
    from zerosum.match import EngineSettings, Match, balanced_openings

    openings = balanced_openings("chess", seed=args.seed)
    player = EngineSettings(nodes=args.nodes, seed=args.seed)
    match = Match(
        "chess",
        player,
        player,
        games=args.games,
        openings=openings,
        seed=args.seed,
        max_plies=args.max_plies,
    )
    started = time.perf_counter()
    done = [0]

    def show(record: Any) -> None:
        done[0] += 1
        if done[0] % 10 == 0:
            print(f"{done[0]} games, {time.perf_counter() - started:.0f} s", flush=True)

    result = match.play(workers=args.workers, on_game=show)
    rng = random.Random(f"collect/{args.seed}")
    lines = []
    for record in result.games:
        white_score = {"1-0": "1", "0-1": "0", "1/2-1/2": "1/2"}[record.result]
        board = chess.Board()
        book = len(record.opening.moves)
        offset = rng.randrange(args.every)
        for ply, text in enumerate(record.moves):
            board.push_uci(text)
            after = ply + 1
            if after <= book or (after - book) % args.every != offset or board.is_check():
                continue
            if board.is_game_over():
                continue
            lines.append(f"{board.fen()};{white_score};{record.index}")
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    seconds = time.perf_counter() - started
    print(f"{len(lines)} positions from {len(result.games)} games in {seconds:.0f} s -> {args.out}")


# -- step 2: Stockfish's labels ---------------------------------------------------------------


def label(args: argparse.Namespace) -> None:
    rows = [line.split(";") for line in Path(args.positions).read_text().splitlines() if line]
    kept = []
    started = time.perf_counter()
    with chess.engine.SimpleEngine.popen_uci(args.engine) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        for number, (fen, result, game) in enumerate(rows, start=1):
            board = chess.Board(fen)
            info = engine.analyse(board, chess.engine.Limit(depth=args.depth))
            score = info.get("score")
            pv = info.get("pv") or []
            if score is None or not pv:
                continue
            cp = score.white().score()
            best = pv[0]
            if cp is None or abs(cp) > args.max_cp:
                continue
            if board.is_capture(best) or best.promotion is not None:
                continue
            kept.append(f"{fen};{result};{game};{cp}")
            if number % 500 == 0:
                print(f"{number} of {len(rows)} searched, {len(kept)} kept", flush=True)
    Path(args.out).write_text("\n".join(kept) + "\n", encoding="utf-8")
    seconds = time.perf_counter() - started
    print(f"{len(kept)} of {len(rows)} positions kept in {seconds:.0f} s -> {args.out}")


# -- step 3: the fit --------------------------------------------------------------------------


def _white_sums(board: chess.Board) -> tuple[int, int, int]:
    """Material plus piece-square sums (middlegame, endgame) from White's side, and the phase,
    as :class:`zerosum.games.chess.Chess` keeps them."""
    mg = eg = phase = 0
    for square, piece in board.piece_map().items():
        code = piece.piece_type + 8 * int(piece.color)
        mg += MG[code][square]
        eg += EG[code][square]
        phase += PHASE_WEIGHT[piece.piece_type]
    return mg, eg, min(phase, FULL_PHASE)


def features(boards: Sequence[chess.Board]) -> tuple[np.ndarray, np.ndarray]:
    """``A`` (positions x weights, TEMPO last) and ``b`` with White's evaluation ``b + A @ w``
    for the weights ``w`` (before the final rounding the engine does)."""
    base_weights = [get() for _, get, _ in WEIGHTS]
    a = np.zeros((len(boards), len(WEIGHTS) + 1))
    b = np.zeros(len(boards))
    for row, board in enumerate(boards):
        mg, eg, phase = _white_sums(board)
        pos_mg, pos_eg = ce.positional_terms(board)
        tapered = [0.0] * len(WEIGHTS)
        for column, (_, get, put) in enumerate(WEIGHTS):
            value = get()
            put(value + STEP)
            up_mg, up_eg = ce.positional_terms(board)
            put(value)
            c_mg, c_eg = (up_mg - pos_mg) / STEP, (up_eg - pos_eg) / STEP
            tapered[column] = (c_mg * phase + c_eg * (FULL_PHASE - phase)) / FULL_PHASE
        a[row, : len(WEIGHTS)] = tapered
        a[row, -1] = 1.0 if board.turn else -1.0
        total = ((mg + pos_mg) * phase + (eg + pos_eg) * (FULL_PHASE - phase)) / FULL_PHASE
        b[row] = total - float(np.dot(tapered, base_weights))
    return a, b


def sigmoid(x: np.ndarray, k: float = 1.0) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.power(10.0, -k * x / 400.0)))


def loss(pred_cp: np.ndarray, target: np.ndarray, k: float) -> float:
    return float(np.mean((sigmoid(pred_cp, k) - target) ** 2))


def fit_k(pred_cp: np.ndarray, target: np.ndarray) -> float:
    """The scale minimising the loss, by golden-section search over 0.1 .. 5."""
    low, high = 0.1, 5.0
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(80):
        x1, x2 = high - ratio * (high - low), low + ratio * (high - low)
        if loss(pred_cp, target, x1) < loss(pred_cp, target, x2):
            high = x2
        else:
            low = x1
    return (low + high) / 2


def tune(args: argparse.Namespace) -> None:
    rows = [line.split(";") for line in Path(args.labelled).read_text().splitlines() if line]
    boards = [chess.Board(fen) for fen, _, _, _ in rows]
    results = np.array([{"1": 1.0, "0": 0.0, "1/2": 0.5}[r] for _, r, _, _ in rows])
    games = [int(game) for _, _, game, _ in rows]
    cps = np.array([float(cp) for _, _, _, cp in rows])
    target = args.result_weight * results + (1 - args.result_weight) * sigmoid(cps)
    started = time.perf_counter()
    a, b = features(boards)
    print(f"features of {len(rows)} positions in {time.perf_counter() - started:.0f} s")
    w0 = np.array([get() for _, get, _ in WEIGHTS] + [ce.TEMPO], dtype=float)
    # The linear model must be the engine's evaluation (up to its rounding).
    from zerosum.games.chess import Chess

    engine = np.array([Chess(board.fen()).evaluate() for board in boards[:200]], dtype=float)
    sign = np.array([1.0 if board.turn else -1.0 for board in boards[:200]])
    model = (b[:200] + a[:200] @ w0) * sign
    print(f"largest gap model - Chess.evaluate() on 200 positions: {np.abs(model - engine).max()}")
    numbers = sorted(set(games))
    random.Random(f"split/{args.seed}").shuffle(numbers)
    training_games = set(numbers[: int(0.8 * len(numbers))])
    train = np.array([i for i, game in enumerate(games) if game in training_games])
    valid = np.array([i for i, game in enumerate(games) if game not in training_games])
    k = fit_k(b[train] + a[train] @ w0, target[train])
    before = (loss(b[train] + a[train] @ w0, target[train], k), 0.0)
    before = (before[0], loss(b[valid] + a[valid] @ w0, target[valid], k))
    # Adam on the mean squared error plus the L2 pull towards the current weights.
    w = w0.copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    at, bt, tt = a[train], b[train], target[train]
    scale = k * math.log(10) / 400
    for step in range(1, args.steps + 1):
        p = sigmoid(bt + at @ w, k)
        gradient = (2 * (p - tt) * p * (1 - p) * scale) @ at / len(tt)
        gradient += 2 * args.l2 * (w - w0)
        m = 0.9 * m + 0.1 * gradient
        v = 0.999 * v + 0.001 * gradient * gradient
        w -= args.rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-12)
    tuned = np.round(w)
    after = (
        loss(bt + at @ tuned, tt, k),
        loss(b[valid] + a[valid] @ tuned, target[valid], k),
    )
    names = [name for name, _, _ in WEIGHTS] + ["TEMPO"]
    report = {
        "positions": len(rows),
        "games": len(numbers),
        "train": len(train),
        "validation": len(valid),
        "seed": args.seed,
        "k": round(k, 4),
        "result_weight": args.result_weight,
        "l2": args.l2,
        "steps": args.steps,
        "rate": args.rate,
        "loss_before": {"train": before[0], "validation": before[1]},
        "loss_after": {"train": after[0], "validation": after[1]},
        "weights": {
            n: {"from": int(x), "to": int(y)} for n, x, y in zip(names, w0, tuned, strict=True)
        },
    }
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(
        f"K = {k:.4f}; {len(train)} training positions ({len(training_games)} games) and"
        f" {len(valid)} validation positions ({len(numbers) - len(training_games)} games)"
    )
    print(f"loss before: train {before[0]:.6f}, validation {before[1]:.6f}")
    print(f"loss after:  train {after[0]:.6f}, validation {after[1]:.6f}")
    for name, old, new in zip(names, w0, tuned, strict=True):
        if old != new:
            print(f"  {name:<28} {int(old):>5} -> {int(new):>5}")
    print(f"-> {args.out}")


# -- adopting: the weights written into a copy of the evaluation module -----------------------


def apply(args: argparse.Namespace) -> None:
    """Write the tuned weights of ``args.tuned`` into ``args.module`` (a
    ``chess_evaluation.py``): each constant's line is rewritten with its new values."""
    import re

    weights = {
        name: value["to"]
        for name, value in json.loads(Path(args.tuned).read_text())["weights"].items()
    }
    for name, value in weights.items():  # through the setters, so shapes stay as they are
        if name == "TEMPO":
            ce.TEMPO = value
        else:
            next(put for n, _, put in WEIGHTS if n == name)(value)
    text = Path(args.module).read_text(encoding="utf-8")
    names = ["PASSED_MG", "PASSED_EG", "PASSED_ENEMY_KING", "PASSED_OWN_KING", "DOUBLED"]
    names += ["ISOLATED", "SHIELD_NEAR", "SHIELD_FAR", "SHIELD_MISSING", "BISHOP_PAIR"]
    names += ["ROOK_OPEN", "ROOK_HALF_OPEN", "TEMPO"]
    for name in names:
        value = getattr(ce, name)
        pattern = rf"^{name}: Final = .*$"
        text, count = re.subn(pattern, f"{name}: Final = {value!r}", text, flags=re.M)
        if count != 1:
            sys.exit(f"tune_chess: {name} not found once in {args.module}")
    for piece, row in ce.MOBILITY.items():
        pattern = rf"^    chess\.{chess.piece_name(piece).upper()}: \(.*\),$"
        line = f"    chess.{chess.piece_name(piece).upper()}: {tuple(row)!r},"
        text, count = re.subn(pattern, line, text, flags=re.M)
        if count != 1:
            sys.exit(f"tune_chess: MOBILITY of {chess.piece_name(piece)} not found once")
    Path(args.module).write_text(text, encoding="utf-8")
    print(f"{len(weights)} weights written into {args.module}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    steps = parser.add_subparsers(dest="step", required=True)
    c = steps.add_parser("collect", help="positions from zerosum's self-play")
    c.add_argument("--games", type=int, default=40)
    c.add_argument("--nodes", type=int, default=4000, help="nodes a move (default 4000)")
    c.add_argument("--every", type=int, default=3, help="keep one position in this many plies")
    c.add_argument("--max-plies", type=int, default=240)
    c.add_argument("--workers", type=int, default=1)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--out", default="positions.txt")
    c.set_defaults(run=collect)
    lab = steps.add_parser("label", help="Stockfish's scores of the quiet positions")
    lab.add_argument("positions")
    lab.add_argument("--depth", type=int, default=10)
    lab.add_argument("--max-cp", type=int, default=1500)
    lab.add_argument("--engine", default=STOCKFISH)
    lab.add_argument("--out", default="labelled.txt")
    lab.set_defaults(run=label)
    t = steps.add_parser("tune", help="fit the weights")
    t.add_argument("labelled")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--steps", type=int, default=3000)
    t.add_argument("--rate", type=float, default=0.5, help="Adam's step in centipawns")
    t.add_argument("--l2", type=float, default=1e-7, help="pull towards the current weights")
    t.add_argument("--result-weight", type=float, default=0.0, help="0: Stockfish only")
    t.add_argument("--out", default="tuned.json")
    t.set_defaults(run=tune)
    ap = steps.add_parser("apply", help="write tuned weights into a chess_evaluation.py")
    ap.add_argument("tuned", help="the JSON file of the tune step")
    ap.add_argument("module", help="the chess_evaluation.py to rewrite (a copy, for a test)")
    ap.set_defaults(run=apply)
    args = parser.parse_args()
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}", flush=True)
    args.run(args)


if __name__ == "__main__":
    main()
