"""Search values as HTML tables, for Jupyter: what ``Stats``, ``SearchResult`` and
``CompareTable`` show through their ``_repr_html_``.

Moves are shown in the game's notation when the value carries it (``SearchResult.notation``,
filled by :func:`zerosum.search` and :func:`zerosum.solve`, or by
:meth:`SearchResult.named <zerosum.search.core.SearchResult.named>`); otherwise as the engine
returned them. Every text is escaped (:mod:`zerosum.markup`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from zerosum.game import WIN, Score, is_proven
from zerosum.markup import MUTED, element, html_table

if TYPE_CHECKING:
    from zerosum.search.compare import CompareTable
    from zerosum.search.core import SearchResult, Stats


def value_words(value: Score, *, solved: bool = False) -> str:
    """A value from the side to move in words, as the command line prints it: ``win in 3
    plies``, ``loss in 1 ply``, ``draw`` (a 0 that ``solved`` proves) or ``+12``."""
    if is_proven(value):
        plies = WIN - abs(value)
        return f"{'win' if value > 0 else 'loss'} in {plies} {'ply' if plies == 1 else 'plies'}"
    if solved and value == 0:
        return "draw"
    return f"{value:+d}" if value else "0"


def _value_cell(value: Score, *, solved: bool) -> str:
    """The value with its words when they say more than the number."""
    if is_proven(value) or (solved and value == 0):
        return f"{value} ({value_words(value, solved=solved)})"
    return f"{value} (heuristic)" if not solved else str(value)


def stats_rows(stats: Stats) -> list[tuple[str, object]]:
    """The counters of a search as (name, value) rows."""
    return [
        ("nodes", stats.nodes),
        ("cutoffs", stats.cutoffs),
        ("table probes", stats.tt_probes),
        ("table hits", stats.tt_hits),
        ("table stores", stats.tt_stores),
        ("evaluations", stats.evaluations),
        ("time (s)", round(stats.time_s, 6)),
        ("nodes per second", round(stats.nps)),
    ]


def stats_html(stats: Stats) -> str:
    """The counters of one search as a two-column table."""
    return html_table(None, stats_rows(stats), caption="Search statistics")


def _names(moves: Iterable[Any], notation: Mapping[Any, str]) -> str:
    return " ".join(notation.get(move, str(move)) for move in moves) or "none"


def result_html(result: SearchResult[Any]) -> str:
    """A search result: value, best move(s), principal variation, depth, then the root moves'
    values when known, then the statistics."""
    notation = dict(result.notation)
    best = None if result.best_move is None else _names([result.best_move], notation)
    rows: list[tuple[str, object]] = [
        ("value", _value_cell(result.value, solved=result.solved)),
        ("solved", "yes: the exact game value" if result.solved else "no"),
        ("best move", best or "none (the game is over)"),
        ("best moves", _names(result.best_moves, notation)),
        (
            "principal variation",
            " ".join(result.pv_notation)
            if len(result.pv_notation) == len(result.pv) and result.pv
            else _names(result.pv, notation),
        ),
        ("depth", result.depth),
        ("complete", "yes" if result.complete else "no: a limit stopped the search"),
        *stats_rows(result.stats),
    ]
    parts = [html_table(None, rows, caption="Search result")]
    if result.move_values:
        values = [
            (_names([move], notation), value, value_words(value, solved=result.solved))
            for move, value in result.move_values
        ]
        headers = ["move", "value", "in words"]
        parts.append(html_table(headers, values, caption="Root moves", numeric=(False, True)))
    if not notation and result.best_move is not None:
        note = (
            "moves as the engine returns them: result.named(game) writes them in the game's "
            "notation"
        )
        parts.append(element("p", {"style": f"color: {MUTED}; font-size: 12px"}, text=note))
    return element("div", None, *parts)


COMPARE_HEADERS = (
    "algorithm",
    "table",
    "best",
    "depth",
    "value",
    "nodes",
    "cutoffs",
    "probes",
    "hits",
    "time s",
    "complete",
    "best moves",
)


def compare_html(table: CompareTable[Any]) -> str:
    """The teaching table: one row per search, as ``zerosum compare`` prints it."""
    rows = [
        (
            row.algorithm,
            row.table,
            row.best,
            row.depth,
            row.value,
            row.stats.nodes,
            row.stats.cutoffs,
            row.stats.tt_probes,
            row.stats.tt_hits,
            round(row.stats.time_s, 3),
            "yes" if row.complete else "no",
            " ".join(names),
        )
        for row, names in zip(table.rows, table.move_names, strict=True)
    ]
    numeric = [False, False, False, True, True, True, True, True, True, True, False, False]
    return html_table(COMPARE_HEADERS, rows, caption=table.title, numeric=numeric)
