"""``python -m zerosum`` and the ``zerosum`` console script: the command line.

Ctrl-C is held (:func:`zerosum.startup.hold`) as this module loads, before the command line's
modules do: the package ``zerosum`` imports none of its modules, so from here on a Ctrl-C
during the start-up ends the program with ``zerosum: interrupted`` (status 130), never an
import's traceback. Importing this module is starting the program (the console script imports
it, then calls :func:`program`).
"""

from __future__ import annotations

from zerosum.startup import hold

hold()

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start-up
if TYPE_CHECKING:
    from typing import NoReturn


def program() -> NoReturn:
    """The ``zerosum`` program: :func:`zerosum.cli.program`, Ctrl-C held until its command
    begins."""
    hold()  # already, unless someone released it since this module loaded
    from zerosum.cli import program as run

    run()


if __name__ == "__main__":
    program()
