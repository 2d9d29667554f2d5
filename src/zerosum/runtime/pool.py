"""Workers that outlive a command: named, detached Ray actors that the next command reuses.

A :class:`~zerosum.runtime.cluster.RayTaskExecutor` runs each unit as a Ray task, and Ray
starts the worker processes of each command (each Ray job) anew: every one imports zerosum,
loads the compiled code from numba's cache and allocates its table before its first unit,
1-7 s of a ``solve --cluster`` of a few seconds (``docs/parallel.md``). A
:class:`RayPoolExecutor` runs the units on *pool workers* instead: one Ray actor per CPU of
each node, made by the first command that asks, detached (it outlives that command) and named
after its node and slot in the :data:`NAMESPACE` namespace, so that the next command on the
cluster finds it by name with its code loaded and its table allocated. The rules that keep
such workers safe to share:

1. **Bounded.** At most one pool worker per CPU of each node for each version of the code:
   its name is the code's stamp, its node and its slot, and a command that finds the name
   takes the worker that holds it. A command of other code (started before an upgrade, or
   another install's) has workers of its own and never stops these; the workers of code that
   no command runs any more leave when idle (rule 3). What a worker keeps between commands is
   what its units' functions cache (``solve_unit``: its last two solvers).
2. **Never stale.** A worker notes the code it runs: the files of the zerosum package when it
   started, and those of each module a command imported in it (a plugin's) when it first
   imported it (:func:`code_stamp`); a command reuses it only if that is the command's own
   code, else the worker is killed and made again from the files on its node now (and taken
   as it is then, as a Ray task there would be).
3. **Gone when unused.** A worker exits on its own once no command used it for ``idle_s``
   seconds (the latest command's; :data:`IDLE_S` by default); it goes with its node or its
   cluster too.
4. **No CPU of Ray's.** A pool worker claims no CPU of Ray's: a detached actor holding one
   would hold it while idle, and every other job of the cluster (a match, a book) would wait
   for it. The executor itself runs at most one unit per worker, one per CPU; Ray's scheduler
   does not see them, so other jobs of the same cluster share those CPUs meanwhile.
5. **Stopped with its command.** A unit is asked to stop, and told its new window, by calls
   to its own worker (:meth:`PoolWorker.ask`, :meth:`PoolWorker.narrow`), which keeps them
   for it: no actor of the command's own (a Ray task's stop board, :mod:`.cluster`, is a Ray
   worker process started for each command, 0.5-0.9 CPU seconds of its node's each time).
   A command beats to its workers every :data:`BEAT_S` seconds while it lives
   (:meth:`PoolWorker.beat`, from a thread of its own), and a unit whose command has not
   beaten for :data:`GONE_S` seconds stops on its own, so a command killed with ``kill -9``
   leaves no unit running for longer. :meth:`RayPoolExecutor.close` asks its running units
   to stop and waits (a few seconds at most) until they have.
6. **Nothing lost.** A unit whose worker dies (with its node, say) goes back to the queue for
   the others, up to :data:`~zerosum.runtime.raybase.MAX_ATTEMPTS` runs; the command goes on
   without that worker, and the next command makes it again if its node lives on.

A command greets its workers (found or made) and goes on at once: a worker takes units once
it has answered, so that a first command's worker start overlaps its own work. Units go to the
workers as they come free, first one per node in turn, so that one solve spreads over every
node. A worker runs one unit at a time, whichever command sent it (two
commands at once share the workers, each unit waiting for the one before), and answers a
command's greeting meanwhile. A warm-up (:meth:`RayPoolExecutor.warm`) keeps its worker from
the units until it is done: a solve's clears the table a worker kept from the solve before.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import itertools
import os
import sys
import threading
import time
import traceback
import uuid
from collections import Counter, deque
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Final, TypeVar

import zerosum
from zerosum.game import ZerosumError
from zerosum.runtime.executor import GRACE_SECONDS, Executor, Shared, WorkerError, run_unit
from zerosum.runtime.joining import AUTO, connect
from zerosum.runtime.raybase import MAX_ATTEMPTS, _node_id, _reason, share_on_ray
from zerosum.runtime.signals import sigint_held
from zerosum.runtime.workers import MAIN_SCRIPT, worker_imports, worker_init

T = TypeVar("T")

NAMESPACE: Final = "zerosum"
"""The Ray namespace of the pool workers' names."""
PREFIX: Final = "zerosum-unit-worker"
"""How a pool worker's name begins (then its node's id and its slot)."""
IDLE_S: Final = 300.0
"""How long a pool worker waits for its next command before it exits (``solve --cluster
--keep-workers``'s default)."""
GONE_S: Final = 10.0
"""How long a pool worker's unit goes on without a beat of its command before it stops (the
command died)."""
BEAT_S: Final = 1.0
"""How often a command beats to its pool workers (:meth:`PoolWorker.beat`)."""
MAKE_S: Final = 60.0
"""How long making one pool worker may take (a stale one's name freed, a new one started)."""
CALLS: Final = 8
"""Calls of :meth:`~PoolWorker.run` a pool worker takes at once: one unit runs, the others
(other commands' units, a warm-up) wait for it; more wait in Ray's queue."""
CONTROL: Final = "control"
"""The concurrency group of a pool worker's control calls (:meth:`~PoolWorker.hello`,
:meth:`~PoolWorker.ask`, :meth:`~PoolWorker.narrow`, :meth:`~PoolWorker.beat`): slots of their
own, answered while a unit runs however many units wait. In the :data:`CALLS` slots of the
units, a running unit's beats would wait behind the units queued for it, and it would stop
after :data:`GONE_S` as if its command had died."""
CONTROL_CALLS: Final = 4
"""Control calls a pool worker answers at once (each takes a lock for microseconds; a
greeting may import a plugin)."""
KEPT_RUNS: Final = 1024
"""How many units that came back the executor remembers the worker of (:meth:`~RayPoolExecutor.
submit_on`): the latest."""
_LOOK_S: Final = 1.0
"""How often an idle pool worker looks whether its time is up."""


def _digest(files: Sequence[tuple[str, Path]]) -> str:
    digest = hashlib.sha1()
    for name, path in files:
        with contextlib.suppress(OSError):
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def package_stamp() -> str:
    """A digest of every file of the zerosum package as it is on this machine now (named from
    the package's folder, so that two machines with the same code agree), a few milliseconds."""
    package = Path(zerosum.__file__).resolve().parent
    return _digest(
        [(str(path.relative_to(package)), path) for path in sorted(package.rglob("*.py"))]
    )


def module_stamp(name: str) -> str:
    """A digest of the imported module ``name``'s file as it is now ("" for none)."""
    path = getattr(sys.modules.get(name), "__file__", None)
    return _digest([(name, Path(path))]) if path else ""


def code_stamp(modules: Sequence[str] = ()) -> str:
    """What zerosum's code is now: :func:`package_stamp` and the stamps of the imported
    modules among ``modules`` (a plugin's; not the main script's, which a worker never
    imports)."""
    return _stamp_of(package_stamp(), [module_stamp(name) for name in _plugins(modules)])


def _plugins(modules: Sequence[str]) -> list[str]:
    return [name for name in modules if name not in MAIN_SCRIPT]


def _stamp_of(package: str, modules: Sequence[str]) -> str:
    return hashlib.sha1("\0".join([package, *modules]).encode()).hexdigest()


class PoolWorker:
    """What runs in one pool worker (made remote by :class:`RayPoolExecutor`)."""

    def __init__(self, idle_s: float) -> None:
        self._package = package_stamp()
        """The zerosum code this worker runs: its files when it started."""
        self._modules: dict[str, str] = {}
        """Each module a command imported in it, as its file was then (:func:`module_stamp`)."""
        self._idle_s = idle_s
        self._last = time.monotonic()
        self._active = 0
        """Calls of :meth:`run` running or waiting for :attr:`_one`."""
        self._leaving = False
        self._lock = threading.Lock()
        self._one = threading.Lock()
        """Held by the unit that runs: one at a time, whichever command sent it (a worker
        answers :meth:`hello` meanwhile)."""
        self._uses = 0
        self._asked: set[tuple[str, int]] = set()
        """The units asked to stop: their command and number (:meth:`ask`)."""
        self._windows: dict[tuple[str, int], tuple[int, int, int]] = {}
        """The latest window each unit was told (:meth:`narrow`): its version and its ends."""
        self._beats: dict[str, float] = {}
        """When each command last beat (:meth:`beat`), or sent a unit."""
        threading.Thread(target=self._expire, name="zerosum-pool-idle", daemon=True).start()

    def hello(self, idle_s: float, code: str, imports: Sequence[str]) -> tuple[str, bool, int]:
        """``(node, fresh, uses)`` for a command that is about to use this worker, whose code
        is ``code`` (:func:`code_stamp` of ``imports``): ``fresh`` is false if this worker
        runs other code (loaded before the files changed, or another install's), or is
        leaving; ``uses`` counts the commands that greeted it, this one included; ``idle_s``
        is its idle time from now on."""
        worker_init(imports, signals=False)
        plugins = _plugins(imports)
        for name in plugins:  # stamped as first imported: what this worker runs since
            if name not in self._modules:
                self._modules[name] = module_stamp(name)
        mine = _stamp_of(self._package, [self._modules[name] for name in plugins])
        with self._lock:
            self._idle_s = idle_s
            self._last = time.monotonic()
            self._uses += 1
            fresh = not self._leaving and mine == code
        return _node_id(), fresh, self._uses

    def run(
        self,
        imports: Sequence[str],
        command: str | None,
        number: int,
        function: Callable[..., Any],
        args: tuple[Any, ...],
    ) -> tuple[bool, Any]:
        """``(True, function(*args))``, unit ``number`` of ``command``, with the stop requests
        and windows that command sends here (:meth:`check`; none if ``command`` is None);
        ``(False, error)`` for bad input (a :class:`~zerosum.game.ZerosumError`), ``(False,
        traceback)`` for anything else that went wrong."""
        with self._lock:
            self._active += 1
            if command is not None:
                self._beats[command] = time.monotonic()
        try:
            with self._one:
                worker_init(imports, signals=False)
                check = None if command is None else self.check(command, number, GONE_S)
                window = None if check is None else check.window
                try:
                    return True, run_unit(check, function, *args, window=window)
                except ZerosumError as error:
                    return False, error
                except Exception:
                    return False, traceback.format_exc()
        finally:
            with self._lock:
                self._active -= 1
                self._last = time.monotonic()
                self._asked.discard((command or "", number))
                self._windows.pop((command or "", number), None)
                self._forget(GONE_S)

    def ask(self, command: str, number: int) -> None:
        """Ask unit ``number`` of ``command`` to stop (running, or about to run here)."""
        with self._lock:
            self._asked.add((command, number))

    def narrow(self, command: str, number: int, version: int, low: int, high: int) -> None:
        """Tell unit ``number`` of ``command`` that only the window ``(low, high)`` matters
        now: its command's ``version`` of its window (1, 2, ...). Calls may run out of the
        order they were sent in (a worker answers several at once), so a version not newer
        than the one kept changes nothing."""
        with self._lock:
            if version > self._windows.get((command, number), (0, 0, 0))[0]:
                self._windows[(command, number)] = (version, low, high)

    def beat(self, command: str) -> None:
        """``command`` lives (its units go on, and this worker waits for its next one)."""
        with self._lock:
            self._beats[command] = self._last = time.monotonic()

    def check(self, command: str, number: int, gone_s: float) -> _Check:
        """Unit ``number`` of ``command``'s stop check here (:class:`_Check`)."""
        return _Check(self, command, number, gone_s)

    def _forget(self, gone_s: float) -> None:
        """Drop what is kept for commands that have not beaten for ``gone_s`` (a request that
        came after its unit ended). Called with :attr:`_lock` held."""
        now = time.monotonic()
        gone = {command for command, beat in self._beats.items() if now - beat >= gone_s}
        if gone:
            self._asked = {unit for unit in self._asked if unit[0] not in gone}
            self._windows = {unit: w for unit, w in self._windows.items() if unit[0] not in gone}
            for command in gone:
                del self._beats[command]

    def _expire(self) -> None:
        """Exit once no command used this worker for its idle time."""
        while True:
            time.sleep(_LOOK_S)
            with self._lock:
                if self._active or time.monotonic() - self._last < self._idle_s:
                    continue
                self._leaving = True
            break
        ray = importlib.import_module("ray")
        with contextlib.suppress(Exception):
            ray.kill(ray.get_runtime_context().current_actor, no_restart=True)
        time.sleep(GRACE_SECONDS)  # Ray ends this process; if it did not, leave anyway
        os._exit(0)


class _Check:
    """A unit's stop check on its pool worker (call it: true once its command asked it to
    stop, or once that command has not beaten for ``gone_s`` seconds: it is gone), and the
    window its command told it last (:meth:`window`). It reads what the worker keeps, which
    costs no message."""

    def __init__(self, worker: PoolWorker, command: str, number: int, gone_s: float) -> None:
        self._worker, self._unit, self._gone_s = worker, (command, number), gone_s

    def __call__(self) -> bool:
        worker = self._worker
        with worker._lock:
            if self._unit in worker._asked:
                return True
            beat = worker._beats.get(self._unit[0])
        return beat is None or time.monotonic() - beat >= self._gone_s

    def window(self) -> tuple[int, int] | None:
        """The latest window the unit was told, ``None`` if none."""
        with self._worker._lock:
            told = self._worker._windows.get(self._unit)
        return None if told is None else (told[1], told[2])


def _identity(actor: Any) -> Any:
    """Ray's id of ``actor`` (two handles of one actor share it)."""
    return getattr(actor, "_actor_id", None)


def _control(actor: Any, method: str) -> Any:
    """``actor``'s control call ``method``, in its own slots (:data:`CONTROL`)."""
    return getattr(actor, method).options(concurrency_group=CONTROL)


class _Unit:
    """A unit of a :class:`RayPoolExecutor`: what to run, its number, its future, its runs."""

    def __init__(
        self, number: int, fn: Callable[..., Any], args: tuple[Any, ...], future: Future[Any]
    ) -> None:
        self.number, self.fn, self.args, self.future = number, fn, args, future
        self.near: int | None = None
        """The worker's slot it would rather run on (:meth:`RayPoolExecutor.submit_on`)."""
        self.runs = 0
        self.asked = False
        """Whether its command asked it to stop (told again to each worker that runs it)."""
        self.window: tuple[int, int, int] | None = None
        """The latest window its command told it: version and ends (told again likewise)."""


class _Slot:
    """One pool worker as this command sees it."""

    def __init__(self, node: str, slot: int, actor: Any, code: str) -> None:
        self.node, self.slot, self.actor = node, slot, actor
        # Named for the command's code too: a command of other code (started before an
        # upgrade, or another install's) has workers of its own and never kills these while
        # they run its units; the workers of code no command runs any more time out.
        self.name = f"{PREFIX}-{code[:12]}-{node}-{slot}"


class RayPoolExecutor(Executor):
    """Units on the pool workers of the Ray cluster at ``address`` (see the module docstring),
    made now if they are not there; ``idle_s``: how long they stay after their last command.
    Ray started here (``address`` ``auto``, with ``workers`` CPUs) is shut down by
    :meth:`close`, its pool with it; a joined cluster is only disconnected from, its pool
    workers left for the next command. ``reused`` counts the workers found alive and fresh,
    ``made`` those made now."""

    def __init__(
        self,
        address: str = AUTO,
        *,
        idle_s: float = IDLE_S,
        workers: int = 0,
        code: str | None = None,
    ) -> None:
        if not idle_s > 0:
            raise ValueError(f"idle time {idle_s} s: expected more than 0")
        self._imports = worker_imports()
        self._code = code_stamp(self._imports) if code is None else code
        """The code the workers must run to be reused (this process's; a caller may name
        another, a version of its own)."""
        self._ray, self._owned = connect(address, workers=workers)
        self._idle_s = idle_s
        self._slots: list[_Slot] = []
        self._idle: deque[int] = deque()
        self._waiting: deque[_Unit] = deque()
        """Units not yet handed to a worker (one lost with its worker comes first)."""
        self._running: dict[Any, tuple[int, _Unit]] = {}
        """Each call in flight: its object reference with (slot index, unit)."""
        self._numbers = 0
        self._ran: dict[Future[Any], int] = {}
        """The slot of the worker that ran each unit that came back (the latest
        :data:`KEPT_RUNS`), for :meth:`submit_on`."""
        self._versions = itertools.count(1)
        """The windows told to running units, numbered (:meth:`PoolWorker.narrow`)."""
        self._command = uuid.uuid4().hex
        """This command's name on its workers (:meth:`PoolWorker.run`)."""
        self._warming: dict[Any, int] = {}
        """The calls of :meth:`warm` in flight, with their worker's slot (busy until then)."""
        self._greeting: dict[Any, int] = {}
        """The greetings in flight (:meth:`PoolWorker.hello`), with their worker's slot: a
        worker takes units once it has answered, so that its start overlaps the caller's."""
        self._warm_call: tuple[Callable[..., Any], tuple[Any, ...]] | None = None
        """The last :meth:`warm`'s call, for the workers that answer after it."""
        self._ready = 0
        self.units_per_node: Counter[str] = Counter()
        """The units whose result came back, by the Ray node whose worker ran them."""
        self.reused = 0
        self.made = 0
        self.lost_runs = 0
        """Runs of units lost with their worker, and run again."""
        self.workers = 0
        self._closed = threading.Event()
        self._beating: threading.Thread | None = None
        try:
            self._open()
            self._beating = threading.Thread(target=self._beat, name="zerosum-pool-beat")
            self._beating.daemon = True
            self._beating.start()
        except BaseException:
            self.close()
            raise

    # -- the pool ------------------------------------------------------------------------------

    def _actor(self, node: str, name: str) -> Any:
        """The pool worker called ``name`` on ``node``: the one alive, else a new one."""
        ray = self._ray
        strategies = importlib.import_module("ray.util.scheduling_strategies")
        return (
            ray.remote(concurrency_groups={CONTROL: CONTROL_CALLS})(PoolWorker)
            .options(
                name=name,
                namespace=NAMESPACE,
                lifetime="detached",
                get_if_exists=True,
                num_cpus=0,
                max_restarts=0,
                max_concurrency=CALLS,
                scheduling_strategy=strategies.NodeAffinitySchedulingStrategy(node, soft=False),
            )
            .remote(self._idle_s)
        )

    def _open(self) -> None:
        """One pool worker per CPU of every live node, slot 0 of every node first, asked for
        (found or made) and greeted; their answers are taken as they come (:meth:`wait`,
        :meth:`ready`)."""
        ray = self._ray
        nodes = [
            (str(node["NodeID"]), int(node.get("Resources", {}).get("CPU", 0)))
            for node in ray.nodes()
            if node.get("Alive")
        ]
        most = max((cpus for _, cpus in nodes), default=0)
        slots = [
            _Slot(node, slot, None, self._code)
            for slot in range(most)
            for node, cpus in sorted(nodes)
            if slot < cpus
        ]
        if not slots:
            raise WorkerError("no Ray pool worker can be started: the cluster has no CPU")
        self._slots = slots
        for index, slot in enumerate(slots):
            slot.actor = self._actor(slot.node, slot.name)
            self._greeting[self._hello(slot)] = index
        self.workers = len(slots)

    def ready(self) -> int:
        """Wait until every pool worker has answered this command (found fresh, or made);
        how many it has (fewer than :attr:`workers` if a node went meanwhile)."""
        for ref in list(self._greeting):
            self._greeted(ref)
        return self._ready

    def _greeted(self, ref: Any) -> None:
        """A worker answered its greeting: it warms up (if :meth:`warm` was called) or takes
        units, unless it had to be made again and its node went meanwhile."""
        index = self._greeting.pop(ref)
        slot = self._slots[index]
        if not self._greet(slot, ref):
            return
        self._ready += 1
        if self._warm_call is None:
            self._idle.append(index)
        else:
            fn, args = self._warm_call
            self._warming[slot.actor.run.remote(self._imports, None, 0, fn, args)] = index

    def _hello(self, slot: _Slot) -> Any:
        return _control(slot.actor, "hello").remote(self._idle_s, self._code, self._imports)

    def _greet(self, slot: _Slot, hello: Any) -> bool:
        """Whether ``slot`` has a worker for this command (answering ``hello``), making it
        again if it runs other code or is dying (bounded by :data:`MAKE_S`); False if its
        node is gone. A worker made here is taken whatever its code: it runs what its node
        has, as a Ray task there would."""
        ray = self._ray
        deadline = time.monotonic() + MAKE_S
        made = False
        while True:
            uses = 0
            try:
                _, fresh, uses = ray.get(hello, timeout=MAKE_S)
            except ray.exceptions.GetTimeoutError:
                raise WorkerError(f"the Ray pool worker {slot.name} did not answer") from None
            except ray.exceptions.RayActorError:  # dying (its name not yet freed), or its node
                fresh = None
            except ray.exceptions.RayError:  # its hello failed: another version's worker
                fresh = False
            if fresh or (made and fresh is False):
                if uses > 1:
                    self.reused += 1
                else:
                    self.made += 1
                return True
            if not self._alive(slot.node) or time.monotonic() > deadline:
                return False
            old = slot.actor
            if fresh is False:
                with contextlib.suppress(Exception):
                    ray.kill(old, no_restart=True)
            while True:  # a new worker under the name, once Ray has freed it
                slot.actor = self._actor(slot.node, slot.name)
                if _identity(slot.actor) != _identity(old):
                    break
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.05)
            made = True
            hello = self._hello(slot)

    def _alive(self, node: str) -> bool:
        try:
            return any(n["NodeID"] == node and n.get("Alive") for n in self._ray.nodes())
        except Exception:  # the cluster itself is going
            return False

    # -- units ---------------------------------------------------------------------------------

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        return self._submit(None, fn, args)

    def submit_on(self, ran: Future[Any], fn: Callable[..., T], /, *args: Any) -> Future[T]:
        return self._submit(self._ran.get(ran), fn, args)

    def _submit(self, near: int | None, fn: Callable[..., T], args: tuple[Any, ...]) -> Future[T]:
        if self._closed.is_set():
            raise RuntimeError("the executor is closed")
        self._numbers += 1
        future: Future[T] = Future()
        unit = _Unit(self._numbers, fn, args, future)
        unit.near = near
        self._waiting.append(unit)
        self._dispatch()
        return future

    def share(self, value: T) -> Shared[T]:
        """``value`` in Ray's object store, put there once (see :meth:`Executor.share`)."""
        return share_on_ray(self._ray, value)

    def warm(self, fn: Callable[..., Any], /, *args: Any) -> None:
        """One run of ``fn(*args)`` on each idle pool worker (and on each that answers its
        greeting later), before its next unit (the worker takes none until it is done); their
        answers are dropped."""
        self._warm_call = (fn, args)
        while self._idle:
            index = self._idle.popleft()
            ref = self._slots[index].actor.run.remote(self._imports, None, 0, fn, args)
            self._warming[ref] = index

    def _dispatch(self) -> None:
        """Hand waiting units to the idle workers."""
        while self._idle and self._waiting:
            unit = self._waiting.popleft()
            # a unit run again is running already; a new one may have been cancelled
            if unit.future.running() or unit.future.set_running_or_notify_cancel():
                near = unit.near  # the worker it would rather run on, if it is free
                if near is not None and near in self._idle:
                    self._idle.remove(near)
                    index = near
                else:
                    index = self._idle.popleft()
                unit.runs += 1
                actor = self._slots[index].actor
                ref = actor.run.remote(
                    self._imports, self._command, unit.number, unit.fn, unit.args
                )
                self._running[ref] = (index, unit)
                if unit.runs > 1:  # run again: what its lost worker was told, told again
                    self._tell(actor, unit)

    def _tell(self, actor: Any, unit: _Unit) -> None:
        """Tell ``actor`` what ``unit``'s command asked of it so far: its stop and its latest
        window (a worker keeps a request that comes before the unit's run)."""
        with contextlib.suppress(Exception):  # the worker is gone: wait() will say
            if unit.asked:
                _control(actor, "ask").remote(self._command, unit.number)
            if unit.window is not None:
                _control(actor, "narrow").remote(self._command, unit.number, *unit.window)

    def _unit(self, future: Future[Any]) -> tuple[int | None, _Unit] | None:
        """``future``'s unit and its worker's slot: running, or waiting to run again after
        its worker was lost (slot ``None``); ``None`` if it runs nowhere (done, or never
        started)."""
        for index, unit in self._running.values():
            if unit.future is future:
                return index, unit
        for unit in self._waiting:
            if unit.future is future and future.running():
                return None, unit
        return None

    def stop(self, future: Future[Any]) -> bool:
        found = self._unit(future)
        if found is None:
            future.cancel()  # still waiting for a worker: it never runs
            return False
        index, unit = found
        if future.done() or self._closed.is_set():
            return False
        unit.asked = True  # kept: a worker that runs it again is told too
        if index is None:
            return True
        try:
            _control(self._slots[index].actor, "ask").remote(self._command, unit.number)
        except Exception:  # the worker is gone (with the cluster)
            return False
        return True

    def split(self, future: Future[Any]) -> bool:
        return future.running() and self.stop(future)

    def narrow(self, future: Future[Any], window: tuple[int, int]) -> bool:
        found = self._unit(future)
        if found is None or future.done() or self._closed.is_set():
            return False
        index, unit = found
        unit.window = (next(self._versions), *window)  # kept, as a stop request is
        if index is None:
            return True
        try:
            _control(self._slots[index].actor, "narrow").remote(
                self._command, unit.number, *unit.window
            )
        except Exception:  # the worker is gone (with the cluster)
            return False
        return True

    def cancel(self, future: Future[Any]) -> None:
        """Give up ``future``: a unit still waiting never runs; a running one is asked to stop
        (its worker is free again within milliseconds) and its answer is dropped."""
        if not future.cancel():
            found = self._unit(future)
            self.stop(future)
            if found is not None:
                found[1].future = Future()  # its answer goes nowhere

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        done = {future for future in futures if future.done()}
        if done:
            return done
        if not self._running and not self._warming and not self._greeting:
            if self._waiting:
                raise WorkerError("no Ray pool worker is left to run the units (every one died)")
            return set()
        ray = self._ray
        calls = [*self._running, *self._warming, *self._greeting]
        ready, _ = ray.wait(calls, num_returns=1, timeout=timeout)
        if ready:
            ready, _ = ray.wait(calls, num_returns=len(calls), timeout=0)
        for ref in ready:
            if ref in self._greeting:
                self._greeted(ref)
                continue
            if ref in self._warming:
                self._warmed(ref)
                continue
            index, unit = self._running.pop(ref)
            try:
                ok, value = ray.get(ref)
            except ray.exceptions.RayActorError as error:
                self._lose(index, unit, error)
                continue
            except ray.exceptions.RayError as error:
                ok, value = False, _reason(error)
            self._idle.append(index)
            self._ran[unit.future] = index
            while len(self._ran) > KEPT_RUNS:
                del self._ran[next(iter(self._ran))]
            if ok:
                self.units_per_node[self._slots[index].node] += 1
                unit.future.set_result(value)
            elif isinstance(value, ZerosumError):  # bad input: as raised, in one line
                unit.future.set_exception(value)
            else:
                unit.future.set_exception(
                    WorkerError(f"a task failed in a Ray pool worker: {value}")
                )
        self._dispatch()
        return {future for future in futures if future.done()}

    def _warmed(self, ref: Any) -> None:
        """A warm-up came back: its worker takes units (or, if it died, is made again)."""
        index = self._warming.pop(ref)
        try:
            self._ray.get(ref)
        except self._ray.exceptions.RayActorError as error:
            self._lose(index, None, error)
            return
        except self._ray.exceptions.RayError:  # counted nowhere: its units will say
            pass
        self._idle.append(index)

    def _lose(self, index: int, unit: _Unit | None, error: BaseException) -> None:
        """The worker of slot ``index`` died (running ``unit``, or its warm-up): the unit goes
        back to the queue for the other workers (or fails, after :data:`MAX_ATTEMPTS` runs),
        and this command uses that slot no more (the next command makes it again, if its node
        lives on)."""
        slot = self._slots[index]
        if unit is not None and unit.runs < MAX_ATTEMPTS:
            self.lost_runs += 1
            self._waiting.appendleft(unit)
        elif unit is not None:
            unit.future.set_exception(
                WorkerError(f"the Ray pool worker {slot.name} died: {_reason(error)}")
            )
        with contextlib.suppress(Exception):
            self._ray.kill(slot.actor, no_restart=True)

    def _beat(self) -> None:
        """Beat to every worker of this command, every :data:`BEAT_S` seconds until it
        closes (a thread of its own: a caller busy for a while between two :meth:`wait` calls
        does not stop its units)."""
        while not self._closed.wait(BEAT_S):
            for slot in self._slots:
                with contextlib.suppress(Exception):  # the worker is gone: wait() will say
                    _control(slot.actor, "beat").remote(self._command)

    def close(self) -> None:
        """Give up every unit: running ones are asked to stop and waited for (a few seconds at
        most); the pool workers stay for the next command (a Ray started here goes, and they
        with it)."""
        with sigint_held():
            for unit in self._waiting:
                unit.future.cancel()
            self._waiting.clear()
            running, self._running = self._running, {}
            closed = self._closed.is_set()
            self._closed.set()
            if self._beating is not None:
                self._beating.join()
            ray = self._ray
            if running and not closed:
                for index, unit in running.values():
                    with contextlib.suppress(Exception):
                        _control(self._slots[index].actor, "ask").remote(self._command, unit.number)
                with contextlib.suppress(Exception):
                    ray.wait(list(running), num_returns=len(running), timeout=GRACE_SECONDS)
            for _, unit in running.values():
                unit.future.cancel()
            self._warming.clear()
            self._greeting.clear()
            if self._owned:
                self._owned = False
                with contextlib.suppress(Exception):
                    ray.shutdown()


def pool_workers(ray: Any) -> list[str]:
    """The names of the pool workers alive on the connected cluster."""
    names = ray.util.list_named_actors(all_namespaces=True)
    return sorted(
        entry["name"]
        for entry in names
        if entry.get("namespace") == NAMESPACE and entry["name"].startswith(PREFIX)
    )


__all__ = ["GONE_S", "IDLE_S", "NAMESPACE", "PoolWorker", "RayPoolExecutor", "code_stamp"]
