"""``python -m zerosum.compiled [--background] GAME [PART ...]``: compile parts of a game's
compiled code into numba's disk cache and mark them cached (:func:`zerosum.compiled.warm.main`)."""

from __future__ import annotations

import sys

from zerosum.compiled.warm import main

if __name__ == "__main__":
    sys.exit(main())
