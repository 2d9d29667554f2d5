"""The Ray backend: executors on a Ray cluster, or on a local Ray started here.

Ray is the optional extra ``zerosum[ray]``: it is imported only when a cluster is asked for
(:func:`~zerosum.runtime.joining.connect`, which also checks the address, the token and the
versions before joining), and without it that is a clear :class:`ClusterError`; nothing else
needs Ray. Two executors (:mod:`.executor`'s interface), for two kinds of work:

* :class:`RayTaskExecutor`: each unit a Ray task (a distributed solve's units). A worker keeps
  what a unit's function caches (a solver and its table) for later units it runs.
* :class:`RayActorExecutor`: one actor per worker, each running one unit at a time and keeping
  its state between units (a match's players: a UCI engine's process, a zerosum player's
  table); the next unit goes to whichever actor comes free, so long units do not hold up short
  ones.

Both count the units each node of the cluster ran (``units_per_node``, by Ray node id), so a
command can say where its work went.

Losing a node. A task whose node dies is run again elsewhere by Ray (``max_retries``; Ray sees
the node go within seconds). An actor whose node dies, or that Ray can no longer reach, is
given up and its unit goes back to the queue for the other actors (at most
:data:`MAX_ATTEMPTS` times); units are deterministic (a match's game is seeded by its number),
so the result is the same. An actor that dies on a node that is still alive (its unit killed
its process) is a failure of the unit, reported as such.

Stopping. ``ray.cancel`` is never used: in Ray 2.60 a cancelled task whose reply still arrives
aborts the calling process ("Tried to complete task that was not pending", seen here in about one
distributed solve in three). Instead, a :class:`RayTaskExecutor` keeps its units' stop requests in a
small actor of its own (no CPU, on the driver's node; :mod:`.raybase`). A running task always has
one call out to it, which the board answers as soon as the unit is asked to stop (or after a second,
and the task sends the next), and :func:`~zerosum.runtime.executor.unit_stop` only looks whether
that answer came: a cancelled (or :meth:`~RayTaskExecutor.stop`-ped) unit stops within milliseconds
of the request and frees its CPU; its answer is dropped (or, stopped, taken). The board is restarted
if it dies, and the executor sends the requests of units still running again while it waits (a
request sent while it restarts is lost, not retried: Ray would tell the driver's output of every
retry). A :class:`RayActorExecutor`'s running units run to their end. (Units on workers that outlive
their command, the same board and all: :mod:`.pool`.) At the end, every actor runs its ``teardown``
(engines are sent ``quit``) and is then killed with ``ray.kill``; when the work is abandoned
(Ctrl-C, an error), busy actors first run ``kill`` beside their unit (in the actor's second thread),
so nothing waits for a unit to finish. A Ray started here is shut down; a joined cluster is only
disconnected from.

Failures: a unit that raises, or an actor that dies (its process killed) raises
:class:`~zerosum.runtime.executor.WorkerError` naming the unit, instead of waiting for a result
that will never come.
"""

from __future__ import annotations

import contextlib
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future, InvalidStateError
from typing import Any, Final, TypeVar

from zerosum.game import ZerosumError
from zerosum.runtime.executor import (
    GRACE_SECONDS,
    Executor,
    ProcessExecutor,
    Shared,
    WorkerError,
    run_unit,
)
from zerosum.runtime.joining import AUTO, ClusterError, connect
from zerosum.runtime.pool import RayPoolExecutor
from zerosum.runtime.raybase import (
    ASK_AGAIN_S,
    MAX_ATTEMPTS,
    Told,
    _asks,
    _node_id,
    _reason,
    share_on_ray,
    stop_board,
)
from zerosum.runtime.signals import sigint_held
from zerosum.runtime.workers import worker_imports, worker_init

LOCAL: Final = "local"
"""The cluster address that means the local process pool (:class:`ProcessExecutor`)."""
T = TypeVar("T")


def cluster_cpus(ray: Any) -> int:
    """The CPUs of the connected Ray cluster (at least 1)."""
    return max(int(ray.cluster_resources().get("CPU", 1)), 1)


def _as_raised(error: BaseException) -> BaseException:
    """A failed task's error for the caller: a :class:`~zerosum.game.ZerosumError` as the unit
    raised it (bad input: its message says it all, in one line, as the local pool passes it
    back), not Ray's wrapper, whose message is the worker's traceback; any other error as Ray
    gives it, traceback and all (a bug)."""
    cause = getattr(error, "cause", None)
    return cause if isinstance(cause, ZerosumError) else error


def _run_task(
    imports: Sequence[str], board: Any, number: int, fn: Callable[..., T], *args: Any
) -> tuple[str, T]:
    """A unit in a Ray task: :func:`~zerosum.runtime.workers.worker_init` (Ray's signals stay
    Ray's), then ``fn(*args)`` with its stop requests on ``board``, with the node it ran on."""
    worker_init(imports, signals=False)
    check = None if board is None else _asks(board, number)
    window = None if check is None else check.window
    return _node_id(), run_unit(check, fn, *args, window=window)


class RayTaskExecutor(Executor):
    """Ray tasks on the cluster at ``address``, or on a local Ray started here when
    ``address`` is ``auto`` (with ``workers`` CPUs, 0: one per core). A Ray started here is
    shut down by :meth:`close`; a joined cluster is only disconnected from. A task lost with
    its node runs again elsewhere (up to :data:`MAX_ATTEMPTS` runs)."""

    def __init__(self, address: str = AUTO, *, workers: int = 0) -> None:
        self._ray, self._owned = connect(address, workers=workers)
        self._running: set[Future[Any]] = set()
        # SPREAD: Ray's default keeps short tasks on the driver's node (its worker is free again
        # before a task could spill to another node), so a solve would leave the others idle.
        self._remote = self._ray.remote(max_retries=MAX_ATTEMPTS - 1, scheduling_strategy="SPREAD")(
            _run_task
        )
        self._imports = worker_imports()
        self._lock = threading.Lock()
        self.units_per_node: Counter[str] = Counter()
        """The units whose result was taken, by the Ray node that ran them."""
        self.workers = cluster_cpus(self._ray)
        self._numbers: dict[Future[Any], int] = {}
        """The running units' numbers, for their stop requests."""
        self._tasks: dict[int, Any] = {}
        """Every task still running, by unit number (whether or not its future was cancelled)."""
        self._asked: set[int] = set()
        """The numbers of the units asked to stop (sent again while their task runs, see
        :data:`ASK_AGAIN_S`)."""
        self._asked_at = 0.0
        self._told = Told()
        """The windows told to running units (sent again with the stop requests)."""
        self._count = 0
        self._warming: list[Any] = []
        """The tasks of the last :meth:`warm` (their results are dropped)."""
        self._board: Any = None
        try:
            self._board = self._stop_board()
        except BaseException:
            self.close()
            raise

    def _stop_board(self) -> Any:
        return stop_board(self._ray)

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        self._count += 1
        ref = self._remote.remote(self._imports, self._board, self._count, fn, *args)
        inner: Future[tuple[str, T]] = ref.future()
        number = self._count
        with self._lock:
            self._tasks[number] = inner

        def ended(_: Future[Any]) -> None:  # in Ray's thread
            with self._lock:
                del self._tasks[number]

        inner.add_done_callback(ended)
        future: Future[T] = Future()
        future.set_running_or_notify_cancel()
        self._running.add(future)
        self._numbers[future] = self._count
        future.add_done_callback(self._running.discard)
        future.add_done_callback(self._forget)

        def settle(done: Future[tuple[str, T]]) -> None:  # in Ray's thread
            with contextlib.suppress(InvalidStateError):  # cancelled meanwhile: dropped
                error = done.exception()
                if error is not None:
                    future.set_exception(_as_raised(error))
                    return
                node, value = done.result()
                if not future.cancelled():  # counted before anyone sees the result
                    with self._lock:
                        self.units_per_node[node] += 1
                future.set_result(value)

        inner.add_done_callback(settle)
        return future

    def _forget(self, future: Future[Any]) -> None:
        self._numbers.pop(future, None)

    def share(self, value: T) -> Shared[T]:
        """``value`` in Ray's object store, put there once (see :meth:`Executor.share`)."""
        return share_on_ray(self._ray, value)

    def warm(self, fn: Callable[..., Any], /, *args: Any) -> None:
        """One task of ``fn(*args)`` per CPU of the cluster, spread over its nodes as the
        units are, submitted before them; not counted in :attr:`units_per_node`."""
        self._warming = [
            self._remote.remote(self._imports, None, 0, fn, *args) for _ in range(self.workers)
        ]

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        now = time.monotonic()
        if (
            (self._asked or self._told)
            and self._board is not None
            and now >= self._asked_at + ASK_AGAIN_S
        ):
            self._asked_at = now
            with self._lock:
                running = set(self._tasks)
            self._asked &= running
            for number in self._asked:
                with contextlib.suppress(Exception):  # the board is gone with the cluster
                    self._board.ask.remote(number)
            self._told.again(self._board, running)
        return super().wait(futures, timeout)

    def cancel(self, future: Future[Any]) -> None:
        """Forget ``future``: its task is asked to stop and its result is dropped (see the
        module docstring: ``ray.cancel`` is not used)."""
        self.stop(future)
        self._running.discard(future)
        self._forget(future)
        future.cancel()

    def stop(self, future: Future[Any]) -> bool:
        number = self._numbers.get(future)
        if number is None or future.done() or self._board is None:
            return False
        try:
            self._board.ask.remote(number)
        except Exception:  # the board is gone (with the cluster): the unit runs to its end
            return False
        self._asked.add(number)
        return True

    def narrow(self, future: Future[Any], window: tuple[int, int]) -> bool:
        number = self._numbers.get(future)
        if number is None or future.done() or self._board is None:
            return False
        try:
            self._told.tell(self._board, number, window)
        except Exception:  # the board is gone (with the cluster): the unit keeps its window
            return False
        return True

    def close(self) -> None:
        for future in list(self._running):
            self.cancel(future)
        self._warming.clear()
        board, self._board = self._board, None
        if board is not None:
            with contextlib.suppress(Exception):
                self._ray.kill(board, no_restart=True)
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

    def node(self) -> str:
        """The Ray node this actor lives on."""
        return _node_id()

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


class _Unit:
    """A unit of a :class:`RayActorExecutor`: what to run, its future, the runs it lost."""

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], future: Future[Any]):
        self.fn, self.args, self.future = fn, args, future
        self.lost = 0


class RayActorExecutor(Executor):
    """Ray actors running one unit at a time each (see the module docstring).

    ``address``: ``auto`` starts a local Ray with ``workers`` CPUs (0: one per core), else the
    cluster to join. There are ``workers`` actors (0: one per CPU of the cluster), at most the
    cluster's CPUs (each actor takes one, so none waits for a CPU that never comes) and at most
    ``most``. ``teardown`` runs in each actor before it stops, ``kill`` in busy actors when the
    work is abandoned; both must be module-level functions. A map's failures name the unit as
    ``task_name`` and its number (a match's games). A unit whose actor is lost with its node
    goes to another actor (see the module docstring); ``lost_runs`` counts those runs."""

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
        self._homes: list[Any] = []
        """Each actor's answer to ``node()``: where it lives."""
        self._known: dict[int, str] = {}
        """The answers of :attr:`_homes` already read."""
        self._idle: deque[int] = deque()
        self._dead: set[int] = set()
        """Actors whose process died, or that were lost with their node."""
        self._waiting: deque[_Unit] = deque()
        """Units not yet handed to an actor (a unit lost with its actor comes first)."""
        self._running: dict[Any, tuple[int, _Unit]] = {}
        """Each call in flight: its object reference with (actor number, unit)."""
        self.units_per_node: Counter[str] = Counter()
        """The units finished, by the Ray node whose actor ran them."""
        self.lost_runs = 0
        """Runs of units lost with their actor's node, and run again."""
        self.workers = 0
        try:
            ray = self._ray
            cpus = cluster_cpus(ray)
            count = max(min(workers or cpus, cpus, most or cpus), 1)
            remote = ray.remote(num_cpus=1, max_concurrency=2, max_restarts=0)(_Actor)
            imports = worker_imports()
            self._actors = [remote.remote(imports, teardown, kill) for _ in range(count)]
            self._homes = [actor.node.remote() for actor in self._actors]
            self._idle.extend(range(count))
            self.workers = count
        except BaseException:
            self.close()
            raise

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        if not self._actors:
            raise RuntimeError("the executor is closed")
        future: Future[T] = Future()
        self._waiting.append(_Unit(fn, args, future))
        self._dispatch()
        return future

    def _dispatch(self) -> None:
        """Hand waiting units to the idle actors."""
        while self._idle and self._waiting:
            unit = self._waiting.popleft()
            # a unit run again is already running; a new one may have been cancelled
            if unit.future.running() or unit.future.set_running_or_notify_cancel():
                number = self._idle.popleft()
                ref = self._actors[number].run.remote(unit.fn, unit.args)
                self._running[ref] = (number, unit)

    def _home(self, number: int) -> str | None:
        """The node of actor ``number``, if it ever said."""
        if number not in self._known:
            ray = self._ray
            home = self._homes[number]
            with contextlib.suppress(Exception):
                ready, _ = ray.wait([home], timeout=0)
                if ready:
                    self._known[number] = str(ray.get(home))
        return self._known.get(number)

    def _lost(self, number: int, error: BaseException) -> bool:
        """Whether actor ``number`` was lost with its node (or can no longer be reached),
        rather than killed by its unit on a node that lives on."""
        ray = self._ray
        if isinstance(error, ray.exceptions.ActorUnavailableError):
            return True
        home = self._home(number)
        try:
            alive = {node["NodeID"] for node in ray.nodes() if node.get("Alive")}
        except Exception:  # the cluster itself is going: nothing to run again on
            return False
        return home is not None and home not in alive

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
            number, unit = self._running.pop(ref)
            try:
                ok, value = ray.get(ref)
            except ray.exceptions.RayActorError as error:
                self._dead.add(number)
                if self._lost(number, error) and unit.lost + 1 < MAX_ATTEMPTS:
                    unit.lost += 1
                    self.lost_runs += 1
                    with contextlib.suppress(Exception):
                        ray.kill(self._actors[number], no_restart=True)
                    self._waiting.appendleft(unit)
                else:
                    unit.future.set_exception(_Failed(_reason(error), died=True))
                continue
            except ray.exceptions.RayError as error:
                ok, value = False, _reason(error)
            self._idle.append(number)
            if not ok:
                unit.future.set_exception(_Failed(value, died=False))
            else:
                unit.future.set_result(value)
                home = self._home(number)
                if home is not None:
                    self.units_per_node[home] += 1
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
            for unit in self._waiting:
                unit.future.cancel()
            self._waiting.clear()
            self._running.clear()
            ray = self._ray
            calls = []
            for number, actor in enumerate(actors):
                if number in self._dead:
                    continue
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


def open_executor(cluster: str | None = None, *, workers: int = 0, keep_s: float = 0.0) -> Executor:
    """The local process pool (``cluster`` None or ``"local"``), a local Ray (``"auto"``) or
    the Ray cluster at ``cluster``, as Ray tasks; ``workers`` sizes the local pool or the local
    Ray (0: one per core). With ``keep_s`` above 0, a joined cluster's units run on its pool
    workers instead, which stay that many seconds after their last command for the next one
    (:class:`~zerosum.runtime.pool.RayPoolExecutor`; a local Ray goes with the command, so it
    keeps Ray tasks)."""
    if cluster is None or cluster == LOCAL:
        return ProcessExecutor(workers)
    if keep_s > 0 and cluster != AUTO:
        return RayPoolExecutor(cluster, idle_s=keep_s)
    return RayTaskExecutor(cluster, workers=workers)


__all__ = [
    "AUTO",
    "LOCAL",
    "MAX_ATTEMPTS",
    "ClusterError",
    "RayActorExecutor",
    "RayTaskExecutor",
    "connect",
    "open_executor",
]
