"""Where independent work units run: one executor interface, and the local backends.

An :class:`Executor` takes work units (a module-level function and picklable arguments) with
:meth:`~Executor.submit`, gives each back as a :class:`concurrent.futures.Future`, reports the
ones that finished with :meth:`~Executor.wait`, and gives up units with
:meth:`~Executor.cancel` and everything with :meth:`~Executor.close`. A distributed solve
submits units as its tree asks for them; a match maps one function over its games with
:meth:`~Executor.map_unordered`, which yields each result with its item's index as soon as it
is done. The backends:

* :class:`SerialExecutor`: this process, in order (the twin that tests compare against);
* :class:`ProcessExecutor`: local worker processes (``spawn``), started once and reused;
* :class:`~zerosum.runtime.cluster.RayTaskExecutor` and
  :class:`~zerosum.runtime.cluster.RayActorExecutor`: Ray tasks, or Ray actors that keep their
  state between units (:mod:`.cluster`; Ray is imported only when one is asked for).

Futures complete only inside :meth:`~Executor.wait` (or the backend's own threads): there is no
thread of ours collecting results, so a caller polls, and Ctrl-C always reaches it.

Stopping a running unit. :meth:`~Executor.stop` asks a unit that is running to stop now; the
unit learns it through :func:`unit_stop`, a check its long loops poll (the compiled search polls
it every few milliseconds, see ``zerosum.compiled.distributed.solve_unit``), and its future
completes with what it returns once stopped (what it proved so far). :meth:`~Executor.cancel`
raises the same request but drops the answer. A backend that cannot reach a running unit says
so (``stop`` returns False) and the unit runs to its end.

Process hygiene (:class:`ProcessExecutor`): each worker leads its own process group and
ignores SIGINT, so a Ctrl-C in the terminal reaches only the parent, which then stops the
workers itself: SIGTERM first (a worker turns it into ``SystemExit``, so its ``teardown``
closes what it started), and after a grace period SIGKILL to the worker's whole process group,
which holds every process it started (a UCI engine). A worker whose parent died stops at its
next idle moment. Units are handed to the workers only as they come free, so a unit cancelled
before it started never runs; a running one is asked to stop (a slot of shared memory, keyed by
the unit's number, that :func:`unit_stop` reads) and its result is dropped. Nothing is left
running once :meth:`ProcessExecutor.close` returns.
"""

from __future__ import annotations

import abc
import concurrent.futures
import contextlib
import multiprocessing
import os
import pickle
import queue
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
import traceback
import weakref
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import Future
from typing import Any, Final, Generic, Self, TypeVar

from zerosum.game import ZerosumError
from zerosum.runtime.signals import exit_on_terminate, sigint_held
from zerosum.runtime.workers import worker_imports, worker_init

if sys.platform != "win32":  # a shared values folder's owner lock (none on Windows: inline)
    import fcntl

T = TypeVar("T")
R = TypeVar("R")

GRACE_SECONDS: Final = 3.0
"""How long stopped workers get to close what they started before they are killed."""
POLL_S: Final = 0.2
"""How often :meth:`Executor.map_unordered` looks up from waiting (so Ctrl-C is seen
promptly)."""
STOP_SLOTS: Final = 1 << 16
"""Slots of a :class:`ProcessExecutor`'s stop requests: unit ``n`` is asked to stop when slot
``n % STOP_SLOTS`` holds ``n`` (a request is lost only if a unit 65,536 numbers later is
stopped while ``n`` still runs: ``n`` then runs to its end, as without a request)."""

_unit = threading.local()


def unit_stop() -> Callable[[], bool] | None:
    """The stop check of the unit this thread runs for an executor (true once the unit is
    asked to stop: cancelled, or stopped by :meth:`Executor.stop`), or ``None`` outside a unit
    or on a backend that cannot stop a running unit. A unit polls it in its long loops (pass it
    as a search's ``Limit.stop``) and, once it is true, returns what it has."""
    check: Callable[[], bool] | None = getattr(_unit, "stop", None)
    return check


def unit_window() -> Callable[[], tuple[int, int] | None] | None:
    """The window check of the unit this thread runs for an executor: the latest window the
    caller asked for with :meth:`Executor.narrow` (``None`` until it asks), or ``None`` outside
    a unit or on a backend that cannot reach a running unit. A unit polls it as it polls
    :func:`unit_stop`."""
    check: Callable[[], tuple[int, int] | None] | None = getattr(_unit, "window", None)
    return check


def run_unit(
    stop: Callable[[], bool] | None,
    fn: Callable[..., T],
    *args: Any,
    window: Callable[[], tuple[int, int] | None] | None = None,
) -> T:
    """``fn(*args)`` with ``stop`` as this thread's :func:`unit_stop` and ``window`` as its
    :func:`unit_window` (a backend's side)."""
    _unit.stop, _unit.window = stop, window
    try:
        return fn(*args)
    finally:
        _unit.stop = _unit.window = None


class Shared(Generic[T]):
    """A value that many units take (:meth:`Executor.share`): :meth:`get` gives it in the
    unit. This one carries the value itself, sent with each unit that takes it."""

    def __init__(self, value: T) -> None:
        self._value = value

    def get(self) -> T:
        """The value."""
        return self._value


class _FileShared(Shared[T]):
    """A value that a :class:`ProcessExecutor` wrote once to a file in memory
    (:meth:`ProcessExecutor.share`): a unit carries only the file's path, and reads the value
    from it when it calls :meth:`get`."""

    def __init__(self, path: str) -> None:  # no call to super: no value of its own
        self._path = path

    def get(self) -> T:
        with open(self._path, "rb") as file:
            value: T = pickle.load(file)
        return value

    def __copy__(self) -> _FileShared[T]:  # one object, one finalizer: a copy is the same
        return self

    def __deepcopy__(self, memo: Any) -> _FileShared[T]:
        return self


SHARED_PREFIX: Final = "zerosum-shared-"
"""The start of the name of a :class:`ProcessExecutor`'s folder of shared values."""
SHARED_LOCK: Final = "owner.lock"
"""The file in such a folder that its executor holds a lock on (``flock``) while it lives: a
folder whose lock can be taken was left by a process that is gone (killed, say), whatever
its process id says (processes in other pid namespaces may share the folder)."""
SHARED_SHARE: Final = 0.5
"""At most this part of the memory folder's free space goes to one shared value; a larger
one goes inline (filling ``/dev/shm`` would starve others' shared memory)."""


def _shared_root() -> str | None:
    """Where shared values go: the machine's memory-backed folder, if it has one (Linux);
    elsewhere they go inline."""
    memory = "/dev/shm"
    if sys.platform == "win32" or not (os.path.isdir(memory) and os.access(memory, os.W_OK)):
        return None
    return memory


def _sweep(root: str) -> None:
    """Remove this user's folders of shared values whose executor is gone: those whose owner
    lock is free. Never raises (the folder is anyone's to write in)."""
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        if not name.startswith(SHARED_PREFIX):
            continue
        folder = os.path.join(root, name)
        try:
            status = os.lstat(folder)
            if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid():
                continue
            lock = os.open(os.path.join(folder, SHARED_LOCK), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:  # gone, not ours, or no lock yet (being made): leave it
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: its executor lives
            continue
        else:
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            os.close(lock)


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)


def _drop_folder(folder: str, lock: int) -> None:
    """Remove a folder of shared values and let go of its owner lock."""
    shutil.rmtree(folder, ignore_errors=True)
    with contextlib.suppress(OSError):
        os.close(lock)


def _write_shared(path: str, data: bytes) -> None:
    with open(path, "wb") as file:
        file.write(data)


class WorkerError(ZerosumError, RuntimeError):
    """A unit that raised in a worker (the message carries the worker's traceback, or only the
    message of a :class:`~zerosum.game.ZerosumError`: bad input says it all), or a worker that
    died."""


class Executor(abc.ABC):
    """Runs work units somewhere (see the module docstring). A unit's function must be
    importable by name (a module-level function); its arguments and result picklable."""

    workers: int
    """How many units run at the same time."""

    @abc.abstractmethod
    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        """Run ``fn(*args)`` as a unit; its future completes when it is done (its exception a
        :class:`WorkerError`, or the backend's own error for a unit it lost)."""

    def submit_on(self, ran: Future[Any], fn: Callable[..., T], /, *args: Any) -> Future[T]:
        """Run ``fn(*args)`` as :meth:`submit` does, on the worker that ran ``ran`` if that
        worker is free (its table holds much of what this unit will search), else on any. This
        backend does not choose its workers: any one."""
        return self.submit(fn, *args)

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        """The ones of ``futures`` that are done, after waiting up to ``timeout`` seconds for
        the first; raises :class:`WorkerError` if a worker died."""
        done, _ = concurrent.futures.wait(
            futures, timeout=timeout, return_when=concurrent.futures.FIRST_COMPLETED
        )
        return done

    def cancel(self, future: Future[Any]) -> None:
        """Give up ``future``: it will not be waited for; a unit not yet started never runs, a
        running one is asked to stop (or runs to its end, if the backend cannot reach it) and
        its result is dropped."""
        future.cancel()

    def stop(self, future: Future[Any]) -> bool:
        """Ask ``future``'s unit to stop now and keep its answer: True if it runs and was asked
        (:func:`unit_stop` turns true in it; ``future`` then completes with what the unit
        returns); False if the backend cannot reach it or it had not started (it is then
        cancelled as by :meth:`cancel`, and no answer will come) or was done already."""
        if not future.done():
            self.cancel(future)
        return False

    def split(self, future: Future[Any]) -> bool:
        """Ask ``future``'s running unit to stop so that its work can be shared out, keeping
        its answer, as :meth:`stop` does; but a unit not yet started is left to run (False).
        A simulated backend may model the two differently."""
        return future.running() and self.stop(future)

    def narrow(self, future: Future[Any], window: tuple[int, int]) -> bool:
        """Tell ``future``'s running unit that only ``window`` matters now
        (:func:`unit_window` gives it there): True if the backend could send it. This one
        cannot (the unit runs in its first window to its end)."""
        return False

    def clock(self) -> float:
        """The time of this executor's units, in seconds (a simulated backend has its own)."""
        return time.monotonic()

    def warm(self, fn: Callable[..., Any], /, *args: Any) -> None:
        """Run ``fn(*args)`` ahead of the units on each worker, best effort, its result
        dropped and counted nowhere: what a worker loads once (compiled code, a table) is then
        loaded while the caller prepares its first units, not in them. This backend does
        nothing (its units load it when they need it)."""
        return None

    def share(self, value: T) -> Shared[T]:
        """``value`` for many units: pass the answer as an argument (in a tuple, a dataclass)
        and call its :meth:`~Shared.get` in the unit. A backend with a store of its own (Ray's
        object store) puts the value there once, and each unit carries only a reference, which
        it reads when it needs the value; here, it goes with each unit."""
        return Shared(value)

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        """``(index, fn(item))`` for every item, as each is done, in any order; a unit that
        failed raises (:meth:`result`). Leaving the iterator early cancels what is left."""
        futures = {self.submit(fn, item): index for index, item in enumerate(items)}
        try:
            while futures:
                for future in self.wait(futures, POLL_S):
                    index = futures.pop(future)
                    yield index, self.result(future, index)
        finally:
            for future in futures:
                self.cancel(future)

    def result(self, future: Future[R], index: int) -> R:
        """The result of the done ``future``, unit ``index`` of a map (a backend may reword
        its failure to name the unit)."""
        return future.result()

    @abc.abstractmethod
    def close(self) -> None:
        """Stop every worker and give up every unit; nothing of ours is left running."""

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """:meth:`close`, spelt as :class:`concurrent.futures.Executor` spells it (running units
        are always given up)."""
        self.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialExecutor(Executor):
    """Runs every unit in this process, at once when submitted, and a map in order."""

    workers = 1

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        future: Future[T] = Future()
        future.set_running_or_notify_cancel()
        try:
            future.set_result(fn(*args))
        except Exception as error:
            future.set_exception(error)
        return future

    def map_unordered(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        """Each item in turn, run when the previous result has been taken."""
        for index, item in enumerate(items):
            yield index, fn(item)

    def close(self) -> None:
        pass


def _serve(
    imports: Sequence[str],
    tasks: Any,
    results: Any,
    initializer: Callable[[], None] | None,
    teardown: Callable[[], None] | None,
    parent: int,
    stops: Any,
    windows: Any,
) -> None:
    """A worker's life: take units until told to stop (``None``), the parent dies, or SIGTERM.
    Unit ``n`` is asked to stop when ``stops[n % STOP_SLOTS] == n`` (:func:`unit_stop`), and
    told its window in ``windows[n % STOP_SLOTS]`` (:func:`unit_window`, :func:`_packed`)."""
    os.setpgid(0, 0)
    worker_init(imports)
    signal.signal(signal.SIGTERM, exit_on_terminate)
    results.cancel_join_thread()
    try:
        if initializer is not None:
            initializer()
        while True:
            try:
                job = tasks.get(timeout=1.0)
            except queue.Empty:
                if os.getppid() != parent:
                    return
                continue
            if job is None:
                return
            number, function, args = job
            slot = number % STOP_SLOTS

            def asked(slot: int = slot, number: int = number) -> bool:
                return bool(stops[slot] == number)

            def moved(slot: int = slot, number: int = number) -> tuple[int, int] | None:
                return _unpacked(windows[slot], number)

            try:
                results.put((number, True, run_unit(asked, function, *args, window=moved)))
            except ZerosumError as error:  # bad input: its message says it all
                results.put((number, False, str(error)))
            except Exception:
                results.put((number, False, traceback.format_exc()))
    finally:
        if teardown is not None:
            teardown()


_WINDOW_BITS: Final = 16
"""Bits of each end of a window sent to a :class:`ProcessExecutor`'s unit (a signed rank)."""


def _packed(number: int, window: tuple[int, int]) -> int | None:
    """Unit ``number``'s ``window`` as one word (None if an end does not fit)."""
    half = 1 << (_WINDOW_BITS - 1)
    if not all(-half <= end < half for end in window) or not 0 <= number < 1 << 31:
        return None
    mask = (1 << _WINDOW_BITS) - 1
    return (number << 32) | ((window[0] & mask) << _WINDOW_BITS) | (window[1] & mask)


def _unpacked(word: int, number: int) -> tuple[int, int] | None:
    """The window in ``word`` if it is unit ``number``'s."""
    if word >> 32 != number:
        return None
    half, mask = 1 << (_WINDOW_BITS - 1), (1 << _WINDOW_BITS) - 1
    low, high = (word >> _WINDOW_BITS) & mask, word & mask
    return (low - 2 * half if low >= half else low, high - 2 * half if high >= half else high)


class ProcessExecutor(Executor):
    """``workers`` local processes (0: one per core), started at construction and reused for
    every unit until :meth:`close` (see the module docstring for how they are stopped).

    ``initializer`` runs once in each worker before its first unit; ``teardown`` runs in each
    worker as it stops, also when it is stopped by SIGTERM. Both must be module-level functions.
    """

    def __init__(
        self,
        workers: int = 0,
        *,
        initializer: Callable[[], None] | None = None,
        teardown: Callable[[], None] | None = None,
    ) -> None:
        if workers < 0:
            raise ValueError(f"{workers} workers: expected 1 or more (0: one per core)")
        workers = workers or os.cpu_count() or 1
        context = multiprocessing.get_context("spawn")
        self._tasks: Any = context.Queue()
        self._results: Any = context.Queue()
        self._stops: Any = context.RawArray("q", STOP_SLOTS)
        """Stop requests: slot ``n % STOP_SLOTS`` holds ``n`` once unit ``n`` is asked to stop
        (written here, read by the workers; one aligned word, so no lock)."""
        self._windows: Any = context.RawArray("q", STOP_SLOTS)
        """Windows of running units (:meth:`narrow`): slot ``n % STOP_SLOTS`` holds unit
        ``n``'s latest, packed with its number into one word (:func:`_packed`)."""
        self._numbers = 0
        self._waiting: deque[tuple[int, Callable[..., Any], tuple[Any, ...], Future[Any]]]
        self._waiting = deque()
        """Units not yet handed to a worker."""
        self._sent: dict[int, Future[Any]] = {}
        """Units handed to the workers, by number, until their answer comes."""
        self._carried: dict[int, tuple[Any, ...]] = {}
        """The arguments of the units handed to the workers, kept until their answer comes:
        a shared value's file lives as long as something here refers to it (:meth:`share`)."""
        self._folder: str | None = None
        """The folder of shared values (:meth:`share`), made at the first."""
        self._drop: weakref.finalize[[str, int], ProcessExecutor] | None = None
        """Removes the folder (at :meth:`close`, or when the executor is collected)."""
        self._shared = 0
        self.processes = [
            context.Process(
                target=_serve,
                args=(
                    worker_imports(),
                    self._tasks,
                    self._results,
                    initializer,
                    teardown,
                    os.getpid(),
                    self._stops,
                    self._windows,
                ),
                name=f"zerosum-worker-{number}",
                daemon=True,
            )
            for number in range(1, workers + 1)
        ]
        """The worker processes."""
        self.workers = workers
        try:
            with sigint_held():
                for process in self.processes:
                    process.start()
        except BaseException:
            self.close()
            raise

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        if not self.processes:
            raise RuntimeError("the executor is closed")
        self._numbers += 1
        future: Future[T] = Future()
        self._waiting.append((self._numbers, fn, args, future))
        self._dispatch()
        return future

    def cancel(self, future: Future[Any]) -> None:
        """Give up ``future``: a unit still waiting never runs; a running one is asked to stop
        (its worker is free again within milliseconds for a unit that polls
        :func:`unit_stop`) and its answer is dropped."""
        if not future.cancel():  # running (handed to a worker): ask it to stop
            self.stop(future)

    def warm(self, fn: Callable[..., Any], /, *args: Any) -> None:
        """One run of ``fn(*args)`` per worker, queued before the units (a worker that
        finishes one first may run two: best effort); their answers are dropped."""
        for _ in self.processes:
            self.submit(fn, *args)

    def split(self, future: Future[Any]) -> bool:
        return any(sent is future for sent in self._sent.values()) and self.stop(future)

    def stop(self, future: Future[Any]) -> bool:
        for number, sent in self._sent.items():
            if sent is future:
                if future.done():
                    return False
                self._stops[number % STOP_SLOTS] = number
                return True
        future.cancel()  # still waiting for a worker: it never runs
        return False

    def narrow(self, future: Future[Any], window: tuple[int, int]) -> bool:
        for number, sent in self._sent.items():
            if sent is future:
                word = _packed(number, window)
                if word is None or future.done():
                    return False
                self._windows[number % STOP_SLOTS] = word
                return True
        return False

    def share(self, value: T) -> Shared[T]:
        """``value`` written once to a file in memory (``/dev/shm``), which each unit that
        takes it reads only if it calls :meth:`~Shared.get` (a table that went inline with
        every unit cost each unit tens of milliseconds of pickling and copying). The file is
        removed once neither the caller nor a running unit refers to it, and the folder with
        the executor; a folder left by a killed process, by the next executor that shares. A
        value that would take more than half the folder's free space, or that does not fit,
        goes inline, as :meth:`Executor.share` sends it; so does every value on a machine
        with no such folder."""
        folder = self._shared_folder()
        if folder is None:
            return Shared(value)
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            free = os.statvfs(folder)
            if len(data) > SHARED_SHARE * free.f_bavail * free.f_frsize:
                return Shared(value)
        except OSError:
            return Shared(value)
        self._shared += 1
        path = os.path.join(folder, f"{self._shared}.pickle")
        try:
            _write_shared(path, data)
        except OSError:  # the folder is full after all: the value goes inline
            _remove(path)
            return Shared(value)
        shared: Shared[T] = _FileShared(path)
        weakref.finalize(shared, _remove, path)
        return shared

    def _shared_folder(self) -> str | None:
        """This executor's folder of shared values, made (and locked) at the first call, after
        removing the folders of executors that are gone; None if the machine has no memory
        folder or it cannot be made there."""
        if self._folder is None:
            root = _shared_root()
            if root is None:
                return None
            _sweep(root)
            try:
                folder = tempfile.mkdtemp(prefix=f"{SHARED_PREFIX}{os.getpid()}-", dir=root)
            except OSError:  # full, or not ours after all: values go inline
                return None
            try:
                lock = os.open(os.path.join(folder, SHARED_LOCK), os.O_CREAT | os.O_RDWR, 0o600)
                fcntl.flock(lock, fcntl.LOCK_EX)
            except OSError:
                shutil.rmtree(folder, ignore_errors=True)
                return None
            self._folder = folder
            self._drop = weakref.finalize(self, _drop_folder, folder, lock)
        return self._folder

    def _dispatch(self) -> None:
        """Hand waiting units to the workers, as many as there are workers not busy."""
        while self._waiting and len(self._sent) < len(self.processes):
            number, fn, args, future = self._waiting.popleft()
            if future.set_running_or_notify_cancel():  # False: cancelled while it waited
                self._sent[number] = future
                self._carried[number] = args
                self._tasks.put((number, fn, args))

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        done = {future for future in futures if future.done()}
        if done:
            return done
        try:
            answers = [self._results.get(timeout=timeout)]
        except queue.Empty:
            dead = [p.name for p in self.processes if not p.is_alive()]
            if dead:
                raise WorkerError(f"worker process {dead[0]} died") from None
            return set()
        with contextlib.suppress(queue.Empty):
            while True:
                answers.append(self._results.get_nowait())
        for number, ok, value in answers:
            future = self._sent.pop(number)
            self._carried.pop(number, None)
            if not ok:
                future.set_exception(WorkerError(f"a task failed in a worker process: {value}"))
            elif not future.cancelled():
                future.set_result(value)
        self._dispatch()
        return {future for future in futures if future.done()}

    def close(self) -> None:
        """Stop every worker: at once if units are still running, else after their teardown.
        A Ctrl-C meanwhile (a second one) waits until every worker has ended, a few seconds
        at most (:data:`GRACE_SECONDS`): stopped half-way, the close would leave workers and
        the engines they started running."""
        with sigint_held():
            self._close()

    def _close(self) -> None:
        processes, self.processes = self.processes, []
        for _, _, _, future in self._waiting:
            future.cancel()
        self._waiting.clear()
        if not processes:
            return
        alive = [p for p in processes if p.pid is not None and p.is_alive()]
        if self._sent:
            for process in alive:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid or 0, signal.SIGTERM)
        else:
            for _ in alive:
                self._tasks.put(None)
        for process in alive:
            process.join(GRACE_SECONDS)
        for process in alive:
            if process.is_alive():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid or 0, signal.SIGKILL)
                process.kill()  # in case it had not yet made its own process group
                process.join(GRACE_SECONDS)
        for future in self._sent.values():
            future.cancel()
        self._sent.clear()
        self._carried.clear()
        if self._drop is not None:
            self._drop()
        for channel in (self._tasks, self._results):
            channel.cancel_join_thread()
            channel.close()
