"""How a registered game maps onto its compiled kernel, found through its :class:`GameSpec`.

A game's spec names its mapping (``kernel="zerosum.compiled.connect4:GAME"``); this module
loads it. Importing this module does not import numba; loading a mapping imports the kernel's
module, which does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zerosum.compiled import NotCompiledError, check_compiled
from zerosum.game import Game, Score, ZerosumError
from zerosum.games import get_game, resolve

if TYPE_CHECKING:  # the kernel type lives beside numba's search
    from zerosum.compiled.engine import Kernel


@dataclass(frozen=True)
class CompiledGame:
    """How a registered game maps onto its kernel."""

    kernel: Kernel
    state: Callable[[Game[Any]], list[int]]
    """The kernel's state fields for a position."""
    value: Callable[[int, int], Score]
    """A rank at a root with the given ply, as a search value (``WIN - plies to the end``)."""
    canonical_key: Callable[[Game[Any]], int]
    """A key shared by a position and its symmetric twins, for the store."""
    exact: bool = True
    """Whether exact solves may run: a game whose play can go on for ever (morris) is only
    searched to a depth, as the kernel's stack holds ``max_ply`` plies."""


def compiled_game(name: str) -> CompiledGame:
    """The kernel mapping of game ``name``; raises :class:`NotCompiledError` if it has none."""
    check_compiled(name)
    reference = get_game(name).kernel
    assert reference is not None  # checked above
    mapping = resolve(reference)
    if not isinstance(mapping, CompiledGame):
        raise ZerosumError(
            f"the kernel of {name!r} ({reference}) is a {type(mapping).__name__}: expected a "
            "zerosum.compiled.kernels.CompiledGame"
        )
    return mapping


__all__ = ["CompiledGame", "NotCompiledError", "compiled_game"]
