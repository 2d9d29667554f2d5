"""Solving a set of positions: a test-set file in, every position's exact score out.

The file format is that of Pascal Pons's connect four test sets (``tests/data/connect4``):
one position a line, ``POSITION [SCORE]``, the position in the game's own format (connect four:
the columns played from the empty board, ``4453``) and optionally its known exact score for the
side to move, which the results are checked against. Blank lines and lines starting with ``#``
are skipped. The positions are solved by :meth:`zerosum.compiled.solver.Solver.solve_many`:
with workers, each worker solves whole positions, which is how a set of small solves gains
from several cores.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zerosum.game import Game, ZerosumError
from zerosum.games import GameSpec
from zerosum.search.core import Limit
from zerosum.textfile import TextFileError, read_lines

if TYPE_CHECKING:
    from zerosum.compiled.solver import Exact, Solver


class PositionsError(ZerosumError, ValueError):
    """A positions file that cannot be read or has a bad line."""


MAX_LINE_CHARS = 1_000
"""The longest line of a positions file (a position and its score)."""


@dataclass(frozen=True)
class Entry:
    """One position of a positions file."""

    line: int
    """Its line number in the file, from 1."""
    position: str
    """As written in the file."""
    expected: int | None
    """The score the file gives, if any."""
    game: Game[Any]


def read_positions(path: str | Path, spec: GameSpec) -> list[Entry]:
    """Every position of the file at ``path`` for the game ``spec``; raises
    :class:`PositionsError` naming the file, the line and what was wrong."""
    found = []
    try:
        for number, line in read_lines(path, what="positions file", max_chars=MAX_LINE_CHARS):
            entry = _entry(path, number, line, spec)
            if entry is not None:
                found.append(entry)
    except TextFileError as error:
        raise PositionsError(str(error)) from None
    if not found:
        raise PositionsError(f"no positions in {path}: expected lines 'POSITION [SCORE]'")
    return found


def _entry(path: str | Path, number: int, line: str, spec: GameSpec) -> Entry | None:
    """The position of line ``number``, or None for a blank line or a comment."""
    fields = line.split()
    if not fields or fields[0].startswith("#"):
        return None
    where = f"{path} line {number}"
    if len(fields) > 2:
        shown = line.strip() if len(line.strip()) <= 60 else line.strip()[:60] + "..."
        raise PositionsError(
            f"{where}: {shown!r} has {len(fields)} fields: expected "
            "'POSITION [SCORE]', e.g. '4453 -2'"
        )
    expected = None
    if len(fields) == 2:
        try:
            expected = int(fields[1])
        except ValueError:
            raise PositionsError(
                f"{where}: the score {fields[1]!r} is not a whole number: expected "
                "'POSITION [SCORE]', e.g. '4453 -2'"
            ) from None
    try:
        game = spec.from_position(fields[0])
    except ZerosumError as error:
        raise PositionsError(f"{where}: {error}") from None
    return Entry(number, fields[0], expected, game)


def expected_rank(entry: Entry, *, weak: bool) -> int | None:
    """The rank the file gives for ``entry``, as a (``weak``: win/draw/loss) solve gives it."""
    if entry.expected is None or not weak:
        return entry.expected
    return (entry.expected > 0) - (entry.expected < 0)


def load(solver: Solver, entry: Entry) -> None:
    """Load the compiled solve in this process (the workers load theirs when they start), so
    that the first position's time is its own: a solve in an empty window decides nothing."""
    if entry.game.outcome() is None:
        solver.engine.solve(solver.state(entry.game), window=(0, 0))


def solve_positions(
    solver: Solver, entries: list[Entry], *, weak: bool = False, limit: Limit | None = None
) -> Generator[tuple[Entry, Exact], None, None]:
    """Each entry with its exact result, in the file's order, as soon as it is known. A limit
    that stops the batch ends the iteration after the first unsolved entry (incomplete)."""
    games = [entry.game for entry in entries]
    results = solver.solve_many(games, weak=weak, limit=limit)
    try:
        yield from zip(entries, results, strict=False)  # the results may end early
    finally:
        results.close()
