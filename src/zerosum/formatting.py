"""Values in words and search results as JSON dicts, shared by every front end.

The command line and the web app print the same words for the same value (``win in 3 plies``,
``loss in 1 ply``, ``draw``, ``+12``) and the same fields for the same search result, so both
take them from here. This module knows the protocol and the search's result types only: it
imports no front end and no engine, so any of them may import it without pulling in numba or
a web server. The compiled engine's exact results are formatted through :class:`ExactResult`,
a protocol its ``Exact`` satisfies, for the same reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from zerosum.capabilities import MoveLabels, names_depend_on_position
from zerosum.game import WIN, Game, Score, is_proven
from zerosum.games import GameSpec
from zerosum.search.core import SearchResult


def plies_to_end(value: Score) -> int:
    """The plies until the game ends under perfect play, for a proven ``value``
    (:func:`zerosum.game.is_proven`): a win ``n`` plies away scores ``WIN - n``."""
    return WIN - abs(value)


def describe(value: Score, *, solved: bool = False) -> str:
    """A value from the side to move in words: ``win in 3 plies``, ``loss in 1 ply``, ``draw``
    (a 0 that ``solved`` proves) or the heuristic number with its sign (``+12``, ``-5``, ``0``).
    """
    if is_proven(value):
        plies = plies_to_end(value)
        return f"{'win' if value > 0 else 'loss'} in {plies} {'ply' if plies == 1 else 'plies'}"
    if solved and value == 0:
        return "draw"
    return f"{value:+d}" if value else "0"


def move_names(game: Game[Any], moves: Iterable[Any]) -> list[str]:
    """``moves`` in ``game``'s notation (each formatted at ``game``'s current position)."""
    return [game.format_move(move) for move in moves]


def line_names(game: Game[Any], line: Iterable[Any]) -> list[str]:
    """The moves of ``line`` (a principal variation), played one after the other from
    ``game``'s position, each in the game's notation at the position where it is played
    (:func:`~zerosum.capabilities.names_depend_on_position`); ``game`` is left as it was. From
    the first move that is not legal where it stands, the rest are named where that one
    stands."""
    if not names_depend_on_position(game):
        return move_names(game, line)
    board = game.copy()
    names: list[str] = []
    moves = list(line)
    for index, move in enumerate(moves):
        if move not in board.legal_moves():
            return names + [board.format_move(rest) for rest in moves[index:]]
        names.append(board.format_move(move))
        board.make(move)
    return names


def move_label(game: Game[Any], move: Any) -> str:
    """``move`` (legal at ``game``'s position) as people read it: the game's
    :class:`~zerosum.capabilities.MoveLabels` notation (SAN in chess), else its own notation."""
    if isinstance(game, MoveLabels):
        return game.move_label(move)
    return game.format_move(move)


def move_labels(game: Game[Any], moves: Iterable[Any]) -> list[str]:
    """:func:`move_label` of each of ``moves``, each an alternative at ``game``'s position."""
    return [move_label(game, move) for move in moves]


def line_labels(game: Game[Any], line: Iterable[Any]) -> list[str]:
    """The moves of ``line``, played one after the other from ``game``'s position (a principal
    variation, a game's record), each labelled at the position where it is played; ``game``
    is left as it was. From the first move that is not legal where it stands (a line cut from
    a stale table), the rest keep the game's own notation, as nothing can label them."""
    if not isinstance(game, MoveLabels):
        return line_names(game, line)
    board = game.copy()
    labels: list[str] = []
    moves = list(line)
    for index, move in enumerate(moves):
        if move not in board.legal_moves():
            return labels + [board.format_move(rest) for rest in moves[index:]]
        labels.append(move_label(board, move))
        board.make(move)
    return labels


def numbered_line(labels: Sequence[str], *, first_side: int = 0, first_number: int = 1) -> str:
    """A line of move labels numbered by full moves, as game records print it:
    ``1. e4 e5 2. Nf3``; a line that starts with the second player's move starts ``1... e5``.

    >>> numbered_line(["e4", "e5", "Nf3"])
    '1. e4 e5 2. Nf3'
    >>> numbered_line(["e5", "Nf3"], first_side=1, first_number=7)
    '7... e5 8. Nf3'
    """
    words: list[str] = []
    number = first_number
    for index, label in enumerate(labels):
        side = (first_side + index) % 2
        if side == 0:
            words.append(f"{number}. {label}")
        elif index == 0:
            words.append(f"{number}... {label}")
        else:
            words.append(label)
        if side == 1:
            number += 1
    return " ".join(words)


def label_figures(game: Game[Any], result: SearchResult[Any]) -> dict[str, Any]:
    """The JSON fields that add people's notation to :func:`result_figures` for a game with
    :class:`~zerosum.capabilities.MoveLabels` (chess: ``best_move_san``, ``best_moves_san``,
    ``pv_san``); empty for a game whose one notation serves both."""
    if not isinstance(game, MoveLabels):
        return {}
    best = result.best_move
    return {
        "best_move_san": None if best is None else move_label(game, best),
        "best_moves_san": move_labels(game, result.best_moves),
        "pv_san": line_labels(game, result.pv),
    }


def result_figures(game: Game[Any], result: SearchResult[Any]) -> dict[str, Any]:
    """The JSON fields of one search ``result`` at ``game``'s position (the search's root):
    value, ``value_text`` (its words), solved, the best move(s) and principal variation in the
    game's notation (and in people's notation, :func:`label_figures`), depth, complete, then
    every counter of ``result.stats``; a solve's result once its value is proven adds what the
    proof cost (``proof_nodes``, ``proof_time_s``: as a deepening search proves it)."""
    best = result.best_move
    figures = {
        "value": result.value,
        "value_text": describe(result.value, solved=result.solved),
        "solved": result.solved,
        "best_move": None if best is None else game.format_move(best),
        "best_moves": move_names(game, result.best_moves),
        "pv": line_names(game, result.pv),
        **label_figures(game, result),
        "depth": result.depth,
        "complete": result.complete,
        **result.stats.as_dict(),
    }
    if result.proof_stats is not None:
        figures["proof_nodes"] = result.proof_stats.nodes
        figures["proof_time_s"] = round(result.proof_stats.time_s, 6)
    return figures


def result_data(
    spec: GameSpec, game: Game[Any], result: SearchResult[Any], algorithm: str
) -> dict[str, Any]:
    """The JSON object of a search ``result`` of ``algorithm`` at ``game``'s position: the
    game's name, the position and the algorithm, then :func:`result_figures`."""
    return {
        "game": spec.name,
        "position": game.position(),
        "algorithm": algorithm,
        **result_figures(game, result),
    }


class ExactResult(Protocol):
    """An exact result of the compiled engine, as far as its words need it."""

    @property
    def rank(self) -> int:
        """The game's own score; -1/0/1 after a weak solve."""

    @property
    def value(self) -> Score:
        """The same result as a search value (``WIN - n`` for a win in ``n`` plies)."""


def exact_text(exact: ExactResult, *, weak: bool) -> str:
    """An exact result as the CLI prints it: ``win``, ``draw`` or ``loss`` after a weak solve;
    else the game's score with the value in words (``+N (win in P plies)``), or ``0 (draw)``."""
    if weak:
        return {1: "win", 0: "draw", -1: "loss"}[exact.rank]
    return f"{exact.rank:+d} ({describe(exact.value, solved=True)})" if exact.rank else "0 (draw)"


def exact_value_text(exact: ExactResult, *, weak: bool) -> str:
    """``value_text`` of an exact result in JSON: the value in words (``draw``,
    ``win in 13 plies``), or only ``win``, ``draw`` or ``loss`` after a weak solve."""
    if weak:
        return exact_text(exact, weak=True)
    return describe(exact.value, solved=True)
