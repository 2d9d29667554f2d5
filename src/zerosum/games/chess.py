"""Chess on python-chess, with zerosum's own incremental evaluation and Zobrist key.

python-chess (``chess``) supplies the rules: move generation, make/unmake, FEN. On top of its
board this module keeps, as seeds 000 and 001 do around Chess.jl, what the search asks at every
node in O(1):

* the evaluation: material plus piece-square tables, a middlegame and an endgame sum tapered
  by the material left on the board (the *phase*), updated by ``make`` from the moved,
  captured and promoted pieces and restored by ``undo``; ``compute_evaluation`` adds the same
  tables up from scratch. ``evaluate`` adds the positional terms that need the whole board
  (pawn structure, mobility, king safety, bishop pair, rooks' files:
  :mod:`zerosum.games.chess_evaluation`) and the tempo at evaluation time;
* the Zobrist key: the Polyglot key (python-chess's ``chess.polyglot.zobrist_hash`` computes the
  same number from scratch, so the oracle is independent of this module), updated by ``make``
  from the same pieces plus the changes of castling rights, en passant file and side to move;
* the keys since the last irreversible move, for repetitions.

Draws: stalemate, too little material to mate, the fifty-move rule (100 plies without a capture
or pawn move) and threefold repetition end the game (``outcome``), as a player claiming them
would. The search capability :meth:`Chess.drawn` counts a position as drawn once it repeats
(the usual engine practice: a line that repeats can be repeated again).

Trade-off: python-chess's ``push``/``pop`` and its legal move generator cost most of a node; the
incremental bookkeeping here adds a few dictionary-free list lookups per move.

Moves are ``chess.Move`` values written in UCI notation (``e2e4``, ``e7e8q``); ``parse_move``
also reads SAN (``Nf3``, ``exd5``, ``O-O``). Positions are FEN.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Self

import chess
import chess.polyglot

from zerosum.game import MoveError, Outcome, PositionError, Score
from zerosum.games.boards import BoardState, draw_board
from zerosum.games.chess_evaluation import TEMPO, positional_terms
from zerosum.games.chess_exchange import loses_material
from zerosum.games.chess_tables import MATERIAL_EG, MATERIAL_MG, PST_EG, PST_MG

if TYPE_CHECKING:
    from zerosum.capabilities import (
        Checks,
        CorrectionKey,
        LosingCaptures,
        MoveKeys,
        MoveLabels,
        NullMove,
        QuiescenceMoves,
        RuleDraws,
        Tactical,
    )

Move = chess.Move
"""A chess move (python-chess's ``Move``)."""

MAX_MOVE_NUMBER: Final = 100_000
"""The largest full-move number and halfmove clock a FEN may give. python-chess accepts any
number, but the compiled board holds them in 64-bit integers, and no game of chess lasts even
10,000 moves (the 75-move rule ends one within about 5,900), so a larger one is a typo or an
attack."""


def board_from_fen(fen: str) -> chess.Board:
    """The python-chess board of the FEN ``fen`` (all six fields), checked at the boundary:
    raises :class:`~zerosum.game.PositionError` (a ``ValueError``) naming what is wrong: not a
    FEN, a move counter above :data:`MAX_MOVE_NUMBER`, or an impossible position."""
    try:
        board = chess.Board(fen)
    except ValueError as error:
        raise PositionError(
            f"{_clipped(fen)!r} is not a FEN position ({error}): expected six fields such as "
            f"'{chess.STARTING_FEN}'"
        ) from None
    for name, number in (
        ("full-move number", board.fullmove_number),
        ("halfmove clock", board.halfmove_clock),
    ):
        if number > MAX_MOVE_NUMBER:
            raise PositionError(
                f"the FEN's {name} {_clipped(str(number))} is out of range: expected "
                f"0..{MAX_MOVE_NUMBER:,}"
            )
    status = board.status() & ~chess.STATUS_IMPOSSIBLE_CHECK
    if status:
        problems = ", ".join(
            (flag.name or "").lower().replace("_", " ") for flag in chess.Status if flag & status
        )
        raise PositionError(
            f"{_clipped(fen)!r} is impossible ({problems}): expected a legal position"
        )
    return board


def _clipped(text: str, most: int = 100) -> str:
    """``text``, cut to ``most`` characters with an ellipsis: what an error message quotes."""
    return text if len(text) <= most else text[: most - 1] + "\u2026"


PIECE_SYMBOLS: Final = {
    (chess.WHITE, chess.KING): "\u2654",
    (chess.WHITE, chess.QUEEN): "\u2655",
    (chess.WHITE, chess.ROOK): "\u2656",
    (chess.WHITE, chess.BISHOP): "\u2657",
    (chess.WHITE, chess.KNIGHT): "\u2658",
    (chess.WHITE, chess.PAWN): "\u2659",
    (chess.BLACK, chess.KING): "\u265a",
    (chess.BLACK, chess.QUEEN): "\u265b",
    (chess.BLACK, chess.ROOK): "\u265c",
    (chess.BLACK, chess.BISHOP): "\u265d",
    (chess.BLACK, chess.KNIGHT): "\u265e",
    (chess.BLACK, chess.PAWN): "\u265f",
}

# -- evaluation tables ----------------------------------------------------------------------

PHASE_WEIGHT: Final = (0, 0, 1, 1, 2, 4, 0)
"""How much each piece type counts towards the middlegame phase."""
GAIN_CEILING: Final = MATERIAL_MG[chess.QUEEN] * 2 - MATERIAL_MG[chess.PAWN]
"""No single move gains more than a queen captured by a pawn promoting to a queen."""
FULL_PHASE: Final = 24
"""The phase of the starting material; more (after promotions) counts as this."""


def _signed_tables() -> tuple[list[list[int]], list[list[int]]]:
    """``MG[code][square]`` and ``EG[code][square]`` for ``code = piece + 8 * white``: a
    piece's material plus square bonus, positive for White and negative for Black."""
    mg = [[0] * 64 for _ in range(16)]
    eg = [[0] * 64 for _ in range(16)]
    for piece in chess.PIECE_TYPES:
        for square in chess.SQUARES:
            white_mg, white_eg = PST_MG[piece][square], PST_EG[piece][square]
            mirror = chess.square_mirror(square)
            black_mg, black_eg = PST_MG[piece][mirror], PST_EG[piece][mirror]
            mg[piece + 8][square] = MATERIAL_MG[piece] + white_mg
            eg[piece + 8][square] = MATERIAL_EG[piece] + white_eg
            mg[piece][square] = -(MATERIAL_MG[piece] + black_mg)
            eg[piece][square] = -(MATERIAL_EG[piece] + black_eg)
    return mg, eg


MG, EG = _signed_tables()

# -- Zobrist keys (Polyglot's numbers, so python-chess computes the same key from scratch) --

_RANDOM: Final = chess.polyglot.POLYGLOT_RANDOM_ARRAY


def _piece_keys() -> list[list[int]]:
    keys = [[0] * 64 for _ in range(16)]
    for piece in chess.PIECE_TYPES:
        for white in (0, 1):
            index = (piece - 1) * 2 + white
            keys[piece + 8 * white] = [_RANDOM[64 * index + sq] for sq in chess.SQUARES]
    return keys


PIECE_KEYS: Final = _piece_keys()
CASTLING_KEYS: Final = (
    (chess.H1, _RANDOM[768]),
    (chess.A1, _RANDOM[769]),
    (chess.H8, _RANDOM[770]),
    (chess.A8, _RANDOM[771]),
)
"""The key of each castling right, by the square of its rook."""
EP_KEYS: Final = tuple(_RANDOM[772 + file] for file in range(8))
WHITE_TO_MOVE_KEY: Final = _RANDOM[780]

_PAWN_ATTACKS: Final = chess.BB_PAWN_ATTACKS
_BB: Final = chess.BB_SQUARES
_NULL: Final = chess.Move.null()


PAWN_MIX_WHITE: Final = 0x9E3779B97F4A7C15
PAWN_MIX_BLACK: Final = 0xC2B2AE3D27D4EB4F
"""Odd 64-bit multipliers that spread a side's pawns over the top bits of a word."""


def pawn_correction_key(white_pawns: int, black_pawns: int, white_to_move: bool) -> int:
    """A key from ``0`` to ``2 ** 15 - 1`` of the pawns and the side to move (the correction
    history's, ``CorrectionKey``): the top 14 bits of the pawns mixed by multiplication, and
    the side as the lowest bit. The compiled board computes the same from its pawn bitboards
    (``chess_search.correction_slot``, with wrapping signed arithmetic: the same bits)."""
    mixed = (white_pawns * PAWN_MIX_WHITE ^ black_pawns * PAWN_MIX_BLACK) & 0xFFFFFFFFFFFFFFFF
    return ((mixed >> 50) & 0x3FFF) * 2 + int(white_to_move)


def ep_key(board: chess.Board) -> int:
    """The en passant part of the key: the file of the en passant square, counted only when a
    pawn of the side to move stands ready to capture there (Polyglot's rule)."""
    ep = board.ep_square
    if ep is None:
        return 0
    turn = board.turn
    if _PAWN_ATTACKS[not turn][ep] & board.pawns & board.occupied_co[turn]:
        return EP_KEYS[ep & 7]
    return 0


class Chess:
    """A chess position with its history (the protocol of ``zerosum.game``).

    Besides the protocol it implements every capability of :mod:`zerosum.capabilities` the
    tactical search uses: :class:`~zerosum.capabilities.Tactical`,
    :class:`~zerosum.capabilities.QuiescenceMoves`, :class:`~zerosum.capabilities.Checks`,
    :class:`~zerosum.capabilities.RuleDraws` and :class:`~zerosum.capabilities.NullMove`, and
    :class:`~zerosum.capabilities.MoveLabels` for the front ends (SAN; mypy checks the
    signatures at the end of this module).
    """

    name = "chess"

    __slots__ = (
        "_eg",
        "_fen",
        "_key",
        "_keys",
        "_legal",
        "_mg",
        "_phase",
        "_stack",
        "_start",
        "board",
    )

    def __init__(self, fen: str = chess.STARTING_FEN) -> None:
        board = board_from_fen(fen)
        self.board = board
        """The python-chess board (read it freely; change it only through make/undo)."""
        self._mg = self._eg = self._phase = 0
        self._refresh()
        self._key = self.compute_key()
        self._keys = [self._key]
        """The key after every move made here (the starting position's first)."""
        self._start = 0
        """The index in ``_keys`` of the first position a repetition may look back to."""
        self._stack: list[tuple[int, int, int, int, int]] = []
        """(key, middlegame sum, endgame sum, phase, start) before each move, for undo."""
        self._legal: tuple[int, int, tuple[Move, ...], frozenset[Move] | None] | None = None
        """The legal moves of the last position asked about, by (plies, key): the same plies
        from the same start and the same key mean the same position."""
        self._fen: tuple[int, int, int, str] | None = None
        """The FEN of the last position asked about, by (plies, key, halfmove clock)."""

    @classmethod
    def from_position(cls, text: str) -> Chess:
        """The position written in FEN (the move counters may be left out)."""
        fields = text.split()
        if len(fields) == 4:
            fields += ["0", "1"]
        return cls(" ".join(fields) if fields else text)

    def _refresh(self) -> None:
        self._mg, self._eg, self._phase = self._sums()

    def _sums(self) -> tuple[int, int, int]:
        mg = eg = phase = 0
        board = self.board
        for square, piece in board.piece_map().items():
            code = piece.piece_type + 8 * piece.color
            mg += MG[code][square]
            eg += EG[code][square]
            phase += PHASE_WEIGHT[piece.piece_type]
        return mg, eg, phase

    # -- the search protocol --------------------------------------------------------------

    def side_to_move(self) -> int:
        return 0 if self.board.turn else 1

    def ply(self) -> int:
        return len(self._stack)

    def outcome(self) -> Outcome | None:
        board = self.board
        if not any(board.generate_legal_moves()):
            return Outcome.LOSS if board.is_check() else Outcome.DRAW
        if self._draw_by_rule(3):
            return Outcome.DRAW
        return None

    def legal_moves(self) -> list[Move]:
        moves = self._legal_tuple()
        if moves and self._draw_by_rule(3):
            return []
        return list(moves)

    def _legal_tuple(self) -> tuple[Move, ...]:
        cached = self._legal
        if cached is None or cached[0] != len(self._keys) or cached[1] != self._key:
            moves = tuple(self.board.generate_legal_moves())
            cached = self._legal = (len(self._keys), self._key, moves, None)
        return cached[2]

    def make(self, move: Move) -> None:
        board = self.board
        source, target = move.from_square, move.to_square
        white = board.turn
        mine = 8 if white else 0
        theirs = 8 - mine
        mg, eg, phase, key = self._mg, self._eg, self._phase, self._key
        self._stack.append((key, mg, eg, phase, self._start))
        piece = board.piece_type_at(source)
        assert piece is not None, f"make expects a legal move, got {move} in {board.fen()}"
        code = piece + mine
        mg -= MG[code][source]
        eg -= EG[code][source]
        key ^= PIECE_KEYS[code][source]
        promotion = move.promotion
        if promotion:
            code = promotion + mine
            phase += PHASE_WEIGHT[promotion]
        mg += MG[code][target]
        eg += EG[code][target]
        key ^= PIECE_KEYS[code][target]
        captured = board.piece_type_at(target)
        if captured:
            code = captured + theirs
            mg -= MG[code][target]
            eg -= EG[code][target]
            key ^= PIECE_KEYS[code][target]
            phase -= PHASE_WEIGHT[captured]
        elif piece == chess.PAWN and target == board.ep_square and (target - source) & 7:
            square = target - 8 if white else target + 8
            code = chess.PAWN + theirs
            mg -= MG[code][square]
            eg -= EG[code][square]
            key ^= PIECE_KEYS[code][square]
        elif piece == chess.KING and abs(target - source) == 2:
            rook_from, rook_to = (
                (source + 3, source + 1) if target > source else (source - 4, source - 1)
            )
            code = chess.ROOK + mine
            mg += MG[code][rook_to] - MG[code][rook_from]
            eg += EG[code][rook_to] - EG[code][rook_from]
            key ^= PIECE_KEYS[code][rook_to] ^ PIECE_KEYS[code][rook_from]
        rights = board.castling_rights
        key ^= ep_key(board)
        board.push(move)
        key ^= ep_key(board) ^ WHITE_TO_MOVE_KEY
        if rights != board.castling_rights:
            lost = rights ^ board.castling_rights
            for square, value in CASTLING_KEYS:
                if lost & _BB[square]:
                    key ^= value
        self._mg, self._eg, self._phase, self._key = mg, eg, phase, key
        if board.halfmove_clock == 0:
            self._start = len(self._keys)
        self._keys.append(key)

    def undo(self) -> None:
        self.board.pop()
        self._keys.pop()
        self._key, self._mg, self._eg, self._phase, self._start = self._stack.pop()

    def evaluate(self) -> Score:
        """Material and piece-square sums (kept by ``make``) plus the positional terms of
        :mod:`zerosum.games.chess_evaluation` (from the board), tapered by the phase, from the
        side to move, plus the tempo."""
        return self._tapered(self._mg, self._eg, self._phase)

    def compute_evaluation(self) -> Score:
        """:meth:`evaluate` with the sums added up from scratch."""
        return self._tapered(*self._sums())

    def _tapered(self, mg: int, eg: int, phase: int) -> Score:
        board = self.board
        extra_mg, extra_eg = positional_terms(board)
        phase = min(phase, FULL_PHASE)
        mg += extra_mg
        eg += extra_eg
        value = mg * phase + eg * (FULL_PHASE - phase)
        # Divided from the side to move, so that a position and its mirror score the same.
        return (value if board.turn else -value) // FULL_PHASE + TEMPO

    def key(self) -> int:
        return self._key

    def compute_key(self) -> int:
        return chess.polyglot.zobrist_hash(self.board)

    def copy(self) -> Self:
        other = object.__new__(type(self))
        other.board = self.board.copy()
        other._mg, other._eg, other._phase = self._mg, self._eg, self._phase
        other._key, other._start = self._key, self._start
        other._keys = list(self._keys)
        other._stack = list(self._stack)
        other._legal = other._fen = None
        return other

    # -- rules beyond the board -----------------------------------------------------------

    def repetitions(self) -> int:
        """How many times the current position has occurred since the last irreversible move,
        this time included (null moves count as irreversible)."""
        keys, key = self._keys, self._key
        count = 1
        for index in range(len(keys) - 3, self._start - 1, -2):
            if keys[index] == key:
                count += 1
        return count

    def recent_keys(self) -> list[int]:
        """The keys since the last irreversible move, the current position's last: what a
        repetition may look back to (the compiled board loads them)."""
        return self._keys[self._start :]

    def _draw_by_rule(self, repetitions: int) -> bool:
        board = self.board
        if board.halfmove_clock >= 100:
            return True
        if board.occupied.bit_count() <= 4 and board.is_insufficient_material():
            return True
        if len(self._keys) - self._start <= 4:
            return False
        return self.repetitions() >= repetitions

    # -- search capabilities (zerosum.search.tactical) ------------------------------------

    def drawn(self) -> bool:
        """A draw whatever follows: fifty moves, too little material, or a repetition."""
        return self._draw_by_rule(2)

    def in_check(self) -> bool:
        return self.board.is_check()

    def tactical_moves(self) -> list[Move]:
        """The legal captures and queen promotions, most valuable victim first and, among
        equal victims, least valuable attacker first (MVV-LVA), then by :func:`move_code`."""
        board = self.board
        theirs = board.occupied_co[not board.turn]
        piece_at = board.piece_type_at
        scored = []
        for move in board.generate_legal_moves(chess.BB_ALL, theirs):
            victim = piece_at(move.to_square) or 0
            attacker = piece_at(move.from_square) or 0
            order = victim * 8 - attacker + (40 if move.promotion == chess.QUEEN else 0)
            scored.append((order, move))
        ep = board.ep_square
        if ep is not None:
            for move in board.generate_legal_ep(board.pawns, _BB[ep]):
                scored.append((7, move))
        pawns = board.pawns & board.occupied_co[board.turn]
        pawns &= chess.BB_RANK_7 if board.turn else chess.BB_RANK_2
        if pawns:
            for move in board.generate_legal_moves(pawns, ~board.occupied):
                if move.promotion == chess.QUEEN:
                    scored.append((36, move))
        scored.sort(key=_mvv_lva_then_code)
        return [move for _, move in scored]

    def quiescence_moves(self, margin: int) -> list[Move]:
        """The tactical moves worth a look when the side to move must gain at least
        ``margin`` over its evaluation: captures of a piece worth at least ``margin`` (and
        queen promotions), except those whose exchange loses material
        (:meth:`loses_material`); MVV-LVA order, then by :func:`move_code`."""
        if margin > GAIN_CEILING:
            return []
        board = self.board
        turn = board.turn
        targets = 0
        for piece in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
            if MATERIAL_MG[piece] >= margin:
                targets |= board.pieces_mask(piece, not turn)
        piece_at = board.piece_type_at
        scored = []
        if targets:
            for move in board.generate_legal_moves(chess.BB_ALL, targets):
                if loses_material(board, move):
                    continue
                victim = piece_at(move.to_square) or 0
                attacker = piece_at(move.from_square) or 0
                order = victim * 8 - attacker + (40 if move.promotion == chess.QUEEN else 0)
                scored.append((order, move))
        pawns = (
            board.pawns & board.occupied_co[turn] & (chess.BB_RANK_7 if turn else chess.BB_RANK_2)
        )
        if pawns:
            for move in board.generate_legal_moves(pawns, ~board.occupied):
                if move.promotion == chess.QUEEN:
                    scored.append((36, move))
        scored.sort(key=_mvv_lva_then_code)
        return [move for _, move in scored]

    def loses_material(self, move: Move) -> bool:
        """Whether ``move`` (legal here) is a capture whose static exchange loses more than
        ``chess_exchange.SEE_TOLERANCE`` (:func:`zerosum.games.chess_exchange.loses_material`):
        quiescence leaves it out and the search tries it after the quiet moves."""
        return loses_material(self.board, move)

    def quiet_moves(self) -> list[Move]:
        """The legal moves that :meth:`tactical_moves` leaves out, by increasing
        :func:`move_code` (the compiled twin's tie-break: both twins search them in this
        order)."""
        board = self.board
        ep = board.ep_square
        pawns = board.pawns
        moves = []
        for move in board.generate_legal_moves(chess.BB_ALL, ~board.occupied_co[not board.turn]):
            if move.promotion == chess.QUEEN or (
                move.to_square == ep and _BB[move.from_square] & pawns
            ):
                continue
            moves.append(move)
        moves.sort(key=move_code)
        return moves

    def is_legal(self, move: Move) -> bool:
        return self.board.is_legal(move)

    def is_quiet(self, move: Move) -> bool:
        """Whether ``move`` (legal here) is one of :meth:`quiet_moves`."""
        board = self.board
        if move.promotion == chess.QUEEN:
            return False
        if _BB[move.to_square] & board.occupied:
            return False
        return not (move.to_square == board.ep_square and _BB[move.from_square] & board.pawns)

    def gives_check(self, move: Move) -> bool:
        """Whether the legal ``move`` checks the opponent, from bitboards without playing it
        (python-chess's ``Board.gives_check``, which plays it, is the test oracle)."""
        board = self.board
        source, target = move.from_square, move.to_square
        piece = board.piece_type_at(source)
        if piece is None or piece == chess.KING or move.promotion or target == board.ep_square:
            return board.gives_check(move)  # castling, promotions, en passant: rare
        turn = board.turn
        king_mask = board.kings & board.occupied_co[not turn]
        if not king_mask:
            return False
        king = king_mask.bit_length() - 1
        occupied = (board.occupied & ~_BB[source]) | _BB[target]
        # A direct check by the moved piece.
        if piece == chess.PAWN:
            if _PAWN_ATTACKS[turn][target] & king_mask:
                return True
        elif piece == chess.KNIGHT:
            if chess.BB_KNIGHT_ATTACKS[target] & king_mask:
                return True
        elif _slides_to(piece, target, king, occupied):
            return True
        # A discovered check by a slider behind the moved piece.
        ours = board.occupied_co[turn]
        for slider, sliders in (
            (chess.ROOK, board.rooks | board.queens),
            (chess.BISHOP, board.bishops | board.queens),
        ):
            for square in chess.scan_reversed(sliders & ours & ~_BB[source]):
                if _slides_to(slider, square, king, occupied):
                    return True
        return False

    def correction_key(self) -> int:
        """The pawns of both sides and the side to move as a key of the correction history
        (:func:`pawn_correction_key`)."""
        board = self.board
        pawns = board.pawns
        return pawn_correction_key(
            pawns & board.occupied_co[chess.WHITE],
            pawns & board.occupied_co[chess.BLACK],
            board.turn,
        )

    def move_key(self, move: Move) -> int:
        """The piece that makes ``move`` (its colour and type) and its target square, from 0
        to 767 (``MoveKeys``; the compiled board's twin is ``chess_search.move_key``)."""
        board = self.board
        piece = board.piece_type_at(move.from_square) or chess.PAWN
        return ((0 if board.turn else 6) + piece - 1) * 64 + move.to_square

    def null_move_allowed(self) -> bool:
        """Passing is a fair probe unless only king and pawns are left (zugzwang)."""
        board = self.board
        return bool(board.occupied_co[board.turn] & ~(board.pawns | board.kings))

    def make_null(self) -> None:
        """Pass the move (search only: never legal in chess)."""
        board = self.board
        key = self._key
        self._stack.append((key, self._mg, self._eg, self._phase, self._start))
        key ^= ep_key(board)
        board.push(_NULL)
        self._key = key ^ WHITE_TO_MOVE_KEY
        self._start = len(self._keys)
        self._keys.append(self._key)

    def undo_null(self) -> None:
        self.undo()

    # -- notation -------------------------------------------------------------------------

    def parse_move(self, text: str) -> Move:
        word = text.strip()
        board = self.board
        legal = self._legal_set()
        move: Move | None
        try:
            move = chess.Move.from_uci(word.lower())
        except ValueError:
            try:
                move = board.parse_san(word)
            except chess.AmbiguousMoveError:
                target = word.rstrip("+#")[-2:]
                piece = "pnbrqk".index(word[0].lower()) + 1 if word[0] in "NBRQK" else chess.PAWN
                candidates = sorted(
                    board.san(m)
                    for m in legal
                    if chess.square_name(m.to_square) == target
                    and board.piece_type_at(m.from_square) == piece
                )
                raise MoveError(
                    f"{word} is ambiguous in {board.fen()}: say which piece moves"
                    + (f" ({', '.join(candidates)})" if candidates else "")
                ) from None
            except chess.IllegalMoveError:
                move = chess.Move.null()  # well-formed but not legal here: reported below
            except ValueError:
                move = None
        if move is not None and (not move or move not in legal):
            raise MoveError(
                f"{word} is not legal in {board.fen()}: expected one of "
                f"{' '.join(sorted(m.uci() for m in legal)) or '(none)'}"
            )
        if move is None:
            raise MoveError(
                f"{text!r} is not a chess move: expected UCI notation (e2e4, e7e8q) or SAN (Nf3)"
            )
        if self._draw_by_rule(3):  # a legal move exists: only a rule can have ended the game
            raise MoveError(f"{word} cannot be played: the game is over (a draw)")
        return move

    def _legal_set(self) -> frozenset[Move]:
        """The legal moves as a set, for parse_move."""
        moves = self._legal_tuple()
        cached = self._legal
        assert cached is not None
        if cached[3] is None:
            cached = self._legal = (cached[0], cached[1], moves, frozenset(moves))
        assert cached[3] is not None
        return cached[3]

    def format_move(self, move: Move) -> str:
        return move.uci()

    def move_label(self, move: Move) -> str:
        """``move``, legal here, in SAN (``Nf3``, ``exd8=Q+``, ``O-O``, ``Qh5#``): the
        notation of :class:`~zerosum.capabilities.MoveLabels`; :meth:`parse_move` reads it."""
        return self.board.san(move)

    def position(self) -> str:
        board = self.board
        cached = self._fen
        if (
            cached is None
            or cached[0] != len(self._keys)
            or cached[1] != self._key
            or cached[2] != board.halfmove_clock
        ):
            cached = self._fen = (len(self._keys), self._key, board.halfmove_clock, board.fen())
        return cached[3]

    def render(self) -> str:
        board = self.board
        rows = []
        for rank in range(7, -1, -1):
            cells = []
            for file in range(8):
                piece = board.piece_at(chess.square(file, rank))
                cells.append(
                    "\u00b7" if piece is None else PIECE_SYMBOLS[piece.color, piece.piece_type]
                )
            rows.append(f" {rank + 1}  {' '.join(cells)}")
        rows.append("")
        rows.append("    a b c d e f g h")
        side = "White" if board.turn else "Black"
        rows.append(f"    {side} to move" + ("  (check)" if board.is_check() else ""))
        return "\n".join(rows)

    # -- display --------------------------------------------------------------------------

    def __repr__(self) -> str:
        """The expression that rebuilds the position, e.g. ``Chess(fen='8/8/...')`` (the
        history, and so the repetitions, are not kept)."""
        return f"Chess(fen={self.position()!r})"

    def _repr_svg_(self) -> str:
        """The board as SVG, drawn by python-chess as the web app draws it (Jupyter shows it)."""
        stack = self.board.move_stack
        last = stack[-1].uci() if stack and stack[-1] else None  # a null move marks nothing
        return draw_board("chess", BoardState("chess", self.position(), last_move=last))


def _slides_to(piece: int, square: int, king: int, occupied: int) -> bool:
    """Whether a rook, bishop or queen (``piece``) on ``square`` attacks ``king`` through
    ``occupied``."""
    same_line = (square & 7) == (king & 7) or (square >> 3) == (king >> 3)
    same_diagonal = abs((square & 7) - (king & 7)) == abs((square >> 3) - (king >> 3))
    if piece == chess.ROOK:
        aligned = same_line
    elif piece == chess.BISHOP:
        aligned = same_diagonal
    else:
        aligned = same_line or same_diagonal
    return aligned and not chess.between(square, king) & occupied


def move_code(move: Move) -> int:
    """The compiled board's code of ``move``: ``from | to << 6 | promotion << 12``. Among
    moves of equal order score both twins search the lowest code first, so that they visit
    the same tree (the pruning below alpha depends on the window, so on the order)."""
    return move.from_square | (move.to_square << 6) | ((move.promotion or 0) << 12)


def _mvv_lva_then_code(pair: tuple[int, Move]) -> tuple[int, int]:
    """Sort key: the highest MVV-LVA score first, then the lowest :func:`move_code`."""
    return -pair[0], move_code(pair[1])


if TYPE_CHECKING:  # mypy checks that Chess implements its capabilities with their types

    def _capabilities(
        game: Chess,
    ) -> tuple[
        Tactical[Move],
        QuiescenceMoves[Move],
        LosingCaptures[Move],
        Checks[Move],
        RuleDraws,
        NullMove,
        MoveLabels[Move],
        CorrectionKey,
        MoveKeys[Move],
    ]:
        return game, game, game, game, game, game, game, game, game
