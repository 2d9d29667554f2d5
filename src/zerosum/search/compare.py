"""The seeds' algorithms side by side on one position: what ``zerosum compare`` prints and the
web app draws.

Every registered algorithm runs with and without its memo or table, proving one best move and
all best moves, at each depth asked for. Rows come one at a time so a caller can show them as
they finish and stop early (``stop`` is polled inside every search).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from zerosum.game import Game, Score
from zerosum.search.core import Limit, Stats
from zerosum.search.display import compare_html
from zerosum.search.driver import ALGORITHMS, get_algorithm, search

M = TypeVar("M")


@dataclass(frozen=True)
class CompareRow(Generic[M]):
    """One algorithm's search of the position at one depth."""

    algorithm: str
    table: str
    """``none``, or the algorithm's table kind: ``memo`` or ``table``."""
    best: str
    """``one`` best move proven, or ``all`` of them."""
    depth: int
    value: Score
    best_moves: tuple[M, ...]
    stats: Stats
    complete: bool
    """False when ``stop`` ended the search before the depth was done."""


def compare(
    game: Game[M],
    depths: Iterable[int],
    *,
    algorithms: Iterable[str] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Iterator[CompareRow[M]]:
    """Search ``game`` with every algorithm (or those named), with and without its table, one
    and all best moves, at each of ``depths``; yields one row per search as it finishes.

    Stops after the first search that ``stop`` cut short (that row has ``complete=False``).
    """
    names = list(ALGORITHMS) if algorithms is None else list(algorithms)
    for depth in depths:
        for name in names:
            algorithm = get_algorithm(name)
            for table in (False, True):
                for all_best in (False, True):
                    result = search(
                        game,
                        algorithm=name,
                        limit=Limit(depth=depth, stop=stop),
                        table=table,
                        all_best=all_best,
                    )
                    yield CompareRow(
                        algorithm=name,
                        table=algorithm.table_kind if table else "none",
                        best="all" if all_best else "one",
                        depth=depth,
                        value=result.value,
                        best_moves=result.best_moves,
                        stats=result.stats,
                        complete=result.complete,
                    )
                    if not result.complete:
                        return


@dataclass(frozen=True)
class CompareTable(Generic[M]):
    """Rows of :func:`compare` (and any other :class:`CompareRow`, such as MCTS's) with their
    best moves in the game's notation: the table Jupyter shows."""

    title: str
    rows: tuple[CompareRow[M], ...]
    move_names: tuple[tuple[str, ...], ...]
    """Each row's best moves in the game's notation."""

    @classmethod
    def of(
        cls, game: Game[M], rows: Iterable[CompareRow[M]], *, title: str = ""
    ) -> CompareTable[M]:
        """The table of ``rows`` searched at ``game``'s position (which names their moves)."""
        kept = tuple(rows)
        names = tuple(tuple(game.format_move(move) for move in row.best_moves) for row in kept)
        return cls(title or f"{game.name} at {game.position()!r}", kept, names)

    def _repr_html_(self) -> str:
        """The rows as an HTML table (Jupyter shows it)."""
        return compare_html(self)


def compare_table(
    game: Game[M],
    depths: Iterable[int],
    *,
    algorithms: Iterable[str] | None = None,
    stop: Callable[[], bool] | None = None,
) -> CompareTable[M]:
    """Every row of :func:`compare` gathered in a :class:`CompareTable`."""
    rows = compare(game, depths, algorithms=algorithms, stop=stop)
    return CompareTable.of(game, rows)
