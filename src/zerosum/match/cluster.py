"""Match games on a Ray cluster: one actor per worker, its players kept between its games.

:class:`ActorExecutor` offers the match's executor interface (``map_unordered`` and ``close``,
see :mod:`.executor`) over Ray actors, on a local Ray started here (``auto``) or on an existing
cluster. Each actor is a process of its own that plays one game at a time and keeps its players
(a UCI engine's process, a zerosum player's table) for every game it plays, as a local worker
does; the driver hands the next game to whichever actor comes free, so long games do not hold
up short ones. Results are the same as in one process: a game carries everything it needs and
its random choices are seeded by the match seed and its number (:mod:`.runner`).

Stopping. At the end, every actor closes its players (engines are sent ``quit``) and is then
killed with ``ray.kill``; a Ray started here is shut down. When the match is stopped early
(Ctrl-C, an error), busy actors first kill their engines outright (``abort`` runs beside the
game, in the actor's second thread), so nothing waits for a game to finish. Engines run in
process groups of their own, so a Ctrl-C at the terminal does not reach them before they are
closed; should an actor die anyway, its engines see their input close and quit. ``ray.cancel``
is never used: in Ray 2.60 a cancelled call that still replied aborted the driver
(:class:`zerosum.cluster.RayExecutor`).

Failures: a task that raises, or an actor that dies (its process killed, the machine lost),
raises :class:`~zerosum.match.executor.WorkerError` naming the game, instead of waiting for a
result that will never come.
"""

from __future__ import annotations

import contextlib
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, TypeVar

from zerosum.cluster import AUTO, cluster_cpus, connect
from zerosum.game import ZerosumError
from zerosum.match.executor import GRACE_SECONDS, WorkerError
from zerosum.search.parallel import sigint_held

T = TypeVar("T")
R = TypeVar("R")

_POLL_S: Final = 0.2
"""How often the driver looks up from waiting (so Ctrl-C is seen promptly)."""


class _Actor:
    """What runs inside one Ray actor (made remote when an :class:`ActorExecutor` starts)."""

    def __init__(
        self, teardown: Callable[[], None] | None, kill: Callable[[], None] | None
    ) -> None:
        self._teardown = teardown
        self._kill = kill

    def run(self, function: Callable[[Any], Any], item: Any) -> tuple[bool, Any]:
        """``(True, function(item))``, or ``(False, what went wrong)``."""
        try:
            return True, function(item)
        except ZerosumError as error:  # bad input: its message says it all
            return False, str(error)
        except Exception:
            return False, traceback.format_exc()

    def close(self) -> None:
        """Release what the tasks of this actor kept (its players)."""
        if self._teardown is not None:
            self._teardown()

    def abort(self) -> None:
        """Stop a running task's external processes at once (runs beside it)."""
        if self._kill is not None:
            self._kill()


def _reason(error: BaseException) -> str:
    """Ray's error, in one line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


class ActorExecutor:
    """Ray actors playing one task at a time each (see the module docstring).

    ``address``: ``auto`` starts a local Ray with ``workers`` CPUs (0: one per core), else the
    cluster to join. There are ``workers`` actors (0: one per CPU of the cluster), at most the
    cluster's CPUs (each actor takes one, so none waits for a CPU that never comes) and at most
    ``most``. ``teardown`` runs in each actor before it stops, ``kill`` in busy actors when the
    work is abandoned; both must be module-level functions."""

    def __init__(
        self,
        address: str = AUTO,
        *,
        workers: int = 0,
        most: int | None = None,
        teardown: Callable[[], None] | None = None,
        kill: Callable[[], None] | None = None,
    ) -> None:
        self._ray, self._owned = connect(address, workers=workers)
        self._actors: list[Any] = []
        self._running: dict[Any, tuple[int, int]] = {}
        """Each call in flight: its object reference with (actor number, task index)."""
        self._dead: set[int] = set()
        """Actors whose process died."""
        try:
            ray = self._ray
            cpus = cluster_cpus(ray)
            count = max(min(workers or cpus, cpus, most or cpus), 1)
            remote = ray.remote(num_cpus=1, max_concurrency=2, max_restarts=0)(_Actor)
            self._actors = [remote.remote(teardown, kill) for _ in range(count)]
        except BaseException:
            self.close()
            raise

    @property
    def workers(self) -> int:
        """How many actors play at the same time."""
        return len(self._actors)

    def map_unordered(
        self, function: Callable[[T], R], items: Sequence[T]
    ) -> Iterator[tuple[int, R]]:
        ray = self._ray
        waiting = deque(enumerate(items))
        stale = set(self._running)  # calls of an abandoned earlier map: their actors are busy
        busy = {number for number, _ in self._running.values()}
        out = busy | self._dead
        idle = deque(number for number in range(len(self._actors)) if number not in out)
        mine: set[Any] = set()
        while waiting or mine:
            while idle and waiting:
                number = idle.popleft()
                index, item = waiting.popleft()
                ref = self._actors[number].run.remote(function, item)
                self._running[ref] = (number, index)
                mine.add(ref)
            if not mine and not stale:
                raise WorkerError("no Ray actor is left to play the games (every one died)")
            ready, _ = ray.wait([*mine, *stale], num_returns=1, timeout=_POLL_S)
            for ref in ready:
                number, index = self._running.pop(ref)
                if ref in stale:
                    stale.discard(ref)
                    try:
                        ray.get(ref)
                        idle.append(number)
                    except ray.exceptions.RayActorError:
                        self._dead.add(number)
                    except ray.exceptions.RayError:
                        idle.append(number)
                    continue
                mine.discard(ref)
                try:
                    ok, value = ray.get(ref)
                except ray.exceptions.RayActorError as error:
                    self._dead.add(number)
                    raise WorkerError(
                        f"the Ray actor playing game {index + 1} died: {_reason(error)}"
                    ) from None
                except ray.exceptions.RayError as error:
                    raise WorkerError(
                        f"game {index + 1} failed on a Ray actor: {_reason(error)}"
                    ) from None
                if not ok:
                    raise WorkerError(f"game {index + 1} failed on a Ray actor: {value}")
                idle.append(number)
                yield index, value

    def close(self) -> None:
        """Stop every actor (see the module docstring) and a Ray started here; returns within
        a few seconds, also when the cluster is gone."""
        with sigint_held():  # a second Ctrl-C must not leave actors or Ray behind
            actors, self._actors = self._actors, []
            busy = {number for number, _ in self._running.values()}
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

    def __enter__(self) -> ActorExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
