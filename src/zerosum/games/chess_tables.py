"""The chess evaluation's material and piece-square tables, in centipawns.

Tuned by ``benchmarks/tune_chess.py tune`` (Texel's method) from the hand-written tables, on
74,712 positions labelled by Stockfish (``chess_tune_playout_s1.txt.gz``,
``chess_tune_playout_s2.txt.gz``, ``playout_s3.txt``, ``playout_s4.txt``,
``chess_tune_labelled.txt``; seed 1, L2 1e-07, 2000 steps; the data and the fit:
docs/games/chess-tuning.md). Written by ``benchmarks/tune_chess.py apply``.

:mod:`zerosum.games.chess` adds them up incrementally (a middlegame and an endgame sum,
tapered by the phase) and the compiled board (:mod:`zerosum.compiled.chess_board`) takes
its tables from there, so both twins use these numbers. ``MATERIAL_MG[piece]`` is indexed
by python-chess piece type (1 = pawn .. 6 = king; 0 unused). ``PST_MG[piece]`` lists the
bonus of a *white* piece on each square from a1, b1 .. h1 (rank 1, the first line) up to
h8; a black piece reads the square mirrored to White's side (``chess.square_mirror``).
"""

from __future__ import annotations

from typing import Final

MATERIAL_MG: Final = (0, 55, 353, 360, 458, 966, 0)
"""Middlegame worth of each piece type (index: python-chess piece type)."""
MATERIAL_EG: Final = (0, 95, 299, 318, 524, 958, 0)
"""Endgame worth of each piece type."""

# fmt: off
PST_MG: Final[tuple[tuple[int, ...], ...]] = (
    (0,) * 64,
    (  # pawn
           0,    0,    4,    0,    0,    4,    0,    0,  # rank 1
          -1,    0,    4,   -4,    6,   22,   17,    5,  # rank 2
          -4,    5,    4,    1,   10,    5,   11,    4,  # rank 3
           2,    5,   17,   18,   20,   26,    3,   13,  # rank 4
          13,   15,    2,   31,   36,   28,    7,    8,  # rank 5
          19,   18,   25,   23,   25,   24,   24,   21,  # rank 6
          24,   24,   32,   26,   24,   30,   22,   24,  # rank 7
          28,   28,   32,   28,   28,   32,   28,   28,  # rank 8
    ),
    (  # knight
         -32,  -18,  -18,  -11,  -15,  -12,  -21,  -32,  # rank 1
         -19,  -12,    0,    4,    1,    5,  -14,  -17,  # rank 2
         -13,   -5,   -2,   11,   23,    1,    1,  -14,  # rank 3
         -10,    6,   15,   12,   16,   15,    4,   -4,  # rank 4
          -3,    9,   14,   19,   13,   17,    7,    1,  # rank 5
         -10,    3,    6,   14,   11,    5,   -3,  -10,  # rank 6
         -17,   -9,   -1,    4,    2,   -3,  -12,  -17,  # rank 7
         -24,  -17,  -10,   -3,   -3,  -12,  -17,  -26,  # rank 8
    ),
    (  # bishop
         -16,    3,  -11,   -6,   -4,  -10,  -12,  -16,  # rank 1
           0,   16,   12,   -2,    4,    4,   17,   -5,  # rank 2
           1,    8,    1,    6,   11,    5,    0,   -4,  # rank 3
           4,    6,   -1,   14,   13,    0,    4,    4,  # rank 4
           2,    4,   13,   14,   11,   10,    2,    2,  # rank 5
          -6,    6,    4,   10,   12,    8,    4,    2,  # rank 6
          -6,   -8,    6,    8,    6,    0,    0,   -9,  # rank 7
         -11,   -6,   -2,    2,    2,   -2,   -6,  -10,  # rank 8
    ),
    (  # rook
          -8,  -11,   -1,   12,    9,   -1,   -9,   -5,  # rank 1
          -8,   -4,   -6,    6,    2,   -1,   -2,   -7,  # rank 2
          -8,    0,    2,    6,    6,    4,    7,    0,  # rank 3
          -4,    0,    4,    8,    8,    6,    0,    0,  # rank 4
           2,    1,    2,    6,    8,    2,    0,    0,  # rank 5
           4,    2,    1,    5,   10,    2,    0,   -2,  # rank 6
          19,   20,   20,   26,   28,   20,   20,   20,  # rank 7
          -2,    0,    2,    6,    6,    0,    0,    0,  # rank 8
    ),
    (  # queen
          -4,   -2,    0,    5,   -5,   -4,   -4,   -6,  # rank 1
          -2,    0,    7,   13,    8,   -3,   -2,   -2,  # rank 2
          -2,    2,    1,    2,    2,    3,    0,   -2,  # rank 3
          -2,    0,    2,   -4,    2,    4,   -1,    0,  # rank 4
          -4,    2,    4,    6,    4,    8,    2,    0,  # rank 5
          -4,    2,   -2,    4,    4,    6,    0,   -2,  # rank 6
          -4,   -4,    2,    0,    2,    2,   -2,   -2,  # rank 7
          -6,   -4,   -2,    0,    0,   -2,   -4,   -6,  # rank 8
    ),
    (  # king
          18,   27,   14,  -14,   -1,  -13,   25,   13,  # rank 1
         -20,  -28,  -24,  -26,  -23,  -31,  -16,  -15,  # rank 2
         -38,  -34,  -38,  -40,  -38,  -36,  -36,  -40,  # rank 3
         -52,  -52,  -52,  -52,  -52,  -52,  -54,  -51,  # rank 4
         -66,  -66,  -66,  -66,  -66,  -66,  -66,  -66,  # rank 5
         -66,  -66,  -66,  -66,  -66,  -66,  -64,  -66,  # rank 6
         -66,  -66,  -66,  -66,  -66,  -66,  -66,  -66,  # rank 7
         -66,  -66,  -66,  -66,  -66,  -66,  -66,  -66,  # rank 8
    ),
)
"""Middlegame bonus of a white piece of each type on each square."""
PST_EG: Final[tuple[tuple[int, ...], ...]] = (
    (0,) * 64,
    (  # pawn
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 1
           7,   13,   16,    2,    2,   19,    8,    9,  # rank 2
          -1,    7,   13,    7,   11,    9,    2,    7,  # rank 3
           4,    3,   11,   -6,    9,   -9,   10,    1,  # rank 4
          26,   24,   18,    7,   24,   11,   27,    7,  # rank 5
          31,   46,   48,   42,   47,   36,   38,   30,  # rank 6
          68,   70,   93,   74,   74,   73,   68,   70,  # rank 7
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 8
    ),
    (  # knight
         -16,   -9,   -6,   -1,   -1,   -4,   -9,  -16,  # rank 1
         -11,   -6,   -3,    2,    4,    3,   -8,  -11,  # rank 2
          -6,    1,    3,   12,   15,    2,    4,   -4,  # rank 3
          -3,    5,    7,   14,   15,   12,    4,   -5,  # rank 4
          -3,    4,   15,    6,   16,   11,    1,    1,  # rank 5
          -6,    3,    7,   11,    8,    4,   -1,   -6,  # rank 6
         -11,   -4,   -1,    4,    0,   -5,   -6,  -11,  # rank 7
         -16,  -11,   -6,   -1,   -1,  -10,  -11,  -16,  # rank 8
    ),
    (  # bishop
         -15,    0,   -8,   -2,   -2,    1,   -8,   -7,  # rank 1
          -6,   -9,    8,    3,    1,    4,    5,   -4,  # rank 2
         -11,   -2,    7,    8,   20,    7,    2,   -3,  # rank 3
           0,    6,   12,    7,   15,   17,    3,   -2,  # rank 4
           1,    3,   -2,   10,    4,   -2,   -3,    3,  # rank 5
          -9,    0,    3,    6,    4,    5,    6,   -3,  # rank 6
          -4,   -3,    2,    5,    1,   -2,   -3,  -14,  # rank 7
         -13,   -6,   -1,   -2,   -3,   -5,   -8,  -11,  # rank 8
    ),
    (  # rook
          -9,    2,    5,   -7,   -3,    0,    2,    2,  # rank 1
          -7,   -2,    1,    2,    0,   -2,   -1,   -2,  # rank 2
          -4,   -2,   -1,   -2,   -8,    6,    0,   -4,  # rank 3
           0,    0,    4,    1,   -2,   -1,    1,   -2,  # rank 4
           2,    3,    4,    4,    0,    4,   -1,   -1,  # rank 5
           6,    3,    6,    1,    2,    1,    0,   -6,  # rank 6
          11,   13,    8,   12,   12,    8,    9,    6,  # rank 7
          -4,    2,    2,    2,    2,    2,   -2,    2,  # rank 8
    ),
    (  # queen
         -12,   -8,   -2,    0,    0,   -6,   -8,  -12,  # rank 1
          -8,   -2,    2,    2,    4,    1,   -4,   -8,  # rank 2
          -4,   -1,    4,    6,    9,    4,    2,   -4,  # rank 3
           0,    4,    6,   14,   12,    6,    4,    1,  # rank 4
           0,    4,    8,   12,   12,   10,    4,    0,  # rank 5
          -4,    0,    2,    8,    8,    8,    0,   -4,  # rank 6
          -8,   -4,    2,    4,    4,    0,   -4,   -8,  # rank 7
         -12,   -6,   -4,    0,    0,   -4,   -8,  -12,  # rank 8
    ),
    (  # king
         -32,  -23,  -31,   -4,  -13,  -19,  -32,  -24,  # rank 1
         -21,  -18,   -7,    7,    5,   -8,   -9,  -19,  # rank 2
         -12,    1,    6,   13,   11,    1,   -3,  -12,  # rank 3
          -1,    8,   15,   18,   16,   13,   -4,   -1,  # rank 4
           5,    6,   17,   22,   27,   19,    8,   -5,  # rank 5
         -10,    5,    6,   19,   14,   14,   10,  -14,  # rank 6
         -19,   -8,   -1,    9,    8,   -1,   -4,  -21,  # rank 7
         -30,  -21,  -12,   -1,   -3,  -12,  -21,  -30,  # rank 8
    ),
)
"""Endgame bonus of a white piece of each type on each square."""
# fmt: on
