"""``python -m zerosum``: the command line."""

import sys

from zerosum.cli import main

sys.exit(main())
