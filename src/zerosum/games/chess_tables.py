"""The chess evaluation's material and piece-square tables, in centipawns.

Tuned by ``benchmarks/tune_chess.py tune`` (Texel's method) from the tables before it, on
496,526 positions labelled by Stockfish (``chess_tune_playout_s1.txt.gz``,
``chess_tune_playout_s2.txt.gz``, ``chess_tune_playout_s3.txt.gz``,
``chess_tune_playout_s4.txt.gz``, ``chess_tune_labelled.txt``, ``playout_s7.txt``,
``playout_s8.txt``, ``playout_s9.txt``, ``playout_s10.txt``, ``playout_s11.txt``,
``playout_s12.txt``, ``playout_s13.txt``, ``playout_s14.txt``, ``playout_s15.txt``,
``playout_s16.txt``, ``playout_s17.txt``, ``playout_s18.txt``, ``playout_s19.txt``,
``playout_s20.txt``, ``playout_s21.txt``, ``playout_s22.txt``, ``playout_s23.txt``,
``playout_s24.txt``, ``playout_s25.txt``, ``playout_s26.txt``, ``playout_s27.txt``,
``playout_s28.txt``, ``playout_s29.txt``, ``playout_s30.txt``; seed 1, L2 1e-08, 2000 steps;
the data and the fit: docs/games/chess-tuning.md). Written by ``benchmarks/tune_chess.py
apply``.

:mod:`zerosum.games.chess` adds them up incrementally (a middlegame and an endgame sum,
tapered by the phase) and the compiled board (:mod:`zerosum.compiled.chess_board`) takes
its tables from there, so both twins use these numbers. ``MATERIAL_MG[piece]`` is indexed
by python-chess piece type (1 = pawn .. 6 = king; 0 unused). ``PST_MG[piece]`` lists the
bonus of a *white* piece on each square from a1, b1 .. h1 (rank 1, the first line) up to
h8; a black piece reads the square mirrored to White's side (``chess.square_mirror``).
"""

from __future__ import annotations

from typing import Final

MATERIAL_MG: Final = (0, 61, 366, 386, 455, 977, 0)
"""Middlegame worth of each piece type (index: python-chess piece type)."""
MATERIAL_EG: Final = (0, 85, 275, 283, 523, 959, 0)
"""Endgame worth of each piece type."""

# fmt: off
PST_MG: Final[tuple[tuple[int, ...], ...]] = (
    (0,) * 64,
    (  # pawn
           0,    0,    4,    0,    0,    4,    0,    0,  # rank 1
          -6,   -7,   -5,   -2,    1,   18,   20,    2,  # rank 2
          -7,   -8,   -2,   -1,    4,   12,   13,    4,  # rank 3
          -2,   -1,   17,   18,   20,   26,    9,    7,  # rank 4
           8,   11,    5,   31,   31,   37,    6,   14,  # rank 5
          18,    8,   23,   32,   47,   34,   33,   22,  # rank 6
          29,   31,   32,   35,   32,   36,    7,   23,  # rank 7
          28,   28,   32,   28,   28,   32,   28,   28,  # rank 8
    ),
    (  # knight
         -36,  -18,  -17,  -16,   -9,   -9,  -20,  -33,  # rank 1
         -26,   -9,   -4,    4,    0,    2,  -14,   -5,  # rank 2
         -20,   -3,   -4,    6,   22,   -2,    6,  -16,  # rank 3
          -2,    3,    9,    4,    5,   15,    9,    1,  # rank 4
           7,    9,    8,   26,    7,   24,   11,   16,  # rank 5
         -11,   22,    3,   33,   20,   12,    2,  -14,  # rank 6
         -20,   -9,    8,    7,    6,   -3,  -20,  -20,  # rank 7
         -49,  -20,  -15,   -8,   -3,  -16,  -17,  -30,  # rank 8
    ),
    (  # bishop
           4,   13,  -13,  -10,   -8,  -14,   -1,   -9,  # rank 1
           4,   11,   11,   -9,    1,    3,   16,   -1,  # rank 2
           3,    7,   -1,    0,   -1,   -1,    3,    5,  # rank 3
           3,   -3,   -9,   16,   10,   -4,   13,    7,  # rank 4
           3,    1,    9,   20,   13,   13,    1,   -1,  # rank 5
          -2,    9,    1,   21,   16,   20,   10,   21,  # rank 6
         -11,   -9,    2,    7,   -1,    6,   -3,  -13,  # rank 7
         -16,   -6,    0,    2,    0,   -7,   -3,  -13,  # rank 8
    ),
    (  # rook
         -10,   -3,    3,   11,    6,   -2,  -17,  -11,  # rank 1
         -25,  -10,  -12,    3,   -8,    1,  -12,  -26,  # rank 2
         -15,   -3,   -8,    6,   12,    6,   13,   -3,  # rank 3
         -15,    3,    4,    1,    4,    5,   -2,   -8,  # rank 4
           3,    2,    3,    7,    6,    9,    7,    2,  # rank 5
           9,    3,    8,   16,   12,   11,    5,    0,  # rank 6
          12,   14,   29,   31,   25,   25,   24,   29,  # rank 7
           0,    5,   10,   13,   14,    0,    1,    5,  # rank 8
    ),
    (  # queen
          -3,    1,   -6,    1,   -9,  -15,   -9,  -10,  # rank 1
          -3,    2,    4,    9,    9,    0,    6,    3,  # rank 2
          -1,   -4,    2,   -3,    5,    5,    4,    3,  # rank 3
           2,   -9,   -8,   -8,   -2,    1,    6,    6,  # rank 4
          -7,   -3,   -2,   -1,    2,    4,    3,    9,  # rank 5
         -11,    5,   -5,    3,   11,   18,    5,    6,  # rank 6
          -6,  -13,    9,   -9,    6,    7,    6,    4,  # rank 7
          -3,    1,   -4,    1,    5,    1,   -4,   -2,  # rank 8
    ),
    (  # king
           6,   27,   19,  -46,    4,  -32,   19,    7,  # rank 1
         -16,  -25,  -19,  -41,  -26,  -27,    5,   14,  # rank 2
         -34,  -33,  -46,  -43,  -38,  -44,  -28,  -29,  # rank 3
         -50,  -50,  -53,  -58,  -55,  -52,  -56,  -50,  # rank 4
         -66,  -66,  -65,  -67,  -71,  -65,  -64,  -65,  # rank 5
         -63,  -66,  -66,  -67,  -67,  -64,  -62,  -66,  # rank 6
         -62,  -65,  -65,  -66,  -63,  -64,  -64,  -66,  # rank 7
         -66,  -63,  -66,  -66,  -66,  -66,  -66,  -66,  # rank 8
    ),
)
"""Middlegame bonus of a white piece of each type on each square."""
PST_EG: Final[tuple[tuple[int, ...], ...]] = (
    (0,) * 64,
    (  # pawn
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 1
          12,   10,   25,    8,   21,   11,   14,    4,  # rank 2
           0,    6,    5,    9,   13,   11,   -3,   -3,  # rank 3
           6,    7,   -5,   -4,    1,    6,    7,   -4,  # rank 4
          24,   14,   14,   -7,    4,   18,   31,   13,  # rank 5
          31,   43,   36,   36,   41,   29,   43,   45,  # rank 6
          64,   75,  109,   77,   86,   83,   75,   53,  # rank 7
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 8
    ),
    (  # knight
         -23,   -1,   -8,    8,   -2,   -6,  -19,   -6,  # rank 1
         -45,   -5,   -4,   -1,    2,    2,   -5,  -37,  # rank 2
          -8,   -3,   16,   15,    6,    4,    8,   -9,  # rank 3
           5,   -4,   17,   29,   22,   19,    1,    0,  # rank 4
           2,   16,   22,    9,   20,   20,    5,    1,  # rank 5
          -8,    0,   11,   14,   19,    9,   -2,  -11,  # rank 6
         -12,  -11,   -5,    1,   -2,   -9,  -14,  -12,  # rank 7
         -28,  -14,   -9,  -12,   -2,  -11,   -9,  -21,  # rank 8
    ),
    (  # bishop
         -20,   -9,  -11,    3,  -11,    3,   -7,    3,  # rank 1
         -10,  -16,   -3,    3,    1,    2,    7,   -7,  # rank 2
         -29,   -2,   14,    9,   15,   16,    5,   11,  # rank 3
         -10,   15,   20,   10,   10,    9,    2,  -10,  # rank 4
           0,   21,   -2,   21,    2,  -11,   -7,    9,  # rank 5
          -7,   -2,    8,    1,    5,   13,   11,   -8,  # rank 6
          -5,    3,   -6,    6,   -5,    2,   -3,  -20,  # rank 7
         -18,  -12,    2,   -4,   -8,  -12,   -3,  -14,  # rank 8
    ),
    (  # rook
          -1,   -2,    2,  -10,  -15,  -10,    4,  -11,  # rank 1
         -10,   -5,    5,   -5,   -2,  -11,   -9,  -11,  # rank 2
           2,   -4,   -5,   -3,  -10,    5,  -11,  -20,  # rank 3
           5,   -2,    5,    1,    5,   -8,    0,  -17,  # rank 4
          11,   11,   15,    5,    1,   12,   -2,    0,  # rank 5
           8,    2,   12,    4,   -1,    6,    2,  -10,  # rank 6
          14,    5,   12,   16,   11,    6,    9,    7,  # rank 7
           7,    3,    8,   10,   19,    5,    7,    4,  # rank 8
    ),
    (  # queen
         -12,  -14,    2,    0,   -9,  -14,  -14,  -13,  # rank 1
          -8,   -6,   -3,  -11,   -7,   -2,   -5,   -7,  # rank 2
          -7,    3,    1,    6,    5,    8,    3,   -3,  # rank 3
           2,    1,    5,   15,   13,    3,    4,    1,  # rank 4
          -2,    4,    5,   14,   12,   17,    5,    3,  # rank 5
          -5,    1,    3,    6,   11,   20,    0,   -2,  # rank 6
          -5,   -4,    9,    0,    7,    3,    0,   -6,  # rank 7
         -11,    2,   -6,    1,    8,   -1,   -9,   -8,  # rank 8
    ),
    (  # king
         -31,  -41,  -42,  -19,  -42,  -12,  -34,  -25,  # rank 1
         -28,  -16,   -6,  -10,   -7,   -7,  -15,  -31,  # rank 2
         -13,  -11,   -6,   -2,   -5,    0,    4,  -25,  # rank 3
          -2,    5,    2,    0,    9,   -2,   -5,   -3,  # rank 4
          12,   18,   25,   16,   22,   17,   10,   -3,  # rank 5
           1,   15,   20,   26,   25,   23,   23,  -13,  # rank 6
          -6,    6,   15,   20,   22,   12,    5,  -24,  # rank 7
         -23,   -1,   -3,    8,    7,  -10,  -18,  -24,  # rank 8
    ),
)
"""Endgame bonus of a white piece of each type on each square."""
# fmt: on
