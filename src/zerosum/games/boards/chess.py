"""The chess board, drawn by python-chess (``chess.svg``): the last move's squares marked, the
king in check shaded red, the coordinates around."""

from __future__ import annotations

from typing import Final

import chess
import chess.svg

SIZE: Final = 400


def draw(position: str, *, last: str | None = None) -> str:
    """The board of the FEN ``position`` (the move counters may be left out), with ``last`` (a
    UCI move such as ``e2e4``) marked."""
    fields = position.split()
    if len(fields) == 4:
        fields += ["0", "1"]
    board = chess.Board(" ".join(fields))
    check = board.king(board.turn) if board.is_check() else None
    lastmove = chess.Move.from_uci(last) if last else None
    return chess.svg.board(board, lastmove=lastmove, check=check, size=SIZE)
