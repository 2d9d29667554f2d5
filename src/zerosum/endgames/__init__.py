"""Exact morris endgames: retrograde analysis of the positions with nothing in hand.

:mod:`.retro` solves the classes with 3..4 men a side in numba, :mod:`.reference` is its
plain-Python twin, :mod:`.database` keeps the tables in the embedded store and probes them,
and :mod:`.morris` answers for a morris game (exact results, best moves, the search's probe).
Importing this package imports neither numpy nor numba.
"""

from typing import Final

MAX_MEN: Final = 4
"""The largest class the databases hold: four men a side."""
