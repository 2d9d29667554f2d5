"""Game-tree search: the seeds' algorithms behind one driver (see ``driver``)."""

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
