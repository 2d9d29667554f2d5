"""How long a test waits for something: until it happens, bounded only against a hang.

A test never waits a fixed time and never asserts that something happened within some
seconds: on a shared two-core machine at a load average of 20 a command that takes a second
alone can take a minute, and a cold numba compile several. A test waits for an observable
state (a line printed, a row stored, a process gone, a health figure), and the only bound is
:data:`HANG_S`, which ends a wait that would otherwise never end so that the failure names
what never came.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

HANG_S: Final = 300.0
"""Seconds after which a wait for a state counts as a hang: far above what any state of the
suite takes on a loaded machine, so reaching it means the state never comes."""

HANG_MS: Final = int(HANG_S * 1000)
""":data:`HANG_S` in milliseconds (Playwright's unit)."""

POLL_S: Final = 0.05
"""Seconds between two looks at a state that gives no signal of its own."""


def wait_until(condition: Callable[[], object], what: str, *, bound: float = HANG_S) -> None:
    """Return once ``condition()`` is true; fail naming ``what`` if it is still false after
    ``bound`` seconds (a hang)."""
    deadline = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < deadline, f"still waiting after {bound:g} s: {what}"
        time.sleep(POLL_S)
