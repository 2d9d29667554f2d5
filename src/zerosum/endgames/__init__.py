"""Exact morris endgames: retrograde analysis of the positions with nothing in hand.

:mod:`.reduced` solves the classes with 3..6 men a side in numba, one entry a position up to
the board's symmetries (:mod:`.orbits`); :mod:`.retro` is the same solve on full tables (its
twin), :mod:`.reference` the plain-Python twin of both on small boards; :mod:`.tiers` builds
the classes in dependency order on an executor; :mod:`.database` keeps the tables in the
embedded store and probes them,
:mod:`.probe` is the search's probe that the game asks at every node, :mod:`.mapped` lays
every stored class out in one memory-mapped array for the compiled engine's probe, and
:mod:`.split_levels` runs the level passes of a large tier in parts. Importing this package (or
:mod:`.probe`) imports neither numpy nor numba.
"""

from typing import Final

MAX_MEN: Final = 6
"""The largest class the databases hold: six men a side."""
DEFAULT_MEN: Final = 4
"""What a build makes unless told otherwise (under a minute), and the largest class ``solve``
builds on first use (through 6-6 is about 7 CPU minutes: ``build-endgames --max-men 6``)."""

ENV_STORE: Final = "ZEROSUM_ENDGAMES"
"""The environment variable naming the store file (see :mod:`zerosum.endgames.database`)."""
