"""The Ray backend: executors on a Ray cluster, or on a local Ray started here.

Ray is the optional extra ``zerosum[ray]``: it is imported only when a cluster is asked for
(:func:`connect`), and without it that is a clear :class:`ClusterError`; nothing else needs
Ray. Two executors (:mod:`.executor`'s interface), for two kinds of work:

* :class:`RayTaskExecutor`: each unit a Ray task (a distributed solve's units). A worker keeps
  what a unit's function caches (a solver and its table) for later units it runs.
* :class:`RayActorExecutor`: one actor per worker, each running one unit at a time and keeping
  its state between units (a match's players: a UCI engine's process, a zerosum player's
  table); the next unit goes to whichever actor comes free, so long units do not hold up short
  ones.

Connecting (:func:`connect`). ``auto`` starts a local Ray for this process, else the cluster
at the address is joined (after a quick check that something listens there: Ray itself retries
for minutes). Ctrl-C is held while Ray starts (its processes inherit the blocked signal, so a
Ctrl-C at the terminal reaches only this process, which then shuts Ray down in order).

Stopping. ``ray.cancel`` is never used: in Ray 2.60 a cancelled task whose reply still arrives
aborts the calling process ("Tried to complete task that was not pending", seen here in about
one distributed solve in three). A cancelled task runs to its end and its result is dropped. At
the end, every actor runs its ``teardown`` (engines are sent ``quit``) and is then killed with
``ray.kill``; when the work is abandoned (Ctrl-C, an error), busy actors first run ``kill``
beside their unit (in the actor's second thread), so nothing waits for a unit to finish. A Ray
started here is shut down; a joined cluster is only disconnected from.

Failures: a unit that raises, or an actor that dies (its process killed, the machine lost),
raises :class:`~zerosum.runtime.executor.WorkerError` naming the unit, instead of waiting for a
result that will never come.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import signal
import socket
import threading
import traceback
from collections import deque
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future
from typing import Any, Final, TypeVar

from zerosum.game import ZerosumError
from zerosum.runtime.executor import GRACE_SECONDS, Executor, ProcessExecutor, WorkerError
from zerosum.runtime.signals import sigint_held
from zerosum.runtime.workers import worker_imports, worker_init

T = TypeVar("T")

AUTO: Final = "auto"
"""``--cluster auto``: start a local Ray instance for this process."""
_CONNECT_S: Final = 5.0


class ClusterError(ZerosumError, RuntimeError):
    """Ray is missing, or the cluster cannot be reached."""


def _check_reachable(address: str) -> None:
    """Fail fast on a ``host:port`` nobody listens at (Ray itself retries for minutes)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(
            f"cluster address {address!r} is malformed: expected 'auto', host:port or "
            "ray://host:port"
        )
    try:
        socket.create_connection((host, int(port)), timeout=_CONNECT_S).close()
    except OSError as error:
        raise ClusterError(
            f"no Ray cluster answers at {address!r} ({error.strerror or error}): expected "
            "'auto' or the address of a running cluster"
        ) from None


def _ray() -> Any:
    """The ``ray`` module, imported now (it is optional, and slow to import)."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ClusterError(
            "Ray is not installed: expected 'pip install zerosum[ray]' for --cluster"
        ) from None


def connect(address: str = AUTO, *, workers: int = 0) -> tuple[Any, bool]:
    """Ray, connected: to a local Ray started here when ``address`` is ``auto`` (with
    ``workers`` CPUs, 0: one per core), else to the cluster at ``address``. Returns the ``ray``
    module and whether this call connected (then the caller calls ``ray.shutdown()``, which
    stops a local Ray and only disconnects from a cluster); a process already connected keeps
    what it has.

    Ctrl-C is held while Ray starts: its head processes inherit the blocked signal, so a
    Ctrl-C at the terminal (sent to the whole foreground process group) reaches only this
    process, which then shuts Ray down in order. One that came meanwhile is delivered after."""
    ray = _ray()
    if ray.is_initialized():
        return ray, False
    options: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": "ERROR",
        "log_to_driver": False,
        "configure_logging": False,
    }
    logger = logging.getLogger("ray")
    level = logger.level
    # ray.init makes SIGTERM exit at once; a caller's own handler (match: stop like Ctrl-C)
    # is put back after it.
    terminate = signal.getsignal(signal.SIGTERM)
    owned = False
    try:
        with sigint_held():
            logger.setLevel(logging.ERROR)  # no start-up notices on the terminal
            try:
                if address == AUTO:  # "local": a new Ray, even if one runs on this machine
                    ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, **options)
                else:
                    _check_reachable(address)
                    ray.init(address=address, **options)
            except ClusterError:
                raise
            except Exception as error:  # Ray raises many kinds; all mean "no cluster"
                raise ClusterError(
                    f"cannot reach a Ray cluster at {address!r} ({error}): expected 'auto' "
                    "or the address of a running cluster (host:port or ray://host:port)"
                ) from None
            owned = True
        return ray, owned
    except BaseException:  # a Ctrl-C held during the start arrives here
        if owned:
            ray.shutdown()
        raise
    finally:
        logger.setLevel(level)
        if callable(terminate) and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, terminate)


def cluster_cpus(ray: Any) -> int:
    """The CPUs of the connected Ray cluster (at least 1)."""
    return max(int(ray.cluster_resources().get("CPU", 1)), 1)


def _reason(error: BaseException) -> str:
    """Ray's error, in one line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def _run_task(imports: Sequence[str], fn: Callable[..., T], *args: Any) -> T:
    """A unit in a Ray task: :func:`~zerosum.runtime.workers.worker_init` (Ray's signals stay
    Ray's), then ``fn(*args)``."""
    worker_init(imports, signals=False)
    return fn(*args)


class RayTaskExecutor(Executor):
    """Ray tasks on the cluster at ``address``, or on a local Ray started here when
    ``address`` is ``auto`` (with ``workers`` CPUs, 0: one per core). A Ray started here is
    shut down by :meth:`close`; a joined cluster is only disconnected from."""

    def __init__(self, address: str = AUTO, *, workers: int = 0) -> None:
        self._ray, self._owned = connect(address, workers=workers)
        self._running: set[Future[Any]] = set()
        self._remote = self._ray.remote(_run_task)
        self._imports = worker_imports()
        self.workers = cluster_cpus(self._ray)

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        ref = self._remote.remote(self._imports, fn, *args)
        future: Future[T] = ref.future()
        self._running.add(future)
        future.add_done_callback(self._running.discard)
        return future

    def cancel(self, future: Future[Any]) -> None:
        """Forget ``future``: its task runs to its end and its result is dropped (see the
        module docstring: ``ray.cancel`` is not used)."""
        self._running.discard(future)
        future.cancel()

    def close(self) -> None:
        for future in list(self._running):
            self.cancel(future)
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()
        self._owned = False


class _Actor:
    """What runs inside one Ray actor (made remote when a :class:`RayActorExecutor` starts)."""

    def __init__(
        self,
        imports: Sequence[str],
        teardown: Callable[[], None] | None,
        kill: Callable[[], None] | None,
    ) -> None:
        worker_init(imports, signals=False)
        self._teardown = teardown
        self._kill = kill

    def run(self, function: Callable[..., Any], args: tuple[Any, ...]) -> tuple[bool, Any]:
        """``(True, function(*args))``, or ``(False, what went wrong)``."""
        try:
            return True, function(*args)
        except ZerosumError as error:  # bad input: its message says it all
            return False, str(error)
        except Exception:
            return False, traceback.format_exc()

    def close(self) -> None:
        """Release what the units of this actor kept (its players)."""
        if self._teardown is not None:
            self._teardown()

    def abort(self) -> None:
        """Stop a running unit's external processes at once (runs beside it)."""
        if self._kill is not None:
            self._kill()


class _Failed(Exception):
    """A unit that failed on an actor: ``died`` if its actor died, and why."""

    def __init__(self, reason: str, *, died: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.died = died


class RayActorExecutor(Executor):
    """Ray actors running one unit at a time each (see the module docstring).

    ``address``: ``auto`` starts a local Ray with ``workers`` CPUs (0: one per core), else the
    cluster to join. There are ``workers`` actors (0: one per CPU of the cluster), at most the
    cluster's CPUs (each actor takes one, so none waits for a CPU that never comes) and at most
    ``most``. ``teardown`` runs in each actor before it stops, ``kill`` in busy actors when the
    work is abandoned; both must be module-level functions. A map's failures name the unit as
    ``task_name`` and its number (a match's games)."""

    def __init__(
        self,
        address: str = AUTO,
        *,
        workers: int = 0,
        most: int | None = None,
        teardown: Callable[[], None] | None = None,
        kill: Callable[[], None] | None = None,
        task_name: str = "game",
    ) -> None:
        self._ray, self._owned = connect(address, workers=workers)
        self.task_name = task_name
        self._actors: list[Any] = []
        self._idle: deque[int] = deque()
        self._dead: set[int] = set()
        """Actors whose process died."""
        self._waiting: deque[tuple[Callable[..., Any], tuple[Any, ...], Future[Any]]] = deque()
        """Units not yet handed to an actor."""
        self._running: dict[Any, tuple[int, Future[Any]]] = {}
        """Each call in flight: its object reference with (actor number, future)."""
        self.workers = 0
        try:
            ray = self._ray
            cpus = cluster_cpus(ray)
            count = max(min(workers or cpus, cpus, most or cpus), 1)
            remote = ray.remote(num_cpus=1, max_concurrency=2, max_restarts=0)(_Actor)
            imports = worker_imports()
            self._actors = [remote.remote(imports, teardown, kill) for _ in range(count)]
            self._idle.extend(range(count))
            self.workers = count
        except BaseException:
            self.close()
            raise

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        if not self._actors:
            raise RuntimeError("the executor is closed")
        future: Future[T] = Future()
        self._waiting.append((fn, args, future))
        self._dispatch()
        return future

    def _dispatch(self) -> None:
        """Hand waiting units to the idle actors."""
        while self._idle and self._waiting:
            fn, args, future = self._waiting.popleft()
            if future.set_running_or_notify_cancel():  # False: cancelled while it waited
                number = self._idle.popleft()
                ref = self._actors[number].run.remote(fn, args)
                self._running[ref] = (number, future)

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        done = {future for future in futures if future.done()}
        if done:
            return done
        if not self._running:
            if self._waiting:
                raise WorkerError(
                    f"no Ray actor is left to play the {self.task_name}s (every one died)"
                )
            return set()
        ray = self._ray
        ready, _ = ray.wait(list(self._running), num_returns=1, timeout=timeout)
        for ref in ready:
            number, future = self._running.pop(ref)
            try:
                ok, value = ray.get(ref)
            except ray.exceptions.RayActorError as error:
                self._dead.add(number)
                future.set_exception(_Failed(_reason(error), died=True))
                continue
            except ray.exceptions.RayError as error:
                ok, value = False, _reason(error)
            self._idle.append(number)
            if not ok:
                future.set_exception(_Failed(value, died=False))
            else:
                future.set_result(value)
        self._dispatch()
        return {future for future in futures if future.done()}

    def result(self, future: Future[T], index: int) -> T:
        """The unit's result; a failure raises :class:`WorkerError` naming the unit."""
        try:
            return future.result()
        except _Failed as failure:
            unit = f"{self.task_name} {index + 1}"
            if failure.died:
                message = f"the Ray actor playing {unit} died: {failure.reason}"
            else:
                message = f"{unit} failed on a Ray actor: {failure.reason}"
            raise WorkerError(message) from None

    def close(self) -> None:
        """Stop every actor (see the module docstring) and a Ray started here; returns within
        a few seconds, also when the cluster is gone."""
        with sigint_held():  # a second Ctrl-C must not leave actors or Ray behind
            actors, self._actors = self._actors, []
            busy = {number for number, _ in self._running.values()}
            for _, _, future in self._waiting:
                future.cancel()
            self._waiting.clear()
            self._running.clear()
            ray = self._ray
            calls = []
            for number, actor in enumerate(actors):
                with contextlib.suppress(Exception):
                    if number in busy:
                        calls.append(actor.abort.remote())
                    calls.append(actor.close.remote())
            with contextlib.suppress(Exception):
                ray.wait(calls, num_returns=len(calls), timeout=GRACE_SECONDS)
            for actor in actors:
                with contextlib.suppress(Exception):
                    ray.kill(actor, no_restart=True)
            if self._owned:
                self._owned = False
                with contextlib.suppress(Exception):
                    ray.shutdown()


def open_executor(cluster: str | None = None, *, workers: int = 0) -> Executor:
    """The local process pool (``cluster`` None), a local Ray (``"auto"``) or the Ray cluster
    at ``cluster``, as Ray tasks; ``workers`` sizes the local pool or the local Ray (0: one
    per core)."""
    if cluster is None:
        return ProcessExecutor(workers)
    return RayTaskExecutor(cluster, workers=workers)
