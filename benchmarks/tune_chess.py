"""Texel-style tuning of the chess evaluation's weights on labelled positions.

The steps, each reproducible from ``--seed``, each writing a file the next one reads:

1. Positions, either
   ``collect``: zerosum plays itself (the compiled engine at ``--nodes`` nodes a move, its
   choices among equal moves seeded) from the balanced book's openings; every ``--every``-th
   position after the book is kept if the side to move is not in check (FEN, the game's result
   from White's side, the game's number); or ``pgn``: the same from the games of a PGN file.
2. ``label``: Stockfish (``/usr/games/stockfish``; a labeller only, never a dependency of
   zerosum) searches each position to ``--depth``; the position is kept when its best move is
   quiet (no capture or promotion: the static evaluation cannot see a pending exchange) and
   its score is no mate and within ``--max-cp``. Adds Stockfish's score from White's side.

   ``playout`` does both at once: Stockfish plays the balanced book's openings out at
   ``--depth`` with a share ``--random`` of seeded random moves, and labels the quiet positions
   on the way (docs/games/chess-tuning.md describes the files it made).
3. ``tune``: the evaluation of :class:`zerosum.games.chess.Chess` from White's side is linear
   in the material and piece-square tables (:mod:`zerosum.games.chess_tables`), the weights of
   :mod:`zerosum.games.chess_evaluation` listed in :data:`WEIGHTS` and the tempo (the
   columns of :func:`column_names`). Table and material columns are counted from the board;
   each positional weight's column is measured on the Python twin itself: ``positional_terms``
   again with that weight raised by :data:`STEP`, the difference divided by it. The prediction
   ``sigmoid(K * eval)`` (``sigmoid(x) = 1 / (1 + 10^(-x/400))``) is fitted to Stockfish's
   ``sigmoid(cp)`` (or, with ``--result-weight``, a blend with the game's result) by least
   squares: first the scale ``K`` with the weights as they are, then all the weights by Adam
   from the current values, with an L2 pull of ``--l2`` towards them (several: the one best on
   the validation games is kept), on the positions of a training part of the games (a seeded
   80% split by game, since the positions of one game are alike); the other games' positions
   only measure. The king attack (:data:`KING_ATTACK`), not linear, is then searched one weight
   at a time, and the linear weights fitted again. The tuned weights (rounded) go to a JSON
   file, with the losses before and after on both parts; ``--test`` files take no part in
   the fit, and their loss before and after (``K`` fitted on them each time) is added.
4. ``apply``: the weights of that file written into a copy of the sources (``chess_tables.py``
   anew, the constants' lines of ``chess_evaluation.py``), to play it against the current
   sources with ``zerosum match --sprt`` (both twins read the weights there).

Nothing here changes zerosum by itself: a fit is adopted only if a sequential test says it
gains (docs/benchmarks.md).

Run from the repository root::

    nice -n 10 .venv/bin/python benchmarks/tune_chess.py playout --seed 1 --out p1.txt
    nice -n 10 .venv/bin/python benchmarks/tune_chess.py collect --games 40 --out positions.txt
    nice -n 10 .venv/bin/python benchmarks/tune_chess.py label positions.txt --out labelled.txt
    .venv/bin/python benchmarks/tune_chess.py tune p1.txt labelled.txt --l2 1e-8,1e-7 \\
        --out tuned.json
    .venv/bin/python benchmarks/tune_chess.py apply tuned.json COPY/src
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
from zerosum.games.chess import FULL_PHASE, PHASE_WEIGHT

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


def _mobility(
    piece: int, phase: int, count: int
) -> tuple[str, Callable[[], int], Callable[[int], None]]:
    name = ("MOBILITY_MG", "MOBILITY_EG")[phase]

    def get() -> int:
        return int(getattr(ce, name)[piece][count])

    def put(value: int) -> None:
        rows = [list(row) for row in getattr(ce, name)]
        rows[piece][count] = value
        setattr(ce, name, tuple(tuple(row) for row in rows))

    return f"{name}[{chess.piece_name(piece)}][{count}]", get, put


MOBILE_PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
MOBILITY_WEIGHTS = [
    _mobility(piece, phase, count)
    for piece in MOBILE_PIECES
    for phase in (0, 1)
    for count in range(len(ce.MOBILITY_MG[piece]))
]
"""The mobility tables' entries, one weight each; their columns are counted from the board
(:func:`mobility_columns`), not measured by raising them one at a time."""


WEIGHTS = [
    *(_indexed("PASSED_MG", rank) for rank in range(1, 7)),
    *(_indexed("PASSED_EG", rank) for rank in range(1, 7)),
    _scalar("PASSED_ENEMY_KING"),
    _scalar("PASSED_OWN_KING"),
    *(_indexed(name, phase) for name in ("DOUBLED", "ISOLATED") for phase in (0, 1)),
    *MOBILITY_WEIGHTS,
    _scalar("SHIELD_NEAR"),
    _scalar("SHIELD_FAR"),
    _scalar("SHIELD_MISSING"),
    *(
        _indexed(name, phase)
        for name in (
            "BISHOP_PAIR",
            "ROOK_OPEN",
            "ROOK_HALF_OPEN",
            "THREAT_BY_PAWN",
            "THREAT_BY_MINOR",
            "PAWN_SUPPORTED",
            "THREAT_BY_ROOK",
            "BACKWARD",
        )
        for phase in (0, 1)
    ),
    *(
        _indexed(name, piece)
        for name in ("SAFE_CHECK_MG", "SAFE_CHECK_EG")
        for piece in MOBILE_PIECES
    ),
]
"""(name, read, write) of each tuned weight of ``chess_evaluation`` (TEMPO comes last, apart:
it is added after the taper)."""


# -- step 1: positions from self-play ---------------------------------------------------------


def from_pgn(args: argparse.Namespace) -> None:
    """Positions of the games of a PGN file (a match's, e.g. zerosum against Stockfish), as
    ``collect`` keeps them: every ``--every``-th position after the first ``--skip`` plies, not
    in check and not the end."""
    import chess.pgn

    rng = random.Random(f"pgn/{args.seed}")
    lines = []
    with open(args.pgn, encoding="utf-8") as handle:
        number = 0
        while (game := chess.pgn.read_game(handle)) is not None:
            result = {"1-0": "1", "0-1": "0"}.get(game.headers.get("Result", ""), "1/2")
            board = game.board()
            offset = rng.randrange(args.every)
            for ply, move in enumerate(game.mainline_moves(), start=1):
                board.push(move)
                if ply <= args.skip or (ply - args.skip) % args.every != offset:
                    continue
                if not board.is_check() and not board.is_game_over():
                    lines.append(f"{board.fen()};{result};{number}")
            number += 1
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} positions from {number} games -> {args.out}")


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


# -- steps 1 and 2 at once: the balanced openings played out by the labeller ------------------


def playout(args: argparse.Namespace) -> None:
    """Stockfish plays each opening of the balanced book out, both sides, at ``--depth``, and
    labels every position on the way with its score. With probability ``--random`` a move is a
    random legal one instead (seeded), so that the games reach the unbalanced positions that
    the material weights are learned from. A position is kept when it is not in check, its best
    move is quiet and its score no mate and within ``--max-cp``. A game stops at its end, after
    ``--max-plies``, or once its score stays beyond ``--max-cp`` for four plies (then scored
    as won); its result is the one reached (a draw at the ply limit)."""
    from zerosum.match import balanced_openings

    rng = random.Random(f"playout/{args.seed}")
    openings = balanced_openings("chess", seed=args.seed)
    if args.openings:
        openings = openings[: args.openings]
    lines: list[str] = []
    started = time.perf_counter()
    with chess.engine.SimpleEngine.popen_uci(args.engine) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        for number, opening in enumerate(openings):
            board = chess.Board()
            for text in opening.moves:
                board.push_uci(text)
            kept: list[tuple[str, int]] = []
            decided = 0
            result = "1/2"
            while not board.is_game_over() and board.ply() < args.max_plies:
                info = engine.analyse(board, chess.engine.Limit(depth=args.depth))
                score, pv = info.get("score"), info.get("pv") or []
                if score is None or not pv:
                    break
                white = score.white()
                cp = white.score(mate_score=100_000)
                assert cp is not None
                if abs(cp) > args.max_cp:
                    decided += 1
                    if decided >= 4:
                        result = "1" if cp > 0 else "0"
                        break
                else:
                    decided = 0
                    best = pv[0]
                    quiet = not board.is_capture(best) and best.promotion is None
                    if quiet and not board.is_check() and not white.is_mate():
                        kept.append((board.fen(), cp))
                move = rng.choice(list(board.legal_moves)) if rng.random() < args.random else pv[0]
                board.push(move)
            if board.is_game_over():
                result = {"1-0": "1", "0-1": "0"}.get(board.result(claim_draw=True), "1/2")
            lines += [f"{fen};{result};{number};{cp}" for fen, cp in kept]
            seconds = time.perf_counter() - started
            print(
                f"game {number + 1}/{len(openings)}: {board.ply()} plies, {result},"
                f" {len(kept)} kept; {len(lines)} in all, {seconds:.0f} s",
                flush=True,
            )
            Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} positions from {len(openings)} openings -> {args.out}")


# -- the tables module: material and piece-square tables ------------------------------------

TABLES = Path("zerosum") / "games" / "chess_tables.py"
"""Where the material and piece-square tables live, under a sources directory."""
HAND_WRITTEN = (
    "Hand-written shapes, as zerosum had them before any tuning: knights and bishops want the\n"
    "centre, rooks the seventh rank and the centre files, the queen stays central, pawns gain as\n"
    "they advance (much more in the endgame), the king hides on its back rank in the middlegame\n"
    "and centralizes in the endgame. Rewritten by ``benchmarks/tune_chess.py apply``."
)


def render_tables(
    material_mg: Sequence[int],
    material_eg: Sequence[int],
    pst_mg: Sequence[Sequence[int]],
    pst_eg: Sequence[Sequence[int]],
    source: str,
) -> str:
    """The text of ``chess_tables.py`` holding these tables; ``source`` says where they come
    from (a paragraph of the module docstring)."""

    def table(name: str, rows: Sequence[Sequence[int]], what: str) -> list[str]:
        out = [f"{name}: Final[tuple[tuple[int, ...], ...]] = (", "    (0,) * 64,"]
        for piece in chess.PIECE_TYPES:
            out.append(f"    (  # {chess.piece_name(piece)}")
            for rank in range(8):
                cells = ", ".join(f"{int(v):4d}" for v in rows[piece][8 * rank : 8 * rank + 8])
                out.append(f"        {cells},  # rank {rank + 1}")
            out.append("    ),")
        out += [")", f'"""{what}"""']
        return out

    def row(values: Sequence[int]) -> str:
        return "(" + ", ".join(str(int(v)) for v in values) + ")"

    lines = [
        '"""The chess evaluation\'s material and piece-square tables, in centipawns.',
        "",
        *source.splitlines(),
        "",
        ":mod:`zerosum.games.chess` adds them up incrementally (a middlegame and an endgame sum,",
        "tapered by the phase) and the compiled board (:mod:`zerosum.compiled.chess_board`) takes",
        "its tables from there, so both twins use these numbers. ``MATERIAL_MG[piece]`` is indexed",
        "by python-chess piece type (1 = pawn .. 6 = king; 0 unused). ``PST_MG[piece]`` lists the",
        "bonus of a *white* piece on each square from a1, b1 .. h1 (rank 1, the first line) up to",
        "h8; a black piece reads the square mirrored to White's side (``chess.square_mirror``).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Final",
        "",
        f"MATERIAL_MG: Final = {row(material_mg)}",
        '"""Middlegame worth of each piece type (index: python-chess piece type)."""',
        f"MATERIAL_EG: Final = {row(material_eg)}",
        '"""Endgame worth of each piece type."""',
        "",
        "# fmt: off",
        *table("PST_MG", pst_mg, "Middlegame bonus of a white piece of each type on each square."),
        *table("PST_EG", pst_eg, "Endgame bonus of a white piece of each type on each square."),
        "# fmt: on",
    ]
    return "\n".join(lines) + "\n"


def render_mobility(name: str, rows: Sequence[Sequence[int]]) -> str:
    """The lines of ``chess_evaluation.py`` that assign the mobility table ``name`` (within
    its ``# fmt: off`` block): a row per piece type, 14 counts a line."""
    out = [f"{name}: Final[tuple[tuple[int, ...], ...]] = (", "    (), (),  # none, pawn"]
    for piece in MOBILE_PIECES:
        values = [int(v) for v in rows[piece]]
        what = f"{chess.piece_name(piece)}: 0 .. {len(values) - 1}"
        if len(values) <= 14:
            out.append(f"    ({', '.join(f'{v:3d}' for v in values)}),  # {what}")
        else:
            out.append(f"    (  # {what}")
            for start in range(0, len(values), 14):
                out.append(f"        {', '.join(f'{v:3d}' for v in values[start : start + 14])},")
            out.append("    ),")
    out += ["    (),  # king", ")"]
    return "\n".join(out)


# -- step 3: the fit --------------------------------------------------------------------------

TABLE_PIECES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
"""The piece types whose material is tuned (a king's is 0, always)."""


def column_names() -> list[str]:
    """The tuned linear weights in column order: material, piece-square tables, the positional
    weights of :data:`WEIGHTS`, and ``TEMPO`` last."""
    names = [
        f"MATERIAL_{part}[{chess.piece_name(piece)}]"
        for piece in TABLE_PIECES
        for part in ("MG", "EG")
    ]
    names += [
        f"PST_{part}[{chess.piece_name(piece)}][{chess.square_name(square)}]"
        for piece in chess.PIECE_TYPES
        for square in chess.SQUARES
        for part in ("MG", "EG")
    ]
    return [*names, *(name for name, _, _ in WEIGHTS), "TEMPO"]


def current_weights() -> np.ndarray:
    """The current values of the columns of :func:`column_names`."""
    from zerosum.games import chess_tables as tables

    values = [
        float(table[piece])
        for piece in TABLE_PIECES
        for table in (tables.MATERIAL_MG, tables.MATERIAL_EG)
    ]
    values += [
        float(table[piece][square])
        for piece in chess.PIECE_TYPES
        for square in chess.SQUARES
        for table in (tables.PST_MG, tables.PST_EG)
    ]
    values += [float(get()) for _, get, _ in WEIGHTS]
    return np.array([*values, float(ce.TEMPO)])


def _phase(board: chess.Board) -> int:
    return min(
        sum(PHASE_WEIGHT[piece.piece_type] for piece in board.piece_map().values()), FULL_PHASE
    )


def features(boards: Sequence[chess.Board]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``A`` (positions x columns of :func:`column_names`), ``b`` and the phase of each
    position, with White's evaluation ``b + A @ w`` for the weights ``w`` (before the integer
    division the engine does). ``b`` holds what is not tuned linearly: the king attack.

    Material and table columns are counted from the board (+1 for a white piece, -1 for a
    black one on the mirrored square, times the middlegame or endgame share of the phase);
    each positional weight's column is measured on the Python twin itself: ``positional_terms``
    again with that weight raised by :data:`STEP`, the difference divided by it."""
    base = current_weights()
    positional = len(WEIGHTS)
    tables = 10 + 2 * 6 * 64
    a = np.zeros((len(boards), tables + positional + 1), dtype=np.float32)
    b = np.zeros(len(boards))
    phases = np.zeros(len(boards))
    material_column = {piece: 2 * index for index, piece in enumerate(TABLE_PIECES)}
    column_of = {name: tables + index for index, (name, _, _) in enumerate(WEIGHTS)}
    for row, board in enumerate(boards):
        phase = _phase(board)
        phases[row] = phase
        share = (phase / FULL_PHASE, (FULL_PHASE - phase) / FULL_PHASE)
        for square, piece in board.piece_map().items():
            sign = 1.0 if piece.color else -1.0
            relative = square if piece.color else chess.square_mirror(square)
            column = 10 + 2 * (64 * (piece.piece_type - 1) + relative)
            a[row, column] += sign * share[0]
            a[row, column + 1] += sign * share[1]
            if piece.piece_type in material_column:
                a[row, material_column[piece.piece_type]] += sign * share[0]
                a[row, material_column[piece.piece_type] + 1] += sign * share[1]
        pos_mg, pos_eg = ce.positional_terms(board)
        for (piece, count), pieces in mobility_columns(board).items():
            where = f"[{chess.piece_name(piece)}][{count}]"
            a[row, column_of[f"MOBILITY_MG{where}"]] = pieces * share[0]
            a[row, column_of[f"MOBILITY_EG{where}"]] = pieces * share[1]
        for index, (name, get, put) in enumerate(WEIGHTS):
            if name.startswith("MOBILITY_"):
                continue
            value = get()
            put(value + STEP)
            up_mg, up_eg = ce.positional_terms(board)
            put(value)
            c_mg, c_eg = (up_mg - pos_mg) / STEP, (up_eg - pos_eg) / STEP
            a[row, tables + index] = c_mg * share[0] + c_eg * share[1]
        a[row, -1] = 1.0 if board.turn else -1.0
        total = pos_mg * share[0] + pos_eg * share[1]
        b[row] = total - float(np.dot(a[row, tables:-1].astype(float), base[tables:-1]))
    return a, b, phases


def mobility_columns(board: chess.Board) -> dict[tuple[int, int], int]:
    """By (piece type, count of safe squares): how many white pieces minus black ones have that
    count, the coefficient of both mobility tables' entry (the caller tapers it). The squares
    are those ``positional_terms`` counts: attacked, holding no own piece, attacked by no
    enemy pawn (the fit's check of the model against ``Chess.evaluate`` holds the two equal)."""
    counts: dict[tuple[int, int], int] = {}
    for colour in (chess.WHITE, chess.BLACK):
        sign = 1 if colour else -1
        enemy_pawns = board.pawns & board.occupied_co[not colour]
        safe = ~board.occupied_co[colour] & ~ce.pawn_attacks(enemy_pawns, not colour)
        for piece in MOBILE_PIECES:
            for square in chess.scan_forward(board.pieces_mask(piece, colour)):
                count = chess.popcount(board.attacks_mask(square) & safe)
                counts[piece, count] = counts.get((piece, count), 0) + sign
    return counts


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


def adam(
    a: np.ndarray,
    b: np.ndarray,
    target: np.ndarray,
    w0: np.ndarray,
    k: float,
    *,
    l2: float,
    steps: int,
    rate: float,
) -> np.ndarray:
    """The weights minimising the mean squared error of ``sigmoid(k (b + a @ w))`` against
    ``target`` plus ``l2 * |w - w0|^2``, by Adam from ``w0`` (full batch, the step falling
    linearly from ``rate`` to a tenth of it: the same data give the same weights)."""
    w = w0.copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    scale = k * math.log(10) / 400
    for step in range(1, steps + 1):
        p = sigmoid(b + a @ w.astype(np.float32), k)
        residual = (2 * (p - target) * p * (1 - p) * scale).astype(np.float32)
        gradient = (residual @ a).astype(float) / len(target)
        gradient += 2 * l2 * (w - w0)
        m = 0.9 * m + 0.1 * gradient
        v = 0.999 * v + 0.001 * gradient * gradient
        step_size = rate * (1 - 0.9 * (step - 1) / max(steps - 1, 1))
        w -= step_size * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-12)
    return w


KING_ATTACK = [
    *(f"KING_ATTACK_UNITS[{chess.piece_name(p)}]" for p in range(2, 6)),
    "KING_ATTACK_CAP",
]
"""The king attack's weights, not linear (``min(units * units // 4, cap)``): tuned by a search
of one weight at a time, as Texel's method does for every weight."""


def _king_attack_get() -> list[int]:
    return [*(int(ce.KING_ATTACK_UNITS[p]) for p in range(2, 6)), int(ce.KING_ATTACK_CAP)]


def _king_attack_put(values: Sequence[int]) -> None:
    ce.KING_ATTACK_UNITS = (0, 0, *(int(v) for v in values[:4]), 0)  # type: ignore[misc]
    ce.KING_ATTACK_CAP = int(values[4])  # type: ignore[misc]


def king_attack_search(
    boards: Sequence[chess.Board],
    b: np.ndarray,
    phases: np.ndarray,
    linear: np.ndarray,
    target: np.ndarray,
    k: float,
    rounds: int,
) -> tuple[list[int], np.ndarray]:
    """The king attack's weights by a local search (each weight up and down by its step while
    the loss falls, ``rounds`` times over), and ``b`` for them. ``linear`` is ``a @ w`` of the
    positions; only the middlegame part of ``positional_terms`` changes with these weights."""
    start = _king_attack_get()
    base_mg = np.array([ce.positional_terms(board)[0] for board in boards], dtype=float)

    def shifted(values: Sequence[int]) -> np.ndarray:
        _king_attack_put(values)
        mg = np.array([ce.positional_terms(board)[0] for board in boards], dtype=float)
        _king_attack_put(start)
        return b + (mg - base_mg) * phases / FULL_PHASE

    best, best_b = list(start), b
    best_loss = loss(best_b + linear, target, k)
    steps = [1, 1, 1, 1, 25]
    for _ in range(rounds):
        improved = False
        for index, size in enumerate(steps):
            for direction in (1, -1):
                trial = list(best)
                trial[index] = max(trial[index] + direction * size, 0)
                trial_b = shifted(trial)
                trial_loss = loss(trial_b + linear, target, k)
                if trial_loss < best_loss:
                    best, best_b, best_loss, improved = trial, trial_b, trial_loss, True
                    break
        if not improved:
            break
    return best, best_b


def _lines(path: str) -> list[str]:
    """The non-empty lines of a text file, gzip-compressed when its name ends in ``.gz``."""
    import gzip

    data = Path(path).read_bytes()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    return [line for line in data.decode("utf-8").splitlines() if line]


def read_labelled(paths: Sequence[str]) -> list[tuple[str, float, str, float]]:
    """(FEN, result from White's side, game, Stockfish's centipawns) of each line of the
    labelled files; a game is named by its file's position in ``paths`` and its number."""
    rows = []
    for index, path in enumerate(paths):
        for line in _lines(path):
            if line:
                fen, result, game, cp = line.split(";")
                score = {"1": 1.0, "0": 0.0, "1/2": 0.5}[result]
                rows.append((fen, score, f"{index}:{game}", float(cp)))
    return rows


def cached_features(
    path: str, boards: Sequence[chess.Board], cache_dir: str | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`features` of the positions of one labelled file; with ``cache_dir``, kept there
    in ``NAME.features.npz`` and read from there while the file and the current weights are
    the ones they were computed for."""
    import hashlib

    if cache_dir is None:
        return features(boards)
    digest = hashlib.sha256(Path(path).read_bytes())
    digest.update(current_weights().tobytes())
    digest.update(repr(_king_attack_get()).encode())
    cache = Path(cache_dir) / f"{Path(path).name}.features.npz"
    if cache.is_file():
        stored = np.load(cache)
        if str(stored["digest"]) == digest.hexdigest():
            return stored["a"], stored["b"], stored["phases"]
    a, b, phases = features(boards)
    np.savez(cache, a=a, b=b, phases=phases, digest=np.array(digest.hexdigest()))
    return a, b, phases


def labelled_features(
    paths: Sequence[str], args: argparse.Namespace
) -> tuple[
    list[tuple[str, float, str, float]],
    list[chess.Board],
    np.ndarray,
    tuple[np.ndarray, np.ndarray, np.ndarray],
]:
    """The rows of the labelled files, their boards, the fit's target for each (Stockfish's
    score blended with the game's result by ``--result-weight``) and :func:`features` of all
    (``A``, ``b`` and the phases), read file by file through ``--cache``."""
    rows = read_labelled(paths)
    boards = [chess.Board(fen) for fen, _, _, _ in rows]
    results = np.array([result for _, result, _, _ in rows])
    cps = np.array([cp for _, _, _, cp in rows])
    target = args.result_weight * results + (1 - args.result_weight) * sigmoid(cps)
    parts, first = [], 0
    for path in paths:
        count = len(_lines(path))
        parts.append(cached_features(path, boards[first : first + count], args.cache))
        first += count
    a, b, phases = (np.concatenate([part[i] for part in parts]) for i in range(3))
    return rows, boards, target, (a, b, phases)


def tune(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    rows, boards, target, (a, b, phases) = labelled_features(args.labelled, args)
    games = [game for _, _, game, _ in rows]
    print(f"features of {len(rows)} positions in {time.perf_counter() - started:.0f} s", flush=True)
    names = column_names()
    w0 = current_weights()
    # The linear model must be the engine's evaluation (up to its rounding).
    from zerosum.games.chess import Chess

    sample = boards[:500]
    engine = np.array([Chess(board.fen()).evaluate() for board in sample], dtype=float)
    sign = np.array([1.0 if board.turn else -1.0 for board in sample])
    gap = np.abs((b[: len(sample)] + a[: len(sample)] @ w0) * sign - engine).max()
    print(f"largest gap model - Chess.evaluate() on {len(sample)} positions: {gap:.3f}")
    if gap > 1.0:
        sys.exit("tune_chess: the linear model is not the engine's evaluation")
    frozen = [i for i, name in enumerate(names) if name.startswith(tuple(args.freeze))]
    if args.freeze:
        if not frozen:
            sys.exit(f"tune_chess: --freeze {' '.join(args.freeze)} names no weight")
        # A frozen weight's part of the evaluation moves into b, and its column is emptied:
        # nothing pulls it from where it is.
        b = b + a[:, frozen].astype(float) @ w0[frozen]
        a[:, frozen] = 0.0
        print(f"{len(frozen)} weights frozen ({', '.join(args.freeze)})")
    numbers = sorted(set(games))
    random.Random(f"split/{args.seed}").shuffle(numbers)
    training_games = set(numbers[: int(0.8 * len(numbers))])
    train = np.array([i for i, game in enumerate(games) if game in training_games])
    valid = np.array([i for i, game in enumerate(games) if game not in training_games])
    k = fit_k(b[train] + a[train] @ w0, target[train])
    before = (
        loss(b[train] + a[train] @ w0, target[train], k),
        loss(b[valid] + a[valid] @ w0, target[valid], k),
    )
    print(
        f"K = {k:.4f}; {len(train)} training positions ({len(training_games)} games) and"
        f" {len(valid)} validation positions ({len(numbers) - len(training_games)} games)"
    )
    print(f"loss before: train {before[0]:.6f}, validation {before[1]:.6f}", flush=True)
    trials = []
    for l2 in args.l2:
        started = time.perf_counter()
        w = adam(a[train], b[train], target[train], w0, k, l2=l2, steps=args.steps, rate=args.rate)
        rounded = np.round(w)
        scores = (
            loss(b[train] + a[train] @ rounded, target[train], k),
            loss(b[valid] + a[valid] @ rounded, target[valid], k),
        )
        seconds = time.perf_counter() - started
        print(
            f"l2 {l2:g}: train {scores[0]:.6f}, validation {scores[1]:.6f} ({seconds:.0f} s)",
            flush=True,
        )
        trials.append((scores[1], l2, rounded, scores))
    _, l2, tuned, linear_scores = min(trials, key=lambda trial: trial[0])
    king_attack = _king_attack_get()
    after = linear_scores
    if args.king_attack_rounds:
        train_boards = [boards[i] for i in train]
        found, b_train = king_attack_search(
            train_boards,
            b[train],
            phases[train],
            a[train] @ tuned,
            target[train],
            k,
            args.king_attack_rounds,
        )
        if found != king_attack:
            _king_attack_put(found)
            b = np.array(b)
            new_mg = np.array([ce.positional_terms(board)[0] for board in boards], dtype=float)
            _king_attack_put(king_attack)
            old_mg = np.array([ce.positional_terms(board)[0] for board in boards], dtype=float)
            b = b + (new_mg - old_mg) * phases / FULL_PHASE
            del b_train
            tuned = np.round(
                adam(
                    a[train],
                    b[train],
                    target[train],
                    tuned,
                    k,
                    l2=l2,
                    steps=args.steps // 3,
                    rate=args.rate / 2,
                )
            )
            after = (
                loss(b[train] + a[train] @ tuned, target[train], k),
                loss(b[valid] + a[valid] @ tuned, target[valid], k),
            )
        print(f"king attack {king_attack} -> {found}")
        king_attack = found
    print(f"loss after:  train {after[0]:.6f}, validation {after[1]:.6f} (l2 {l2:g})")
    held_out = (
        held_out_losses(args, w0, tuned, king_attack, _king_attack_get()) if args.test else None
    )
    report = {
        "command": " ".join(sys.argv[1:]),
        "files": list(args.labelled),
        "positions": len(rows),
        "games": len(numbers),
        "train": len(train),
        "validation": len(valid),
        "seed": args.seed,
        "k": round(k, 4),
        "result_weight": args.result_weight,
        "frozen": [names[i] for i in frozen],
        "l2_tried": {
            f"{trial[1]:g}": {"train": trial[3][0], "validation": trial[3][1]} for trial in trials
        },
        "l2": l2,
        "steps": args.steps,
        "rate": args.rate,
        "loss_before": {"train": before[0], "validation": before[1]},
        "loss_after": {"train": after[0], "validation": after[1]},
        "king_attack": dict(zip(KING_ATTACK, king_attack, strict=True)),
        "test": held_out,
        "weights": {
            name: {"from": int(old), "to": int(new)}
            for name, old, new in zip(names, w0, tuned, strict=True)
        },
    }
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    changed = [(n, o, t) for n, o, t in zip(names, w0, tuned, strict=True) if o != t]
    print(f"{len(changed)} of {len(names)} weights changed; the largest changes:")
    for name, old, new in sorted(changed, key=lambda c: -abs(c[2] - c[1]))[:25]:
        print(f"  {name:<36} {int(old):>5} -> {int(new):>5}")
    print(f"-> {args.out}")


def held_out_losses(
    args: argparse.Namespace,
    before: np.ndarray,
    after: np.ndarray,
    king_attack_after: Sequence[int],
    king_attack_before: Sequence[int],
) -> dict[str, Any]:
    """The loss of the weights ``before`` and ``after`` the fit on the ``--test`` files, whose
    positions took no part in it, each with the scale ``K`` fitted on them for those weights
    (the fit's ``K`` belongs to its training positions). The module holds the ``before``
    weights; the king attack's part of each evaluation is computed for both."""
    rows, boards, target, (a, b, phases) = labelled_features(args.test, args)
    b_after = b
    if list(king_attack_after) != list(king_attack_before):
        old_mg = np.array([ce.positional_terms(board)[0] for board in boards], dtype=float)
        _king_attack_put(king_attack_after)
        new_mg = np.array([ce.positional_terms(board)[0] for board in boards], dtype=float)
        _king_attack_put(king_attack_before)
        b_after = b + (new_mg - old_mg) * phases / FULL_PHASE
    report: dict[str, Any] = {"files": list(args.test), "positions": len(rows)}
    for name, pred in (("before", b + a @ before), ("after", b_after + a @ after)):
        k = fit_k(pred, target)
        report[name] = {"k": round(k, 4), "loss": loss(pred, target, k)}
    print(
        f"held out ({len(rows)} positions of {len(args.test)} files, K fitted on them):"
        f" before {report['before']['loss']:.6f} (K {report['before']['k']}),"
        f" after {report['after']['loss']:.6f} (K {report['after']['k']})"
    )
    return report


# -- adopting: the weights written into a copy of the sources ---------------------------------


def apply(args: argparse.Namespace) -> None:
    """Write the tuned weights of ``args.tuned`` into the sources under ``args.src``: the
    tables module (:data:`TABLES`) is written anew, and each positional constant's line of
    ``chess_evaluation.py`` is rewritten with its new values."""
    import re

    from zerosum.games import chess_tables as tables

    report = json.loads("\n".join(_lines(args.tuned)))  # gzip-compressed if it ends in .gz
    weights = {name: value["to"] for name, value in report["weights"].items()}
    material_mg, material_eg = list(tables.MATERIAL_MG), list(tables.MATERIAL_EG)
    pst_mg = [list(row) for row in tables.PST_MG]
    pst_eg = [list(row) for row in tables.PST_EG]
    for piece in TABLE_PIECES:
        material_mg[piece] = weights[f"MATERIAL_MG[{chess.piece_name(piece)}]"]
        material_eg[piece] = weights[f"MATERIAL_EG[{chess.piece_name(piece)}]"]
    for piece in chess.PIECE_TYPES:
        for square in chess.SQUARES:
            where = f"[{chess.piece_name(piece)}][{chess.square_name(square)}]"
            pst_mg[piece][square] = weights[f"PST_MG{where}"]
            pst_eg[piece][square] = weights[f"PST_EG{where}"]
    import textwrap

    files = ", ".join(f"``{Path(name).name}``" for name in report["files"])
    source = textwrap.fill(
        f"Tuned by ``benchmarks/tune_chess.py tune`` (Texel's method) from the tables before"
        f" it, on {report['positions']:,} positions labelled by Stockfish ({files};"
        f" seed {report['seed']}, L2 {report['l2']:g}, {report['steps']} steps; the data and"
        f" the fit: docs/games/chess-tuning.md). Written by ``benchmarks/tune_chess.py apply``.",
        width=95,
        break_on_hyphens=False,
    )
    root = Path(args.src)
    (root / TABLES).write_text(
        render_tables(material_mg, material_eg, pst_mg, pst_eg, source), encoding="utf-8"
    )
    for name, _, put in WEIGHTS:  # through the setters, so shapes stay as they are
        put(weights[name])
    ce.TEMPO = weights["TEMPO"]  # type: ignore[misc]
    _king_attack_put([report["king_attack"][name] for name in KING_ATTACK])
    module = root / "zerosum" / "games" / "chess_evaluation.py"
    text = module.read_text(encoding="utf-8")
    names = ["PASSED_MG", "PASSED_EG", "PASSED_ENEMY_KING", "PASSED_OWN_KING", "DOUBLED"]
    names += ["ISOLATED", "SHIELD_NEAR", "SHIELD_FAR", "SHIELD_MISSING", "BISHOP_PAIR"]
    names += ["ROOK_OPEN", "ROOK_HALF_OPEN", "TEMPO", "KING_ATTACK_UNITS", "KING_ATTACK_CAP"]
    names += ["THREAT_BY_PAWN", "THREAT_BY_MINOR", "PAWN_SUPPORTED", "THREAT_BY_ROOK"]
    names += ["BACKWARD", "SAFE_CHECK_MG", "SAFE_CHECK_EG"]
    for name in names:
        value = getattr(ce, name)
        pattern = rf"^{name}: Final = .*$"
        text, count = re.subn(pattern, f"{name}: Final = {value!r}", text, flags=re.M)
        if count != 1:
            sys.exit(f"tune_chess: {name} not found once in {module}")
    for name in ("MOBILITY_MG", "MOBILITY_EG"):
        pattern = rf"^{name}: Final\[tuple\[tuple\[int, \.\.\.\], \.\.\.\]\] = \($.*?^\)$"
        block = render_mobility(name, getattr(ce, name))
        text, count = re.subn(pattern, block, text, flags=re.M | re.S)
        if count != 1:
            sys.exit(f"tune_chess: {name} not found once in {module}")
    module.write_text(text, encoding="utf-8")
    print(f"{len(weights)} weights and the king attack written under {root}")


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
    pg = steps.add_parser("pgn", help="positions from the games of a PGN file")
    pg.add_argument("pgn")
    pg.add_argument("--every", type=int, default=2, help="keep one position in this many plies")
    pg.add_argument("--skip", type=int, default=8, help="plies not kept at the start")
    pg.add_argument("--seed", type=int, default=1)
    pg.add_argument("--out", default="positions.txt")
    pg.set_defaults(run=from_pgn)
    lab = steps.add_parser("label", help="Stockfish's scores of the quiet positions")
    lab.add_argument("positions")
    lab.add_argument("--depth", type=int, default=10)
    lab.add_argument("--max-cp", type=int, default=1500)
    lab.add_argument("--engine", default=STOCKFISH)
    lab.add_argument("--out", default="labelled.txt")
    lab.set_defaults(run=label)
    po = steps.add_parser("playout", help="the balanced openings played out and labelled")
    po.add_argument("--depth", type=int, default=8)
    po.add_argument("--random", type=float, default=0.1, help="share of random moves")
    po.add_argument("--max-cp", type=int, default=1500)
    po.add_argument("--max-plies", type=int, default=300)
    po.add_argument("--openings", type=int, default=0, help="only the first N (0: all)")
    po.add_argument("--engine", default=STOCKFISH)
    po.add_argument("--seed", type=int, default=1)
    po.add_argument("--out", default="labelled.txt")
    po.set_defaults(run=playout)
    t = steps.add_parser("tune", help="fit the weights")
    t.add_argument("labelled", nargs="+", help="labelled files (games named per file)")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--cache", help="a directory to keep each file's features in, for reruns")
    t.add_argument("--steps", type=int, default=3000)
    t.add_argument("--rate", type=float, default=0.5, help="Adam's step in centipawns")
    t.add_argument(
        "--l2",
        type=lambda text: [float(x) for x in text.split(",")],
        default=[1e-7],
        help="pull towards the current weights; several (comma-separated): the best on the"
        " validation games is kept",
    )
    t.add_argument(
        "--king-attack-rounds", type=int, default=3, help="rounds of the king attack's search"
    )
    t.add_argument("--result-weight", type=float, default=0.0, help="0: Stockfish only")
    t.add_argument(
        "--test",
        nargs="+",
        default=[],
        help="labelled files kept out of the fit, on which its loss is measured at the end",
    )
    t.add_argument(
        "--freeze",
        nargs="+",
        default=[],
        metavar="PREFIX",
        help="weights whose names start so stay as they are (to fit without a term)",
    )
    t.add_argument("--out", default="tuned.json")
    t.set_defaults(run=tune)
    ap = steps.add_parser("apply", help="write tuned weights into a copy of the sources")
    ap.add_argument("tuned", help="the JSON file of the tune step (or a .gz of it)")
    ap.add_argument("src", help="the sources directory to rewrite (holding zerosum/)")
    ap.set_defaults(run=apply)
    args = parser.parse_args()
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}", flush=True)
    args.run(args)


if __name__ == "__main__":
    main()
