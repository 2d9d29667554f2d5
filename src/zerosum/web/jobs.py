"""Searches run in their own processes, reporting to the server through a pipe.

A search is pure Python and holds the interpreter while it runs, so it never runs on the
server's event loop or in its threads: each job is a child process (started by a fork server
that has the library imported already, so a job starts in milliseconds). The child sends small
dicts as events; the server reads them without blocking (``add_reader`` on the pipe), asks the
child to stop gracefully through an event (the search then reports its last completed
iteration), or kills it outright when the browser tab has gone away.

Events: ``info`` (one per completed iteration: depth, value and its words, principal
variation, nodes, nodes per second; MCTS adds its root moves' visits), ``row`` (one
compare search), ``done`` (the last one, with the move to play, the end of the rows or the
explained tree) and ``error`` (with ``bad_input`` when the request was at fault, e.g. a
tree over its node limit).

Searches are a bounded resource: every job has a time limit (at it the job is asked to stop,
a moment later it is killed), and an app starts jobs only through :class:`Searches`, which
refuses one past its limits in all and per session with a :class:`BusyError` that says when
a slot is expected to be free.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import random
import time
from collections.abc import AsyncIterator, Callable
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from typing import Any, Final

from zerosum.engines import open_engine
from zerosum.engines.mcts import MctsEngine
from zerosum.engines.mcts import compare_row as mcts_row
from zerosum.formatting import describe, result_figures
from zerosum.game import Game, ZerosumError
from zerosum.games import get_game
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

Send = Callable[[dict[str, Any]], None]


def _figures(game: Game[Any], result: SearchResult[Any]) -> dict[str, Any]:
    """The fields of an ``info`` or ``done`` event: the CLI's JSON fields of a search result
    (``zerosum.formatting``), plus ``value_text_first``, the value in words from the first
    player's side (the page's evaluation bar), for a search from ``game``'s position."""
    first = result.value if game.side_to_move() == 0 else -result.value
    return {**result_figures(game, result), "value_text_first": describe(first)}


def think(request: dict[str, Any], send: Send, stop: Callable[[], bool]) -> None:
    """Search the position for the move to play: iterative deepening up to ``depth`` plies
    (0: until solved) within ``time`` seconds. Sends ``info`` after each iteration, then
    ``done``.

    The pure-Python engine proves every best move and picks one at random with ``seed``; the
    compiled engine (``engine="compiled"``, games with a kernel) and the tactical engine
    (``engine="tactical"``, chess's analyzer) play their first best move, MCTS
    (``engine="mcts"``, seeded with ``seed``) its most visited or proven best one; its
    ``info`` and ``done`` events also carry ``visits``: every root move, best first, as
    ``{move, visits, value, proven}`` (simulations through it, mean reward in [-1, 1] for the
    side to move, exact value or null), see :meth:`MctsEngine.root_stats`.
    """
    spec = get_game(request["game"])
    game = build(spec, request["start"], request["moves"])
    depth = request["depth"] or None
    limit = Limit(depth=depth, time=request["time"], stop=stop)
    seed = request["seed"] if request["seed"] is not None else random.randrange(1 << 30)

    with open_engine(
        spec, request["engine"], task="play", all_best=True, seed=seed, hash_mb=16
    ) as engine:

        def figures(result: SearchResult[Any]) -> dict[str, Any]:
            if not isinstance(engine, MctsEngine):
                return _figures(game, result)
            return {**_figures(game, result), "visits": _visits(game, engine)}

        def report(result: SearchResult[Any]) -> None:
            send({"type": "info", **figures(result)})

        last = engine.search(game, limit, on_iteration=report)
        send({"type": "done", **figures(last)})


def _visits(game: Game[Any], engine: MctsEngine) -> list[dict[str, Any]]:
    """The root moves of ``engine``'s search from ``game``'s position, best first."""
    return [
        {
            "move": game.format_move(root.move),
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
            "pv": _pv_names(game, tree.pv),
            "side_to_move": game.side_to_move(),
            "time_s": round(seconds, 6),
            "root": _tree_data(tree.root, game),
        }
    )


def _tree_data(node: TreeNode[Any], game: Game[Any]) -> dict[str, Any]:
    move = None
    if node.move is not None:
        move = game.format_move(node.move)
        game.make(node.move)
    children = [_tree_data(child, game) for child in node.children]
    if node.move is not None:
        game.undo()
    return {
        "move": move,
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


KINDS: Final[dict[str, Callable[[dict[str, Any], Send, Callable[[], bool]], None]]] = {
    "think": think,
    "compare": compare_rows,
    "explain": explain_tree,
}


def _run(kind: str, request: dict[str, Any], conn: Connection, stop: Event) -> None:
    """The child process: run one job, report a failure as an ``error`` event."""
    try:
        KINDS[kind](request, conn.send, stop.is_set)
    except ZerosumError as error:  # the request asked for something the game refuses
        conn.send({"type": "error", "message": str(error), "bad_input": True})
    except Exception as error:  # the server must hear about it; the child ends either way
        conn.send({"type": "error", "message": f"the search failed: {error}"})
    finally:
        conn.close()


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["zerosum.web.jobs"])
        return context
    return multiprocessing.get_context("spawn")


def warm_up() -> None:
    """Start the fork server now (it imports the library once), so no search waits for it."""
    if _context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


class Job:
    """One search in a child process, seen from the server, within ``time_limit`` seconds:
    at the limit the job is asked to stop, ``GRACE`` seconds later it is killed and its
    events end with an ``error``."""

    running: Final[set[Job]] = set()
    """Every job whose process has not been reaped yet (for the health figures and shutdown)."""

    def __init__(
        self, kind: str, request: dict[str, Any], *, time_limit: float, session: str = ""
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown job kind {kind!r}")
        self.session = session
        self.time_limit = time_limit
        self.deadline = time.monotonic() + time_limit
        """When the job is asked to stop (``time.monotonic``)."""
        context = _context()
        self._receive, send = context.Pipe(duplex=False)
        self._stop = context.Event()
        self.process = context.Process(  # type: ignore[attr-defined]
            target=_run, args=(kind, request, send, self._stop), daemon=True
        )
        self.process.start()
        send.close()
        self._reading = False
        Job.running.add(self)

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """The job's events as they come, ending after the final one (or if the child died)."""
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
        self._reading = True
        try:
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), self._wait())
                except TimeoutError:
                    if not self._stop.is_set():
                        self.stop()  # the time limit: a search reports what it has
                        continue
                    self.kill()
                    yield {
                        "type": "error",
                        "message": f"the search passed its time limit of {self.time_limit:g} s",
                    }
                    return
                if event is None:
                    yield {"type": "error", "message": "the search ended without an answer"}
                    return
                yield event
                if event["type"] in FINAL:
                    return
        finally:
            loop.remove_reader(fd)
            self._reading = False
            self.close()

    def _wait(self) -> float:
        """Seconds until the job is asked to stop, or (asked) until it is killed."""
        deadline = self.deadline + (GRACE if self._stop.is_set() else 0.0)
        return max(0.0, deadline - time.monotonic())

    def stop(self) -> None:
        """Ask the search to stop and report what it has (the child then ends by itself)."""
        self._stop.set()

    def kill(self) -> None:
        """End the child now; its answer is no longer wanted."""
        if self.process.is_alive():
            self.process.kill()
        if self._reading:  # the reader sees the pipe's end and closes the job itself
            self.process.join(timeout=1.0)
            Job.running.discard(self)
        else:
            self.close()

    def close(self) -> None:
        """Reap the child (killing it if it has not ended within a second) and forget it."""
        self.process.join(timeout=1.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=1.0)
        self._receive.close()
        Job.running.discard(self)


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
        """The jobs started here whose process has not been reaped."""
        self._jobs &= Job.running
        return list(self._jobs)

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
        job = Job(kind, request, time_limit=time_limit, session=session)
        self._jobs.add(job)
        return job


def _retry_after(jobs: list[Job]) -> int:
    """Whole seconds until the first of ``jobs`` reaches its time limit (1 at least)."""
    soonest = min(job.deadline for job in jobs) - time.monotonic()
    return max(1, math.ceil(soonest))
