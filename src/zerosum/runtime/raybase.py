"""What both Ray backends share: the stop board of a command's units, values put into Ray's
object store once, and where code runs.

Ray is imported only by the functions that need it (it is the optional extra
``zerosum[ray]``). :mod:`.cluster` describes how units are stopped (the board) and why
``ray.cancel`` is never used; :mod:`.pool` uses the same board for the units of its workers that
outlive a command.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import time
from collections.abc import Collection
from typing import Any, Final, TypeVar

from zerosum.runtime.executor import Shared

T = TypeVar("T")

MAX_ATTEMPTS: Final = 3
"""How many times a unit is run before a lost node (or actor) fails it: Ray's task retries
and the actor executor's own."""
STOP_POLL_S: Final = 0.02
"""How soon a running Ray task calls its stop board again after a call failed (the board
died, and is restarted)."""
WAIT_S: Final = 1.0
"""How long one call of a running Ray task to its stop board waits for a stop request."""
_UNSEEN: Final = 1 << 62
"""A window version no unit reaches: :meth:`_StopBoard.wait` waits for a stop request only."""
ASK_AGAIN_S: Final = 1.0
"""How often :meth:`RayTaskExecutor.wait` sends its running units' stop requests and latest
windows again: a stop board that died (the kernel's out-of-memory killer takes Ray's workers
first) comes back empty, and a request it lost must reach it again, or the unit would never
stop (or would search on in a window that no longer matters)."""


def _reason(error: BaseException) -> str:
    """Ray's error, in one line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def _node_id() -> str:
    """The Ray node this code runs on (hex id)."""
    ray = importlib.import_module("ray")
    return str(ray.get_runtime_context().get_node_id())


class _StopBoard:
    """The stop requests and the latest told windows of a :class:`RayTaskExecutor`'s units, by
    unit number (an actor whose methods are coroutines: a unit's :meth:`watch` is answered the
    moment it is asked to stop or told a window, while the others' go on). Its entries live as
    long as the board, which is one command's."""

    def __init__(self) -> None:
        self._asked: set[int] = set()
        self._waiting: dict[int, asyncio.Event] = {}
        """The events that the running units' :meth:`wait` calls wait on, by unit number."""
        self._windows: dict[int, tuple[int, int, int]] = {}
        """The latest window each unit was told (:meth:`narrow`): its version (1, 2, ...,
        numbered by the coordinator) and its ends."""

    async def ask(self, number: int) -> None:
        self._asked.add(number)
        event = self._waiting.get(number)
        if event is not None:
            event.set()

    async def asked(self, number: int) -> bool:
        return number in self._asked

    async def narrow(self, number: int, version: int, low: int, high: int) -> None:
        """Tell unit ``number`` that only the window ``(low, high)`` matters now: the
        coordinator's ``version`` of its window (1, 2, ...). An actor whose methods are
        coroutines may run two calls out of the order they were sent in, and a board that
        restarted is told the latest window again (:class:`Told`), so a version not newer than
        the one kept changes nothing."""
        if version <= self._windows.get(number, (0, 0, 0))[0]:
            return
        self._windows[number] = (version, low, high)
        event = self._waiting.pop(number, None)  # its next call waits on a new one
        if event is not None:
            event.set()

    async def wait(self, number: int, seconds: float) -> bool:
        """Whether unit ``number`` is asked to stop, once it is asked or told a window, or
        after ``seconds``."""
        return (await self.watch(number, seconds, _UNSEEN))[0]

    async def watch(self, number: int, seconds: float, seen: int) -> tuple[bool, int, int, int]:
        """Whether unit ``number`` is asked to stop, and its latest window (version, low,
        high; version 0: none), once it is asked or told a window newer than version
        ``seen``, or after ``seconds``."""
        if number not in self._asked and self._windows.get(number, (0, 0, 0))[0] <= seen:
            event = self._waiting.setdefault(number, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), seconds)
            if self._waiting.get(number) is event and not event.is_set():
                del self._waiting[number]
        return (number in self._asked, *self._windows.get(number, (0, 0, 0)))


class _BoardCheck:
    """A unit's stop check on its board (call it: true once the unit was asked to stop), and
    the window it was told last (:meth:`window`). One call of the board's
    :meth:`_StopBoard.watch` is always out, answered when the unit is asked or told a window
    (or after :data:`WAIT_S`, when the next goes out); the check only looks whether its answer
    came, which costs no message (polling the board every 20 ms cost the search about a tenth
    of its CPU). A board that cannot be reached is called again after :data:`STOP_POLL_S`; it
    never stops the unit, unless ``gone_s`` is given and no call has reached it for that long
    (its command is gone: a board dies with the process that made it)."""

    def __init__(self, board: Any, number: int, gone_s: float | None) -> None:
        self._board, self._number, self._gone_s = board, number, gone_s
        self._asked = False
        self._call: Any = None
        self._next = 0.0
        self._reached = time.monotonic()
        self._seen = 0
        self._window: tuple[int, int] | None = None

    def _unreachable(self) -> bool:
        """Note a failed call; whether the board counts as gone for good."""
        now = time.monotonic()
        self._next = now + STOP_POLL_S
        return self._gone_s is not None and now - self._reached >= self._gone_s

    def __call__(self) -> bool:
        if self._asked:
            return True
        call = self._call
        if call is None:
            if time.monotonic() < self._next:
                return False
            with contextlib.suppress(Exception):
                watch = self._board.watch.remote(self._number, WAIT_S, self._seen)
                self._call = call = watch.future()
            if call is None:
                self._asked = self._unreachable()
                return self._asked
        if call.done():  # a future that Ray completes: looking costs no message
            self._call = None
            try:
                asked, version, low, high = call.result()
                self._asked = bool(asked)
                self._reached = time.monotonic()
                if version > self._seen:
                    self._seen, self._window = version, (low, high)
            except Exception:  # the board died (it is restarted): call it again soon
                self._asked = self._unreachable()
        return self._asked

    def window(self) -> tuple[int, int] | None:
        """The latest window the unit was told, ``None`` if none."""
        self()
        return self._window


class Told:
    """The windows a Ray executor told its running units (:meth:`Executor.narrow
    <zerosum.runtime.executor.Executor.narrow>`), each numbered here (one rising count): the
    board keeps the newest whatever order the calls arrive in, and :meth:`again` tells a
    board that died and came back empty the latest ones (and the unit takes a window only if
    its number is newer than the last it saw)."""

    def __init__(self) -> None:
        self._latest: dict[int, tuple[int, int, int]] = {}
        """Each running unit's latest window: its number and its ends."""
        self._versions = itertools.count(1)
        """The windows' numbers, one count for all units: a unit sent again (its worker was
        lost) and told a window after its entry here was forgotten still gets a newer
        number than any its board kept."""

    def __bool__(self) -> bool:
        return bool(self._latest)

    def tell(self, board: Any, number: int, window: tuple[int, int]) -> None:
        """Send unit ``number`` its new ``window`` on ``board`` (raises if the board is gone)."""
        version = next(self._versions)
        board.narrow.remote(number, version, *window)
        self._latest[number] = (version, *window)

    def again(self, board: Any, running: Collection[int]) -> None:
        """Send the latest window of each of the ``running`` units again (and forget the
        others'), best effort."""
        for number in [number for number in self._latest if number not in running]:
            del self._latest[number]
        for number, (version, low, high) in self._latest.items():
            with contextlib.suppress(Exception):  # the board is gone with the cluster
                board.narrow.remote(number, version, low, high)


def _asks(board: Any, number: int, *, gone_s: float | None = None) -> _BoardCheck:
    """Unit ``number``'s stop check on ``board`` (:class:`_BoardCheck`)."""
    return _BoardCheck(board, number, gone_s)


def stop_board(ray: Any) -> Any:
    """A new actor that keeps the stop requests of one executor's units (:class:`_StopBoard`),
    on this node if Ray can say which it is; it dies with this process."""
    options: dict[str, Any] = {"num_cpus": 0, "max_restarts": -1}
    with contextlib.suppress(Exception):
        strategies = importlib.import_module("ray.util.scheduling_strategies")
        here = ray.get_runtime_context().get_node_id()
        options["scheduling_strategy"] = strategies.NodeAffinitySchedulingStrategy(here, soft=True)
    return ray.remote(**options)(_StopBoard).remote()


class _RayShared(Shared[T]):
    """A value put into Ray's object store once (:meth:`RayTaskExecutor.share`): a unit reads
    it from there when it calls :meth:`get` (Ray keeps it while this reference lives)."""

    def __init__(self, ref: Any) -> None:  # no call to super: no value of its own
        self._ref = ref

    def get(self) -> T:
        ray = importlib.import_module("ray")
        value: T = ray.get(self._ref)
        return value


def share_on_ray(ray: Any, value: T) -> Shared[T]:
    """``value`` put into the connected Ray's object store once, for many units."""
    return _RayShared(ray.put(value))
