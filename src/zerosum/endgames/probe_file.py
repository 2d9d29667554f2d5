"""Where a store's probe file lives, and who hears of it being written (no numpy, no numba).

The compiled probe's array (:mod:`.mapped`) is a file: ``STORE.probe`` beside the store by
default, or, when ``$ZEROSUM_PROBE_DIR`` names a folder, ``NAME.TAG.probe`` in that folder
(``NAME`` the store file's name, ``TAG`` twelve hex digits of a digest of its absolute path,
so that two stores of one name never share a file). The folder is made when a file is first
written there; a relative one is read from each process's working folder. It is for a store
on a read-only or small disk: through 6-6 the file is 455 MB beside a 66 MB store.

Writing the file takes seconds (7.6 s through 6-6 on a loaded machine), once per store and
whenever its classes change. The library never prints: :func:`~.mapped.probe_array` reports
the write to a callback, by default to every listener of this process (:func:`listen`), and
the command line listens, so a command that meets a store without its file says so on stderr.

A store that is there but cannot be read (damaged, not a store, unreadable) is left out of the
searches, which go on without it (their answers stay right, only slower); it is reported once
per process and store the same way (:func:`listen_unusable`), so the command line says so in
one line instead of ignoring it silently.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

ENV_PROBE_DIR: Final = "ZEROSUM_PROBE_DIR"
"""The environment variable naming a folder for the probe files (unset or empty: beside
each store)."""


def probe_path(store: str | Path) -> Path:
    """The probe file of the store at ``store``: ``STORE.probe``, or ``NAME.TAG.probe`` in
    ``$ZEROSUM_PROBE_DIR`` when it is set (see the module docstring)."""
    folder = os.environ.get(ENV_PROBE_DIR, "")
    if not folder:
        return Path(f"{store}.probe")
    resolved = Path(store).resolve()
    tag = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    return Path(folder).expanduser() / f"{resolved.name}.{tag}.probe"


@dataclass(frozen=True)
class ProbeWrite:
    """A probe file being written: first with ``seconds`` ``None`` (starting), then with the
    seconds it took, or with ``error`` when it could not be written (the engine then holds
    the array in memory, and ``seconds`` is the time spent)."""

    path: Path
    size: int
    """The file's length in bytes."""
    seconds: float | None = None
    error: str | None = None


ProbeListener = Callable[[ProbeWrite], None]

_L = TypeVar("_L")

_listeners: list[ProbeListener] = []
_lock = threading.Lock()


def _add(listeners: list[_L], listener: _L) -> Callable[[], None]:
    """Put ``listener`` on ``listeners``; returns the call that takes it off again."""
    with _lock:
        listeners.append(listener)

    def stop() -> None:
        with _lock:
            if listener in listeners:
                listeners.remove(listener)

    return stop


def listen(listener: ProbeListener) -> Callable[[], None]:
    """Hear of every probe file this process writes for an engine; returns the call that
    stops it."""
    return _add(_listeners, listener)


def announce(note: ProbeWrite) -> None:
    """Tell every listener of this process about ``note`` (the default callback of
    :func:`~.mapped.probe_array`)."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener(note)


@dataclass(frozen=True)
class UnusableStore:
    """An endgame store that is there but cannot be read: the searches go on without it."""

    path: Path
    problem: str
    """What is wrong with it, in one line (from :class:`~.database.EndgameError`)."""


UnusableListener = Callable[[UnusableStore], None]

_unusable_listeners: list[UnusableListener] = []
_reported: set[Path] = set()
"""The stores already reported as unusable by this process."""


def listen_unusable(listener: UnusableListener) -> Callable[[], None]:
    """Hear of every endgame store a search of this process leaves out because it cannot be
    read (once per store); returns the call that stops it."""
    return _add(_unusable_listeners, listener)


def announce_unusable(path: str | Path, problem: str) -> None:
    """Tell every listener of this process that the store at ``path`` cannot be read
    (``problem``) and is left out; only the first time for each store."""
    note = UnusableStore(Path(path), problem)
    with _lock:
        if note.path in _reported:
            return
        _reported.add(note.path)
        listeners = list(_unusable_listeners)
    for listener in listeners:
        listener(note)
