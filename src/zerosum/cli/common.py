"""What every command shares: its errors and exit statuses, the position it works on, how it
prints its answer, and how Ctrl-C and SIGTERM reach it.

A long command stops cleanly on Ctrl-C: the search polls a stop callback
(:func:`interruptible`) and the command still reports what it finished. SIGTERM does what
Ctrl-C does (:func:`terminate_as_ctrl_c`, around every command). Commands that run
worker processes of their own (``match``) rather turn SIGTERM into ``KeyboardInterrupt``
(:func:`terminate_as_interrupt`), so a terminated command stops its workers too.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, Final

from zerosum.endgames.probe_file import ENV_PROBE_DIR, ProbeWrite, UnusableStore
from zerosum.game import Game, ZerosumError, play_moves
from zerosum.games import GameSpec, get_game
from zerosum.store import Store

EXIT_BAD_INPUT: Final = 2
"""The exit status of bad input: a usage error or any other :class:`ZerosumError`."""
EXIT_INTERRUPTED: Final = 130
"""The exit status after Ctrl-C (128 + SIGINT, as shells report it)."""


STARTUP_WINDOW_S: Final = 5.0
"""The longest start-up :func:`program_started` believes: a process older than this when the
command begins ran other code first (a test, a notebook), and the command's clock starts
then."""


def program_started(*, window: float = STARTUP_WINDOW_S) -> float:
    """When this process started, as a ``time.perf_counter()`` reading: the interpreter's
    start and the imports are part of a command's time (``--time 2`` means an answer two
    seconds after the command was typed). Read from ``/proc/self/stat`` (Linux, to the
    scheduler's tick, a hundredth of a second); now where that cannot be read or lies more
    than ``window`` seconds back."""
    now = time.perf_counter()
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            fields = stat.read().rpartition(")")[2].split()
        ticks = int(fields[19])  # field 22 of proc(5), counted after the command's name
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):  # not Linux
        return now
    return now - age if 0 <= age <= window else now


def command_started(args: argparse.Namespace) -> float:
    """When the command of ``args`` started (``args.started``, set by ``zerosum.cli.main``;
    now for a command run without it)."""
    started = getattr(args, "started", None)
    return started if isinstance(started, float) else time.perf_counter()


class UsageError(ZerosumError):
    """A command line that argparse rejected, or options that do not go together."""


def load_position(args: argparse.Namespace) -> tuple[GameSpec, Game[Any]]:
    """The game ``args.game`` at ``args.position`` (its start without one) after
    ``args.moves``; raises a :class:`ZerosumError` naming a bad game, position or move."""
    spec = get_game(args.game)
    game = spec.from_position(args.position) if args.position is not None else spec.new()
    play_moves(game, [text for word in args.moves for text in spec.split_moves(word)])
    return spec, game


def tell_waiting(message: str) -> None:
    """Say on stderr, in one line, why a command waits (a store locked by another process):
    the ``on_wait`` of the stores."""
    print(f"zerosum: {message}", file=sys.stderr, flush=True)


def tell_probe_file(note: ProbeWrite) -> None:
    """Say on stderr, a line each, that an engine writes a store's probe file (seconds, once
    per store: :mod:`zerosum.endgames.probe_file`), and when it is done or why it could not
    be (the engine then holds the tables in memory). :func:`zerosum.cli.main` listens."""
    mb = note.size / 1e6
    size = f"{mb:,.0f} MB" if mb >= 10 else f"{mb:.1f} MB"
    if note.error is not None:
        where = (
            f"a writable folder in ${ENV_PROBE_DIR}"
            if os.environ.get(ENV_PROBE_DIR)
            else f"a writable folder beside the store, or ${ENV_PROBE_DIR} naming one"
        )
        text = (
            f"cannot write the endgame probe file {note.path} ({note.error}): the engine holds "
            f"the tables in memory; expected {where}"
        )
    elif note.seconds is None:
        text = f"writing the endgame probe file {note.path} ({size}, once for this store)"
    else:
        text = f"wrote the endgame probe file in {note.seconds:.1f} s"
    print(f"zerosum: {text}", file=sys.stderr, flush=True)


def tell_unusable_store(note: UnusableStore) -> None:
    """Say on stderr, in one line, that an endgame store is there but cannot be read, so the
    searches go on without it (once per store: :mod:`zerosum.endgames.probe_file`).
    :func:`zerosum.cli.main` listens."""
    print(
        f"zerosum: warning: the search goes on without an endgame store: {note.problem}",
        file=sys.stderr,
        flush=True,
    )


def open_store(path: str) -> Store:
    """The store at ``path`` for a command: checked on opening, and a write that another
    process's lock blocks says so on stderr while it waits (a bounded time)."""
    return Store(path, on_wait=tell_waiting)


def emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    """Print a command's answer: ``data`` as one JSON object with ``--json``, else ``text``."""
    print(json.dumps(data) if args.json else text)


@contextlib.contextmanager
def interruptible() -> Iterator[Callable[[], bool]]:
    """A stop callback for a ``Limit`` that turns true on Ctrl-C, so a long search stops
    cleanly and still reports its last completed iteration."""
    interrupted: list[bool] = []

    def on_interrupt(signum: int, frame: object) -> None:
        interrupted.append(True)

    try:
        previous = signal.signal(signal.SIGINT, on_interrupt)
    except ValueError:  # not the main thread: leave Ctrl-C alone
        yield lambda: False
        return
    try:
        yield lambda: bool(interrupted)
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def terminate_as_ctrl_c() -> Iterator[None]:
    """SIGTERM does what Ctrl-C would do at that moment: a search under :func:`interruptible`
    stops cleanly and reports what it finished, elsewhere ``KeyboardInterrupt`` (exit 130);
    either way the command's worker processes are stopped. Without it a terminated ``book``,
    ``solve`` or ``analyze`` with ``--workers`` died at once and left its workers searching,
    orphaned (a ``timeout``, a service manager, ``kill``)."""

    def on_terminate(signum: int, frame: object) -> None:
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)  # type: ignore[arg-type]  # frame: FrameType | None
        else:  # Ctrl-C ignored or Python's default not installed: end as interrupted
            raise KeyboardInterrupt

    with _on_sigterm(on_terminate):
        yield


@contextlib.contextmanager
def _on_sigterm(handler: Callable[[int, Any], None]) -> Iterator[None]:
    """``handler`` answers SIGTERM inside the block (only in the main thread, where Python lets
    a handler be set; elsewhere the block runs as it is); the previous handler is put back."""
    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt, so a terminated match stops its workers too."""

    def on_terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    with _on_sigterm(on_terminate):
        yield
