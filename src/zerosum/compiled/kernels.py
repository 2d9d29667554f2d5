"""How a registered game maps onto its compiled kernel, found through its :class:`GameSpec`.

A game's spec names its mapping (``kernel="zerosum.compiled.connect4:GAME"``); this module
loads it. Importing this module does not import numba; loading a mapping imports the kernel's
module, which does.

**The kernel contract.** A kernel's move codes *are* the game's moves: every code that
``moves(st, out)`` writes is a move of the game's ``legal_moves()`` at the same position (an
int equal to it), ``legal(st, out)`` (when the kernel has it) writes all of them in the same
order, and every code is below :data:`MAX_MOVE_CODE` (a table entry keeps 16 bits of a move).
:func:`check_contract` checks it at the start position when an engine loads the kernel, and
the engines raise :class:`KernelContractError` for a best move that is not legal, instead of
playing another one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from zerosum.compiled import NotCompiledError, check_compiled
from zerosum.game import Game, ProtocolError, Score, ZerosumError
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


MAX_MOVE_CODE: Final = 1 << 16
"""Move codes stay below this: the compiled table keeps 16 bits of a move."""


class KernelContractError(ProtocolError):
    """A kernel whose move codes are not its game's moves (see the module docstring)."""


def check_move_codes(name: str, game: Game[Any], codes: list[int], *, every: bool) -> None:
    """Raise :class:`KernelContractError` unless each of ``codes`` (what the kernel of game
    ``name`` wrote at ``game``'s position) is a legal move of ``game`` below
    :data:`MAX_MOVE_CODE`; with ``every``, unless they are all of them, in the game's order."""
    legal = game.legal_moves()

    def broken(what: str) -> KernelContractError:
        where = f"the kernel of {name!r} at position {game.position()!r}"
        return KernelContractError(f"{where} {what}")

    for code in codes:
        if not 0 <= code < MAX_MOVE_CODE:
            raise broken(f"writes move code {code}: expected codes 0..{MAX_MOVE_CODE - 1}")
        if code not in legal:
            raise broken(
                f"writes move code {code}, which is not one of the game's legal moves "
                f"{legal!r}: a kernel's move codes must equal the game's moves"
            )
    if every and list(codes) != list(legal):
        raise broken(
            f"writes {list(codes)!r} in legal(), expected the game's legal moves {legal!r} "
            "in the same order"
        )


def check_contract(name: str, mapping: CompiledGame, game: Game[Any]) -> None:
    """Check the kernel contract of ``mapping`` (game ``name``) at ``game``'s position, which
    is not over: its ``moves`` and ``legal`` against the game's legal moves."""
    import numpy as np  # a loaded kernel has imported it already

    kernel = mapping.kernel
    state = np.zeros(kernel.state_size, np.int64)
    fields = mapping.state(game)
    state[: len(fields)] = fields
    out = np.zeros(max(kernel.max_moves, 1), np.int64)
    count = int(kernel.moves(state, out))
    check_move_codes(name, game, [int(code) for code in out[:count]], every=False)
    if kernel.legal is not None:
        count = int(kernel.legal(state, out))
        check_move_codes(name, game, [int(code) for code in out[:count]], every=True)


__all__ = [
    "MAX_MOVE_CODE",
    "CompiledGame",
    "KernelContractError",
    "NotCompiledError",
    "check_contract",
    "check_move_codes",
    "compiled_game",
]
