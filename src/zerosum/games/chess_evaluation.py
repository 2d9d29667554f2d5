"""The positional terms of the chess evaluation: what material and piece-square tables miss.

:class:`zerosum.games.chess.Chess` keeps material plus piece-square tables as incremental sums;
the terms here need the whole board (which pawns face which, how far a piece reaches), so they
are added up from python-chess's bitboards when the position is evaluated. Each term is a
(middlegame, endgame) pair in centipawns from White's side, tapered with the sums by the phase:

* **pawn structure**: a *passed* pawn (no enemy pawn ahead of it on its file or the two beside
  it, no own pawn ahead on its file) earns a bonus by its rank, halved when a piece stands on
  the square in front of it; in the endgame also the enemy king's distance to that square
  (which must catch it) against its own king's (which escorts it). A *doubled* pawn (an own
  pawn ahead on its file), an *isolated* pawn (no own pawn on a file beside it) and a
  *backward* one (none beside it on its rank or behind, its next square attacked by an enemy
  pawn) lose;
* **mobility** of knights, bishops, rooks and queens: the squares each attacks that hold no
  own piece and no enemy pawn attacks, counted, and the count's worth read from a table per
  piece type;
* **king safety**: in the middlegame, own pawns on the three files around a king on its first
  two ranks (one step ahead or two), a file there without an own pawn, and the attack on the
  enemy king's zone (its square and neighbours): each knight, bishop, rook or queen attacking
  it adds weighted *units* for the zone squares it attacks, and two attackers or more cost the
  defender ``units * units // 4`` (at most :data:`KING_ATTACK_CAP`); and the *safe checks*
  each knight, bishop, rook or queen could give (:data:`SAFE_CHECK_MG`);
* **pieces**: the bishop pair; rooks on open files (no pawns) and half-open ones (no own pawn);
* **threats and support**: a knight, bishop, rook or queen that an enemy pawn attacks, a
  rook or queen that an enemy knight or bishop attacks, and a queen that an enemy rook
  attacks, lose; a pawn that an own pawn defends gains;
* **tempo**: the side to move gets :data:`TEMPO` (added by ``Chess.evaluate``).

The compiled board (:mod:`zerosum.compiled.chess_board`) computes the same numbers from its
mailbox and pawn bitboards with these tables; the tests compare the two on random games.
"""

from __future__ import annotations

from typing import Final

import chess

PASSED_MG: Final = (0, -3, -11, -12, 12, 45, 72, 0)
"""Middlegame bonus of a passed pawn by its rank counted from its own side (0 = first)."""
PASSED_EG: Final = (0, 13, 17, 34, 48, 80, 145, 0)
"""Endgame bonus of a passed pawn by its relative rank."""
PASSED_ENEMY_KING: Final = 9
PASSED_OWN_KING: Final = 6
"""Endgame bonus per square of the enemy king's distance to the passed pawn's next square,
and penalty per square of its own king's, each times the pawn's relative rank less two."""
DOUBLED: Final = (7, 22)
ISOLATED: Final = (16, 2)
"""(middlegame, endgame) penalties per doubled and per isolated pawn."""
# fmt: off
MOBILITY_MG: Final[tuple[tuple[int, ...], ...]] = (
    (), (),  # none, pawn
    (-28, -11,  -3,  -1,   4,   8,  12,  16,  16),  # knight: 0 .. 8
    (-26, -16,  -9,  -5,  -1,   1,   4,   6,   6,   8,  20,  21,  20,  25),  # bishop: 0 .. 13
    (  # rook: 0 .. 14
        -20, -14,  -9,  -4,  -4,  -3,   2,   1,   3,   5,   6,  20,  14,  22,
         38,
    ),
    (  # queen: 0 .. 27
        -15, -13, -13, -12, -11, -11,  -9,  -6,  -5,  -6,  -4,  -4,  -1,  -1,
          0,   1,  -1,   5,   9,  15,  16,  19,  19,  18,  23,  26,  28,  30,
    ),
    (),  # king
)
# fmt: on
"""Middlegame worth of a knight, bishop, rook or queen by the number of safe squares it attacks
(no own piece, no enemy pawn's attack on them); index: python-chess piece type, then the
count."""
# fmt: off
MOBILITY_EG: Final[tuple[tuple[int, ...], ...]] = (
    (), (),  # none, pawn
    (-15, -30,  -6,   1,   6,  13,  11,   5,  -8),  # knight: 0 .. 8
    (-13, -16,  -5,   3,   7,   9,  13,   9,   8,   0,  -6, -12, -14, -18),  # bishop: 0 .. 13
    (  # rook: 0 .. 14
        -22, -12, -16,  -6,  -2,   3,   6,   9,  14,  15,  13,   9,  11,  10,
         -7,
    ),
    (  # queen: 0 .. 27
        -36, -33, -31, -29, -24, -26, -21, -15, -10,  -3,  -3,  -2,  -2,   8,
          8,  11,  16,  16,  21,  19,  25,  25,  26,  24,  35,  40,  42,  44,
    ),
    (),  # king
)
# fmt: on
"""Endgame worth of a piece by the number of safe squares it attacks."""
KING_ATTACK_UNITS: Final = (0, 0, 2, 3, 3, 5, 0)
"""Units per enemy king-zone square attacked, by piece type (index: python-chess type)."""
KING_ATTACK_CAP: Final = 500
SHIELD_NEAR: Final = 9
SHIELD_FAR: Final = 3
SHIELD_MISSING: Final = 11
"""Middlegame bonus of an own pawn one and two squares ahead of the king's file or a file
beside it, and penalty for such a file without an own pawn, for a king on its first two
ranks."""
BISHOP_PAIR: Final = (14, 64)
ROOK_OPEN: Final = (22, -1)
ROOK_HALF_OPEN: Final = (7, 18)
THREAT_BY_PAWN: Final = (38, 38)
"""(middlegame, endgame) penalty per knight, bishop, rook or queen an enemy pawn attacks."""
THREAT_BY_MINOR: Final = (35, 37)
"""(middlegame, endgame) penalty per rook or queen an enemy knight or bishop attacks."""
PAWN_SUPPORTED: Final = (6, 10)
"""(middlegame, endgame) bonus per pawn an own pawn defends."""
THREAT_BY_ROOK: Final = (15, 5)
"""(middlegame, endgame) penalty per queen an enemy rook attacks."""
BACKWARD: Final = (7, 11)
"""(middlegame, endgame) penalty per backward pawn: no own pawn beside it on its rank or
behind, and its stop square attacked by an enemy pawn (an isolated pawn is not counted)."""
SAFE_CHECK_MG: Final = (0, 0, 14, 5, 17, 6, 0)
SAFE_CHECK_EG: Final = (0, 0, -2, 10, 7, 7, 0)
"""(middlegame, endgame) bonus per safe check a knight, bishop, rook or queen could give: a
square it attacks, holding no own piece and attacked by no enemy pawn, from which a piece of
its type would attack the enemy king (index: python-chess piece type). These three terms'
weights are all 0 for now: a fit gave them values, but its sequential test was undecided
(docs/games/chess-tuning.md, the fourth fit)."""
TEMPO: Final = 13
"""What having the move is worth, added to the side to move's evaluation."""


def _masks() -> tuple[
    tuple[int, ...], tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[int, ...]
]:
    adjacent = tuple(
        (chess.BB_FILES[f - 1] if f > 0 else 0) | (chess.BB_FILES[f + 1] if f < 7 else 0)
        for f in range(8)
    )
    front: list[tuple[int, ...]] = [(), ()]
    passed: list[tuple[int, ...]] = [(), ()]
    for white in (0, 1):
        front_row, passed_row = [], []
        for square in chess.SQUARES:
            file, rank = square & 7, square >> 3
            ahead = 0
            for r in range(8):
                if (r > rank) if white else (r < rank):
                    ahead |= chess.BB_RANKS[r]
            front_row.append(ahead & chess.BB_FILES[file])
            passed_row.append(ahead & (chess.BB_FILES[file] | adjacent[file]))
        front[white], passed[white] = tuple(front_row), tuple(passed_row)
    zone = tuple(chess.BB_KING_ATTACKS[s] | chess.BB_SQUARES[s] for s in chess.SQUARES)
    return adjacent, tuple(front), tuple(passed), zone


ADJACENT_FILES, FRONT_SPAN, PASSED_SPAN, KING_ZONE = _masks()
"""Bitboards: the files beside each file; by colour (0 Black, 1 White) and square, the squares
ahead on the square's file, and ahead on it and the files beside it; each square with its
neighbours."""
BEHIND_BESIDE: Final = tuple(
    tuple(ADJACENT_FILES[square & 7] & ~PASSED_SPAN[white][square] for square in chess.SQUARES)
    for white in (0, 1)
)
"""By colour and square: the squares on the files beside it, on its rank or behind it."""


def pawn_attacks(pawns: int, white: bool) -> int:
    """The squares the ``pawns`` of that colour attack."""
    if white:
        return ((pawns & ~chess.BB_FILE_A) << 7 | (pawns & ~chess.BB_FILE_H) << 9) & chess.BB_ALL
    return (pawns & ~chess.BB_FILE_A) >> 9 | (pawns & ~chess.BB_FILE_H) >> 7


def positional_terms(board: chess.Board) -> tuple[int, int]:
    """The (middlegame, endgame) sum of the positional terms from White's side (the module
    docstring lists them; tempo is not among them)."""
    mg = eg = 0
    for colour in (chess.WHITE, chess.BLACK):
        side_mg, side_eg = _side_terms(board, colour)
        sign = 1 if colour else -1
        mg += sign * side_mg
        eg += sign * side_eg
    return mg, eg


def _checking_squares(board: chess.Board, king: chess.Square) -> dict[int, int]:
    """By piece type (knight, bishop, rook, queen): the squares from which it would attack
    ``king``."""
    occupied = board.occupied
    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied]
    straight = (
        chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
        | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied]
    )
    return {
        chess.KNIGHT: chess.BB_KNIGHT_ATTACKS[king],
        chess.BISHOP: diagonal,
        chess.ROOK: straight,
        chess.QUEEN: diagonal | straight,
    }


def _side_terms(board: chess.Board, colour: chess.Color) -> tuple[int, int]:
    """The positional terms of one side, from that side's point of view."""
    white = int(colour)
    own = board.occupied_co[colour]
    own_pawns = board.pawns & own
    enemy_pawns = board.pawns & board.occupied_co[not colour]
    own_king = board.king(colour)
    enemy_king = board.king(not colour)
    assert own_king is not None and enemy_king is not None  # Chess accepts legal positions only
    mg = eg = 0
    enemy_pawn_attacks = pawn_attacks(enemy_pawns, not colour)
    # Pawn structure.
    for square in chess.scan_forward(own_pawns):
        file = square & 7
        relative = (square >> 3) if colour else 7 - (square >> 3)
        stop = square + 8 if colour else square - 8
        if FRONT_SPAN[white][square] & own_pawns:
            mg -= DOUBLED[0]
            eg -= DOUBLED[1]
        if not ADJACENT_FILES[file] & own_pawns:
            mg -= ISOLATED[0]
            eg -= ISOLATED[1]
        elif not BEHIND_BESIDE[white][square] & own_pawns and (
            enemy_pawn_attacks & chess.BB_SQUARES[stop]
        ):
            mg -= BACKWARD[0]
            eg -= BACKWARD[1]
        if not PASSED_SPAN[white][square] & enemy_pawns and not (
            FRONT_SPAN[white][square] & own_pawns
        ):
            bonus_mg, bonus_eg = PASSED_MG[relative], PASSED_EG[relative]
            if board.occupied & chess.BB_SQUARES[stop]:
                bonus_mg //= 2
                bonus_eg //= 2
            mg += bonus_mg
            eg += bonus_eg
            if relative >= 3:
                eg += (relative - 2) * (
                    PASSED_ENEMY_KING * chess.square_distance(enemy_king, stop)
                    - PASSED_OWN_KING * chess.square_distance(own_king, stop)
                )
    supported = chess.popcount(own_pawns & pawn_attacks(own_pawns, bool(colour)))
    mg += PAWN_SUPPORTED[0] * supported
    eg += PAWN_SUPPORTED[1] * supported
    # Threats: pieces an enemy pawn attacks; rooks and queens an enemy minor piece attacks,
    # queens an enemy rook attacks.
    pieces = own & ~board.pawns & ~board.kings
    threatened = chess.popcount(pieces & enemy_pawn_attacks)
    mg -= THREAT_BY_PAWN[0] * threatened
    eg -= THREAT_BY_PAWN[1] * threatened
    enemy_minors = (board.knights | board.bishops) & board.occupied_co[not colour]
    minor_attacks = 0
    for square in chess.scan_forward(enemy_minors):
        minor_attacks |= board.attacks_mask(square)
    threatened = chess.popcount((board.rooks | board.queens) & own & minor_attacks)
    mg -= THREAT_BY_MINOR[0] * threatened
    eg -= THREAT_BY_MINOR[1] * threatened
    # Terms whose weights are all 0 are not computed (the weights are read at each call, so
    # that the tuner may raise them), as the compiled board leaves the safe checks out.
    if board.queens & own and any(THREAT_BY_ROOK):
        rook_attacks = 0
        for square in chess.scan_forward(board.rooks & board.occupied_co[not colour]):
            rook_attacks |= board.attacks_mask(square)
        threatened = chess.popcount(board.queens & own & rook_attacks)
        mg -= THREAT_BY_ROOK[0] * threatened
        eg -= THREAT_BY_ROOK[1] * threatened
    # Mobility, safe checks, rooks' files and the attack on the enemy king's zone.
    safe = ~own & ~enemy_pawn_attacks
    zone = KING_ZONE[enemy_king]
    checking = _checking_squares(board, enemy_king) if any(SAFE_CHECK_MG + SAFE_CHECK_EG) else {}
    units = attackers = 0
    for piece in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
        for square in chess.scan_forward(board.pieces_mask(piece, colour)):
            attacks = board.attacks_mask(square)
            count = chess.popcount(attacks & safe)
            mg += MOBILITY_MG[piece][count]
            eg += MOBILITY_EG[piece][count]
            if checking:
                checks = chess.popcount(attacks & safe & checking[piece])
                mg += SAFE_CHECK_MG[piece] * checks
                eg += SAFE_CHECK_EG[piece] * checks
            hits = chess.popcount(attacks & zone)
            if hits:
                attackers += 1
                units += hits * KING_ATTACK_UNITS[piece]
            if piece == chess.ROOK:
                file_mask = chess.BB_FILES[square & 7]
                if not file_mask & board.pawns:
                    mg += ROOK_OPEN[0]
                    eg += ROOK_OPEN[1]
                elif not file_mask & own_pawns:
                    mg += ROOK_HALF_OPEN[0]
                    eg += ROOK_HALF_OPEN[1]
    if attackers >= 2:
        mg += min(units * units // 4, KING_ATTACK_CAP)
    if chess.popcount(board.pieces_mask(chess.BISHOP, colour)) >= 2:
        mg += BISHOP_PAIR[0]
        eg += BISHOP_PAIR[1]
    # The pawn shield of a king on its first two ranks.
    king_file, king_rank = own_king & 7, own_king >> 3
    if (king_rank if colour else 7 - king_rank) <= 1:
        step = 1 if colour else -1
        for file in range(max(king_file - 1, 0), min(king_file + 1, 7) + 1):
            if own_pawns & chess.BB_SQUARES[chess.square(file, king_rank + step)]:
                mg += SHIELD_NEAR
            elif own_pawns & chess.BB_SQUARES[chess.square(file, king_rank + 2 * step)]:
                mg += SHIELD_FAR
            elif not own_pawns & chess.BB_FILES[file]:
                mg -= SHIELD_MISSING
    return mg, eg
