"""Ctrl-C and SIGTERM for a process that runs workers.

The rule everywhere: a Ctrl-C at the terminal (SIGINT, sent to the whole foreground process
group) is the parent's to handle; the parent then stops its workers in order. So a worker
ignores SIGINT from its first step on, and the parent blocks SIGINT while it starts workers
(:func:`sigint_held`): a worker inherits the blocked signal, so a Ctrl-C cannot kill it half-way
through Python's start-up (with a trace on the terminal), and none is lost in the parent. The
trade-off: a Ctrl-C during a start is only acted on once the start is over (a fraction of a
second for a process, a few seconds for Ray).
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """Block SIGINT while worker processes are started. They inherit the blocked signal, so a
    Ctrl-C cannot kill one half-way through Python's start-up (with a trace on the terminal);
    each worker then ignores SIGINT and unblocks it (:func:`ignore_sigint`). In the parent, a
    Ctrl-C that came meanwhile is delivered as soon as the block ends: none is lost."""
    if not hasattr(signal, "pthread_sigmask"):  # not POSIX
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def ignore_sigint() -> None:
    """A worker's first step: Ctrl-C is the parent's to handle (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def exit_on_terminate(signum: int, frame: FrameType | None) -> None:
    """A SIGTERM handler that turns the signal into ``SystemExit`` (status ``128 + signum``), so
    ``finally`` blocks run: a worker stopped this way still closes what it started."""
    raise SystemExit(128 + signum)
