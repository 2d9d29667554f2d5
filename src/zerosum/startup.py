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
command begins. Once the command has returned, :func:`hold_while_ending` notes a Ctrl-C
instead, so that the clean-up still runs (Ray's shutdown, the workers' ends), and the program
then says ``zerosum: interrupted`` and exits 130 (:func:`interrupted_while_ending`); a second
Ctrl-C ends it at once.

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


_ending: list[int] = []
"""The Ctrl-Cs noted since :func:`hold_while_ending`."""


def _noted(signum: int, frame: FrameType | None) -> None:
    """SIGINT's handler while the program ends: the first is noted, the second ends it."""
    _ending.append(signum)
    if len(_ending) > 1:
        _interrupted(signum, frame)


def hold_while_ending() -> None:
    """While the program ends (its command has returned): a Ctrl-C is noted and the clean-up
    goes on (:func:`interrupted_while_ending`); a second one ends the process as :func:`hold`
    does. An ignored SIGINT stays ignored."""
    if signal.getsignal(signal.SIGINT) in (signal.default_int_handler, _interrupted):
        signal.signal(signal.SIGINT, _noted)


def interrupted_while_ending() -> bool:
    """Whether a Ctrl-C came since :func:`hold_while_ending`."""
    return bool(_ending)
