"""The compiled engine: a numba search specialised per game (see :mod:`.engine`).

Importing this package does not import numba, so front ends can name the compiled games and
check options without paying for it; :mod:`.solver` and the kernels import numba when used. A
game has a compiled engine when its :class:`~zerosum.games.GameSpec` names a kernel.
"""

from __future__ import annotations

from typing import Final

from zerosum.game import ZerosumError
from zerosum.games import GAMES, get_game

DEFAULT_HASH_MB: Final = 64
"""The default table size in MiB (16 bytes per entry)."""
MAX_HASH_MB: Final = 1 << 16


class NotCompiledError(ZerosumError, KeyError):
    """A game that has no compiled kernel."""

    def __str__(self) -> str:
        return str(self.args[0])


def kernel_games() -> list[str]:
    """The registered games whose spec names a compiled kernel."""
    return [name for name, spec in GAMES.items() if spec.kernel is not None]


def check_compiled(name: str) -> None:
    """Raise :class:`NotCompiledError` unless the game ``name`` has a compiled kernel."""
    if not has_kernel(name):
        known = ", ".join(sorted(kernel_games()))
        raise NotCompiledError(f"game {name!r} has no compiled engine: expected one of {known}")


def has_kernel(name: str) -> bool:
    """Whether the game ``name`` has a compiled kernel (a variant, ``morris:six``, shares its
    game's kernel)."""
    try:
        return get_game(name).kernel is not None
    except ZerosumError:
        return False
