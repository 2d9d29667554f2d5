"""The compiled engine: a numba search specialised per game (see :mod:`.engine`).

Importing this package does not import numba, so front ends can name the compiled games and
check options without paying for it; :mod:`.solver` and the kernels import numba when used.
"""

from __future__ import annotations

from typing import Final

from zerosum.game import ZerosumError

KERNEL_GAMES: Final = ("connect4", "tictactoe", "morris")
"""The registered games with a compiled kernel (:data:`.solver.COMPILED` has one entry each)."""
DEFAULT_HASH_MB: Final = 64
"""The default table size in MiB (16 bytes per entry)."""
MAX_HASH_MB: Final = 1 << 16


class NotCompiledError(ZerosumError, KeyError):
    """A game that has no compiled kernel."""

    def __str__(self) -> str:
        return str(self.args[0])


def check_compiled(name: str) -> None:
    """Raise :class:`NotCompiledError` unless the game ``name`` has a compiled kernel."""
    if not has_kernel(name):
        known = ", ".join(sorted(KERNEL_GAMES))
        raise NotCompiledError(f"game {name!r} has no compiled engine: expected one of {known}")


def has_kernel(name: str) -> bool:
    """Whether the game ``name`` has a compiled kernel (a variant, ``morris:six``, shares its
    game's kernel)."""
    return name.partition(":")[0] in KERNEL_GAMES
