"""Where independent pieces of work run: the local process pool or a Ray cluster.

Both behind one small executor interface (:class:`concurrent.futures.Executor` plus
``workers`` and ``cancel``), so a caller that spreads work units (a distributed solve, a
match's games) is written once:

* :class:`LocalExecutor`: processes on this machine (``spawn``), the default; they ignore
  SIGINT, so Ctrl-C reaches only the caller, which cancels what it no longer needs.
* :class:`RayExecutor`: Ray tasks, on a local Ray started here (``--cluster auto``) or on an
  existing cluster (``--cluster ADDRESS``). Ray is the optional extra ``zerosum[ray]``; without
  it, asking for a cluster is a clear error, and nothing else needs Ray.

A function sent to either must be importable by name (a module-level function) and its
arguments and result picklable.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import logging
import multiprocessing
import os
import signal
import socket
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from zerosum.game import ZerosumError
from zerosum.search.parallel import ignore_sigint, sigint_held

T = TypeVar("T")

AUTO = "auto"
"""``--cluster auto``: start a local Ray instance for this process."""


class ClusterError(ZerosumError, RuntimeError):
    """Ray is missing, or the cluster cannot be reached."""


class Executor(concurrent.futures.Executor):
    """An executor that also says how many tasks it runs at once and can cancel running
    ones."""

    workers: int
    """How many tasks run at the same time."""

    def cancel(self, future: concurrent.futures.Future[Any]) -> None:
        """Give up ``future``: it will not be waited for; running work stops if the backend
        can stop it."""
        future.cancel()


class LocalExecutor(Executor):
    """``workers`` processes on this machine (0: one per core)."""

    def __init__(self, workers: int = 0) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=ignore_sigint,
        )

    def submit(
        self, fn: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        with sigint_held():  # the first submit starts the workers
            return self._pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """As the standard pool's; with ``wait=False`` the workers are also ended at once, so
        a long task still running does not keep this process from exiting."""
        running = list((self._pool._processes or {}).values())
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)
        if not wait:
            for process in running:
                process.terminate()


_CONNECT_S = 5.0


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


class RayExecutor(Executor):
    """Ray tasks on the cluster at ``address``, or on a local Ray started here when
    ``address`` is ``auto`` (with ``workers`` CPUs, 0: one per core). A Ray started here is
    shut down by :meth:`shutdown`; a joined cluster is only disconnected from."""

    def __init__(self, address: str = AUTO, *, workers: int = 0) -> None:
        self._ray, self._owned = connect(address, workers=workers)
        self._refs: dict[concurrent.futures.Future[Any], Any] = {}
        self._remotes: dict[Callable[..., Any], Any] = {}
        self.workers = cluster_cpus(self._ray)

    def submit(
        self, fn: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        remote = self._remotes.get(fn)
        if remote is None:
            remote = self._remotes[fn] = self._ray.remote(fn)
        ref = remote.remote(*args, **kwargs)
        future: concurrent.futures.Future[T] = ref.future()
        self._refs[future] = ref
        future.add_done_callback(lambda done: self._refs.pop(done, None))
        return future

    def cancel(self, future: concurrent.futures.Future[Any]) -> None:
        """Forget ``future``: its task runs to its end and its result is dropped.

        ``ray.cancel`` is not used: in Ray 2.60 a cancelled task whose reply still arrives
        aborts the calling process ("Tried to complete task that was not pending", seen here
        in about one distributed solve in three). A work unit is a bounded solve, so letting it
        finish costs a little cluster time and never the caller."""
        self._refs.pop(future, None)
        future.cancel()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if cancel_futures:
            for future in list(self._refs):
                self.cancel(future)
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()
        self._owned = False


def open_executor(cluster: str | None = None, *, workers: int = 0) -> Executor:
    """The local process pool (``cluster`` None), a local Ray (``"auto"``) or the Ray cluster
    at ``cluster``; ``workers`` sizes the local pool or the local Ray (0: one per core)."""
    if cluster is None:
        return LocalExecutor(workers)
    return RayExecutor(cluster, workers=workers)
