"""Exact morris endgames: retrograde analysis of the positions with nothing in hand.

:mod:`.retro` solves the classes with 3..4 men a side in numba, :mod:`.reference` is its
plain-Python twin, :mod:`.database` keeps the tables in the embedded store and probes them,
:mod:`.probe` is the search's probe that the game asks at every node, and :mod:`.morris`
answers for a morris game (exact results, best moves). Importing this package (or
:mod:`.probe`) imports neither numpy nor numba.
"""

from typing import Final

MAX_MEN: Final = 4
"""The largest class the databases hold: four men a side."""

ENV_STORE: Final = "ZEROSUM_ENDGAMES"
"""The environment variable naming the store file (see :mod:`zerosum.endgames.database`)."""
