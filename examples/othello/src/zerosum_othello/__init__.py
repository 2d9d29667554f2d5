"""Othello as a zerosum game plugin: the worked example of the "adding a game" guide.

zerosum finds the game through the entry point ``othello = "zerosum_othello:spec"`` of the group
``zerosum.games`` (see this package's ``pyproject.toml``): :data:`spec` is the 6x6 game, and its
``options`` give the variants ``othello:4`` (small enough to solve exactly) and ``othello:8``
(the standard board).
"""

from __future__ import annotations

from functools import cache, partial

from zerosum.game import ZerosumError
from zerosum.games import GameSpec
from zerosum_othello.othello import PASS, SIZES, Othello

__all__ = ["PASS", "SIZES", "Othello", "make_spec", "options", "spec"]

DEFAULT_SIZE = 6


def options(text: str) -> GameSpec:
    """The spec named by the options after ``othello:``: the board size ``4``, ``6`` or ``8``.

    Raises :class:`ZerosumError` naming the bad option and the sizes on offer.
    """
    word = text.strip()
    if not word.isdigit() or int(word) not in SIZES:
        sizes = ", ".join(map(str, SIZES))
        raise ZerosumError(f"othello option {text!r} is not a board size: expected one of {sizes}")
    return make_spec(int(word))


@cache
def make_spec(size: int = DEFAULT_SIZE) -> GameSpec:
    """The spec of Othello on a ``size`` x ``size`` board (one object per size)."""
    name = Othello(size).name
    example = Othello(size).position()
    return GameSpec(
        name=name,
        title=f"Othello {size}x{size}",
        new=partial(Othello, size),
        from_position=partial(Othello.from_position, size=size),
        position_format=(
            f"{size} rows from the top of x/o/. separated by '/', then the side to move x or o, "
            f"e.g. '{example}'"
        ),
        sides=("Black", "White"),
        # 4x4 is solved in about a second: its top level plays perfectly.
        levels=(1, 2, 4, 0) if size == 4 else (1, 2, 4, 6),
        default_level=2,
        options=options,
        variants=("othello:4", "othello:8") if size == DEFAULT_SIZE else (),
        # The compiled engine (zerosum_othello.compiled), every size.
        kernel=f"zerosum_othello.compiled:GAME_{size}",
    )


spec = make_spec(DEFAULT_SIZE)
"""The entry point's object: Othello 6x6, with the variants ``othello:4`` and ``othello:8``."""
