"""A one-line progress display for the long commands (``book``, ``build-endgames``, ``solve``,
``match``): what the command is doing and the time it has taken, rewritten in place on stderr.

The display is for a person watching a terminal: it stays silent when stderr is not a terminal
(a pipe, a file, a test's capture) and under ``--json``, so that what programs read never
changes. It never touches stdout; a command that prints lines while it runs passes them
through :meth:`Progress.echo`, which lifts the status line out of the way first.

The library never prints: a command feeds the display from the callbacks its search or
builder already offers (``on_position``, ``on_class``, ``on_move``, ``on_game``), and a ticker
thread redraws the line a few times a second so that the elapsed time moves while a single
long step (one hard solve, one endgame class) reports nothing. Every write takes one lock, so
the ticker and the callbacks never interleave their bytes.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Final, Self, TextIO

CLEAR_LINE: Final = "\r\x1b[K"
"""Carriage return, then erase to the end of the line (ANSI), as terminals understand it."""

TICK_S: Final = 0.25
"""How often the ticker redraws the line (the elapsed time is shown to a tenth of a second)."""

REDRAW_GAP_S: Final = 0.1
"""The least time between two redraws on :meth:`Progress.update`: a callback that fires
thousands of times a second (a book of easy positions) costs a string, not a write; the ticker
draws the last status soon after."""


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is an open terminal that can rewrite a line (a closed or replaced
    stream is not, nor a terminal that declares ``TERM=dumb``: it may not erase)."""
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def elapsed_text(seconds: float) -> str:
    """``12.3 s`` under a minute, ``4:05`` (minutes:seconds) under an hour, else ``1:02:03``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """The status line of one command, ``label: status  (elapsed)``, or nothing at all.

    Use it as a context manager: entering starts the clock (and the ticker), leaving erases
    the line. ``enabled`` defaults to whether ``stream`` (default: ``sys.stderr`` when the
    display is made) is a terminal; :meth:`for_command` also turns it off under ``--json``.
    ``tick`` is the ticker's period in seconds (0: no ticker, the line changes only on
    :meth:`update`); ``clock`` is injectable for tests.
    """

    def __init__(
        self,
        label: str,
        *,
        stream: TextIO | None = None,
        enabled: bool | None = None,
        tick: float = TICK_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = is_terminal(self.stream) if enabled is None else enabled
        """Whether anything is written at all."""
        self.status = ""
        """What the line says after the label (the last :meth:`update`)."""
        self.detail: Callable[[], str] | None = None
        """A figure read at every draw and shown after the status (a running search's node
        count); set by :meth:`update`."""
        self._tick = tick
        self._clock = clock
        self._started = clock()
        self._shown = False
        """Whether a status line is on the screen now (so :meth:`clear` has work to do)."""
        self._drawn_at = -float("inf")
        """The clock when the line was last drawn."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    @classmethod
    def for_command(cls, args: argparse.Namespace, label: str) -> Progress:
        """The display of a command: on stderr, and off under ``--json`` or without a terminal."""
        progress = cls(label)
        progress.enabled = progress.enabled and not getattr(args, "json", False)
        return progress

    # -- what the command calls ---------------------------------------------------------------

    def update(self, status: str, *, detail: Callable[[], str] | None = None) -> None:
        """Say ``status`` from now on, followed by ``detail()`` read afresh at every draw (a
        figure that moves while a long step runs; ``None``: none). Drawn at once unless the
        line was drawn less than :data:`REDRAW_GAP_S` ago (the ticker then draws it, and keeps
        the time and the detail moving)."""
        self.status = status
        self.detail = detail
        if self.enabled and self._clock() - self._drawn_at >= REDRAW_GAP_S:
            with self._lock:
                self._draw()

    def echo(self, text: str, *, file: TextIO | None = None) -> None:
        """Print ``text`` as a line of the command's output (stdout, or ``file``) without
        mixing it with the status line: the line is erased, ``text`` printed, the line redrawn."""
        out = file if file is not None else sys.stdout
        with self._lock:
            self._erase()
            print(text, file=out, flush=True)
            if self.enabled and self.status and self._clock() - self._drawn_at >= REDRAW_GAP_S:
                self._draw()

    def clear(self) -> None:
        """Erase the status line (it comes back on the next :meth:`update` or tick)."""
        with self._lock:
            self._erase()

    @property
    def elapsed(self) -> float:
        """Seconds since the display was made or entered."""
        return self._clock() - self._started

    # -- drawing (callers hold the lock) ------------------------------------------------------

    def line(self) -> str:
        """The status line as drawn, before it is cut to the terminal's width."""
        detail = self.detail() if self.detail is not None else ""
        status = f"{self.status}: {detail}" if detail and self.status else detail or self.status
        status = f"{status}  " if status else ""
        return f"{self.label}: {status}({elapsed_text(self.elapsed)})"

    def _width(self) -> int:
        """The terminal's width, 80 when it does not say (a pseudo-terminal of no size)."""
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
        return columns if columns > 0 else 80

    def _draw(self) -> None:
        # One column short of the width: a full line would wrap on some terminals, and a
        # wrapped line cannot be rewritten with a carriage return.
        text = self.line()[: self._width() - 1]
        try:
            self.stream.write(CLEAR_LINE + text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: stop drawing, keep working
            self.enabled = False
            return
        self._shown = True
        self._drawn_at = self._clock()

    def _erase(self) -> None:
        if not self._shown:
            return
        self._shown = False
        try:
            self.stream.write(CLEAR_LINE)
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False

    def _run_ticker(self) -> None:
        while not self._stop.wait(self._tick):
            with self._lock:
                if self.enabled and (self.status or self._shown):
                    self._draw()

    # -- context ------------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self._started = self._clock()
        if self.enabled and self._tick > 0:
            self._stop.clear()
            self._ticker = threading.Thread(
                target=self._run_ticker, name="zerosum-progress", daemon=True
            )
            self._ticker.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        self.clear()
