"""Ctrl-C while the ``zerosum`` program starts or ends, outside its command's own handling.

The program's command (:func:`zerosum.cli.main`) turns a Ctrl-C into ``zerosum: interrupted``
and exit status 130, or into the command's own early stop. Before it runs, though, the
program imports its modules (a second or more on a loaded machine), and after it the
interpreter flushes and exits: a Ctrl-C there raised :class:`KeyboardInterrupt` wherever
Python happened to be, and the user saw an import's traceback.

:func:`hold` is the first thing the program does (``python -m zerosum`` and the console script
both start in :mod:`zerosum.__main__`, whose package imports nothing: see :mod:`zerosum`): a
Ctrl-C then ends the process at once, saying ``zerosum: interrupted`` with status 130 (nothing
has started that would need stopping). :func:`release` gives Ctrl-C back to Python as the
command begins, and the program holds it again once the command has returned.

This module imports only the standard library's ``os`` and ``signal`` (typing only for
the type checker): it loads before anything slow.
"""

from __future__ import annotations

import os
import signal

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start-up
if TYPE_CHECKING:
    from types import FrameType
    from typing import Final, NoReturn

INTERRUPTED: Final = 130
"""The exit status after Ctrl-C (128 + SIGINT, as a shell reports it)."""


def _interrupted(signum: int, frame: FrameType | None) -> NoReturn:
    """The held SIGINT's handler: one line, status 130, no traceback and no clean-up."""
    os.write(2, b"zerosum: interrupted\n")
    os._exit(INTERRUPTED)


def hold() -> None:
    """Ctrl-C ends the process at once with ``zerosum: interrupted`` and status 130, until
    :func:`release`. A SIGINT that is ignored (a job started in the background of a shell
    without job control) stays ignored, as do other handlers someone installed."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted)


def release() -> None:
    """Ctrl-C raises :class:`KeyboardInterrupt` again (Python's own handling), if
    :func:`hold` held it; otherwise nothing changes."""
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)
