"""The send/fill/wait loop of a split search, written once.

Every parallel search of zerosum splits work the same way: hand each idle worker the next piece
(a root move, a move at a node of the principal variation, a chunk of positions), collect the
answers as they come, and when one answer makes the rest useless (a cutoff) or the limit says
stop, raise the stop flags of the workers still busy. What the pieces are, in which order they
go out, which window each gets and what an answer means is the search's: it is a :class:`Plan`.
:class:`Split` runs plans over a :class:`Link` (the workers: a
:class:`~zerosum.runtime.workers.WorkerGroup`).

Answers that come after the work was stopped (the halted workers' partial answers) are *late*:
the plan counts their nodes (:meth:`Plan.count`) but never takes their values. After a cutoff a
split either waits for the halted workers (the default: every worker is idle when
:meth:`Split.run` returns) or, with ``wait_on_cutoff=False``, returns at once and keeps them as
*orphans*: they get no work until their answer comes, in a later run or :meth:`Split.drain`.
The trade-off: not waiting keeps the other workers busy while a halted one winds down, at the
price of a split that outlives one run.

A split never leaves a worker behind: if anything goes wrong while it runs (an error, Ctrl-C),
it halts every busy worker and waits for their answers before the error goes on, so the workers
are idle again (or, if one cannot answer, the link is closed).
"""

from __future__ import annotations

import collections
import enum
from collections import deque
from collections.abc import Callable, Generator, Iterable
from multiprocessing.connection import Connection, wait
from typing import Any, Final, Generic, Protocol, TypeVar

from zerosum.runtime.workers import Activity

T = TypeVar("T")

POLL_S: Final = 0.01
"""How long the parent waits for answers before it looks at the limit again."""


class Verdict(enum.Enum):
    """What an answer means for the rest of a run."""

    GO_ON = "go on"
    """Keep sending and collecting."""
    CUTOFF = "cutoff"
    """The other pieces cannot matter: send nothing more, halt the busy workers."""
    STOP = "stop"
    """The search must stop (a worker's own limit ran out): as a cutoff, and the run stops."""


class Link(Protocol):
    """The workers a split talks to (see :class:`~zerosum.runtime.workers.WorkerGroup`)."""

    @property
    def workers(self) -> int: ...

    def send(self, worker: int, message: Any) -> None:
        """Send ``message`` to ``worker`` and lower its stop flag."""

    def connection(self, worker: int) -> Connection:
        """The pipe on which ``worker`` answers."""

    def halt(self, workers: Iterable[int]) -> None:
        """Raise the stop flags of ``workers``."""

    def lost(self) -> None:
        """A worker could not answer while being drained: make the link safe (close it)."""


class Plan(Protocol[T]):
    """What one run of a split sends, and what the answers mean. ``T`` tags a piece of work (a
    move index, a child, a chunk): the split keeps each busy worker's tags and gives an answer
    back with its tag."""

    def assign(self, worker: int) -> tuple[T, Any] | None:
        """The next piece for ``worker``, which can take one: ``(tag, message)``, or ``None`` for
        nothing now (young brothers wait, or nothing is left)."""

    def count(self, worker: int, tag: T, answer: Any) -> int:
        """Take in what any answer to the piece ``tag`` holds that is true whenever it came
        (its counts; late ones too); returns its nodes (for the pool's
        :class:`~zerosum.runtime.workers.Activity`). Raises if the worker failed."""

    def take(self, worker: int, tag: T, answer: Any) -> Verdict:
        """A live answer to the piece ``tag``: what it means for the run."""

    def stopping(self) -> bool:
        """Whether the limit (clock, node budget, stop callback) says stop."""


class Split(Generic[T]):
    """Runs plans over ``link``: each worker holds at most ``in_flight`` pieces (more than one
    keeps a worker fed while the parent is busy), and ``activity`` records each worker's busy
    time (a worker is busy from the piece sent to an idle worker until its last answer).
    ``wait_on_cutoff``: see the module docstring."""

    def __init__(
        self,
        link: Link,
        *,
        activity: Activity | None = None,
        in_flight: int = 1,
        wait_on_cutoff: bool = True,
    ) -> None:
        self.link = link
        self.activity = activity
        self.in_flight = in_flight
        self.wait_on_cutoff = wait_on_cutoff
        self.busy: dict[int, deque[T]] = {}
        """Each busy worker's pieces, oldest first (its answers come in that order)."""
        self.orphans: dict[int, deque[T]] = {}
        """Workers halted by a cutoff whose answers have not come yet, with their pieces."""

    def tags(self) -> dict[int, T]:
        """The oldest piece of each busy worker."""
        return {worker: pieces[0] for worker, pieces in self.busy.items()}

    def run(self, plan: Plan[T]) -> Verdict:
        """Send, collect and stop as ``plan`` says until every piece is answered or the run is
        over: ``GO_ON`` if every piece was answered, ``CUTOFF`` or ``STOP`` if the run ended so
        (after a ``STOP`` every busy worker has answered)."""
        return collections.deque(self.rounds(plan), maxlen=1)[0]

    def rounds(self, plan: Plan[T]) -> Generator[Verdict, None, None]:
        """:meth:`run`, yielding after every round of answers (what the run is so far), for a
        caller that hands results on as they come. Close the iterator (``contextlib.closing``)
        if you leave it early: the busy workers are then halted and waited for."""
        over = Verdict.GO_ON
        try:
            self._fill(plan, over)
            while self.busy and not (over is Verdict.CUTOFF and not self.wait_on_cutoff):
                for worker in self._ready():
                    answer = self.link.connection(worker).recv()
                    orphan = worker in self.orphans
                    held = self.orphans if orphan else self.busy
                    pieces = held[worker]
                    tag = pieces.popleft()
                    if not pieces:
                        del held[worker]
                    self._ended(worker, plan.count(worker, tag, answer))
                    if orphan or over is not Verdict.GO_ON:
                        continue  # late: its value cannot count
                    verdict = plan.take(worker, tag, answer)
                    if verdict is not Verdict.GO_ON:
                        over = verdict
                        self.link.halt(self.busy)
                if over is Verdict.GO_ON and plan.stopping():
                    over = Verdict.STOP
                    self.link.halt(self.busy)
                self._fill(plan, over)
                yield over
        except BaseException:
            self.drain()
            raise
        for worker, pieces in self.busy.items():  # halted by a cutoff, not waited for
            self.orphans.setdefault(worker, deque()).extend(pieces)
        self.busy.clear()
        yield over

    def _fill(self, plan: Plan[T], over: Verdict) -> None:
        """Offer every worker that can take a piece (not an orphan) the plan's next ones."""
        if over is not Verdict.GO_ON:
            return
        for worker in range(self.link.workers):
            if worker in self.orphans:  # no work until its late answers are in
                continue
            pieces = self.busy.get(worker)
            while pieces is None or len(pieces) < self.in_flight:
                piece = plan.assign(worker)
                if piece is None:
                    break
                tag, message = piece
                if pieces is None:
                    pieces = self.busy[worker] = deque()
                    if self.activity is not None:
                        self.activity.begin(worker)
                pieces.append(tag)
                self.link.send(worker, message)

    def _ready(self) -> list[int]:
        """The busy workers and orphans that have answered, after waiting up to
        :data:`POLL_S`."""
        by_pipe = {self.link.connection(worker): worker for worker in (*self.busy, *self.orphans)}
        return [by_pipe[pipe] for pipe in wait(list(by_pipe), timeout=POLL_S)]  # type: ignore[index]

    def _ended(self, worker: int, nodes: int) -> None:
        if self.activity is not None:
            self.activity.end(worker, nodes)
            if worker in self.busy or worker in self.orphans:  # its next piece starts now
                self.activity.begin(worker)

    def drain(self, count: Callable[[int, Any], Any] | None = None) -> None:
        """Halt the busy workers and the orphans and wait for all their answers (a few
        milliseconds), so that every worker is idle; ``count(worker, answer)`` takes in each.
        If one cannot answer (it died, or Ctrl-C came meanwhile), the link is closed."""
        waiting = [(worker, len(pieces)) for worker, pieces in self.busy.items()]
        waiting += [(worker, len(pieces)) for worker, pieces in self.orphans.items()]
        self.busy.clear()
        self.orphans.clear()
        self.link.halt(worker for worker, _ in waiting)
        for worker, answers in waiting:
            for _ in range(answers):
                try:
                    answer = self.link.connection(worker).recv()
                except (EOFError, OSError, KeyboardInterrupt):
                    self.link.lost()
                    return
                if count is not None:
                    count(worker, answer)
