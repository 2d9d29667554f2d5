"""Compiling a game's compiled code off the clock: in a child process that fills numba's disk cache.

A game's compiled code comes in *parts* (:data:`PARTS`): the alpha-beta search of its kernel
(``search``), the exact solve that drives it by null windows (``solve``: a compile more than
half as long as the search's, which analysis and play at a depth never call), its Monte Carlo
tree search (``mcts``), its compiled tactical searcher (``tactical``: chess) and its perft
(``perft``). The first use of a part on a machine compiles
it, which takes seconds to a minute; every later process loads it from numba's disk cache in a
fraction of that. A front end that must answer at once asks :class:`Warmer` whether the part
is cached; if not, it answers with the pure-Python twin while ``python -m zerosum.compiled
GAME PART...`` compiles the part and fills the cache, then loads the compiled code from the
cache (see :mod:`zerosum.engines.warming`).

Knowing that a part is cached. Asking numba means importing it (0.6 s) and reading its
pickled index files; instead the child writes a *marker* file once it has compiled (or loaded)
every function of the part: ``zerosum-warm-GAME-PART-KEY.done`` in :func:`cache_dir`, beside
numba's own files, where ``KEY`` digests the source of every module the part compiles
(:func:`zerosum.jit.module_fingerprint`), numba's and Python's versions and the machine, so an
edit, an upgrade or another interpreter finds no marker. A marker left after numba's files were
deleted only means that the first search compiles in-process, as before this module existed.

Two processes never compile one part at once: the child holds an exclusive lock on
``zerosum-warm-GAME-PART.lock`` while it compiles, and a second child waits for it, then finds
the marker and exits. The seconds the last compile took are kept
(``zerosum-warm-GAME-PART.seconds``, kept across edits) for the next estimate; before any
compile the estimate is :data:`ESTIMATE_S`.

Importing this module does not import numba: the child's work (:func:`warm_part`) imports it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import IO, Any, Final, Literal

from zerosum.game import ZerosumError
from zerosum.games import GameSpec, get_game, resolve

Part = Literal["search", "solve", "mcts", "tactical", "perft"]
PARTS: Final[tuple[Part, ...]] = ("search", "solve", "mcts", "tactical", "perft")
"""The parts of a game's compiled code that compile (and are cached) separately."""

ESTIMATE_S: Final[dict[Part, float]] = {
    "search": 25.0,
    "solve": 20.0,
    "mcts": 40.0,
    "tactical": 130.0,
    "perft": 45.0,
}
"""A part's cold compile in seconds before this machine has measured one: the slowest
built-in game's in ``benchmarks/cold_start.py compile`` on a two-core VM under a load average
of 10-18 (docs/benchmarks.md, 2026-11-27), so an overestimate on a quiet machine."""


class WarmError(ZerosumError):
    """A part that a game does not have, or a child that could not compile it."""


def compiling_in_background() -> bool:
    """Whether front ends may answer with a twin while the compiled code compiles in a child
    (the default), rather than wait for it: ``ZEROSUM_COMPILE=wait`` says wait (tests that
    compare a compiled engine's output, benchmarks of the compiled code alone)."""
    return os.environ.get("ZEROSUM_COMPILE", "background").strip().lower() != "wait"


def parts_of(spec: GameSpec) -> tuple[Part, ...]:
    """The parts ``spec``'s game has: search, solve and MCTS with a kernel (solve only for a
    kernel that solves exactly, MCTS only if the kernel offers it: known only once the kernel
    is loaded, so they are listed and may turn out empty),
    tactical with a searcher, perft with a compiled perft."""
    found: list[Part] = []
    if spec.kernel is not None:
        found += ["search", "solve", "mcts"]
    if spec.searcher is not None:
        found.append("tactical")
    if spec.perft is not None:
        found.append("perft")
    return tuple(found)


# -- where and under which key --------------------------------------------------------------------


def cache_dir() -> Path:
    """The folder of the markers: as numba places its cache, ``$NUMBA_CACHE_DIR`` if set, else
    the ``__pycache__`` folder of :mod:`zerosum.compiled` if it can be written, else
    ``zerosum/warm`` in the user's cache folder."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return Path(given) / "zerosum-warm"
    in_tree = Path(__file__).parent / "__pycache__"
    with contextlib.suppress(OSError):
        in_tree.mkdir(exist_ok=True)
        if os.access(in_tree, os.W_OK):
            return in_tree
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(home) / "zerosum" / "warm"


def _modules(spec: GameSpec, part: Part) -> list[str]:
    """The modules whose source the part compiles (each with what it imports from its package)."""
    reference = {
        "search": spec.kernel,
        "solve": spec.kernel,
        "mcts": spec.kernel,
        "tactical": spec.searcher,
        "perft": spec.perft,
    }[part]
    if reference is None:
        raise WarmError(
            f"game {spec.name!r} has no compiled {part}: expected one of "
            f"{', '.join(parts_of(spec)) or 'nothing (no compiled code)'}"
        )
    modules = [reference.split(":")[0]]
    builder = {
        "search": "zerosum.compiled.solver",
        "solve": "zerosum.compiled.solver",
        "mcts": "zerosum.compiled.mcts",
    }.get(part)
    if builder is not None:
        modules.append(builder)
    return modules


@cache
def _version(name: str) -> str:
    from importlib import metadata  # a tenth of a second: only when a key is made

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


@cache
def _numba_version() -> str:
    """What names numba's version in a key: a digest of its ``_version.py`` (where it writes
    its version), found without importing numba or :mod:`importlib.metadata` (which costs a
    few hundredths of a second before a command's first answer); the installed version where
    that file is missing."""
    from importlib.util import find_spec

    found = find_spec("numba")
    if found is not None and found.origin is not None:
        with contextlib.suppress(OSError):
            text = Path(found.origin).with_name("_version.py").read_bytes()
            return hashlib.sha256(text).hexdigest()[:16]
    return _version("numba")


def part_key(spec: GameSpec, part: Part) -> str:
    """The digest that names ``part``'s marker: its modules' sources, numba's and Python's
    versions, the machine (computed once per process and modules)."""
    return _key(tuple(_modules(spec, part)))


@cache
def _key(modules: tuple[str, ...]) -> str:
    from zerosum.jit import module_fingerprint  # numba-free

    digest = hashlib.sha256()
    for module in modules:
        digest.update(f"{module}\0{module_fingerprint(module)}\0".encode())
    machine = os.uname().machine if hasattr(os, "uname") else sys.platform
    digest.update(f"{_numba_version()}\0{sys.version}\0{machine}".encode())
    return digest.hexdigest()[:20]


def _stem(spec: GameSpec, part: Part) -> str:
    reference = (spec.kernel if part in ("search", "solve", "mcts") else spec.name) or spec.name
    safe = "".join(c if c.isalnum() else "_" for c in reference)
    return f"zerosum-warm-{safe}-{part}"


def marker_path(spec: GameSpec, part: Part) -> Path:
    """The marker that says ``part`` of ``spec``'s game is in the disk cache."""
    return cache_dir() / f"{_stem(spec, part)}-{part_key(spec, part)}.done"


def is_cached(spec: GameSpec, part: Part) -> bool:
    """Whether the marker of ``part`` exists (a cheap look: no numba, one ``stat``)."""
    return marker_path(spec, part).is_file()


def estimate(spec: GameSpec, part: Part) -> float:
    """The seconds a cold compile of ``part`` should take: the last one measured here, else
    :data:`ESTIMATE_S`."""
    seconds = cache_dir() / f"{_stem(spec, part)}.seconds"
    with contextlib.suppress(OSError, ValueError):
        return float(seconds.read_text(encoding="utf-8").strip())
    return ESTIMATE_S[part]


# -- the lock -----------------------------------------------------------------------------------


@contextlib.contextmanager
def part_lock(spec: GameSpec, part: Part) -> Iterator[None]:
    """Hold the exclusive lock of ``part`` (waiting for another process that holds it); no lock
    where the system offers no ``fcntl`` (then two processes may compile the same code, which
    is slow, never wrong)."""
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover  # not POSIX
        yield
        return
    with open(folder / f"{_stem(spec, part)}.lock", "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a reader sees the old file or the whole new one)."""
    import tempfile

    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, path)


def warm(
    spec: GameSpec, part: Part, *, work: Callable[[GameSpec, Part], None] | None = None
) -> float:
    """Compile (or load) ``part`` of ``spec``'s game under its lock and write its marker; the
    seconds the work took (0 when the marker was there already). ``work`` does the compiling
    (default :func:`warm_part`; tests pass a fake)."""
    marker = marker_path(spec, part)
    with part_lock(spec, part):
        if marker.is_file():
            return 0.0
        started = time.perf_counter()
        (work or warm_part)(spec, part)
        seconds = time.perf_counter() - started
        _write(cache_dir() / f"{_stem(spec, part)}.seconds", f"{seconds:.2f}\n")
        _write(marker, f"{seconds:.2f}\n")
        for stale in marker.parent.glob(f"{_stem(spec, part)}-*.done"):
            if stale != marker:  # the markers of older sources
                with contextlib.suppress(OSError):
                    stale.unlink()
        return seconds


def mark_cached(spec: GameSpec, part: Part) -> None:
    """Write ``part``'s marker after this process compiled or loaded all of it (a perft that
    ran once), so that the next process knows it is cached."""
    marker = marker_path(spec, part)
    if not marker.is_file():
        with contextlib.suppress(OSError):
            marker.parent.mkdir(parents=True, exist_ok=True)
            _write(marker, "in-process\n")


# -- what compiles each part (in the child) -------------------------------------------------------


def warm_part(spec: GameSpec, part: Part) -> None:
    """Run every compiled function of ``part`` once on small inputs, so that numba compiles it
    (or loads it) and writes it to its disk cache. Imports numba."""
    game = spec.new()
    if part in ("search", "solve"):
        from zerosum.compiled.solver import Solver
        from zerosum.search.core import Limit

        with Solver(spec.name, hash_mb=1) as solver:
            if part == "search":
                solver.search(game, limit=Limit(depth=2))
            elif solver.compiled.exact:
                solver.solve(game, limit=Limit(nodes=2_000))
    elif part == "mcts":
        from zerosum.compiled import mcts
        from zerosum.compiled.kernels import compiled_game

        kernel = compiled_game(spec.name).kernel
        if kernel.legal is not None and kernel.over is not None:
            mcts.functions(kernel)
    elif part == "tactical":
        assert spec.searcher is not None  # _modules refused a game without one
        warm_up: Any = getattr(resolve(spec.searcher), "warm_up", None)
        if callable(warm_up):
            warm_up()
    else:
        assert spec.perft is not None
        resolve(spec.perft)(game, 2)


# -- the parent's side: a child that compiles ---------------------------------------------

Spawn = Callable[[Sequence[str]], "subprocess.Popen[bytes]"]
"""Starts the child with these arguments (tests pass one that runs something else)."""


BACKGROUND_NICE: Final = 19
"""How much a child compiling in the background lowers its priority (``os.nice``): the
lowest priority there is, so that on a busy machine the command that answers meanwhile (a
search on the clock, a UCI engine's first ``go``) gets nearly all of the CPU share it
shares with the compile, which runs whenever that command waits (for a GUI, for a move); on
an idle core nothing changes."""

_CHILD: Final = (
    "import os, signal, sys\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    f"if hasattr(os, 'nice'): os.nice({BACKGROUND_NICE})\n"
    "from zerosum.compiled.warm import main\n"
    "sys.exit(main())\n"
)
"""The child's program: ignore Ctrl-C and lower its priority first, before its imports (tens
of milliseconds of CPU that would otherwise compete with the command's own start, such as
a first UCI ``go``), then :func:`main`."""


def spawn_child(arguments: Sequence[str]) -> subprocess.Popen[bytes]:
    """``python -m zerosum.compiled --background ARGUMENTS`` with this interpreter, silent,
    its input closed, at the lowest priority (:data:`BACKGROUND_NICE`, set before it imports
    anything); Ctrl-C in the terminal does not stop it (it ignores SIGINT), so a compile the
    user interrupted still fills the cache for next time."""
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, "--background", *arguments],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


class Warmer:
    """The compile of some parts of one game in a child process, seen from the parent.

    :meth:`start` starts the child unless every part is cached; :meth:`done` says whether it
    has finished (the parts are in the cache, or the child failed: :attr:`failed`);
    :meth:`wait` waits for that. ``spawn`` starts the child (default :func:`spawn_child`).
    """

    def __init__(
        self, spec: GameSpec, parts: Sequence[Part], *, spawn: Spawn = spawn_child
    ) -> None:
        self.spec = spec
        self.parts = tuple(parts)
        self._spawn = spawn
        self._child: subprocess.Popen[bytes] | None = None
        self.failed = False
        """Whether the child ended without writing every marker (the caller then compiles
        in-process, as if there were no child)."""
        self._cached = False
        self.started_at: float | None = None
        """``time.monotonic()`` when the child started (``None``: not started)."""

    def cached(self) -> bool:
        """Whether every part's marker is there (once seen, not looked at again)."""
        if not self._cached:
            self._cached = all(is_cached(self.spec, part) for part in self.parts)
        return self._cached

    def estimate(self) -> float:
        """The seconds the compile should take in all (see :func:`estimate`)."""
        return sum(estimate(self.spec, part) for part in self.parts)

    def remaining(self) -> float:
        """The seconds the compile should still take (at least 1 while it runs)."""
        if self.started_at is None:
            return self.estimate()
        return max(1.0, self.estimate() - (time.monotonic() - self.started_at))

    def start(self) -> None:
        """Start the child that compiles the parts, unless it runs or they are cached."""
        if self._child is not None or self.cached():
            return
        self.started_at = time.monotonic()
        self._child = self._spawn([self.spec.name, *self.parts])

    def done(self) -> bool:
        """Whether nothing is left to wait for: the parts are cached, or the child ended
        (:attr:`failed` if it did not cache them all)."""
        if self._child is None:
            return self.cached()
        if self._child.poll() is None:
            return False
        self.failed = self._child.returncode != 0 or not self.cached()
        return True

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for :meth:`done` (at most ``timeout`` seconds); whether it is."""
        if self._child is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._child.wait(timeout)
        return self.done()


# -- the child ----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None, *, err: IO[str] | None = None) -> int:
    """``python -m zerosum.compiled [--background] GAME [PART ...]``: compile the parts of
    the game (all it has when none is named) and mark them cached; prints each part's seconds
    on stderr. ``--background`` lowers the process's priority by :data:`BACKGROUND_NICE`."""
    stream = err if err is not None else sys.stderr
    arguments = list(sys.argv[1:] if argv is None else argv)
    with contextlib.suppress(ValueError):  # not the main thread: leave SIGINT alone
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if arguments[:1] == ["--background"]:
        arguments.pop(0)
        with contextlib.suppress(OSError, AttributeError):  # no os.nice: not POSIX
            os.nice(BACKGROUND_NICE)
    if not arguments:
        print("usage: python -m zerosum.compiled [--background] GAME [PART ...]", file=stream)
        return 2
    try:
        spec = get_game(arguments[0])
        named = arguments[1:] or list(parts_of(spec))
        for name in named:
            part = next((known for known in PARTS if known == name), None)
            if part is None:
                raise WarmError(f"unknown part {name!r}: expected one of {', '.join(PARTS)}")
            seconds = warm(spec, part)
            print(f"{spec.name} {part}: {seconds:.2f} s", file=stream)
    except ZerosumError as error:
        print(f"error: {error}", file=stream)
        return 2
    return 0
