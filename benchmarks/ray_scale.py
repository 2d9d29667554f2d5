"""How far a distributed solve would scale: its units' measured costs replayed on N nodes.

1. The measurements. Every unit run that a replay needs (position, window, the table it
   starts from (a split unit's children start from its table), and the
   node count it stops at, or none) is solved once here, in this process, by ``solve_unit``
   with its table cleared first, so that its answer and its node count do not depend on which
   units ran before (a real worker keeps its table between units: these costs are an upper
   bound). Answers are kept in ``--cache`` (JSON) as they come, so an interrupted benchmark
   resumes where it stopped, and a replay from a kept cache measures nothing. A unit's cost
   is its nodes at one rate (``--rate``, nodes per second; default: the measured units' own
   rate), plus ``--overhead-ms`` for sending it and taking its answer: node counts do not
   change with the load of the machine, seconds do.
2. The replay. ``solve_distributed`` (best moves included, as ``solve --cluster`` does) runs
   on a simulated executor of N workers (one CPU per node) with a clock of its own: a unit
   starts when a worker is free and ends its cost later, answers come back in the order of
   that clock and prune, split and send exactly as in a real run. As in a real run, a unit
   cancelled while it runs stops at once and frees its worker, and answers with what it
   proved by its last checkpoint (a real one: by now; none before its first checkpoint, the
   measurements kept few: pessimistic), and a worker that would idle gets
   work by splitting the unit that has run longest once it has run ``--budget`` nodes. A
   real unit stops within milliseconds of the request; a replayed one stops at its next
   *checkpoint* (``--budget`` nodes times 1, 2, 4, then a quarter more each time; at once if
   asked at one), where its answer is measured (pessimistic too, and it keeps the
   measurements few and reusable). A unit may be split at a checkpoint that reaches its
   budget exactly (the budget is taken a hair short, so that rounding does not decide).
   A run that answers a bound after ``HANDOVER_NODES`` nodes sends its table back, as in a
   real run; the replay makes that table again when a later run needs it, by running it
   again from its own starting table (the search is deterministic).
3. The figures. ``T1`` is the replay on one worker; the speed-up on N is ``T1 / TN``;
   ``eff`` is the speed-up over N. Where the N workers' time went: ``busy`` is the share of
   N x TN they spent on units, ``cancel`` the share of their busy time spent on units that a
   result made unneeded while they ran, ``split`` the share spent on units stopped to be
   split. ``serial`` is the same position solved in one process with one table
   (``Solver.solve`` and its best moves): ``vs serial`` is what N nodes bring over it
   (splitting and cold tables cost work: ``work`` is the units' nodes over the serial's).
   ``coord s`` is what this process spent in the tree's bookkeeping during the replay (the
   coordinator's own time, not in the simulated clock).
4. The critical path. Each run is needed from a step of the coordinator, woken by an event:
   a run that answered (or reached a checkpoint). Walking back from the answer that finished
   the solve (the run that gave it, the event that made that run needed, and so on to the
   start) gives the chain of runs that had to happen one after another (``critical_path``).
   The replay's time is exactly the chain's run time (``path s``) plus its waits for a free
   worker (``wait s``): with no waits (any number of nodes) the same schedule still takes
   ``path s``, so ``T1/path`` bounds its speed-up, and ``runs`` is the chain's length.
   ``work s`` is the replay's total work (its workers' busy seconds), ``work/path`` the
   schedule's average parallelism: the most nodes it could keep busy.
   ``--path-nodes`` prints the chain of those replays, a run a line (position, window, how
   its part on the chain ended: ``done``, ``split``, or ``checkpoint`` when the coordinator
   acted while it ran).

``--warm`` replays with workers that keep their tables between units, as real workers do
(:class:`Warm`): each simulated worker has a table of its own, and a unit is measured when it
starts, on its worker's table as the worker's earlier units left it. Nothing is cached (a
unit's cost depends on the schedule), so every replay searches its units again, each from
where it started for each checkpoint measured (as above), and once more when it is stopped
short of its end, so that its worker's table holds what it searched by then. The rate is
``--rate``, else the serial solve's; ``--hash`` sizes the tables.

Windows that move. A real unit is told when its window moves (:meth:`Executor.narrow`), and
goes on in the new one at once. ``--warm segments`` models that: the unit's piece is cut at
the node it has reached, and the next one runs in the new window from its worker's table
(``Segmented.narrow``). The other replays cannot tell a running unit (it runs in its first
window to its end, as with ``narrow=False``, which ``--no-narrow`` asks of ``--warm
segments`` too). A split unit's first child goes to the worker that ran it when that worker
is free (:meth:`Executor.submit_on`). ``--share`` lets the warm workers share their tables as
a real solve does (``share_tables``): a unit that ran :data:`SHARE_S` at the replay's rate
sends its table back, and each unit goes out with the latest two, which a worker loads once.
``--split-busy`` replays ``split_busy``.

``--also-run-to-end`` also replays each position as the code did before cancelled units
stopped (a unit cancelled while it runs keeps its worker to its end), to show what stopping
brings; the output says so. ``--preempt``, ``--young-wait``, ``--root-tests`` and
``--tests-at-once K`` replay the options of ``solve_distributed`` of those names.

A position whose measurements cannot all be made in time (the empty board: Pons's solver needs
about 3 G nodes, and units with cold tables more) is replayed as far as ``--measure-s`` allows
per position; then it says so, and prints the costs measured so far instead of speed-ups.

Run from the repository root::

    .venv/bin/python benchmarks/ray_scale.py [--positions 3216462 ...] [--budget 500000]
        [--nodes 2 8 32 128] [--split 1] [--overhead-ms 5] [--cache PATH] [--measure-s 600]
        [--also-run-to-end] [--path-nodes 32] [--root-tests [--tests-at-once 3]] [--preempt]
        [--warm [segments] [--hash 64] [--rate 6400000 --no-serial] [--share] [--no-narrow]]
        [--split-busy]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import heapq
import json
import math
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from unittest import mock

from zerosum.compiled import MAX_HASH_MB, distributed
from zerosum.compiled.distributed import (
    SHARE_S,
    SNAPSHOT_ENTRIES,
    Budget,
    TableSnapshot,
    UnitAnswer,
    _unit_solver,
    hands_over,
    load_snapshot,
    snapshot,
    solve_distributed,
)
from zerosum.compiled.distributed import solve_unit as run_unit
from zerosum.compiled.solver import Solver
from zerosum.games.connect4 import Connect4
from zerosum.runtime import Executor
from zerosum.runtime.executor import Shared
from zerosum.store import Store

HASH_MB = 16.0


class OutOfTime(Exception):
    """The measurement time of a position ran out."""


@dataclass(frozen=True)
class Recipe:
    """The table a stopped unit run sent back, as the run that makes it again: its cache key
    (position, window, budget and the recipe of the table it started from). The replay's
    answers carry this instead of the table itself (the search is deterministic from a
    cleared table)."""

    key: str

    @property
    def digest(self) -> str:
        return hashlib.sha1(self.key.encode()).hexdigest()[:16]


class Costs:
    """Unit answers by (position, window, weak, budget), measured on demand, kept in a file."""

    def __init__(self, path: Path | None, measure_s: float) -> None:
        self.path = path
        self.recipes: dict[str, Recipe] = {}
        """Every stopped run's table recipe, by its digest."""
        self.tables: dict[str, TableSnapshot] = {}
        """The tables made again lately, by their recipe's digest (a few)."""
        self.answers: dict[str, UnitAnswer] = {}
        self.used: set[str] = set()
        """The answers this run looked up (``--prune`` keeps only those)."""
        self.prune = False
        if path is not None and path.exists():
            text = gzip.decompress(path.read_bytes()).decode() if _zipped(path) else None
            for key, (rank, nodes, seconds, bounds, _) in json.loads(
                text if text is not None else path.read_text()
            ).items():
                table = None if rank is not None else self._recipe(key)
                self.answers[key] = UnitAnswer(
                    rank, nodes, seconds, tuple(map(tuple, bounds)), table
                )
        self.complete: dict[str, UnitAnswer] = {}
        """The answers that completed, by their key without the budget."""
        self._keys: dict[int, str] = {}
        for key, answer in self.answers.items():
            if answer.rank is not None:
                base, _, rest = key.rpartition("|")
                self.complete[base.rpartition("|")[0] + "||" + rest] = answer
                self._keys[id(answer)] = key
        self.measure_s = measure_s
        self.spent = 0.0
        self.measured = 0
        self._unsaved = 0

    def _recipe(self, key: str) -> Recipe:
        recipe = Recipe(key)
        self.recipes[recipe.digest] = recipe
        return recipe

    def table(self, recipe: Recipe) -> TableSnapshot:
        """The table of ``recipe``: its run made again from a cleared table (and the table
        it started from, made again first)."""
        if recipe.digest not in self.tables:
            position, low, high, weak, nodes, parent = recipe.key.split("|")
            start = None if parent == "0" else self.table(self.recipes[parent])
            engine = _unit_solver("connect4", HASH_MB).engine
            engine.clear()
            if start is not None:
                load_snapshot(engine.keys, engine.data, start)
            budget = None if nodes == "None" else Budget(nodes=int(nodes))
            made = run_unit(
                "connect4", position, (int(low), int(high)), weak == "1", HASH_MB, budget
            )
            table = made.table
            if table is None:  # a run that completed (a bound): its table all the same
                table = snapshot(engine.keys, engine.data, SNAPSHOT_ENTRIES)
            self._keep(recipe.digest, table)
        return self.tables[recipe.digest]

    def _keep(self, digest: str, table: TableSnapshot) -> None:
        if len(self.tables) >= 32:
            del self.tables[next(iter(self.tables))]
        self.tables[digest] = table

    def answer(
        self,
        position: str,
        window: tuple[int, int],
        weak: bool,
        budget: Budget | None,
        table: Recipe | None,
        peek: bool = False,
    ) -> UnitAnswer | None:
        """The unit's answer with ``budget`` (nodes), starting from the table ``table``
        (none: a cleared one): measured, unless known already (an answer that completed within
        fewer nodes is the same answer: the search is deterministic from a given table)."""
        base = f"{position}|{window[0]}|{window[1]}|{int(weak)}|"
        tail = f"|{table.digest if table is not None else 0}"
        key = f"{base}{budget and budget.nodes}{tail}"
        if peek and key not in self.answers:
            return None
        if key not in self.answers:
            done = self._complete(base, tail)
            if done is not None:
                self.used.add(self._keys[id(done)])
            if done is not None and (
                budget is None or budget.nodes is None or done.nodes <= budget.nodes
            ):
                return self._handed(self._keys[id(done)], window, done)
            if self.spent >= self.measure_s:
                raise OutOfTime
            started = time.perf_counter()
            start = None if table is None else self.table(table)
            engine = _unit_solver("connect4", HASH_MB).engine
            engine.clear()
            if start is not None:
                load_snapshot(engine.keys, engine.data, start)
            answer = run_unit("connect4", position, window, weak, HASH_MB, budget)
            if answer.rank is not None:
                answer = replace(answer, table=None)  # made again from its recipe if needed
            if answer.rank is None:
                if answer.table is not None:
                    self._keep(self._recipe(key).digest, answer.table)
                answer = replace(answer, table=self._recipe(key))
            self.answers[key] = answer
            if self.answers[key].rank is not None:
                self.complete[base + tail] = self.answers[key]
                self._keys[id(self.answers[key])] = key
            self.spent += time.perf_counter() - started
            self.measured += 1
            self._unsaved += 1
            if self._unsaved >= 50:
                self.save()
        self.used.add(key)
        return self._handed(key, window, self.answers[key])

    def _handed(self, key: str, window: tuple[int, int], answer: UnitAnswer) -> UnitAnswer:
        """``answer`` (measured as ``key``) with the table a real unit sends back with it:
        a stopped one's (its recipe already), or a completed one's if it answered a bound
        (:func:`~zerosum.compiled.distributed.hands_over`: the recipe of its run)."""
        if answer.rank is None or not hands_over(window, answer):
            return answer
        return replace(answer, table=self._recipe(key))

    def _complete(self, base: str, tail: str) -> UnitAnswer | None:
        return self.complete.get(base + tail)

    def save(self) -> None:
        self._unsaved = 0
        if self.path is None:
            return
        data = {
            key: [
                a.rank,
                a.nodes,
                a.seconds,
                [list(b) for b in a.bounds],
                [],
            ]
            for key, a in self.answers.items()
            if not self.prune or key in self.used
        }
        scratch = self.path.with_name(self.path.name + ".tmp")
        text = json.dumps(data, sort_keys=True)
        if _zipped(self.path):
            scratch.write_bytes(gzip.compress(text.encode(), mtime=0))
        else:
            scratch.write_text(text)
        scratch.replace(self.path)


def _zipped(path: Path) -> bool:
    return path.suffix == ".gz"


class Simulated(Executor):
    """``workers`` simulated workers and a clock (see the module docstring, step 2).

    A unit runs until it completes, unless it is stopped: by :meth:`cancel` or :meth:`stop`
    (a result made it unneeded) at once, its worker free and no answer sent (a real one sends
    what it proved: pessimistic); by :meth:`split` at the next *checkpoint* of its run, a
    node count ``quantum * 2**k``, with the answer measured for that many nodes (a real unit
    stops within milliseconds of the request: pessimistic too, but it keeps the measurements
    few and reusable). What a unit will do is measured lazily: with a budget of its next
    checkpoint, then the one after, up to ``ladder`` checkpoints, then to its end."""

    LADDER = 3

    def __init__(
        self,
        workers: int,
        costs: Costs,
        rate: float,
        overhead_s: float,
        quantum: int,
        stops: bool = True,
    ) -> None:
        self.stops = stops  # a cancelled running unit stops and frees its worker at once
        self.workers = workers
        self.costs = costs
        self.rate = rate
        self.overhead_s = overhead_s
        self.quantum = quantum
        self.now = 0.0
        self.idle = list(range(workers))
        self.events: list[tuple[float, int, Future[Any]]] = []  # (time, order, unit)
        self.waiting: deque[tuple[Future[Any], tuple[Any, ...], int | None]] = deque()
        """Units waiting for a worker, each with the worker it would rather run on."""
        self.count = 0
        self._order = 0
        self.busy = 0.0
        self.nodes = 0
        self.cancelled_s = 0.0  # worker time of units cancelled while they ran
        self.stopped_s = 0.0  # worker time of units stopped to be split
        self.log: list[tuple[float, float, int, str]] = []  # start, end, worker, how it ended
        self._runs: dict[Future[Any], dict[str, Any]] = {}
        self.records: dict[Future[Any], dict[str, Any]] = {}
        """Every submitted run: its arguments, when it was first needed and what made it so
        (``cause``), when it started and ended and how (for :func:`critical_path`)."""
        self.trigger: tuple[Future[Any] | None, float, str] = (None, 0.0, "start")
        """The event the coordinator was last woken by: a run that ended (or reached a
        checkpoint), the time, how."""
        self._wanted: dict[tuple[str, tuple[int, int]], tuple[Any, ...]] = {}
        """The runs the coordinator needs now (position, window), with the trigger of the
        step where each became needed."""

    def clock(self) -> float:
        return self.now

    def share(self, value: Any) -> Any:
        """A table shared by many runs stays its recipe here (what the replay measures by)."""
        return value

    def needed(self, runs: Collection[tuple[str, tuple[int, int]]]) -> None:
        """The coordinator needs ``runs`` (position, window) now: the newly needed ones get
        the current trigger as their cause."""
        self._wanted = {run: self._wanted.get(run) or (*self.trigger,) for run in runs}

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        return self._submit(None, args)

    def submit_on(self, ran: Future[Any], fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        record = self.records.get(ran, {})
        return self._submit(record.get("worker"), args)

    def _submit(self, worker: int | None, args: tuple[Any, ...]) -> Future[Any]:
        future: Future[Any] = Future()
        cause = self._wanted.get((args[1], tuple(args[2]))) or (*self.trigger,)
        self.records[future] = {"args": args, "cause": cause, "submit": self.now}
        self.waiting.append((future, args, worker))
        self._dispatch()
        return future

    def checkpoint(self, step: int) -> int:
        """The node count of a run's ``step``-th checkpoint: ``quantum`` times 1, 2, 4, then
        growing by a quarter (a unit stops at most a quarter of its run after it is asked)."""
        nodes = self.quantum
        for number in range(step):
            nodes = nodes * 2 if number < self.LADDER - 1 else nodes + max(self.quantum, nodes // 4)
        return nodes

    def _measure(self, run: dict[str, Any], nodes: int | None) -> UnitAnswer:
        position, window, weak, table = (run["args"][i] for i in (1, 2, 3, 6))
        budget = None if nodes is None else Budget(nodes=nodes)
        answer = self.costs.answer(position, window, weak, budget, table)
        assert answer is not None
        return answer

    def _plan(self, future: Future[Any]) -> None:
        """The next event of a running unit: its end, if it completes before its next
        checkpoint, else that checkpoint (where it may be split)."""
        run = self._runs[future]
        checkpoint = self.checkpoint(run["step"])
        if run["full"] is None and run["step"] >= self.LADDER:
            run["full"] = self._measure(run, None)
        if run["full"] is None:
            answer = self._measure(run, checkpoint)
            if answer.rank is not None:
                run["full"] = answer
        self._next_event(future, run, checkpoint)

    def _next_event(self, future: Future[Any], run: dict[str, Any], checkpoint: int) -> None:
        """The event of ``run`` at its end, if it completes by ``checkpoint``, else there."""
        full = run["full"]
        if full is not None and full.nodes <= checkpoint:
            run["end"] = full
            at = run["start"] + full.nodes / self.rate + self.overhead_s
        else:
            run["end"] = None
            at = run["start"] + checkpoint / self.rate
        self._order += 1
        heapq.heappush(self.events, (at, self._order, future))
        run["at"], run["event"] = at, self._order

    def _dispatch(self) -> None:
        """Start waiting units on the workers free now (a unit cancelled while it waited
        never runs, as with the local pool)."""
        while self.waiting and self.idle:
            future, args, rather = self.waiting.popleft()
            if not future.set_running_or_notify_cancel():
                continue
            worker = rather if rather in self.idle else self.idle[-1]
            self.idle.remove(worker)
            self.records[future]["worker"] = worker
            self.count += 1
            self._runs[future] = {
                "args": args,
                "start": self.now,
                "step": 0,
                "worker": worker,
                "full": None,
            }
            self._plan(future)

    def _finish(self, future: Future[Any], how: str) -> dict[str, Any]:
        run = self._runs.pop(future)
        self.records[future].update(start=run["start"], end=self.now, how=how)
        took = self.now - run["start"]
        self.busy += took
        self.nodes += int(took * self.rate)
        self.log.append((run["start"], self.now, run["worker"], how))
        self.idle.append(run["worker"])
        return run

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        done = {future for future in futures if future.done()}
        while not done and self.events:
            at, order, future = self.events[0]
            run = self._runs.get(future)
            if run is None or run["event"] != order:
                heapq.heappop(self.events)
                continue  # stopped meanwhile, or planned again
            self.now = max(self.now, at)
            if run["end"] is None and not run.get("offered"):
                # a checkpoint: the coordinator looks first (it may ask for a split there)
                run["offered"] = True
                self.trigger = (future, self.now, "checkpoint")
                return done
            heapq.heappop(self.events)
            run["offered"] = False
            if run["end"] is not None:  # it completed
                self.trigger = (future, self.now, "done")
                self._finish(future, "done")
                if run.get("dropped"):
                    self.cancelled_s += self.now - run["start"]
                if not future.cancelled():
                    future.set_result(run["end"])
            elif run.get("split"):  # at the checkpoint after the request: it stops
                self.trigger = (future, self.now, "split")
                answer = self._measure(run, self.checkpoint(run["step"]))
                self._finish(future, "split")
                self.stopped_s += self.now - run["start"]
                future.set_result(answer)
            else:
                run["step"] += 1
                self._plan(future)
            self._dispatch()
            done = {f for f in futures if f.done()}
        return done

    def wait_all(self) -> None:
        """Let every unit still running end (cancelled ones that run to their end)."""
        while self._runs and self.events:
            self.wait([future for future in self._runs], 0)

    def split(self, future: Future[Any]) -> bool:
        run = self._runs.get(future)
        if run is None:
            return False
        run["split"] = True
        return True

    def stop(self, future: Future[Any]) -> bool:
        """A cancelled unit stops at once and answers with what it proved by its last
        checkpoint (if one is measured: a real one answers with what it proved by now)."""
        run = self._runs.get(future)
        if run is None or not self.stops or run["step"] == 0:
            self.cancel(future)
            return False
        position, window, weak, table = (run["args"][i] for i in (1, 2, 3, 6))
        budget = Budget(nodes=self.checkpoint(run["step"] - 1))
        answer = self.costs.answer(position, window, weak, budget, table, peek=True)
        if answer is None or answer.rank is not None:
            self.cancel(future)
            return False
        return self._stopped(future, answer)

    def _stopped(self, future: Future[Any], answer: UnitAnswer) -> bool:
        """The running unit ``future`` stops now, cancelled, and answers ``answer``."""
        started = self._runs[future]["start"]
        self._finish(future, "cancelled")
        self.cancelled_s += self.now - started
        future.set_result(answer)
        self._dispatch()
        return True

    def cancel(self, future: Future[Any]) -> None:
        run = self._runs.get(future)
        if run is None:
            future.cancel()
            return
        if not self.stops:  # as before: the unit keeps its worker to its end
            run["dropped"] = True
            return
        started = run["start"]
        self._finish(future, "cancelled")
        self.cancelled_s += self.now - started
        future.set_result(None)  # settled: the caller dropped it already
        self._dispatch()

    def close(self) -> None:
        pass


class Warm(Simulated):
    """``workers`` simulated workers that keep their tables, as real ones do (``--warm``).

    Each worker has a solver and a table of its own, cleared once at the start as a real
    worker's is at the start of a solve. A unit is measured when it starts, on its worker's
    table as the worker's earlier units left it (plus the table it is sent with), so nothing is
    kept between replays. Its checkpoints are measured as :class:`Simulated` measures them,
    each from the table it started on (a copy taken at its start). When it ends, its worker's
    table is left as the run left it: whole for a unit that completed, cut at the checkpoint for
    one stopped to be split, and cut at the node it had reached for one cancelled (which answers
    what it proved by then, as a real one does)."""

    def __init__(
        self, workers: int, rate: float, overhead_s: float, quantum: int, hash_mb: float
    ) -> None:
        super().__init__(workers, Costs(None, float("inf")), rate, overhead_s, quantum)
        self.solvers = [Solver("connect4", hash_mb=hash_mb, book=False) for _ in range(workers)]
        self.loaded: list[set[str]] = [set() for _ in range(workers)]
        """The other workers' tables each worker took in (``share_tables``), by origin."""
        self.spent = 0.0
        self.measured_nodes = 0

    def share(self, value: Any) -> Any:
        """A table for many runs, as a real executor shares it (each run takes it in)."""
        return Shared(value)

    @contextlib.contextmanager
    def _as_worker(self, worker: int) -> Iterator[None]:
        """``solve_unit`` runs as on the process of ``worker``: its solver, the tables it took
        in, its name (a table it sends back names it, and it skips its own)."""
        solver = self.solvers[worker]
        with (
            mock.patch.object(distributed, "_unit_solver", lambda game, hash_mb: solver),
            mock.patch.object(distributed, "_loaded", self.loaded[worker]),
            mock.patch.object(distributed.socket, "gethostname", lambda: f"simulated-{worker}"),
        ):
            yield

    def _save(self, worker: int) -> tuple[Any, Any, int, set[str]]:
        """What ``worker`` holds: its table and the tables it took in."""
        engine = self.solvers[worker].engine
        return engine.keys.copy(), engine.data.copy(), engine.generation, set(self.loaded[worker])

    def _restore(self, worker: int, saved: tuple[Any, Any, int, set[str]]) -> None:
        """Put back what :meth:`_save` saved."""
        engine = self.solvers[worker].engine
        keys, data, generation, loaded = saved
        engine.keys[:] = keys
        engine.data[:] = data
        engine.generation = generation
        self.loaded[worker].clear()
        self.loaded[worker].update(loaded)

    def _measure(self, run: dict[str, Any], nodes: int | None) -> UnitAnswer:
        answers: dict[int | None, UnitAnswer] = run.setdefault("answers", {})
        if nodes not in answers:
            answers[nodes] = self._run_to(run, nodes)
        return answers[nodes]

    def _run_to(self, run: dict[str, Any], nodes: int | None) -> UnitAnswer:
        """The unit of ``run`` run on its worker's table from where it started, for ``nodes``
        nodes (``None``: to its end); the table is left as that run leaves it."""
        if "before" not in run:
            run["before"] = self._save(run["worker"])
        elif run.get("ran", False) is not False:
            self._restore(run["worker"], run["before"])
        args = list(run["args"])
        args[5] = None if nodes is None else Budget(nodes=nodes)
        answer = self._unit(run, args)
        run["ran"] = nodes
        return answer

    def _unit(self, run: dict[str, Any], args: list[Any], before: int = 0) -> UnitAnswer:
        """``solve_unit(*args)`` on the worker of ``run``, which searched ``before`` nodes of
        it already; the answer counts them. A unit given other workers' tables sends its own
        back if it completes after :data:`SHARE_S` seconds at the replay's rate (a real one:
        of its own clock, which here would depend on the load)."""
        started = time.perf_counter()
        with self._as_worker(run["worker"]), mock.patch.object(distributed, "SHARE_S", math.inf):
            answer = run_unit(*args)
            nodes = before + answer.nodes
            if (
                answer.rank is not None
                and answer.table is None
                and run["args"][7] is not None
                and nodes / self.rate >= SHARE_S
            ):
                engine = self.solvers[run["worker"]].engine
                kept = snapshot(engine.keys, engine.data, SNAPSHOT_ENTRIES, distributed._origin())
                answer = replace(answer, table=kept)
        self.spent += time.perf_counter() - started
        self.measured_nodes += answer.nodes
        return replace(answer, nodes=nodes)

    def _finish(self, future: Future[Any], how: str) -> dict[str, Any]:
        run = self._runs[future]
        # the worker's table as the run left it
        if how == "done":
            target = next(k for k, a in run["answers"].items() if a is run["end"])
        elif how == "split":
            target = self.checkpoint(run["step"])
        else:
            reached = int((self.now - run["start"]) * self.rate)
            full = run["full"]
            target = None if full is not None and reached >= full.nodes else reached
        if "before" in run and run.get("ran", False) != target:
            if target == 0:
                self._restore(run["worker"], run["before"])
                run["ran"] = 0
            else:
                run.setdefault("answers", {})[target] = self._run_to(run, target)
        run.pop("before", None)
        return super()._finish(future, how)

    def stop(self, future: Future[Any]) -> bool:
        """A cancelled unit stops at once and answers with what it proved by now."""
        run = self._runs.get(future)
        if run is None:
            self.cancel(future)
            return False
        reached = int((self.now - run["start"]) * self.rate)
        full = run["full"]
        if reached <= 0 or (full is not None and reached >= full.nodes):
            self.cancel(future)
            return False
        answer = self._measure(run, reached)
        if answer.rank is not None:  # it would have completed by now (the overhead's share)
            self.cancel(future)
            return False
        return self._stopped(future, answer)


class Segmented(Warm):
    """:class:`Warm`, with each unit run once, a checkpoint after the other (``--warm
    segments``): at each checkpoint the run stops, and goes on later from its worker's table.
    A unit searched in pieces costs a little more than in one run (each piece searches its way
    back down to where the last one stopped, through the table), but it is run once, not again
    for each checkpoint, and a replay costs about the nodes its workers search. A unit stopped
    between checkpoints runs its last piece again, to the node it had reached."""

    def _plan(self, future: Future[Any]) -> None:
        run = self._runs[future]
        checkpoint = self.checkpoint(run["step"])
        if run["full"] is None:
            run["piece"] = self._save(run["worker"])
            run["from"] = run.get("reached", 0)
            answer = self._piece(run, checkpoint - run["from"])
            if answer.rank is not None:
                run["full"] = answer
            else:
                run["reached"] = answer.nodes
                run["answers"] = {checkpoint: answer}
        self._next_event(future, run, checkpoint)

    def narrow(self, future: Future[Any], window: tuple[int, int]) -> bool:
        """The running unit goes on in ``window`` from now, as a real one does (its solve
        reads its window before each test and drops a running test the new window no longer
        needs): its piece is cut at the node it has reached, and the next piece, to the same
        checkpoint, runs in the new window from its worker's table."""
        run = self._runs.get(future)
        if run is None or run.get("split") or future.done():
            return False
        reached = int((self.now - run["start"]) * self.rate)
        full = run["full"]
        if full is not None and reached >= full.nodes:
            return False  # it has all but answered
        args = list(run["args"])
        args[2], args[9] = window, None
        run["narrowed"] = run.get("narrowed", 0) + 1
        if full is None and reached >= self.checkpoint(run["step"]):
            run["args"] = tuple(args)  # at its checkpoint: the next piece is in the new window
            return True
        self._restore(run["worker"], run["piece"])
        if reached > run["from"]:
            answer = self._piece(run, reached - run["from"])
            if answer.rank is not None:  # it completed by now after all
                return False
            reached = answer.nodes
        else:
            reached = run["from"]
        run["args"] = tuple(args)
        run["full"], run["reached"], run["answers"] = None, reached, {}
        self._plan(future)
        return True

    def _piece(self, run: dict[str, Any], nodes: int | None) -> UnitAnswer:
        """The unit of ``run`` on its worker's table as it is, for ``nodes`` more nodes
        (``None``: to its end); its answer counts every piece's nodes so far."""
        args = list(run["args"])
        args[5] = None if nodes is None else Budget(nodes=max(1, nodes))
        if run["from"] > 0:  # it goes on: what it was sent with is in the table already
            args[6] = args[7] = None
        return self._unit(run, args, run["from"])

    def _measure(self, run: dict[str, Any], nodes: int | None) -> UnitAnswer:
        # a checkpoint's, measured as it was reached (or the whole run's, if it completed a
        # few nodes past that checkpoint: the engine looks at its budget every few nodes)
        answer: UnitAnswer = run.get("answers", {}).get(nodes) or run["full"]
        return answer

    def _cut(self, run: dict[str, Any]) -> UnitAnswer | None:
        """What ``run`` proved by now, its worker's table left as it was then (its last piece
        run again, only as far as now)."""
        if run.get("cut"):
            return None
        run["cut"] = True
        reached = int((self.now - run["start"]) * self.rate)
        full = run["full"]
        if full is not None and reached >= full.nodes:
            return None  # it has all but answered: its table is the whole run's
        self._restore(run["worker"], run["piece"])
        if reached <= run["from"]:
            return None
        answer = self._piece(run, reached - run["from"])
        return answer if answer.rank is None else None

    def _finish(self, future: Future[Any], how: str) -> dict[str, Any]:
        run = self._runs[future]
        if how == "cancelled":
            self._cut(run)
        run.pop("piece", None)
        return Simulated._finish(self, future, how)

    def stop(self, future: Future[Any]) -> bool:
        """A cancelled unit stops at once and answers with what it proved by now."""
        run = self._runs.get(future)
        answer = None if run is None else self._cut(run)
        if run is None or answer is None:
            self.cancel(future)
            return False
        return self._stopped(future, answer)


@dataclass(frozen=True)
class Link:
    """A run on the critical path (:func:`critical_path`)."""

    position: str
    window: tuple[int, int]
    how: str
    """How the run's part on the path ended: ``done`` (its answer), ``split`` (stopped to be
    split), ``checkpoint`` (the coordinator acted at one of its checkpoints, while it ran)."""
    ran: float
    """Seconds it ran before that."""
    waited: float
    """Seconds it waited for a free worker after it was needed."""


def critical_path(simulated: Simulated) -> list[Link]:
    """The chain of runs that ended the replay, first to last: the run whose answer finished
    the solve, the run whose answer (or checkpoint) made it needed, and so on back to the
    start. Each was needed only once the one before it had answered, so the replay's time is
    exactly the chain's run times plus its waits for a free worker: with the waits gone (any
    number of nodes) the same schedule still takes the run times, the *critical path*."""
    links: list[Link] = []
    future, at, how = simulated.trigger
    while future is not None:
        record = simulated.records[future]
        position, window = record["args"][1], tuple(record["args"][2])
        cause_future, cause_at, cause_how = record["cause"]
        links.append(Link(position, window, how, at - record["start"], record["start"] - cause_at))
        future, at, how = cause_future, cause_at, cause_how
    return links[::-1]


def replay(
    moves: str,
    split: int,
    workers: int,
    budget: Budget | None,
    costs: Costs,
    rate: float,
    overhead_s: float,
    stop: bool = True,
    scouts: bool = True,
    preempt: bool = False,
    young_wait: bool = False,
    root_tests: bool = False,
    tests_at_once: int = 1,
    doubling: bool = False,
    warm: str | None = None,
    hash_mb: float = HASH_MB,
    split_busy: bool = False,
    share: bool = False,
    narrow: bool = True,
    settled_scouts: bool = False,
) -> tuple[float, Simulated, Any, float]:
    """The simulated time on ``workers`` workers, the executor, the result, the coordinator's
    seconds. ``warm``: the workers keep their tables (``"runs"``: :class:`Warm`,
    ``"segments"``: :class:`Segmented`; ``costs`` unused)."""
    quantum = budget.nodes if budget is not None and budget.nodes is not None else 1 << 62
    simulated: Simulated
    if warm is None:
        simulated = Simulated(workers, costs, rate, overhead_s, quantum, stop)
    else:
        kind = Segmented if warm == "segments" else Warm
        simulated = kind(workers, rate, overhead_s, quantum, hash_mb)
    spent = costs.spent
    started = time.perf_counter()
    needed = distributed._Tree.needed

    def noted(tree: Any, *args: Any, **kwargs: Any) -> dict[int, tuple[int, int]]:
        wanted = needed(tree, *args, **kwargs)
        simulated.needed([(tree.units[k][0].game.position(), w) for k, w in wanted.items()])
        return wanted

    with Store(":memory:") as store, mock.patch.object(distributed._Tree, "needed", noted):
        found = solve_distributed(
            Connect4.from_position(moves),
            executor=simulated,
            store=store,
            split=split,
            moves="best",
            # the simulated clock's seconds: a unit may be split once it has run its budget
            # (a hair less, so that a checkpoint at the budget is past it whatever the rounding)
            budget=None if budget is None else Budget(seconds=quantum / rate * (1 - 1e-9)),
            scouts=scouts,
            preempt=preempt,
            young_wait=young_wait,
            root_tests=root_tests,
            tests_at_once=tests_at_once,
            doubling=doubling,
            split_busy=split_busy,
            settled_scouts=settled_scouts,
            narrow=narrow,
            # modelled with workers that keep their tables (each simulated worker its own)
            share_tables=share and warm is not None,
            hash_mb=hash_mb,
        )
    measuring = simulated.spent if isinstance(simulated, Warm) else costs.spent - spent
    coordinator = time.perf_counter() - started - measuring
    simulated.wait_all()
    return simulated.now, simulated, found, coordinator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", nargs="+", default=["3216462", "4444", "44"])
    parser.add_argument("--budget", type=int, default=500_000, help="unit budget in nodes")
    parser.add_argument("--split", type=int, default=1)
    parser.add_argument("--nodes", type=int, nargs="+", default=[2, 8, 32, 128])
    parser.add_argument("--overhead-ms", type=float, default=5.0, help="per unit, simulated")
    parser.add_argument("--rate", type=float, help="nodes per second of a node")
    parser.add_argument(
        "--cache", type=Path, help="unit answers kept here (resumable; gzipped if PATH.gz)"
    )
    parser.add_argument(
        "--prune", action="store_true", help="keep in --cache only the answers this run used"
    )
    parser.add_argument("--measure-s", type=float, default=1800.0, help="per position")
    parser.add_argument("--no-serial", action="store_true", help="skip the serial solve")
    parser.add_argument(
        "--path-nodes", type=int, nargs="*", default=[32], help="print these replays' paths"
    )
    parser.add_argument(
        "--also-run-to-end",
        action="store_true",
        help="also replay as before: a unit cancelled while it runs keeps its worker to its end",
    )
    parser.add_argument(
        "--no-scouts",
        action="store_true",
        help="as before: every unit in its whole window, without null-window tests first",
    )
    parser.add_argument(
        "--preempt",
        action="store_true",
        help="units later in the tree's order stop for needed ones that wait (preempt=True)",
    )
    parser.add_argument(
        "--young-wait",
        action="store_true",
        help="speculative units (younger brothers of an unsettled eldest) last (young_wait=True)",
    )
    parser.add_argument(
        "--root-tests",
        action="store_true",
        help="the root's rank by null-window tests, every unit in a null window (root_tests=True)",
    )
    parser.add_argument(
        "--tests-at-once",
        type=int,
        default=1,
        help="with --root-tests: up to this many root tests at once (tests_at_once)",
    )
    parser.add_argument(
        "--doubling",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="a unit's budget doubles with each split above it (doubling=True; the default "
        "until the twenty-sixth session; --no-doubling: the default now)",
    )
    parser.add_argument(
        "--settled-scouts",
        action="store_true",
        help="null-window tests only against a brother's exact rank (settled_scouts=True)",
    )
    parser.add_argument(
        "--no-narrow",
        action="store_true",
        help="with --warm: a running unit is not told that its window moved (narrow=False); "
        "only --warm segments tells it otherwise",
    )
    parser.add_argument(
        "--share",
        action="store_true",
        help="with --warm: workers share their tables, as in a real solve (share_tables=True)",
    )
    parser.add_argument(
        "--split-busy",
        action="store_true",
        help="a unit past its budget is split even while every worker is busy, its eldest child "
        "going on on its worker (split_busy=True)",
    )
    parser.add_argument(
        "--warm",
        nargs="?",
        const="runs",
        choices=["runs", "segments"],
        help="each worker keeps its table between units, as a real one does (measured live, "
        "nothing cached; the rate: --rate, else the serial solve's); 'segments': each unit "
        "run once, in pieces from checkpoint to checkpoint (cheaper to measure)",
    )
    parser.add_argument(
        "--hash",
        type=float,
        default=HASH_MB,
        help=f"with --warm: each worker's table and the serial solve's in MB (default {HASH_MB:g})",
    )
    args = parser.parse_args()
    if not 0 < args.hash <= MAX_HASH_MB:
        parser.error(
            f"--hash {args.hash:g} is out of range: expected more than 0, at most {MAX_HASH_MB}"
        )
    if args.rate is not None and not args.rate > 0:
        parser.error(f"--rate {args.rate:g}: expected a positive count of nodes a second")
    if args.hash != HASH_MB and not args.warm:
        parser.error(f"--hash applies to --warm only (the cached answers are of {HASH_MB:g} MB)")
    if args.warm and args.no_serial and not args.rate:
        parser.error("--warm takes its rate from the serial solve: give --rate with --no-serial")
    scouts = not args.no_scouts
    overhead_s = args.overhead_ms / 1000
    budget = Budget(nodes=args.budget)
    print(f"command: {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    costs = Costs(args.cache, args.measure_s)
    costs.prune = args.prune
    print(f"cache: {len(costs.answers)} unit answers already measured")
    for moves in args.positions:
        costs.spent = 0.0
        print(f"\nposition {moves or '(empty board)'}, unit budget {args.budget:,} nodes")
        # Step 1. The serial reference.
        serial_nodes = serial_s = 0.0
        if not args.no_serial:
            solver = Solver("connect4", hash_mb=args.hash, book=False)  # a real solve
            game = Connect4.from_position(moves)
            started = time.perf_counter()
            exact = solver.solve(game)
            best, cost = solver.best_moves_search(game, exact.rank)
            serial_s = time.perf_counter() - started
            serial_nodes = exact.stats.nodes + cost.nodes
            print(
                f"  serial (one process, one table): score {exact.rank}, best "
                f"{''.join(str(m + 1) for m in best or [])}, {serial_nodes:,.0f} nodes with "
                f"the best moves in {serial_s:.2f} s"
            )
        if args.warm:
            _warm(args, moves, budget, overhead_s, serial_nodes, serial_s)
            continue
        # Step 2. The replays (the first one measures most units).
        rows = []
        try:
            for nodes in [1, *args.nodes]:
                took, sim, found, coordinator = replay(
                    moves,
                    args.split,
                    nodes,
                    budget,
                    costs,
                    args.rate or 1e7,
                    overhead_s,
                    scouts=scouts,
                    preempt=args.preempt,
                    young_wait=args.young_wait,
                    root_tests=args.root_tests,
                    tests_at_once=args.tests_at_once,
                    doubling=args.doubling,
                    split_busy=args.split_busy,
                )
                rows.append((nodes, took, sim, found, coordinator))
        except OutOfTime:
            measured = [a for k, a in costs.answers.items() if k.startswith(moves)]
            print(
                f"  NOT REPLAYED: measuring ran out of its {args.measure_s:.0f} s after "
                f"{len(measured):,} unit runs of this position and those below it "
                f"({sum(a.nodes for a in measured):,} nodes; "
                f"{sum(a.rank is None for a in measured):,} of them stopped); "
                "no speed-up is claimed for it"
            )
            costs.save()
            continue
        costs.save()
        rate = args.rate or _rate(costs)
        # costs were taken at a provisional rate: replay again at the measured one (cached)
        rows = [
            (
                n,
                *replay(
                    moves,
                    args.split,
                    n,
                    budget,
                    costs,
                    rate,
                    overhead_s,
                    scouts=scouts,
                    preempt=args.preempt,
                    young_wait=args.young_wait,
                    root_tests=args.root_tests,
                    tests_at_once=args.tests_at_once,
                    doubling=args.doubling,
                    split_busy=args.split_busy,
                ),
            )
            for n, *_ in rows
        ]
        first = rows[0][3]
        print(
            f"  replay: score {first.rank}, best {''.join(str(m + 1) for m in first.best_moves)}; "
            f"rate {rate:,.0f} nodes/s, overhead {args.overhead_ms} ms a unit"
        )
        _table(rows, serial_nodes, rate)
        for nodes, _, sim, *_ in rows:
            if nodes in args.path_nodes:
                _path(nodes, critical_path(sim))
        if args.also_run_to_end:
            print(
                "  AS BEFORE, not what the code does now: a unit cancelled while it runs keeps "
                "its worker to its end"
            )
            try:
                rows = [
                    (
                        n,
                        *replay(
                            moves,
                            args.split,
                            n,
                            budget,
                            costs,
                            rate,
                            overhead_s,
                            False,
                            scouts,
                            args.preempt,
                            args.young_wait,
                            args.root_tests,
                            args.tests_at_once,
                            args.doubling,
                        ),
                    )
                    for n, *_ in rows
                ]
            except OutOfTime:
                print(f"  NOT REPLAYED: measuring ran out of its {args.measure_s:.0f} s")
                costs.save()
                continue
            costs.save()
            _table(rows, serial_nodes, rate)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


def _warm(
    args: argparse.Namespace,
    moves: str,
    budget: Budget,
    overhead_s: float,
    serial_nodes: float,
    serial_s: float,
) -> None:
    """Steps 2 and 3 with workers that keep their tables (:class:`Warm`): every replay runs
    its units live, at the serial solve's rate (or ``--rate``)."""
    rate = args.rate or serial_nodes / serial_s
    rows = []
    for nodes in [1, *args.nodes]:
        started = time.perf_counter()
        row = replay(
            moves,
            args.split,
            nodes,
            budget,
            Costs(None, 0.0),
            rate,
            overhead_s,
            scouts=not args.no_scouts,
            preempt=args.preempt,
            young_wait=args.young_wait,
            root_tests=args.root_tests,
            tests_at_once=args.tests_at_once,
            doubling=args.doubling,
            split_busy=args.split_busy,
            share=args.share,
            narrow=not args.no_narrow,
            settled_scouts=args.settled_scouts,
            warm=args.warm,
            hash_mb=args.hash,
        )
        sim = row[1]
        assert isinstance(sim, Warm)
        print(
            f"  {nodes} nodes replayed in {time.perf_counter() - started:.1f} s "
            f"({sim.measured_nodes:,} nodes searched to measure them, {sim.spent:.1f} s)",
            flush=True,
        )
        sim.solvers.clear()  # the tables: gigabytes on many nodes, and measured already
        rows.append((nodes, *row))
        if nodes in args.path_nodes:
            _path(nodes, critical_path(sim))
        _table(rows, serial_nodes, rate)  # the rows so far: a long replay's are not lost
        sys.stdout.flush()
    first = rows[0][3]
    print(
        f"  replay, workers that keep their tables: score {first.rank}, best "
        f"{''.join(str(m + 1) for m in first.best_moves)}; rate {rate:,.0f} nodes/s, "
        f"overhead {args.overhead_ms} ms a unit"
    )


def _table(
    rows: list[tuple[int, float, Simulated, Any, float]], serial: float, rate: float
) -> None:
    """The replays' figures, a row for each number of nodes (the first row: one node)."""
    one, first = rows[0][1], rows[0][3]
    print(
        f"  {'N':>4} {'time s':>9} {'speed-up':>8} {'eff':>5} {'vs serial':>9} {'units':>6} "
        f"{'splits':>6} {'narrow':>6} {'sent':>6} {'work':>5} {'busy':>5} {'cancel':>6} "
        f"{'split':>5} "
        f"{'coord s':>7} {'path s':>7} {'runs':>4} {'wait s':>6} {'T1/path':>7} "
        f"{'work s':>7} {'work/path':>9}"
    )
    for nodes, took, sim, found, coordinator in rows:
        assert found.rank == first.rank and found.best_moves == first.best_moves
        path = critical_path(sim)
        ran, waited = sum(link.ran for link in path), sum(link.waited for link in path)
        assert abs(ran + waited - took) < 1e-6 * max(1.0, took), (ran, waited, took)
        versus = f"{serial / rate / took:9.2f}" if serial else "-"
        work = f"{sim.nodes / serial:5.2f}" if serial else "-"
        print(
            f"  {nodes:>4} {took:>9.3f} {one / took:>8.2f} {one / took / nodes:>5.2f} "
            f"{versus:>9} {found.units:>6} {found.splits:>6} {found.narrowed:>6} {sim.count:>6} "
            f"{work:>5} "
            f"{sim.busy / nodes / took:>5.2f} {sim.cancelled_s / sim.busy:>6.2f} "
            f"{sim.stopped_s / sim.busy:>5.2f} {coordinator:>7.2f} {ran:>7.3f} "
            f"{len(path):>4} {waited:>6.3f} {one / ran:>7.2f} {sim.busy:>7.2f} "
            f"{sim.busy / ran:>9.2f}"
        )


def _path(nodes: int, path: list[Link]) -> None:
    """The critical path of the replay on ``nodes`` nodes, a run a line."""
    ran = sum(link.ran for link in path)
    print(f"  critical path on {nodes} nodes: {len(path)} runs, {ran:.3f} s of runs")
    for link in path:
        low, high = link.window
        window = "full" if low < -99 and high > 99 else f"{low},{high}"
        print(
            f"    {link.position:<16} [{window:>7}] {link.how:<10} ran {link.ran:7.3f} s"
            f"  waited {link.waited:6.3f} s"
        )


def _rate(costs: Costs) -> float:
    """The measured units' nodes per second."""
    nodes = sum(a.nodes for a in costs.answers.values())
    seconds = sum(a.seconds for a in costs.answers.values())
    return nodes / seconds if seconds else 1e7


if __name__ == "__main__":
    main()
