"""Searches run in their own processes, reporting to the server through a pipe.

A search is pure Python and holds the interpreter while it runs, so it never runs on the
server's event loop or in its threads: each job is a child process (started by a fork server
that has the library imported already, so a job starts in milliseconds). The child sends small
dicts as events; the server reads them without blocking (``add_reader`` on the pipe), asks the
child to stop gracefully through an event (the search then reports its last completed
iteration), or kills it outright when the browser tab has gone away.

Events: ``info`` (one per completed iteration: depth, value and its words, principal
variation, nodes, nodes per second; MCTS adds its root moves' visits), ``row`` (one compare
search), ``done`` (the last one, with the move to play or the end of the rows) and ``error``.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
from collections.abc import AsyncIterator, Callable
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from typing import Any, Final

from zerosum.engines import open_engine
from zerosum.engines.mcts import MctsEngine
from zerosum.engines.mcts import compare_row as mcts_row
from zerosum.formatting import describe, result_figures
from zerosum.game import Game
from zerosum.games import get_game
from zerosum.search import Limit, SearchResult
from zerosum.search.compare import CompareRow, compare
from zerosum.web.sessions import build

FINAL: Final = ("done", "error")
"""The event types after which a job sends nothing more."""

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


KINDS: Final[dict[str, Callable[[dict[str, Any], Send, Callable[[], bool]], None]]] = {
    "think": think,
    "compare": compare_rows,
}


def _run(kind: str, request: dict[str, Any], conn: Connection, stop: Event) -> None:
    """The child process: run one job, report a failure as an ``error`` event."""
    try:
        KINDS[kind](request, conn.send, stop.is_set)
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
    """One search in a child process, seen from the server."""

    running: Final[set[Job]] = set()
    """Every job whose process has not been reaped yet (for the health figures and shutdown)."""

    def __init__(self, kind: str, request: dict[str, Any]) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown job kind {kind!r}")
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
                event = await queue.get()
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
