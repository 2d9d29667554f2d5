"""Game-tree search: the seeds' algorithms behind one driver (see ``driver``).

The package is also callable: ``zerosum.search(game, ...)`` is the library's search,
:func:`zerosum.engines.search` (which picks an engine, compiled ones included). Binding that
function over the package's name in ``zerosum`` broke ``import zerosum.search.perft as perft``
(which reads the attribute) and everything that walks dotted names from ``zerosum``; calling the
package keeps both spellings. The engines sit above this package, so the function is looked up
when the package is called, never imported here.
"""

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from zerosum.search.core import Limit, LimitError, SearchResult, Stats
from zerosum.search.driver import (
    ALGORITHMS,
    Algorithm,
    Mode,
    UnknownAlgorithmError,
    get_algorithm,
    iterate,
    search,
    solve,
)
from zerosum.search.table import Bound, TranspositionTable

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "Bound",
    "Limit",
    "LimitError",
    "Mode",
    "SearchResult",
    "Stats",
    "TranspositionTable",
    "UnknownAlgorithmError",
    "get_algorithm",
    "iterate",
    "search",
    "solve",
]


class _CallablePackage(types.ModuleType):
    """The package :mod:`zerosum.search`, which is also ``zerosum.search(game, ...)``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return importlib.import_module("zerosum.engines").search(*args, **kwargs)

    @property
    def __wrapped__(self) -> Any:  # inspect.signature(zerosum.search) is the function's
        return importlib.import_module("zerosum.engines").search


if not TYPE_CHECKING:
    sys.modules[__name__].__class__ = _CallablePackage
