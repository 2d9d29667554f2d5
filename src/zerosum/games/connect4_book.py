"""Connect four's opening book: exact scores of opening positions, shipped with zerosum.

The book maps a position's symmetry-canonical key (:func:`canonical_key`: a position and its
left-right mirror image share one key) to its exact score in Pascal Pons's convention for the
side to move (:func:`zerosum.games.connect4.pons_score`). It holds only positions that are not
over. ``plies`` says how deep it is complete: every position of at most that many stones is in
it. It may hold some deeper positions too; a position missing from the book is left to the
solver.

The file (``data/connect4_book.bin``) is small and read once, without numba: an 8-byte magic,
the version, ``plies`` and the entry count (little-endian), then the sorted 64-bit keys, then
one signed byte of score per key. ``benchmarks/connect4_book.py`` writes it from a store that
``zerosum book`` filled, and checks it against the game's rules first.

Reading it costs a dictionary lookup per position, so a solver asks it before any search
(:meth:`OpeningBook.score`), and a perfect player asks it for every move's score at once
(:meth:`OpeningBook.move_scores`) or, where it holds only some, for the best moves it knows
(:meth:`OpeningBook.best_moves`).
"""

from __future__ import annotations

import functools
import struct
from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

from zerosum.game import Game, Outcome, ZerosumError
from zerosum.games.connect4 import CELLS, STRIDE, WIDTH, Column, Connect4

MAGIC: Final = b"ZSC4BOOK"
VERSION: Final = 1
HEADER: Final = struct.Struct("<8sHhI")
"""Magic, version, complete plies (-1: not even the empty board), entry count."""
BOOK_FILE: Final = "connect4_book.bin"
"""The shipped book's name in :mod:`zerosum.games.data`."""
MAX_SCORE: Final = (CELLS + 1) // 2 - 2
"""The largest Pons score of a position that is not over (a win with the fourth stone)."""


class BookError(ZerosumError, ValueError):
    """A book file that cannot be read, or book contents that break the game's rules."""


def _mirror(bits: int) -> int:
    column = (1 << STRIDE) - 1
    mirrored = 0
    for index in range(WIDTH):
        mirrored |= (bits >> index * STRIDE & column) << (WIDTH - 1 - index) * STRIDE
    return mirrored


def canonical_key(game: Game[Any]) -> int:
    """One key for a connect four position and its mirror image: the smaller of
    ``current + mask`` (Pons's key: the side to move's stones plus every stone, which tells
    every position apart) over the position and its mirror. The same key as the compiled
    engine's store keys (:func:`zerosum.compiled.connect4.canonical_key`)."""
    if not isinstance(game, Connect4):
        raise TypeError(f"expected a connect four position, got {type(game).__name__}")
    x, o = game.stones()
    current = x if game.side_to_move() == 0 else o
    mask = x | o
    return min(current + mask, _mirror(current) + _mirror(mask))


def _won_score(ply: int) -> int:
    """The Pons score of the player who just won with the ``ply``-th stone of the game."""
    return (CELLS + 2 - ply) // 2


@dataclass(frozen=True)
class OpeningBook:
    """Exact scores by canonical key (see the module's header)."""

    plies: int
    """Every position with at most this many stones (and not over) is in the book (-1 when
    the empty board is missing: a book of scattered positions)."""
    scores: Mapping[int, int] = field(repr=False)
    """Pons score for the side to move, by :func:`canonical_key`."""

    def __len__(self) -> int:
        return len(self.scores)

    def score(self, game: Game[Any]) -> int | None:
        """The exact Pons score of ``game`` for the side to move, or ``None`` when the book
        does not hold it (a position that is over is never in the book)."""
        if game.ply() > self.deepest:  # past the book: no key to compute
            return None
        return self.scores.get(canonical_key(game))

    @functools.cached_property
    def deepest(self) -> int:
        """The most stones of a position in the book (-1 for an empty book)."""
        return max((_stones(key) for key in self.scores), default=-1)

    def move_scores(self, game: Game[Any]) -> list[tuple[Column, int]] | None:
        """Every legal move of ``game`` with its exact Pons score for the side to move, or
        ``None`` unless the book knows them all (a move that ends the game scores itself)."""
        if game.outcome() is not None:
            return None
        scored: list[tuple[Column, int]] = []
        for move in game.legal_moves():
            game.make(move)
            try:
                outcome = game.outcome()
                if outcome is not None:  # the mover won, or filled the board (a draw)
                    score = _won_score(game.ply()) if outcome == Outcome.LOSS else 0
                else:
                    child = self.score(game)
                    if child is None:
                        return None
                    score = -child
            finally:
                game.undo()
            scored.append((move, score))
        return scored

    def best_moves(self, game: Game[Any]) -> list[Column]:
        """The moves of ``game`` that the book shows to keep its score: those whose position
        the book scores (or that end the game) with the negated score of ``game``. Every best
        move when the book knows every move's score; else possibly only some (``zerosum book``
        proves one best move of each position it solves); none when the book does not score
        ``game``."""
        score = self.score(game)
        if score is None or game.outcome() is not None:
            return []
        best: list[Column] = []
        for move in game.legal_moves():
            game.make(move)
            try:
                outcome = game.outcome()
                if outcome is not None:  # the mover won, or filled the board (a draw)
                    mine: int | None = _won_score(game.ply()) if outcome == Outcome.LOSS else 0
                else:
                    child = self.score(game)
                    mine = None if child is None else -child
            finally:
                game.undo()
            if mine == score:
                best.append(move)
        return best

    def entries(self) -> Iterator[tuple[int, int]]:
        """``(key, score)`` in key order."""
        for key in sorted(self.scores):
            yield key, self.scores[key]


def _stones(key: int) -> int:
    """The stones on the board of the position with ``key`` (``current + mask``): a column
    ``h`` stones high holds ``2**h - 1`` plus its side-to-move stones, a number in
    ``2**h - 1 .. 2**(h + 1) - 2``, so one more than it has ``h + 1`` bits."""
    total = 0
    column = (1 << STRIDE) - 1
    for index in range(WIDTH):
        total += ((key >> index * STRIDE & column) + 1).bit_length() - 1
    return total


def read_book(path: str | Path) -> OpeningBook:
    """The book in the file at ``path``; :class:`BookError` if it is not a book file."""
    data = Path(path).read_bytes()
    return parse_book(data, str(path))


def parse_book(data: bytes, name: str = "the book") -> OpeningBook:
    """The book in ``data`` (the file format of the module's header)."""
    if len(data) < HEADER.size:
        raise BookError(f"{name} is too short to be a connect four book")
    magic, version, plies, count = HEADER.unpack_from(data)
    if magic != MAGIC or version != VERSION:
        raise BookError(
            f"{name} is not a connect four book of version {VERSION} (magic {magic!r}, "
            f"version {version})"
        )
    if len(data) != HEADER.size + 9 * count:
        raise BookError(
            f"{name} should hold {count} entries: expected {HEADER.size + 9 * count} bytes"
        )
    keys = array("Q")
    keys.frombytes(data[HEADER.size : HEADER.size + 8 * count])
    if keys.itemsize != 8:
        raise BookError("this platform has no 64-bit unsigned array type")
    if struct.pack("<H", 1) != struct.pack("=H", 1):
        keys.byteswap()
    scores = array("b")
    scores.frombytes(data[HEADER.size + 8 * count :])
    return OpeningBook(plies, dict(zip(keys, scores, strict=True)))


def write_book(path: str | Path, book: OpeningBook) -> int:
    """Write ``book`` to ``path`` (the format of the module's header); returns its size."""
    keys = array("Q", sorted(book.scores))
    scores = array("b", (book.scores[key] for key in keys))
    if struct.pack("<H", 1) != struct.pack("=H", 1):
        keys.byteswap()
    data = HEADER.pack(MAGIC, VERSION, book.plies, len(keys)) + keys.tobytes() + scores.tobytes()
    Path(path).write_bytes(data)
    return len(data)


def check_book(book: OpeningBook, *, walk: int = 6) -> None:
    """Raise :class:`BookError` unless every key is canonical, every score is possible, every
    position up to ``plies`` is present, and every position whose moves the book knows has the
    best of their scores (negamax), which ties the book together. The last two are checked on
    every position of at most ``walk`` plies (and of at most the book's deepest entry's): a
    second for a book of five plies; the number of positions grows about fourfold a ply."""
    for key, score in book.scores.items():
        if abs(score) > MAX_SCORE:
            raise BookError(
                f"key {key}: score {score} is out of range: expected |score| <= {MAX_SCORE}"
            )
        if _mirror(key) < key:  # ``current + mask`` mirrors column by column (no carry)
            raise BookError(f"key {key} is not canonical: its mirror image's key is smaller")
    deepest = book.deepest
    layer = [Connect4()]
    for ply in range(max(min(deepest, walk), book.plies) + 1):
        following: dict[int, Connect4] = {}
        for game in layer:
            name = game.position() or "(start)"
            known = book.scores.get(canonical_key(game))
            if known is None and ply <= book.plies:
                raise BookError(
                    f"position {name} is missing: expected every position of at most "
                    f"{book.plies} plies"
                )
            scored = book.move_scores(game)
            if known is not None and scored is not None:
                best = max(s for _, s in scored)
                if best != known:
                    raise BookError(
                        f"position {name} scores {known}, the best of its moves {best}: "
                        "expected them to agree"
                    )
            for move in game.legal_moves():
                child = game.copy()
                child.make(move)
                if child.outcome() is None:
                    following.setdefault(canonical_key(child), child)
        layer = list(following.values())


@functools.cache
def opening_book() -> OpeningBook | None:
    """The book shipped with zerosum, read once; ``None`` if the package lacks it."""
    try:
        data = resources.files("zerosum.games.data").joinpath(BOOK_FILE).read_bytes()
    except (FileNotFoundError, ModuleNotFoundError):
        return None
    return parse_book(data, BOOK_FILE)


def book_for(game: str) -> OpeningBook | None:
    """The opening book of the registered game named ``game``, if zerosum ships one."""
    return opening_book() if game == Connect4.name else None
