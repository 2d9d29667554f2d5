"""The web app: an HTTP API over the sessions, a websocket for live searches, the static page.

Every route checks its input (pydantic for shapes, the game for moves and positions) and
answers bad input with a 4xx and a ``detail`` message naming what was wrong (never echoing a
large input back); the schema is at ``/openapi.json``. Searches run in child processes
(``jobs``), so the server stays responsive while they think: at most ``max_searches`` at once
(429 with ``Retry-After`` past it), each within a time limit, each ended when its client
leaves (an HTTP client that disconnects, a websocket that closes). ``guard`` checks every
request first: the ``Host``, the ``Origin``, the body's size; ``sessions`` bounds the memory
sessions take.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from importlib import resources
from typing import Annotated, Any, Final, Literal

from fastapi import FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from zerosum import __version__
from zerosum.engines import COMPILED, MCTS, Task, choose_engine, engine_names
from zerosum.engines.mcts import FIRST_ITERATION
from zerosum.game import Game, ZerosumError
from zerosum.games import GAMES, GameSpec, UnknownGameError, get_game
from zerosum.search.explain import MAX_TREE_NODES
from zerosum.web.assets import Assets
from zerosum.web.assets import load as load_assets
from zerosum.web.guard import MAX_BODY, POLICY_VIOLATION, Budget, Guard, Verdict
from zerosum.web.jobs import (
    API_NAMES,
    EXPLAIN_TIME,
    FINAL,
    PER_SESSION,
    BusyError,
    Job,
    Searches,
    warm_up,
)
from zerosum.web.sessions import MAX_MOVES, Session, Sessions, UnknownSessionError

STATIC = resources.files("zerosum.web") / "static"

MAX_DEPTH = 64
"""The deepest search a request may ask for (plies)."""
MAX_TIME = 120.0
"""The longest search a request may ask for (seconds)."""
DEFAULT_TIME = 5.0
"""How long the computer thinks per move unless told otherwise (seconds)."""
COMPARE_TIME = 60.0
"""How long a comparison runs at most unless told otherwise (seconds)."""
MAX_COMPARE_DEPTH = 12
MAX_EXPLAIN_DEPTH = 8
MAX_GAME_NAME = 200
"""The longest game name a request may give (characters): room for a game's options, such as
``openspiel:oware(num_houses_per_player=3,num_seeds_per_house=2)``."""
MAX_DETAIL = 500
"""The longest error message sent back (characters): a long input is not echoed whole."""

Moves = Annotated[
    list[Annotated[str, Field(max_length=200)]],
    Field(max_length=MAX_MOVES, description="moves in the game's notation, from the position"),
]


class NewSession(BaseModel):
    game: str = Field(
        max_length=MAX_GAME_NAME,
        description="a registered game's name, see GET /api/games, or one with its options",
    )
    position: str | None = Field(
        None, max_length=10_000, description="a start position in the game's format"
    )
    moves: Moves = []


class PlayMove(BaseModel):
    move: str = Field(max_length=200, description="a legal move in the game's notation")


class Undo(BaseModel):
    count: int = Field(1, ge=1, le=10_000, description="how many moves to take back")


class Load(BaseModel):
    position: str | None = Field(
        None, max_length=10_000, description="a position in the game's format (none: the start)"
    )
    moves: Moves = []


class Think(BaseModel):
    """How the computer searches: a level of the game, or a depth; always within a time."""

    level: int | None = Field(
        None,
        ge=1,
        le=20,
        description="the game's strength level, 1 = weakest, as zerosum play plays it (see "
        "GET /api/games: a depth, or simulations for a game MCTS plays)",
    )
    depth: int | None = Field(
        None, ge=0, le=MAX_DEPTH, description="plies; 0 searches until solved (overrides level)"
    )
    time: float = Field(
        DEFAULT_TIME, gt=0, le=MAX_TIME, allow_inf_nan=False, description="seconds to think at most"
    )
    seed: int | None = Field(None, description="picks among equally good moves; none: at random")
    engine: Literal["default", "python", "compiled", "tactical", "compiled-tactical", "mcts"] = (
        Field(
            "default",
            description="the pure-Python engine, the compiled one (games with a kernel), the "
            "tactical one (captures and checks: chess) or its compiled twin (chess), Monte Carlo "
            "tree search with a solver (its depth counts iterations, each doubling the "
            "simulations), or the command line's choice: at a level the game's player (as "
            "zerosum play), to a depth its analyzer (as zerosum analyze)",
        )
    )
    play: bool = Field(False, description="play the move found in the session")


class ThinkMessage(Think):
    action: Literal["think"]


class CompareMessage(BaseModel):
    action: Literal["compare"]
    depth: int = Field(ge=1, le=MAX_COMPARE_DEPTH)
    time: float = Field(COMPARE_TIME, gt=0, le=MAX_TIME, allow_inf_nan=False)


class StopMessage(BaseModel):
    action: Literal["stop"]


Message = Annotated[ThinkMessage | CompareMessage | StopMessage, Field(discriminator="action")]
MESSAGE = TypeAdapter(Message)


def _variants() -> list[GameSpec]:
    """Every registered game and each of its named variants."""
    return [
        variant
        for spec in GAMES.values()
        for variant in (spec, *(get_game(name) for name in spec.variants))
    ]


def _levels(spec: GameSpec) -> list[dict[str, Any]]:
    """The game's strength levels as its player (the engine ``zerosum play`` uses) reads them:
    a search depth for the tree searches, a simulation budget for MCTS (whose depth counts
    iterations, iteration ``d`` ending after ``FIRST_ITERATION * 2**(d-1)`` simulations); 0
    is the perfect player (MCTS: until proven, within the think time)."""
    engine = _API_NAMES.get(spec.play_engine, spec.play_engine)
    levels = []
    for index, depth in enumerate(spec.levels, start=1):
        level: dict[str, Any] = {"level": index, "engine": engine}
        if spec.play_engine == MCTS:
            simulations = FIRST_ITERATION * 2 ** (depth - 1) if depth else None
            level["simulations"] = simulations
            level["label"] = "until proven" if depth == 0 else f"{simulations:,} simulations"
        else:
            level["depth"] = depth
            level["label"] = "perfect" if depth == 0 else f"depth {depth}"
        levels.append(level)
    return levels


def _game_info(spec: GameSpec) -> dict[str, Any]:
    analyzer = choose_engine(spec)
    return {
        "name": spec.name,
        "title": spec.title,
        "sides": list(spec.sides),
        "levels": _levels(spec),
        "default_level": spec.default_level or len(spec.levels),
        "position_format": spec.position_format,
        "compiled": COMPILED in engine_names(spec),
        "analyzer": _API_NAMES.get(analyzer, analyzer),
        "player": _API_NAMES.get(spec.play_engine, spec.play_engine),
        "board": spec.board,
        "explain_depth": _explain_depth(spec.name, spec.new().position()),
    }


@functools.lru_cache(maxsize=256)  # bounded: a client may name any game with its options
def _explain_depth(name: str, start: str) -> int:
    """The deepest explain depth (at most ``MAX_EXPLAIN_DEPTH``) whose whole minimax tree from
    the start position ``start`` of the game ``name`` has at most ``MAX_TREE_NODES`` nodes: the
    depth up to which the page offers trees (alpha-beta's tree is never larger; other positions
    may have more moves). Counted once per game and start by making and taking back moves (a
    few hundredths of a second for the built-in games); keyed by name, as variants are specs
    made afresh on each lookup."""
    game = get_game(name).new()
    deepest = 1
    for depth in range(2, MAX_EXPLAIN_DEPTH + 1):
        if 1 + _tree_size(game, depth, MAX_TREE_NODES) > MAX_TREE_NODES:
            break
        deepest = depth
    return deepest


def _tree_size(game: Game[Any], depth: int, budget: int) -> int:
    """The positions of the full tree below ``game``'s (which is not counted) down to ``depth``
    plies, counting stopped once past ``budget``."""
    if depth == 0 or game.outcome() is not None:
        return 0
    total = 0
    for move in game.legal_moves():
        total += 1
        if total <= budget:
            game.make(move)
            total += _tree_size(game, depth - 1, budget - total)
            game.undo()
        if total > budget:
            break
    return total


def _warm_explain_depths() -> None:
    """Count every registered game's explain depth now (at startup), so that no request for
    the games waits for it."""
    for variant in _variants():
        _explain_depth(variant.name, variant.new().position())


def _task(think: Think) -> Task:
    """What a think is, as the command line names it: at a level it is the computer's move
    (or a hint), as ``zerosum play`` searches; to a depth it is an analysis, as ``zerosum
    analyze`` searches."""
    return "analyze" if think.depth is not None else "play"


def _engine(spec: GameSpec, engine: str, task: Task) -> str:
    """The engine layer's name of the engine a search runs, from the API's: ``default`` is the
    engine the command line uses for ``task`` (``play``: the game's player, the compiled engine
    where there is one; ``analyze``: its analyzer, compiled-tactical for chess), ``python``
    the pure-Python engine; one the game lacks is refused."""
    chosen = None if engine == "default" else _FROM_API.get(engine, engine)
    return choose_engine(spec, chosen, task=task)


_API_NAMES: Final = API_NAMES
_FROM_API: Final = {api: name for name, api in _API_NAMES.items()}


def _depth(spec: GameSpec, think: Think) -> int:
    if think.depth is not None:
        return think.depth
    level = think.level if think.level is not None else spec.default_level or len(spec.levels)
    if not 1 <= level <= len(spec.levels):
        raise ZerosumError(
            f"level {level} is out of range for {spec.name}: expected 1..{len(spec.levels)}"
        )
    return spec.levels[level - 1]


def _request(session: Session, **extra: Any) -> dict[str, Any]:
    return {
        "game": session.spec.name,
        "start": session.start,
        "moves": list(session.moves),
        **extra,
    }


def _think_request(session: Session, think: Think) -> dict[str, Any]:
    depth = _depth(session.spec, think)
    task = _task(think)
    engine = _engine(session.spec, think.engine, task)
    return _request(
        session, depth=depth, time=think.time, seed=think.seed, engine=engine, task=task
    )


def _apply(session: Session, think: Think, done: dict[str, Any], snapshot: list[str]) -> None:
    """Play the move a search found, if the session is still where the search started and
    may hold one more move (else ``played`` is false and ``message`` says why)."""
    if not think.play or done.get("best_move") is None:
        return
    with session.lock:
        if session.moves == snapshot:
            try:
                session.play(done["best_move"])
            except ZerosumError as error:
                done["played"], done["message"] = False, str(error)
                return
            done["played"] = True


def _short(text: str) -> str:
    """``text``, its middle cut out past ``MAX_DETAIL`` characters."""
    if len(text) <= MAX_DETAIL:
        return text
    return f"{text[: MAX_DETAIL - 150]} ... ({len(text):,} characters) ... {text[-100:]}"


async def _collect(request: Request, job: Job) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The job's ``info`` events and its final one; the job ends on every path (it is killed
    if the client leaves)."""

    async def watch() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass
        job.kill()

    infos: list[dict[str, Any]] = []
    done: dict[str, Any] = {}
    with job:
        watcher = asyncio.create_task(watch())
        try:
            async for event in job.events():
                if event["type"] == "info":
                    infos.append(event)
                elif event["type"] in FINAL:
                    done = event
        finally:
            watcher.cancel()
    if done.get("type") == "error" and done.get("bad_input"):
        raise ZerosumError(done["message"])
    return infos, done


def create_app(
    *,
    hosts: Iterable[str] | None = None,
    max_searches: int | None = None,
    session_searches: int = PER_SESSION,
    max_body: int = MAX_BODY,
    clock: Callable[[], float] = time.monotonic,
) -> FastAPI:
    """The app with a fresh, empty session store.

    ``hosts``: the names it answers to in ``Host`` (``None``: any; ``serve`` gives the
    loopback names and the address it listens on); ``max_searches``: searches at once
    (default: the number of CPUs), ``session_searches`` of them for one session;
    ``max_body``: the largest request body (bytes); ``clock``: the websockets' budgets' clock
    (seconds; tests freeze it).
    """
    sessions = Sessions()
    searches = Searches(max_searches, session_searches)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(warm_up)  # the first search then starts at once
        # Every game's explain depth, before the first request: counting it must not fall on a
        # request and stall the event loop.
        await asyncio.to_thread(_warm_explain_depths)
        yield
        for job in list(Job.running):
            job.kill()

    app = FastAPI(
        title="zerosum",
        version=__version__,
        description="Play every registered game against the search and watch it think.",
        lifespan=lifespan,
        docs_url=None,  # Swagger UI and ReDoc load scripts from other sites: /openapi.json only
        redoc_url=None,
    )
    app.add_middleware(Guard, hosts=hosts, max_body=max_body)

    @app.exception_handler(ZerosumError)
    async def bad_input(request: Request, error: ZerosumError) -> JSONResponse:
        if isinstance(error, BusyError):
            return JSONResponse(
                {"detail": str(error), "retry_after": error.retry_after},
                status_code=429,
                headers={"Retry-After": str(error.retry_after)},
            )
        status = 404 if isinstance(error, (UnknownSessionError, UnknownGameError)) else 422
        return JSONResponse({"detail": _short(str(error))}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def bad_shape(request: Request, error: RequestValidationError) -> JSONResponse:
        # FastAPI's own answer echoes each bad input whole (and fails on a NaN): not here
        detail = [
            {"type": e["type"], "loc": list(e["loc"]), "msg": _short(str(e["msg"]))}
            for e in error.errors()[:20]
        ]
        return JSONResponse({"detail": detail}, status_code=422)

    # -- games and sessions ------------------------------------------------------------

    @app.get(
        "/api/games",
        summary="The registered games and their named variants, sides and strength levels",
    )
    def games(
        name: str | None = Query(
            None,
            max_length=MAX_GAME_NAME,
            description="only this game, listed or not: any name the registry reads, such as "
            "a game's options (openspiel:clobber(rows=5,columns=5))",
        ),
    ) -> dict[str, Any]:
        if name is not None:
            return {"games": [_game_info(get_game(name))]}
        return {"games": [_game_info(spec) for spec in _variants()]}

    @app.get("/api/health", summary="Live sessions and running searches, and their limits")
    async def health() -> dict[str, Any]:
        return {
            "sessions": len(sessions),
            "searches": len(searches.running()),
            "max_searches": searches.limit,
            "max_sessions": sessions.max_sessions,
        }

    @app.post("/api/sessions", status_code=201, summary="Start a game (optionally from a position)")
    def new_session(body: NewSession) -> dict[str, Any]:
        return sessions.create(body.game, body.position, body.moves).state()

    @app.get("/api/sessions/{session_id}", summary="The position: board, moves, legal moves")
    def get_session(session_id: str) -> dict[str, Any]:
        session = sessions.get(session_id)
        with session.lock:
            return session.state()

    @app.post("/api/sessions/{session_id}/moves", summary="Play a move")
    def play(session_id: str, body: PlayMove) -> dict[str, Any]:
        session = sessions.get(session_id)
        with session.lock:
            session.play(body.move)
            return session.state()

    @app.post("/api/sessions/{session_id}/undo", summary="Take back moves")
    def undo(session_id: str, body: Undo) -> dict[str, Any]:
        session = sessions.get(session_id)
        with session.lock:
            session.undo(body.count)
            return session.state()

    @app.post("/api/sessions/{session_id}/load", summary="Load a position and/or moves")
    def load(session_id: str, body: Load) -> dict[str, Any]:
        session = sessions.get(session_id)
        with session.lock:
            session.load(body.position, body.moves)
            return session.state()

    # -- searches ------------------------------------------------------------------------

    @app.post("/api/sessions/{session_id}/think", summary="The computer's move (no streaming)")
    async def think(session_id: str, body: Think, request: Request) -> dict[str, Any]:
        session = sessions.get(session_id)
        with session.lock:
            if session.game.outcome() is not None:
                raise ZerosumError("the game is over: expected a position with moves to play")
            snapshot = list(session.moves)
            job = searches.start(
                "think",
                _think_request(session, body),
                session=session.id,
                time_limit=body.time + 1.0,
            )
        infos, done = await _collect(request, job)
        if done.get("type") == "error":
            return _failed(done)  # type: ignore[return-value]
        _apply(session, body, done, snapshot)
        with session.lock:
            return {"result": done, "iterations": infos, "state": session.state()}

    @app.get("/api/sessions/{session_id}/explain", summary="The search tree of a small search")
    async def explain_tree(
        session_id: str,
        request: Request,
        depth: Annotated[int, Query(ge=1, le=MAX_EXPLAIN_DEPTH)] = 2,
        algorithm: Annotated[Literal["alphabeta", "minimax"], Query()] = "alphabeta",
        max_nodes: Annotated[int, Query(ge=1, le=MAX_TREE_NODES)] = MAX_TREE_NODES,
    ) -> dict[str, Any]:
        session = sessions.get(session_id)
        with session.lock:
            if session.game.outcome() is not None:
                raise ZerosumError("the game is over: expected a position with moves to search")
            explained = _request(session, depth=depth, algorithm=algorithm, max_nodes=max_nodes)
            job = searches.start("explain", explained, session=session.id, time_limit=EXPLAIN_TIME)
        _, done = await _collect(request, job)
        if done.get("type") != "done":
            return _failed(done)  # type: ignore[return-value]
        return {key: value for key, value in done.items() if key != "type"}

    @app.websocket("/api/sessions/{session_id}/live")
    async def live(socket: WebSocket, session_id: str) -> None:
        # Only pages served by this app get here (``Guard`` checks the Origin).
        await socket.accept()
        try:
            session = sessions.get(session_id)
        except UnknownSessionError as error:
            await socket.send_json({"type": "error", "message": str(error)})
            await socket.close(code=4404)
            return
        budget = Budget(clock)
        current: tuple[Job, asyncio.Task[None]] | None = None

        def cancel() -> None:
            nonlocal current
            if current is not None:
                job, task = current
                current = None
                task.cancel()
                job.end()  # frees the slot even if the task never ran

        async def forward(job: Job, action: str, think: Think | None, snapshot: list[str]) -> None:
            """Everything after a job's start, under ``with job``: its slot is freed however
            this ends (the events' end, a send to a client that has gone, a cancel)."""
            with job:
                try:
                    await socket.send_json({"type": "started", "action": action})
                    # One turn of the loop before the process starts: a newer search the
                    # socket has already received replaces this one first (a burst of
                    # thinks, a flood) and no process is started for it.
                    await asyncio.sleep(0)
                    async for event in job.events():
                        if event["type"] == "done" and think is not None:
                            _apply(session, think, event, snapshot)
                            with session.lock:
                                event["state"] = session.state()
                        await socket.send_json(event)
                except (WebSocketDisconnect, RuntimeError, OSError):  # the tab went away
                    pass

        async def refuse(text: str, **extra: Any) -> None:
            await socket.send_json({"type": "error", "message": text, **extra})

        try:
            while True:
                received = await socket.receive()
                if received["type"] == "websocket.disconnect":
                    break
                # A receive from a full queue returns without giving the loop a turn: without
                # this, a socket's burst of queued messages (a flood) is handled in one go and
                # every other connection, the health check included, waits for all of it.
                await asyncio.sleep(0)
                verdict = budget.take()
                if verdict is Verdict.CLOSE:
                    await socket.close(code=POLICY_VIOLATION, reason=budget.reason())
                    break
                if verdict is Verdict.REFUSE:
                    await refuse(budget.reason(), retry_after=1)
                    continue
                text = received.get("text")
                if text is None:  # a binary frame: this socket speaks JSON text
                    await refuse("bad message: a binary frame; expected a JSON text message")
                    continue
                try:
                    if len(text) > max_body:
                        raise ValueError(f"{len(text):,} characters, over {max_body:,}")
                    message = MESSAGE.validate_python(json.loads(text))
                except (ValueError, ValidationError) as error:
                    await refuse(_message_error(error))
                    continue
                if isinstance(message, StopMessage):
                    if current is not None:
                        current[0].stop()
                    continue
                if not budget.take_search():
                    await refuse(budget.search_reason(), retry_after=1)
                    continue
                cancel()
                try:
                    job, think, snapshot = start_live(session, message)
                except ZerosumError as error:
                    extra = (
                        {"retry_after": error.retry_after} if isinstance(error, BusyError) else {}
                    )
                    await refuse(_short(str(error)), **extra)
                    continue
                # No await between the start and this line: the job is owned from here on.
                task = asyncio.create_task(forward(job, message.action, think, snapshot))
                current = (job, task)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass
        finally:
            cancel()

    def start_live(
        session: Session, message: ThinkMessage | CompareMessage
    ) -> tuple[Job, Think | None, list[str]]:
        """The job a live message asks for, started (raises a :class:`ZerosumError` if it may
        not start), the think it runs (``None``: a comparison) and the session's moves when it
        started."""
        with session.lock:
            snapshot = list(session.moves)
            if isinstance(message, ThinkMessage):
                if session.game.outcome() is not None:
                    raise ZerosumError("the game is over: expected a position with moves to play")
                job = searches.start(
                    "think",
                    _think_request(session, message),
                    session=session.id,
                    time_limit=message.time + 1.0,
                )
                think: Think | None = message
            else:
                job = searches.start(
                    "compare",
                    _request(session, depth=message.depth),
                    session=session.id,
                    time_limit=message.time,
                )
                think = None
            return job, think, snapshot

    # -- the page ------------------------------------------------------------------------

    # From memory, in coroutines: no thread hand-over a loaded machine would delay (assets).
    page = load_assets(STATIC)

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        asset = page["index.html"]
        headers = {"etag": asset.etag, "cache-control": "no-cache"}
        return Response(asset.body, media_type=asset.media_type, headers=headers)

    app.mount("/static", Assets(page), name="static")
    return app


def _failed(event: dict[str, Any]) -> JSONResponse:
    """The HTTP answer to a job that ended in an ``error`` event: 503 with ``Retry-After``
    when trying again later may work (an engine still compiling, a search late on a busy
    machine), else 500 (the search itself failed)."""
    retry = event.get("retry_after")
    if retry is not None:
        return JSONResponse(
            {**event, "detail": event.get("message", "")},
            status_code=503,
            headers={"Retry-After": str(retry)},
        )
    return JSONResponse(event, status_code=500)


def _message_error(error: Exception) -> str:
    if isinstance(error, ValidationError):
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'message'}: {e['msg']}"
            for e in error.errors()[:20]
        )
        return f"bad message: {problems}"
    return f"bad message: expected a JSON object ({error})"
