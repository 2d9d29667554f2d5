"""The chess evaluation's material and piece-square tables, in centipawns.

Tuned by ``benchmarks/tune_chess.py tune`` (Texel's method) from the hand-written tables, on
40,913 positions labelled by Stockfish (``chess_tune_playout_s1.txt.gz``,
``chess_tune_playout_s2.txt.gz``, ``chess_tune_labelled.txt``; seed 1, L2 1e-07, 2000 steps;
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

MATERIAL_MG: Final = (0, 63, 352, 353, 463, 964, 0)
"""Middlegame worth of each piece type (index: python-chess piece type)."""
MATERIAL_EG: Final = (0, 99, 301, 325, 521, 955, 0)
"""Endgame worth of each piece type."""

# fmt: off
PST_MG: Final[tuple[tuple[int, ...], ...]] = (
    (0,) * 64,
    (  # pawn
           0,    0,    4,    0,    0,    4,    0,    0,  # rank 1
          -1,    2,    3,   -7,    3,   19,    9,    5,  # rank 2
          -1,   12,    5,    6,   15,   10,   10,    7,  # rank 3
           4,   10,   17,   13,   19,   24,    4,   11,  # rank 4
          17,   20,   11,   28,   30,   26,    7,    6,  # rank 5
          19,   20,   26,   21,   24,   24,   22,   18,  # rank 6
          24,   24,   30,   26,   24,   28,   22,   24,  # rank 7
          28,   28,   32,   28,   28,   32,   28,   28,  # rank 8
    ),
    (  # knight
         -32,  -16,  -18,  -11,  -13,  -14,  -19,  -32,  # rank 1
         -17,  -12,   -2,    7,   -1,    1,  -12,  -17,  # rank 2
         -16,   -5,    0,    9,   20,    3,   -1,  -12,  # rank 3
          -8,    6,   13,   17,   21,   13,    4,   -4,  # rank 4
          -3,    9,   14,   17,   16,   15,    7,   -1,  # rank 5
         -10,    1,    4,   12,   11,    5,   -3,  -10,  # rank 6
         -17,   -9,   -1,    4,    2,   -3,  -12,  -17,  # rank 7
         -24,  -17,  -10,   -3,   -3,  -10,  -17,  -26,  # rank 8
    ),
    (  # bishop
         -16,   -3,   -7,   -6,   -4,   -8,  -12,  -16,  # rank 1
          -4,    9,    8,    1,    7,    4,   14,   -6,  # rank 2
          -1,    6,    1,    9,   14,    5,    0,   -6,  # rank 3
           2,    4,    4,   14,   13,    3,    4,    4,  # rank 4
           2,    3,   12,   14,   12,   10,    6,    2,  # rank 5
          -4,    4,    6,   10,   12,    6,    2,    0,  # rank 6
          -6,   -6,    4,    8,    6,    0,   -2,   -8,  # rank 7
         -11,   -6,   -2,    2,    2,   -2,   -6,  -10,  # rank 8
    ),
    (  # rook
          -8,   -9,    3,   12,    9,   -2,   -3,   -3,  # rank 1
          -4,   -2,   -4,    6,    2,   -1,    0,   -3,  # rank 2
          -4,    0,    0,    6,    6,    2,    5,    0,  # rank 3
          -2,    0,    2,    8,    8,    2,    0,    0,  # rank 4
           0,    0,    0,    6,    8,    0,    0,    0,  # rank 5
           2,    2,    1,    5,    8,    0,    0,   -2,  # rank 6
          19,   20,   20,   26,   28,   20,   20,   20,  # rank 7
          -2,    0,    2,    6,    6,    0,    0,    0,  # rank 8
    ),
    (  # queen
          -6,   -4,    0,   -1,   -3,   -2,   -4,   -6,  # rank 1
          -4,    2,    8,   13,    8,   -3,   -2,   -4,  # rank 2
          -2,    1,    3,    3,    2,    1,    2,   -2,  # rank 3
          -3,    0,    4,   -2,    4,    2,    1,   -2,  # rank 4
          -2,    0,    4,    6,    4,    6,    2,   -2,  # rank 5
          -2,    2,    0,    4,    4,    4,    0,   -2,  # rank 6
          -4,   -2,    0,    2,    2,    2,   -2,   -4,  # rank 7
          -6,   -4,   -2,    0,    0,   -2,   -4,   -6,  # rank 8
    ),
    (  # king
          18,   25,   15,   -8,   -4,   -9,   24,   13,  # rank 1
         -22,  -26,  -24,  -24,  -23,  -27,  -24,  -17,  # rank 2
         -38,  -34,  -38,  -38,  -38,  -36,  -38,  -40,  # rank 3
         -52,  -52,  -52,  -52,  -52,  -52,  -54,  -52,  # rank 4
         -66,  -66,  -66,  -66,  -66,  -66,  -66,  -66,  # rank 5
         -66,  -66,  -66,  -66,  -66,  -66,  -66,  -66,  # rank 6
         -66,  -66,  -66,  -66,  -66,  -66,  -66,  -66,  # rank 7
         -66,  -66,  -66,  -66,  -66,  -66,  -66,  -66,  # rank 8
    ),
)
"""Middlegame bonus of a white piece of each type on each square."""
PST_EG: Final[tuple[tuple[int, ...], ...]] = (
    (0,) * 64,
    (  # pawn
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 1
          -1,   11,   12,    2,    0,   21,    8,    8,  # rank 2
           3,    2,   11,   10,   16,   13,    4,   10,  # rank 3
           5,    9,    6,   -2,    7,   -2,    4,    4,  # rank 4
          24,   33,   21,    6,   26,   15,   25,    2,  # rank 5
          34,   48,   48,   42,   46,   38,   36,   34,  # rank 6
          66,   72,   85,   72,   72,   72,   68,   70,  # rank 7
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 8
    ),
    (  # knight
         -16,   -9,   -6,   -1,   -1,   -4,   -9,  -16,  # rank 1
         -11,   -6,   -3,    4,    4,    1,   -6,  -11,  # rank 2
          -6,    1,    5,    9,   13,    2,    0,   -4,  # rank 3
          -1,    5,    8,   14,   19,   10,    4,   -3,  # rank 4
          -3,    4,   13,    9,   16,    9,    3,   -1,  # rank 5
          -6,    3,    5,   11,    8,    4,   -1,   -6,  # rank 6
         -11,   -4,   -1,    4,    2,   -3,   -6,  -11,  # rank 7
         -16,  -11,   -6,   -1,   -1,   -8,  -11,  -16,  # rank 8
    ),
    (  # bishop
          -9,   -2,   -5,   -2,    0,   -1,   -8,   -7,  # rank 1
          -6,   -7,    4,    3,    4,    2,    4,   -6,  # rank 2
          -5,   -2,    7,    8,   13,    7,    0,   -3,  # rank 3
           0,    5,   12,    9,   13,   13,    5,   -2,  # rank 4
           1,    3,   -2,    9,    6,   -4,    1,    2,  # rank 5
          -7,    0,    5,    6,    6,    3,    4,   -3,  # rank 6
          -4,   -5,    0,    5,    3,   -2,   -3,  -12,  # rank 7
         -11,   -6,   -1,   -2,   -3,   -3,   -8,  -11,  # rank 8
    ),
    (  # rook
          -8,    0,    5,   -5,    0,   -1,    0,    4,  # rank 1
          -3,   -2,    0,    2,    0,   -2,    0,    0,  # rank 2
          -2,    0,   -1,    0,   -4,    2,    2,   -2,  # rank 3
           0,    0,    2,    3,    0,   -2,    1,   -2,  # rank 4
           0,    1,    0,    2,    0,    0,   -1,    0,  # rank 5
           2,    3,    4,   -1,    0,   -1,    0,   -4,  # rank 6
           9,   12,    8,   12,   12,    8,    9,    8,  # rank 7
          -4,    2,    2,    2,    2,    0,   -2,    2,  # rank 8
    ),
    (  # queen
         -12,   -8,   -2,    0,    0,   -4,   -8,  -12,  # rank 1
          -8,   -2,    2,    4,    4,   -1,   -4,   -8,  # rank 2
          -4,   -1,    4,    6,    9,    4,    2,   -4,  # rank 3
           0,    4,    6,   12,   12,    6,    4,    0,  # rank 4
           0,    4,    8,   12,   12,    8,    4,    0,  # rank 5
          -4,    0,    2,    8,    8,    6,    0,   -4,  # rank 6
          -8,   -4,    0,    4,    4,    0,   -4,   -8,  # rank 7
         -12,   -6,   -4,    0,    0,   -4,   -8,  -12,  # rank 8
    ),
    (  # king
         -30,  -23,  -22,   -2,   -9,  -20,  -28,  -28,  # rank 1
         -21,  -14,   -5,    5,    4,   -9,  -16,  -18,  # rank 2
         -12,    1,    6,   20,   13,    5,   -5,  -14,  # rank 3
          -1,    8,   17,   22,   20,   13,   -1,   -3,  # rank 4
           3,    8,   17,   24,   27,   17,    8,   -5,  # rank 5
         -10,    3,    6,   17,   14,   10,    2,  -14,  # rank 6
         -19,   -8,   -1,    8,    6,   -1,   -8,  -23,  # rank 7
         -30,  -21,  -12,   -3,   -3,  -12,  -21,  -30,  # rank 8
    ),
)
"""Endgame bonus of a white piece of each type on each square."""
# fmt: on
