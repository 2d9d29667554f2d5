"""The chess evaluation's material and piece-square tables, in centipawns.

Tuned by ``benchmarks/tune_chess.py tune`` (Texel's method) from the tables before it, on
319,954 positions labelled by Stockfish (``chess_tune_playout_s1.txt.gz``,
``chess_tune_playout_s2.txt.gz``, ``chess_tune_playout_s3.txt.gz``,
``chess_tune_playout_s4.txt.gz``, ``chess_tune_labelled.txt``, ``playout_s7.txt``,
``playout_s8.txt``, ``playout_s9.txt``, ``playout_s10.txt``, ``playout_s11.txt``,
``playout_s12.txt``, ``playout_s13.txt``, ``playout_s14.txt``, ``playout_s15.txt``,
``playout_s16.txt``, ``playout_s17.txt``, ``playout_s18.txt``, ``playout_s19.txt``,
``playout_s20.txt``; seed 1, L2 1e-08, 2000 steps; the data and the fit:
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

MATERIAL_MG: Final = (0, 57, 363, 382, 454, 978, 0)
"""Middlegame worth of each piece type (index: python-chess piece type)."""
MATERIAL_EG: Final = (0, 88, 282, 289, 527, 966, 0)
"""Endgame worth of each piece type."""

# fmt: off
PST_MG: Final[tuple[tuple[int, ...], ...]] = (
    (0,) * 64,
    (  # pawn
           0,    0,    4,    0,    0,    4,    0,    0,  # rank 1
          -1,   -4,   -3,   -1,    2,   20,   20,    4,  # rank 2
          -6,   -7,   -2,   -4,    4,    9,   14,    3,  # rank 3
          -1,   -1,   16,   17,   19,   22,    9,    9,  # rank 4
           8,   12,    8,   31,   33,   36,   11,   15,  # rank 5
          18,   11,   23,   30,   40,   29,   33,   24,  # rank 6
          26,   29,   32,   32,   28,   34,   10,   22,  # rank 7
          28,   28,   32,   28,   28,   32,   28,   28,  # rank 8
    ),
    (  # knight
         -34,  -19,  -18,  -14,  -12,   -8,  -18,  -32,  # rank 1
         -23,  -10,   -7,    4,    0,    3,  -12,   -7,  # rank 2
         -20,   -4,   -5,    5,   25,   -3,    3,  -16,  # rank 3
          -5,    4,    9,    2,    6,   17,    9,   -1,  # rank 4
           4,   11,   12,   30,    6,   26,    9,   14,  # rank 5
         -10,   16,    3,   32,   17,    9,    0,  -13,  # rank 6
         -19,   -7,    5,    6,    4,   -4,  -18,  -20,  # rank 7
         -42,  -19,  -14,   -7,   -3,  -14,  -17,  -28,  # rank 8
    ),
    (  # bishop
           1,   17,  -14,   -9,   -9,  -13,   -4,  -10,  # rank 1
           4,   10,   13,   -9,    2,    3,   14,   -1,  # rank 2
           0,    8,   -2,    0,   -1,    1,    1,    6,  # rank 3
           4,    2,   -6,   15,    8,   -6,   13,    4,  # rank 4
           3,    3,    9,   20,   11,   12,    0,    0,  # rank 5
          -1,    8,    4,   17,   14,   18,    8,   18,  # rank 6
         -10,   -8,    3,    8,    1,    5,   -2,  -13,  # rank 7
         -15,   -6,    0,    2,    0,   -4,   -4,  -12,  # rank 8
    ),
    (  # rook
          -8,   -4,   -2,   12,    6,   -3,  -10,  -11,  # rank 1
         -23,  -10,  -11,    5,  -10,    4,   -6,  -25,  # rank 2
         -15,   -1,   -8,    6,   11,    7,   12,   -4,  # rank 3
         -14,    3,    4,    4,    5,    3,    0,   -7,  # rank 4
           3,   -1,    2,    9,    6,    6,    6,    2,  # rank 5
          10,    2,    8,   14,   11,    9,    4,    0,  # rank 6
          16,   15,   27,   31,   26,   23,   24,   27,  # rank 7
           0,    4,    9,   11,   12,    0,    1,    4,  # rank 8
    ),
    (  # queen
          -3,    1,   -7,    1,   -4,  -12,   -8,  -10,  # rank 1
          -5,    1,    2,    6,    7,   -1,    5,    2,  # rank 2
           4,   -5,    5,   -3,    4,    4,    2,    2,  # rank 3
           1,   -7,   -6,   -8,   -2,    1,    4,    4,  # rank 4
          -7,   -2,   -1,    1,    4,    6,    5,    9,  # rank 5
         -10,    5,   -4,    4,    8,   17,    4,    6,  # rank 6
          -6,  -11,    8,   -7,    6,    6,    6,    4,  # rank 7
          -4,    0,   -4,    2,    4,    0,   -4,   -3,  # rank 8
    ),
    (  # king
          10,   24,   17,  -40,    3,  -26,   23,   11,  # rank 1
         -16,  -25,  -21,  -40,  -26,  -31,    2,   12,  # rank 2
         -36,  -34,  -45,  -43,  -39,  -43,  -30,  -31,  # rank 3
         -50,  -51,  -54,  -57,  -54,  -52,  -56,  -49,  # rank 4
         -66,  -66,  -64,  -67,  -70,  -66,  -64,  -64,  # rank 5
         -64,  -66,  -66,  -66,  -66,  -64,  -62,  -66,  # rank 6
         -63,  -66,  -66,  -66,  -64,  -64,  -64,  -66,  # rank 7
         -66,  -64,  -66,  -66,  -66,  -66,  -66,  -66,  # rank 8
    ),
)
"""Middlegame bonus of a white piece of each type on each square."""
PST_EG: Final[tuple[tuple[int, ...], ...]] = (
    (0,) * 64,
    (  # pawn
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 1
           8,   10,   21,    6,   18,   14,    9,    5,  # rank 2
           0,    4,    8,    5,   16,   13,   -4,    2,  # rank 3
           9,    6,   -1,   -1,   -3,    5,    9,   -3,  # rank 4
          22,   13,   13,   -6,    8,   17,   37,   11,  # rank 5
          31,   48,   47,   40,   45,   20,   42,   45,  # rank 6
          62,   75,  107,   76,   83,   75,   72,   59,  # rank 7
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 8
    ),
    (  # knight
         -16,   -4,   -8,    3,    1,   -6,  -16,   -8,  # rank 1
         -31,   -6,   -8,   -2,   -1,    3,   -3,  -32,  # rank 2
         -10,    1,   14,   13,    4,    1,    9,   -4,  # rank 3
           2,   -2,   13,   26,   21,   18,    2,   -1,  # rank 4
           2,   13,   21,    4,   18,   18,    3,    3,  # rank 5
          -8,    0,    9,   15,   16,    8,   -1,   -9,  # rank 6
         -13,   -7,   -5,    2,   -4,   -7,  -10,  -12,  # rank 7
         -24,  -13,   -8,  -10,   -1,  -10,   -9,  -20,  # rank 8
    ),
    (  # bishop
         -19,   -6,  -16,    3,  -10,    2,   -6,    3,  # rank 1
         -12,  -14,   -4,   -4,    1,    5,    8,   -4,  # rank 2
         -25,   -4,   11,    6,   16,   16,    7,   11,  # rank 3
          -6,   13,   19,    7,   10,   10,    6,   -5,  # rank 4
          -1,   18,   -5,   20,   -1,  -12,   -8,    7,  # rank 5
          -7,   -2,    9,    1,    4,   12,   10,   -6,  # rank 6
          -4,    3,   -4,    7,   -2,    1,   -3,  -18,  # rank 7
         -17,  -11,    1,   -4,   -7,   -9,   -4,  -13,  # rank 8
    ),
    (  # rook
          -9,   -4,    1,  -11,   -6,   -6,    6,   -7,  # rank 1
         -11,   -5,    4,   -5,   -5,   -8,   -5,  -12,  # rank 2
           0,   -5,   -9,   -2,   -9,    6,   -9,  -20,  # rank 3
           2,   -1,    6,    0,    5,  -11,    2,  -16,  # rank 4
           9,    7,   14,    7,    0,   12,   -1,    1,  # rank 5
          10,    0,   11,    5,   -1,    4,    3,   -8,  # rank 6
          18,    9,   13,   18,   14,    7,   10,    6,  # rank 7
           6,    4,    9,    7,   15,    4,    5,    4,  # rank 8
    ),
    (  # queen
         -12,  -12,    2,   -2,   -6,  -12,  -12,  -13,  # rank 1
          -8,   -4,   -1,   -9,   -5,   -1,   -4,   -8,  # rank 2
          -4,    0,    3,    6,    7,    7,    2,   -3,  # rank 3
           1,    1,    5,   15,   13,    4,    4,    1,  # rank 4
          -2,    4,    5,   14,   13,   16,    6,    2,  # rank 5
          -5,    1,    2,    6,   10,   19,    0,   -2,  # rank 6
          -6,   -5,    8,    1,    8,    2,    0,   -6,  # rank 7
         -12,    0,   -6,    2,    6,   -2,   -8,  -10,  # rank 8
    ),
    (  # king
         -32,  -38,  -42,  -17,  -38,   -6,  -33,  -21,  # rank 1
         -20,  -18,   -6,   -7,   -5,   -4,   -9,  -27,  # rank 2
         -16,  -10,   -5,   -2,   -2,    1,    7,  -24,  # rank 3
          -1,    3,    1,    2,    9,    3,   -5,   -1,  # rank 4
           9,   13,   26,   16,   23,   16,   10,   -2,  # rank 5
          -3,   12,   16,   26,   25,   23,   20,  -13,  # rank 6
         -11,   -1,   10,   20,   22,   10,    3,  -23,  # rank 7
         -26,   -6,   -6,    6,    5,   -9,  -20,  -26,  # rank 8
    ),
)
"""Endgame bonus of a white piece of each type on each square."""
# fmt: on
