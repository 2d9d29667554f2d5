"""Where match games run: in this process, or in worker processes started once per match.

An :class:`Executor` maps a picklable, module-level function over items and yields each
result with its item's index as soon as it is done, in any order. The match builds its tasks,
hands them to an executor and orders the results itself, so the executor decides only where
the work runs. :class:`SerialExecutor` runs it here, in order (the twin that tests compare
against); :class:`ProcessExecutor` in local worker processes;
:class:`zerosum.match.cluster.ActorExecutor` on Ray actors that keep their players between
tasks. Any other only has to offer the same two methods (``map_unordered`` and ``close``): the
match maps :func:`zerosum.match.runner.run_task`, and each process that ran it should call
:func:`zerosum.match.runner.close_players` before it stops, as the local workers do, so that no
engine outlives the match.

Process hygiene (:class:`ProcessExecutor`): each worker leads its own process group and
ignores SIGINT, so a Ctrl-C in the terminal reaches only the parent, which then stops the
workers itself: SIGTERM first (a worker turns it into ``SystemExit``, so its ``teardown``
closes the engines it started), and after a grace period SIGKILL to the worker's whole process
group, which holds every engine it started. A worker whose parent died stops at its next idle
moment. Nothing is left running once :meth:`ProcessExecutor.close` returns.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

from zerosum.game import ZerosumError

T = TypeVar("T")
R = TypeVar("R")

GRACE_SECONDS = 3.0
"""How long stopped workers get to close their engines before they are killed."""


class WorkerError(ZerosumError, RuntimeError):
    """A task that raised in a worker (the message carries the worker's traceback), or a
    worker that died."""


class Executor(Protocol):
    """Runs tasks somewhere and yields ``(index, result)`` pairs as they finish."""

    def map_unordered(
        self, function: Callable[[T], R], items: Sequence[T]
    ) -> Iterator[tuple[int, R]]: ...

    def close(self) -> None: ...


class SerialExecutor:
    """Runs every task in this process, in order."""

    def map_unordered(
        self, function: Callable[[T], R], items: Sequence[T]
    ) -> Iterator[tuple[int, R]]:
        for index, item in enumerate(items):
            yield index, function(item)

    def close(self) -> None:
        pass

    def __enter__(self) -> SerialExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _exit_on_terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _serve(
    tasks: Any,
    results: Any,
    initializer: Callable[[], None] | None,
    teardown: Callable[[], None] | None,
    parent: int,
) -> None:
    """A worker's life: take tasks until told to stop (``None``), the parent dies, or SIGTERM."""
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_terminate)
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
            batch, index, function, item = job
            try:
                results.put((batch, index, True, function(item)))
            except ZerosumError as error:  # bad input: its message says it all
                results.put((batch, index, False, str(error)))
            except Exception:
                results.put((batch, index, False, traceback.format_exc()))
    finally:
        if teardown is not None:
            teardown()


class ProcessExecutor:
    """``workers`` local processes, started at construction and reused for every task until
    :meth:`close` (see the module docstring for how they are stopped).

    ``initializer`` runs once in each worker before its first task; ``teardown`` runs in each
    worker as it stops, also when it is stopped by SIGTERM. Both must be module-level functions.
    """

    def __init__(
        self,
        workers: int,
        *,
        initializer: Callable[[], None] | None = None,
        teardown: Callable[[], None] | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError(f"{workers} workers: expected 1 or more")
        context = multiprocessing.get_context("spawn")
        self._tasks: Any = context.Queue()
        self._results: Any = context.Queue()
        self._batch = 0
        self._busy = False
        self._processes = [
            context.Process(
                target=_serve,
                args=(self._tasks, self._results, initializer, teardown, os.getpid()),
                name=f"zerosum-worker-{number}",
                daemon=True,
            )
            for number in range(1, workers + 1)
        ]
        try:
            for process in self._processes:
                process.start()
        except BaseException:
            self.close()
            raise

    @property
    def workers(self) -> int:
        return len(self._processes)

    def map_unordered(
        self, function: Callable[[T], R], items: Sequence[T]
    ) -> Iterator[tuple[int, R]]:
        self._batch += 1
        batch = self._batch
        self._busy = True
        for index, item in enumerate(items):
            self._tasks.put((batch, index, function, item))
        pending = len(items)
        while pending:
            try:
                got_batch, index, ok, value = self._results.get(timeout=1.0)
            except queue.Empty:
                dead = [p.name for p in self._processes if not p.is_alive()]
                if dead:
                    raise WorkerError(f"worker process {dead[0]} died") from None
                continue
            if got_batch != batch:
                continue  # left over from an abandoned earlier map
            if not ok:
                raise WorkerError(f"a task failed in a worker process: {value}")
            pending -= 1
            yield index, value
        self._busy = False

    def close(self) -> None:
        """Stop every worker: at once if tasks are still running, else after their teardown."""
        processes, self._processes = self._processes, []
        if not processes:
            return
        alive = [p for p in processes if p.pid is not None and p.is_alive()]
        if self._busy:
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
        for channel in (self._tasks, self._results):
            channel.cancel_join_thread()
            channel.close()

    def __enter__(self) -> ProcessExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
