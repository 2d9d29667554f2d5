"""Searches run in their own processes, reporting to the server through a pipe.

A search is pure Python and holds the interpreter while it runs, so it never runs on the
server's event loop or in its threads: each job is a child process (started by a fork server
that has the library imported already, so a job starts in milliseconds). The child sends small
dicts as events; the server reads them without blocking (``add_reader`` on the pipe), asks the
child to stop gracefully through an event (the search then reports its last completed
iteration), or kills it outright when the browser tab has gone away.

Events: ``loading`` (a think's engine loads, or on its first use compiles, its search: the
job's clock waits), ``searching`` (the engine is ready: the job's time limit counts from
here), ``info`` (one per completed iteration: depth, value and its words, principal
variation, nodes, nodes per second, the engine's name; MCTS adds its root moves' visits),
``row`` (one compare search), ``done`` (the last one, with the move to play, the end of the
rows or the explained tree) and ``error`` (with ``bad_input`` when the request was at fault,
e.g. a tree over its node limit; with ``retry_after`` when trying again later may succeed:
an engine still loading past :data:`LOAD_TIME`, a search that missed its time limit).

Searches are a bounded resource: every job has a time limit (at it the job is asked to stop,
a moment later it is killed), and an app starts jobs only through :class:`Searches`, which
refuses one past its limits in all and per session with a :class:`BusyError` that says when
a slot is expected to be free. A job *is* its slot: it counts against the limits from
:meth:`Searches.start` until :meth:`Job.end` (idempotent; ``with job:`` calls it on every
path) has killed its child if need be and the child has been reaped. Neither starting nor
reaping blocks the event loop: a job from :meth:`Searches.start` starts its child in a thread
when its events are first read (the fork server's fork took up to 140 ms on a loaded machine),
and a child still alive when its job ends is killed and reaped when its sentinel says it has
gone (a job ended while its child starts has it killed once started).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import os
import random
import time
from collections.abc import AsyncIterator, Callable
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from typing import Any, Final

from zerosum.engines import Engine, open_engine
from zerosum.engines.mcts import MctsEngine
from zerosum.engines.mcts import compare_row as mcts_row
from zerosum.engines.python import PythonEngine
from zerosum.engines.tactical import TacticalEngine
from zerosum.engines.warming import WarmingEngine
from zerosum.formatting import describe, line_labels, move_label, move_labels, result_figures
from zerosum.game import Game, ZerosumError
from zerosum.games import get_game
from zerosum.runtime.workers import worker_imports, worker_init
from zerosum.search import Limit, SearchResult
from zerosum.search.compare import CompareRow, compare
from zerosum.search.explain import TreeNode, explain
from zerosum.web.sessions import build

FINAL: Final = ("done", "error")
"""The event types after which a job sends nothing more."""
GRACE: Final = 2.0
"""Seconds a job asked to stop at its time limit has to answer before it is killed."""
EXPLAIN_TIME: Final = 30.0
"""The time limit of an explained tree (at most 5,000 nodes: well under a second here)."""
PER_SESSION: Final = 2
"""Searches one session may run at once (the page's live search and an explained tree)."""
LOAD_TIME: Final = 600.0
"""Seconds a think's engine may take to load before the job gives up (a cold compile of the
chess search takes one to two minutes on a busy two-core machine)."""
MAX_RETRY: Final = 60
"""The longest ``Retry-After`` a busy server names (seconds)."""
SEARCH_NICE: Final = 5
"""How far a search process lowers its priority (``os.nice``) before anything else: the
server that runs it then gets the CPU first when both want it, so its event loop (the health
check, the page, every other socket) never waits for a core behind its own searches; an idle
server leaves them the whole core. Where Linux groups a session's processes (autogroup) other
programs see no change; elsewhere the searches yield to them too."""
LOAD_RETRY: Final = 30
"""Seconds a client is told to wait before asking again after a search that missed its time
limit or an engine that did not load in time (its compile goes on filling the cache)."""

Send = Callable[[dict[str, Any]], None]

API_NAMES: Final = {"engine": "python"}
"""The engine layer's names that the HTTP API spells otherwise."""


def _figures(game: Game[Any], result: SearchResult[Any]) -> dict[str, Any]:
    """The fields of an ``info`` or ``done`` event: the CLI's JSON fields of a search result
    (``zerosum.formatting``), plus ``value_text_first``, the value in words from the first
    player's side (the page's evaluation bar), and ``pv_labels`` and ``best_labels``, the
    principal variation and the best moves as people read them (SAN in chess), for a search
    from ``game``'s position."""
    first = result.value if game.side_to_move() == 0 else -result.value
    return {
        **result_figures(game, result),
        "value_text_first": describe(first),
        "pv_labels": line_labels(game, result.pv),
        "best_labels": move_labels(game, result.best_moves),
    }


def think(request: dict[str, Any], send: Send, stop: Callable[[], bool]) -> None:
    """Search the position for the move to play: iterative deepening up to ``depth`` (0: until
    solved) within ``time`` seconds, with ``engine`` opened for ``task`` (``play``: the
    computer's move at a level, the engine ``zerosum play`` uses; ``analyze``: a search to a
    depth, the engine ``zerosum analyze`` uses). Sends ``loading`` and ``searching`` around
    the engine's load (its first use may compile it: the time limit counts from
    ``searching``), ``info`` after each iteration, then ``done``; each names the engine.

    The pure-Python engine proves every best move and picks one at random with ``seed``; the
    compiled engine and the tactical engines play their first best move, MCTS (seeded with
    ``seed``; its depth counts iterations, each doubling the simulations) its most visited or
    proven best one; its ``info`` and ``done`` events also carry ``visits``: every root move,
    best first, as ``{move, visits, value, proven}`` (simulations through it, mean reward in
    [-1, 1] for the side to move, exact value or null), see :meth:`MctsEngine.root_stats`.
    """
    spec = get_game(request["game"])
    game = build(spec, request["start"], request["moves"])
    depth = request["depth"] or None
    seed = request["seed"] if request["seed"] is not None else random.randrange(1 << 30)
    task = request.get("task", "analyze")
    send({"type": "loading", "engine": API_NAMES.get(request["engine"], request["engine"])})
    with open_engine(
        spec, request["engine"], task=task, all_best=True, seed=seed, hash_mb=16, instant=True
    ) as engine:
        _load(engine, game)
        send({"type": "searching", "engine": _engine_name(engine)})
        limit = Limit(depth=depth, time=request["time"], stop=stop)

        def figures(result: SearchResult[Any]) -> dict[str, Any]:
            answering = _answering(engine)
            extra: dict[str, Any] = {"engine": _engine_name(engine)}
            if isinstance(answering, MctsEngine):
                extra["visits"] = _visits(game, answering)
            return {**_figures(game, result), **extra}

        def report(result: SearchResult[Any]) -> None:
            send({"type": "info", **figures(result)})

        last = engine.search(game, limit, on_iteration=report)
        send({"type": "done", **figures(last)})


def _answering(engine: Engine) -> Engine:
    """The engine that answers for ``engine`` now: a :class:`WarmingEngine`'s pure-Python twin
    until its compiled engine is loaded, then the compiled one; any other engine itself."""
    return engine.current() if isinstance(engine, WarmingEngine) else engine


def _engine_name(engine: Engine) -> str:
    """The API's name of the engine that answers for ``engine`` now (see :func:`_answering`)."""
    name = _answering(engine).name
    return API_NAMES.get(name, name)


def _load(engine: Engine, game: Game[Any]) -> None:
    """Load ``engine``'s compiled code before any clock runs: its ``warm_up``, then, for an
    engine that compiles on first use, a one-iteration search of a copy of ``game`` whose
    traces are then forgotten (``reset``). Pure-Python engines have nothing to load; a
    :class:`WarmingEngine` (a compiled engine while its code compiles or loads) only starts
    loading, and its pure-Python twin answers under the think's limit meanwhile, handing over
    to the compiled engine once it is loaded (a cold cache costs a think no time, never a
    503)."""
    if isinstance(engine, WarmingEngine):
        engine.start()
        return
    if isinstance(engine, (PythonEngine, TacticalEngine)) or type(engine) is MctsEngine:
        return
    engine.warm_up()
    if game.outcome() is None:
        engine.search(game.copy(), Limit(depth=1))
        engine.reset()


def _visits(game: Game[Any], engine: MctsEngine) -> list[dict[str, Any]]:
    """The root moves of ``engine``'s search from ``game``'s position, best first."""
    return [
        {
            "move": game.format_move(root.move),
            "label": move_label(game, root.move),
            "visits": root.visits,
            "value": round(root.value, 4),
            "proven": root.proven,
        }
        for root in engine.root_stats()
    ]


def compare_rows(request: dict[str, Any], send: Send, stop: Callable[[], bool]) -> None:
    """Every algorithm at every depth from 1 to ``depth``, then MCTS with as many simulations
    as the engine search at the last depth visited nodes: one ``row`` event per search."""
    spec = get_game(request["game"])
    game = build(spec, request["start"], request["moves"])
    complete, budget, depth = True, 0, request["depth"]
    for row in compare(game, range(1, depth + 1), stop=stop):
        complete = row.complete
        if (row.algorithm, row.table, row.best) == ("engine", "table", "one"):
            budget = row.stats.nodes
        send(_row_event(game, row))
    if complete and game.outcome() is None:
        row = mcts_row(game, budget, depth=depth, stop=stop)
        complete = row.complete
        send(_row_event(game, row))
    send({"type": "done", "complete": complete})


def _row_event(game: Game[Any], row: CompareRow[Any]) -> dict[str, Any]:
    return {
        "type": "row",
        "algorithm": row.algorithm,
        "table": row.table,
        "best": row.best,
        "depth": row.depth,
        "value": row.value,
        "best_moves": [game.format_move(move) for move in row.best_moves],
        "best_labels": move_labels(game, row.best_moves),
        "complete": row.complete,
        **row.stats.as_dict(),
    }


def explain_tree(request: dict[str, Any], send: Send, stop: Callable[[], bool]) -> None:
    """The recorded tree of ``algorithm`` to ``depth`` plies (at most ``max_nodes`` nodes), as
    the API answers it: one ``done`` event (``explain`` cannot stop early: the job's time
    limit kills it)."""
    spec = get_game(request["game"])
    game = build(spec, request["start"], request["moves"])
    started = time.perf_counter()
    tree = explain(
        game, request["depth"], algorithm=request["algorithm"], max_nodes=request["max_nodes"]
    )
    seconds = time.perf_counter() - started
    send(
        {
            "type": "done",
            "algorithm": tree.algorithm,
            "depth": tree.depth,
            "value": tree.value,
            "nodes": tree.nodes,
            "cutoffs": tree.cutoffs,
            "pruned": tree.pruned,
            "value_text": describe(tree.value),
            "value_text_first": describe(tree.value if game.side_to_move() == 0 else -tree.value),
            "best_move": None if tree.best_move is None else game.format_move(tree.best_move),
            "best_label": None if tree.best_move is None else move_label(game, tree.best_move),
            "pv": _pv_names(game, tree.pv),
            "pv_labels": line_labels(game, tree.pv),
            "side_to_move": game.side_to_move(),
            "time_s": round(seconds, 6),
            "root": _tree_data(tree.root, game),
        }
    )


def _tree_data(node: TreeNode[Any], game: Game[Any]) -> dict[str, Any]:
    """``node`` and its subtree, each move in the game's notation (``move``) and as people
    read it (``label``: SAN in chess)."""
    move = label = None
    if node.move is not None:
        move = game.format_move(node.move)
        label = move_label(game, node.move)
        game.make(node.move)
    children = [_tree_data(child, game) for child in node.children]
    if node.move is not None:
        game.undo()
    return {
        "move": move,
        "label": label,
        "max": node.maximizing,
        "kind": node.kind.value,
        "value": node.value,
        "bound": node.bound.value,
        "alpha": node.alpha,
        "beta": node.beta,
        "cutoff": node.cutoff,
        "chosen": node.chosen,
        "children": children,
    }


def _pv_names(game: Game[Any], pv: tuple[Any, ...]) -> list[str]:
    names = []
    for move in pv:
        names.append(game.format_move(move))
        game.make(move)
    for _ in pv:
        game.undo()
    return names


def ping(request: dict[str, Any], send: Send, stop: Callable[[], bool]) -> None:
    """Answer at once: the job that :func:`warm_up` runs."""
    send({"type": "done"})


KINDS: Final[dict[str, Callable[[dict[str, Any], Send, Callable[[], bool]], None]]] = {
    "ping": ping,
    "think": think,
    "compare": compare_rows,
    "explain": explain_tree,
}


def _run(
    kind: str, request: dict[str, Any], conn: Connection, stop: Event, imports: tuple[str, ...]
) -> None:
    """The child process: import the modules that registered games in the server (``imports``,
    the server's :data:`~zerosum.runtime.WORKER_IMPORTS`: a game a program registered at run
    time), run one job, report a failure as an ``error`` event. It first lowers its priority
    by :data:`SEARCH_NICE`."""
    try:
        with contextlib.suppress(OSError, AttributeError):  # no os.nice: not POSIX
            os.nice(SEARCH_NICE)
        worker_init(imports, signals=False)
        KINDS[kind](request, conn.send, stop.is_set)
    except ZerosumError as error:  # the request asked for something the game refuses
        conn.send({"type": "error", "message": str(error), "bad_input": True})
    except Exception as error:  # the server must hear about it; the child ends either way
        conn.send({"type": "error", "message": f"the search failed: {error}"})
    finally:
        conn.close()


PRELOAD: Final = ["zerosum.web.jobs", "zerosum.engines.compiled", "zerosum.engines.mcts_compiled"]
"""What the fork server imports once for every job: the library, and numba with the compiled
engines' modules (about a second a think otherwise: each job is a new process). The compiled
functions themselves load in each job (from numba's cache, or compiled on first use)."""


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def warm_up() -> None:
    """Start the fork server now and run one job through it (it imports the library once),
    so that no search, and no event loop starting one, waits for that. Blocks: run it in a
    thread."""
    if _context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()
    with Job("ping", {}, time_limit=GRACE) as job:
        job.process.join(timeout=60.0)


class Job:
    """One search in a child process, seen from the server: its slot among the app's searches
    (see the header), from its start until :meth:`end`. At ``time_limit`` seconds after the
    child said ``searching`` (or after the start, for jobs that load nothing) the job is asked
    to stop, ``GRACE`` seconds later it is killed and its events end with an ``error``; a
    child that says ``loading`` has :data:`LOAD_TIME` seconds to load first.

    Use it as a context manager (``with job:``) around everything that follows its start, so
    that every path, a client gone in the middle of a send included, ends it."""

    running: Final[set[Job]] = set()
    """Every job whose process has not been reaped yet (for the health figures and shutdown)."""

    def __init__(
        self,
        kind: str,
        request: dict[str, Any],
        *,
        time_limit: float,
        session: str = "",
        started: bool = True,
    ) -> None:
        """A job of ``kind``; its child starts now (``started``), or in a thread when its
        events are first read (:meth:`events`), never blocking an event loop meanwhile."""
        if kind not in KINDS:
            raise ValueError(f"unknown job kind {kind!r}")
        self.session = session
        self.time_limit = time_limit
        self.deadline = time.monotonic() + time_limit
        """When the job is asked to stop (``time.monotonic``)."""
        self.engine: str | None = None
        """The engine the child searches with, once it has said (``searching``)."""
        self._loading = kind == "think"
        """Whether the child is loading its engine: a think's clock starts when it says
        ``searching`` (a busy machine may take a while even to start the child)."""
        if self._loading:
            self.deadline = time.monotonic() + LOAD_TIME
        self._ended = False
        self._started = False
        """Whether the child has been started (its start returned)."""
        self._starting: asyncio.Future[None] | None = None
        """The start in a thread (:meth:`_launch`), once begun."""
        self._reader: tuple[asyncio.AbstractEventLoop, int, asyncio.Queue[Any]] | None = None
        context = _context()
        self._receive, self._send = context.Pipe(duplex=False)
        self._stop = context.Event()
        self.asked_to_stop = False
        """Whether :meth:`stop` has run (the time limit, or the client's stop): read here
        rather than the shared event, whose lock the child takes each time it looks at it (a
        busy machine may pause the child holding it, and the event loop would wait)."""
        self.process = context.Process(  # type: ignore[attr-defined]
            target=_run,
            args=(kind, request, self._send, self._stop, worker_imports()),
            daemon=True,
        )
        Job.running.add(self)  # before the start: a start that fails still ends in end()
        if started:
            self._start()

    def _start(self) -> None:
        """Start the child: as long as the fork server takes to fork (milliseconds idle; on a
        loaded machine up to 140 ms were seen, hence :meth:`_launch` on an event loop)."""
        try:
            self.process.start()
            self._started = True
        except BaseException:
            self._receive.close()
            Job.running.discard(self)
            raise
        finally:
            self._send.close()

    async def _launch(self) -> None:
        """Start the child in a thread while the event loop serves everyone else. A cancel
        meanwhile lets the start finish, and :meth:`end` (which the cancelled path runs)
        takes effect once it has."""
        if self._started or self._starting is not None or self._ended:
            return
        self._starting = asyncio.get_running_loop().run_in_executor(None, self._start)
        await asyncio.shield(self._starting)

    def __enter__(self) -> Job:
        return self

    def __exit__(self, *exc: object) -> None:
        self.end()

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """The job's events as they come, ending after the final one (or if the child died:
        an ``error``); the job has ended when they end. Once :meth:`end` has run (its owner
        no longer wants the answer: a replaced search, a client gone) they end with nothing
        more, not even an event already read."""
        try:
            await self._launch()
        except Exception as error:  # the machine could not start a process (EAGAIN, ...)
            yield {
                "type": "error",
                "message": f"the search could not start ({error}): expected a retry",
                "retry_after": LOAD_RETRY,
            }
            return
        if self._ended:
            return
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        fd = self._receive.fileno()

        def readable() -> None:
            try:
                while self._receive.poll():
                    queue.put_nowait(self._receive.recv())
            except (EOFError, OSError):
                loop.remove_reader(fd)
                queue.put_nowait(None)

        loop.add_reader(fd, readable)
        self._reader = (loop, fd, queue)
        try:
            while True:
                try:
                    # Not asyncio.wait_for: on Python 3.11 it swallows a cancel that comes as
                    # its inner get() completes, and the cancelled task (a search the socket
                    # replaced) would go on reading an ended job.
                    async with asyncio.timeout(self._wait()):
                        event = await queue.get()
                except TimeoutError:
                    if self._loading:
                        yield {
                            "type": "error",
                            "message": f"the engine did not load within {LOAD_TIME:g} s (its "
                            "first use compiles it): expected a retry once it has",
                            "retry_after": LOAD_RETRY,
                        }
                        return
                    if not self.asked_to_stop:
                        self.stop()  # the time limit: a search reports what it has
                        continue
                    yield {
                        "type": "error",
                        "message": f"the search did not answer within its time limit of "
                        f"{self.time_limit:g} s (the machine may be busy): expected a retry",
                        "retry_after": LOAD_RETRY,
                    }
                    return
                if self._ended:  # ended by its owner: nobody wants its events any more
                    return
                if event is None:
                    yield {"type": "error", "message": "the search ended without an answer"}
                    return
                if event["type"] == "loading":
                    self._loading = True
                    self.deadline = time.monotonic() + LOAD_TIME
                elif event["type"] == "searching":
                    self._loading = False
                    self.engine = event.get("engine")
                    self.deadline = time.monotonic() + self.time_limit
                yield event
                if event["type"] in FINAL:
                    return
        finally:
            self._unread()
            self.end()

    def _unread(self) -> None:
        """Stop reading the pipe and wake :meth:`events`, which then ends."""
        if self._reader is not None:
            loop, fd, queue = self._reader
            self._reader = None
            loop.remove_reader(fd)
            queue.put_nowait(None)

    def _wait(self) -> float:
        """Seconds until the job is asked to stop, or (asked) until it is killed."""
        deadline = self.deadline + (GRACE if self.asked_to_stop else 0.0)
        return max(0.0, deadline - time.monotonic())

    def stop(self) -> None:
        """Ask the search to stop and report what it has (the child then ends by itself).
        Nothing once the job has ended: its child may have been killed holding the event's
        lock, and setting the event would then wait for ever."""
        if self._ended:
            return
        self.asked_to_stop = True
        self._stop.set()

    def kill(self) -> None:
        """End the job now: its answer is no longer wanted (same as :meth:`end`)."""
        self.end()

    def end(self) -> None:
        """Free the job's slot: kill the child if it still runs and reap it, at once if it has
        gone, else (on an event loop) when its sentinel says so, never blocking the loop.
        Idempotent; every path that starts a job ends here."""
        if self._ended:
            return
        self._ended = True
        starting = self._starting
        if starting is not None and not starting.done():
            starting.add_done_callback(self._release_once_started)
            return
        self._release()

    def _release_once_started(self, start: asyncio.Future[None]) -> None:
        if not start.cancelled():
            start.exception()  # a failed start: retrieved here, the path that awaited it raised
        self._release()

    def _release(self) -> None:
        """What :meth:`end` does once no start is under way."""
        self._unread()
        self._receive.close()
        if not self._started:  # never started, or its start failed: no child to reap
            self._send.close()
            Job.running.discard(self)
            return
        if self.process.is_alive():
            self.process.kill()
        self._reap()

    def _reap(self) -> None:
        process = self.process
        if process.exitcode is not None:  # is_alive() above polled it: reaped
            Job.running.discard(self)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (tests, shutdown): a killed child dies at once
            process.join(timeout=5.0)
            Job.running.discard(self)
            return
        sentinel = process.sentinel

        def gone() -> None:
            if process.is_alive():  # polls the exit code the sentinel brings
                return
            loop.remove_reader(sentinel)
            Job.running.discard(self)

        loop.add_reader(sentinel, gone)

    @classmethod
    def reap(cls) -> None:
        """Forget every ended job whose child has gone (a poll, never a wait): the sentinel's
        reader does it as soon as the child goes on a running event loop, this wherever no
        loop runs any more (a loop closed with readers on it)."""
        for job in list(cls.running):
            if job._ended and not job.process.is_alive():
                cls.running.discard(job)

    @property
    def ended(self) -> bool:
        """Whether :meth:`end` has run (the slot may still wait for the child's exit)."""
        return self._ended

    def close(self) -> None:
        """Kept for callers of the earlier interface: :meth:`end`."""
        self.end()


class BusyError(ZerosumError):
    """No search may start now; ``retry_after``: seconds until a slot is expected to be free."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Searches:
    """The searches of one app: at most ``limit`` at once (default: the number of CPUs) and
    ``per_session`` for one session. Past either, :meth:`start` refuses rather than queues:
    the client hears at once when to try again."""

    def __init__(self, limit: int | None = None, per_session: int = PER_SESSION) -> None:
        if (limit is not None and limit < 1) or per_session < 1:
            raise ValueError("search limits must be 1 or more")
        self.limit = limit if limit is not None else os.cpu_count() or 1
        self.per_session = per_session
        self._jobs: set[Job] = set()

    def running(self) -> list[Job]:
        """The jobs started here that hold a slot: not ended yet (an ended job's child, killed,
        may take a moment more to be reaped; it searches no more)."""
        Job.reap()
        self._jobs &= Job.running
        return [job for job in self._jobs if not job.ended]

    def start(self, kind: str, request: dict[str, Any], *, session: str, time_limit: float) -> Job:
        """A new job for ``session``; raises :class:`BusyError` past a limit."""
        running = self.running()
        mine = [job for job in running if job.session == session]
        if len(running) >= self.limit:
            raise BusyError(
                f"the server is busy: {len(running)} searches are running, its limit "
                "(zerosum serve --max-searches): expected a retry when one ends",
                _retry_after(running),
            )
        if len(mine) >= self.per_session:
            raise BusyError(
                f"this session runs {len(mine)} searches already, its limit: expected a "
                "retry when one ends (or a stop)",
                _retry_after(mine),
            )
        # started by its first read of events: in a thread, so that a burst of starts (a
        # flood on a socket) never holds up the event loop
        job = Job(kind, request, time_limit=time_limit, session=session, started=False)
        self._jobs.add(job)
        return job


def _retry_after(jobs: list[Job]) -> int:
    """Whole seconds until the first of ``jobs`` reaches its time limit (1 at least; at most
    ``MAX_RETRY``: a job still loading its engine has no time limit yet)."""
    soonest = min(job.deadline for job in jobs) - time.monotonic()
    return min(MAX_RETRY, max(1, math.ceil(soonest)))
