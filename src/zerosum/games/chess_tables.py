"""The chess evaluation's material and piece-square tables, in centipawns.

Hand-written shapes, as zerosum had them before any tuning: knights and bishops want the
centre, rooks the seventh rank and the centre files, the queen stays central, pawns gain as
they advance (much more in the endgame), the king hides on its back rank in the middlegame
and centralizes in the endgame. Rewritten by ``benchmarks/tune_chess.py apply``.

:mod:`zerosum.games.chess` adds them up incrementally (a middlegame and an endgame sum,
tapered by the phase) and the compiled board (:mod:`zerosum.compiled.chess_board`) takes
its tables from there, so both twins use these numbers. ``MATERIAL_MG[piece]`` is indexed
by python-chess piece type (1 = pawn .. 6 = king; 0 unused). ``PST_MG[piece]`` lists the
bonus of a *white* piece on each square from a1, b1 .. h1 (rank 1, the first line) up to
h8; a black piece reads the square mirrored to White's side (``chess.square_mirror``).
"""

from __future__ import annotations

from typing import Final

MATERIAL_MG: Final = (0, 90, 320, 335, 480, 960, 0)
"""Middlegame worth of each piece type (index: python-chess piece type)."""
MATERIAL_EG: Final = (0, 110, 290, 310, 530, 950, 0)
"""Endgame worth of each piece type."""

# fmt: off
PST_MG: Final[tuple[tuple[int, ...], ...]] = (
    (0,) * 64,
    (  # pawn
           0,    0,    4,    0,    0,    4,    0,    0,  # rank 1
           4,    4,    8,   -6,   -6,    8,    4,    4,  # rank 2
           8,    8,   12,    8,    8,   12,    8,    8,  # rank 3
          12,   12,   16,   24,   24,   16,   12,   12,  # rank 4
          16,   16,   20,   28,   28,   20,   16,   16,  # rank 5
          20,   20,   24,   20,   20,   24,   20,   20,  # rank 6
          24,   24,   28,   24,   24,   28,   24,   24,  # rank 7
          28,   28,   32,   28,   28,   32,   28,   28,  # rank 8
    ),
    (  # knight
         -32,  -25,  -18,  -11,  -11,  -18,  -25,  -32,  # rank 1
         -17,  -10,   -3,    4,    4,   -3,  -10,  -17,  # rank 2
         -10,   -3,    4,   11,   11,    4,   -3,  -10,  # rank 3
          -3,    4,   11,   18,   18,   11,    4,   -3,  # rank 4
          -3,    4,   11,   18,   18,   11,    4,   -3,  # rank 5
         -10,   -3,    4,   11,   11,    4,   -3,  -10,  # rank 6
         -17,  -10,   -3,    4,    4,   -3,  -10,  -17,  # rank 7
         -24,  -17,  -10,   -3,   -3,  -10,  -17,  -24,  # rank 8
    ),
    (  # bishop
         -16,  -12,   -8,   -4,   -4,   -8,  -12,  -16,  # rank 1
          -6,   -2,    2,    6,    6,    2,   -2,   -6,  # rank 2
          -2,    2,    6,   10,   10,    6,    2,   -2,  # rank 3
           2,    6,   10,   14,   14,   10,    6,    2,  # rank 4
           2,    6,   10,   14,   14,   10,    6,    2,  # rank 5
          -2,    2,    6,   10,   10,    6,    2,   -2,  # rank 6
          -6,   -2,    2,    6,    6,    2,   -2,   -6,  # rank 7
         -10,   -6,   -2,    2,    2,   -2,   -6,  -10,  # rank 8
    ),
    (  # rook
           0,    0,    0,    6,    6,    0,    0,    0,  # rank 1
           0,    0,    0,    6,    6,    0,    0,    0,  # rank 2
           0,    0,    0,    6,    6,    0,    0,    0,  # rank 3
           0,    0,    0,    6,    6,    0,    0,    0,  # rank 4
           0,    0,    0,    6,    6,    0,    0,    0,  # rank 5
           0,    0,    0,    6,    6,    0,    0,    0,  # rank 6
          20,   20,   20,   26,   26,   20,   20,   20,  # rank 7
           0,    0,    0,    6,    6,    0,    0,    0,  # rank 8
    ),
    (  # queen
          -6,   -4,   -2,    0,    0,   -2,   -4,   -6,  # rank 1
          -4,   -2,    0,    2,    2,    0,   -2,   -4,  # rank 2
          -2,    0,    2,    4,    4,    2,    0,   -2,  # rank 3
           0,    2,    4,    6,    6,    4,    2,    0,  # rank 4
           0,    2,    4,    6,    6,    4,    2,    0,  # rank 5
          -2,    0,    2,    4,    4,    2,    0,   -2,  # rank 6
          -4,   -2,    0,    2,    2,    0,   -2,   -4,  # rank 7
          -6,   -4,   -2,    0,    0,   -2,   -4,   -6,  # rank 8
    ),
    (  # king
          18,   24,    8,   -6,   -6,    4,   28,   14,  # rank 1
         -24,  -24,  -24,  -24,  -24,  -24,  -24,  -24,  # rank 2
         -38,  -38,  -38,  -38,  -38,  -38,  -38,  -38,  # rank 3
         -52,  -52,  -52,  -52,  -52,  -52,  -52,  -52,  # rank 4
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
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 2
           5,    5,    5,    5,    5,    5,    5,    5,  # rank 3
          12,   12,   12,   12,   12,   12,   12,   12,  # rank 4
          24,   24,   24,   24,   24,   24,   24,   24,  # rank 5
          42,   42,   42,   42,   42,   42,   42,   42,  # rank 6
          70,   70,   70,   70,   70,   70,   70,   70,  # rank 7
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 8
    ),
    (  # knight
         -16,  -11,   -6,   -1,   -1,   -6,  -11,  -16,  # rank 1
         -11,   -6,   -1,    4,    4,   -1,   -6,  -11,  # rank 2
          -6,   -1,    4,    9,    9,    4,   -1,   -6,  # rank 3
          -1,    4,    9,   14,   14,    9,    4,   -1,  # rank 4
          -1,    4,    9,   14,   14,    9,    4,   -1,  # rank 5
          -6,   -1,    4,    9,    9,    4,   -1,   -6,  # rank 6
         -11,   -6,   -1,    4,    4,   -1,   -6,  -11,  # rank 7
         -16,  -11,   -6,   -1,   -1,   -6,  -11,  -16,  # rank 8
    ),
    (  # bishop
          -9,   -6,   -3,    0,    0,   -3,   -6,   -9,  # rank 1
          -6,   -3,    0,    3,    3,    0,   -3,   -6,  # rank 2
          -3,    0,    3,    6,    6,    3,    0,   -3,  # rank 3
           0,    3,    6,    9,    9,    6,    3,    0,  # rank 4
           0,    3,    6,    9,    9,    6,    3,    0,  # rank 5
          -3,    0,    3,    6,    6,    3,    0,   -3,  # rank 6
          -6,   -3,    0,    3,    3,    0,   -3,   -6,  # rank 7
          -9,   -6,   -3,    0,    0,   -3,   -6,   -9,  # rank 8
    ),
    (  # rook
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 1
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 2
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 3
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 4
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 5
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 6
          10,   10,   10,   10,   10,   10,   10,   10,  # rank 7
           0,    0,    0,    0,    0,    0,    0,    0,  # rank 8
    ),
    (  # queen
         -12,   -8,   -4,    0,    0,   -4,   -8,  -12,  # rank 1
          -8,   -4,    0,    4,    4,    0,   -4,   -8,  # rank 2
          -4,    0,    4,    8,    8,    4,    0,   -4,  # rank 3
           0,    4,    8,   12,   12,    8,    4,    0,  # rank 4
           0,    4,    8,   12,   12,    8,    4,    0,  # rank 5
          -4,    0,    4,    8,    8,    4,    0,   -4,  # rank 6
          -8,   -4,    0,    4,    4,    0,   -4,   -8,  # rank 7
         -12,   -8,   -4,    0,    0,   -4,   -8,  -12,  # rank 8
    ),
    (  # king
         -30,  -21,  -12,   -3,   -3,  -12,  -21,  -30,  # rank 1
         -21,  -12,   -3,    6,    6,   -3,  -12,  -21,  # rank 2
         -12,   -3,    6,   15,   15,    6,   -3,  -12,  # rank 3
          -3,    6,   15,   24,   24,   15,    6,   -3,  # rank 4
          -3,    6,   15,   24,   24,   15,    6,   -3,  # rank 5
         -12,   -3,    6,   15,   15,    6,   -3,  -12,  # rank 6
         -21,  -12,   -3,    6,    6,   -3,  -12,  -21,  # rank 7
         -30,  -21,  -12,   -3,   -3,  -12,  -21,  -30,  # rank 8
    ),
)
"""Endgame bonus of a white piece of each type on each square."""
# fmt: on
