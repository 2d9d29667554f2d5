"""Worker start-up, and groups of workers that answer on pipes.

Every worker process of zerosum (a search pool's, the compiled engine's, a match's, a Ray actor
or task) starts through :func:`worker_init`: one place that makes a spawned process ready to
run zerosum's work. A ``spawn`` worker starts from a fresh interpreter and learns a game by
name through the game registry, so whatever the parent registered at run time must be
registered again there: the parent names the modules to import in :data:`WORKER_IMPORTS`, and
every worker imports them before its first task.

:class:`WorkerGroup` is the parent's side of workers that each answer on a pipe and each have a
stop flag the parent can raise while they work (the search pools): it starts them (processes,
``spawn``, or threads of this process), waits until each says ``"ready"``, sends, halts and
closes them. What the workers run, and what their stop flags are (a byte in shared memory, a
slot of a numpy row), is the owner's. :mod:`.scheduler` hands them work.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from multiprocessing.connection import Connection
from typing import Any, Final

from zerosum.runtime.signals import ignore_sigint, sigint_held

WORKER_IMPORTS: Final[list[str]] = []
"""Modules every worker process imports in :func:`worker_init` before its first task, in
order: a module that registers a game when imported (a plugin's) goes here, so that a worker
started by ``spawn`` knows the games its parent knows. Read when a worker starts."""


MAIN_SCRIPT: Final = ("__main__", "__mp_main__")
"""The names of a program's main script: a worker never imports it by name (``spawn`` runs it
again itself, as ``__mp_main__``; a Ray worker does not run it at all)."""


def worker_init(imports: Iterable[str] = (), *, signals: bool = True) -> None:
    """The first step of every worker process: with ``signals``, SIGINT is ignored (the parent
    handles Ctrl-C and stops its workers; a Ray worker, whose signals are Ray's, passes
    False); then each module of ``imports`` (the parent's :data:`WORKER_IMPORTS`) is
    imported, in order (but for the main script's names: ``spawn`` runs the parent's main
    script again in the worker, as ``__mp_main__``)."""
    if signals:
        ignore_sigint()
    for name in imports:
        if name not in MAIN_SCRIPT:
            importlib.import_module(name)


def worker_imports() -> tuple[str, ...]:
    """What a parent sends a new worker for :func:`worker_init`: :data:`WORKER_IMPORTS` now."""
    return tuple(WORKER_IMPORTS)


def resolve_workers(workers: int) -> int:
    """``workers`` as a process count: 0 means one per core."""
    if workers < 0:
        raise ValueError(f"{workers} workers: expected 0 (every core) or more")
    return workers or os.cpu_count() or 1


class Activity:
    """What each worker of a pool did since :meth:`reset`: seconds busy with a task and nodes
    searched. ``utilization`` is the share of the workers' time spent searching: together with
    the node counts it tells how the split would scale on dedicated cores (see
    ``benchmarks/parallel.py``)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.reset()

    def reset(self) -> None:
        self.busy_s = [0.0] * self.workers
        self.nodes = [0] * self.workers
        self.tasks = 0
        self.started = time.perf_counter()
        self._since: dict[int, float] = {}

    def begin(self, worker: int) -> None:
        self._since[worker] = time.perf_counter()
        self.tasks += 1

    def end(self, worker: int, nodes: int) -> None:
        self.busy_s[worker] += time.perf_counter() - self._since.pop(worker)
        self.nodes[worker] += nodes

    def utilization(self) -> float:
        """Busy worker-seconds over ``workers`` times the wall-clock seconds since the reset."""
        elapsed = time.perf_counter() - self.started
        return sum(self.busy_s) / (self.workers * elapsed) if elapsed > 0 else 0.0


def wait_until_ready(pipes: Iterable[Connection]) -> None:
    """Wait for every worker's ``"ready"``; raises if one died or said anything else."""
    for pipe in pipes:
        try:
            ready = pipe.recv()
        except EOFError:
            ready = None
        if ready != "ready":
            raise RuntimeError(
                "a search worker failed to start (see its error above; a script that starts"
                ' workers must do so under `if __name__ == "__main__":`)'
            )


def _process_main(imports: Sequence[str], target: Callable[..., None], *args: Any) -> None:
    """A worker process: :func:`worker_init`, then its work."""
    worker_init(imports)
    target(*args)


class WorkerGroup:
    """``count`` workers running ``target(*args(index, pipe))``, each answering on its end of a
    pipe, each with a stop flag that ``flag(index, raised)`` sets (the owner's shared memory).
    A worker says ``"ready"`` once it can take work; ``None`` on its pipe tells it to end.

    ``threads`` runs the workers as threads of this process (for work that releases the GIL),
    else as processes (``spawn``, started with SIGINT held, :func:`worker_init` first). If a
    worker fails to start, or Ctrl-C comes meanwhile, every one is ended and the error raised.
    """

    def __init__(
        self,
        count: int,
        target: Callable[..., None],
        args: Callable[[int, Connection], tuple[Any, ...]],
        *,
        flag: Callable[[int, bool], None],
        name: str,
        threads: bool = False,
        join_s: float = 2.0,
    ) -> None:
        if count < 1:
            raise ValueError(f"{count} workers: expected 1 or more")
        self.workers = count
        self.threads = threads
        self.closed = False
        self._flag = flag
        self._join_s = join_s
        self._pipes: list[Connection] = []
        self._workers: list[Any] = []
        context = multiprocessing.get_context("spawn")
        imports = worker_imports()
        try:
            for index in range(count):
                mine, theirs = context.Pipe()
                self._pipes.append(mine)
                if threads:
                    worker: Any = threading.Thread(
                        target=target, args=args(index, theirs), daemon=True, name=f"{name}-{index}"
                    )
                    self._workers.append(worker)
                    worker.start()
                    continue
                worker = context.Process(
                    target=_process_main,
                    args=(imports, target, *args(index, theirs)),
                    daemon=True,
                    name=f"{name}-{index}",
                )
                self._workers.append(worker)
                with sigint_held():
                    worker.start()
                theirs.close()
            wait_until_ready(self._pipes)
        except BaseException:  # Ctrl-C while the workers start, or one failed: end them all
            self.close(kill=True)
            raise

    @property
    def processes(self) -> list[Any]:
        """The workers: ``multiprocessing`` processes, or threads."""
        return list(self._workers)

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids; with threads, this process's id."""
        if self.threads:
            return [os.getpid()]
        return [int(worker.pid) for worker in self._workers]

    def send(self, worker: int, message: Any) -> None:
        """Lower ``worker``'s stop flag and send it ``message``."""
        self._flag(worker, False)
        self._pipes[worker].send(message)

    def connection(self, worker: int) -> Connection:
        """The pipe on which ``worker`` answers (to ``wait`` on, or ``recv`` from)."""
        return self._pipes[worker]

    def halt(self, workers: Iterable[int]) -> None:
        """Raise the stop flags of ``workers``: their work stops at their next poll."""
        for worker in workers:
            self._flag(worker, True)

    def lost(self) -> None:
        """A worker could not answer (it died, or Ctrl-C came while waiting for it): close the
        group, which cannot be trusted any more."""
        self.close()

    def close(self, *, kill: bool = False) -> None:
        """Stop the workers: raise every stop flag, send ``None``, wait ``join_s`` for each
        process (``kill``: end them at once) and kill what is left; threads are waited for."""
        if self.closed:
            return
        self.closed = True
        self.halt(range(len(self._pipes)))
        for pipe in self._pipes:
            with contextlib.suppress(BrokenPipeError, OSError):
                pipe.send(None)
        for worker in self._workers:
            if self.threads:
                worker.join()
                continue
            if worker.pid is None:  # its start failed: there is no process to end
                continue
            if kill:
                worker.kill()
            worker.join(timeout=self._join_s)
            if worker.is_alive():
                worker.kill()
                worker.join()
        for pipe in self._pipes:
            pipe.close()
