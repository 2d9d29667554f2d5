"""The web app: an HTTP API over the sessions, a websocket for live searches, the static page.

Every route checks its input (pydantic for shapes, the game for moves and positions) and
answers bad input with a 4xx and a ``detail`` message naming what was wrong; the schema is at
``/openapi.json`` and browsable at ``/docs``. Searches run in child processes (``jobs``), so the
server stays responsive while they think; a websocket's searches die with it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict
from importlib import resources
from typing import Annotated, Any, Final, Literal
from urllib.parse import urlsplit

from fastapi import FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from zerosum import __version__
from zerosum.engines import COMPILED, choose_engine, engine_names
from zerosum.formatting import describe
from zerosum.game import ZerosumError
from zerosum.games import GAMES, GameSpec, UnknownGameError, get_game
from zerosum.search.explain import MAX_TREE_NODES, TreeNode, explain
from zerosum.web.jobs import Job, warm_up
from zerosum.web.sessions import Session, Sessions, UnknownSessionError

STATIC = resources.files("zerosum.web") / "static"

MAX_DEPTH = 64
"""The deepest search a request may ask for (plies)."""
MAX_TIME = 120.0
"""The longest search a request may ask for (seconds)."""
DEFAULT_TIME = 5.0
"""How long the computer thinks per move unless told otherwise (seconds)."""
MAX_COMPARE_DEPTH = 12
MAX_EXPLAIN_DEPTH = 8

Moves = Annotated[
    list[Annotated[str, Field(max_length=200)]],
    Field(max_length=2_000, description="moves in the game's notation, from the start position"),
]


class NewSession(BaseModel):
    game: str = Field(max_length=50, description="a registered game's name, see GET /api/games")
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
        None, ge=1, le=20, description="the game's strength level, 1 = weakest"
    )
    depth: int | None = Field(
        None, ge=0, le=MAX_DEPTH, description="plies; 0 searches until solved (overrides level)"
    )
    time: float = Field(DEFAULT_TIME, gt=0, le=MAX_TIME, description="seconds to think at most")
    seed: int | None = Field(None, description="picks among equally good moves; none: at random")
    engine: Literal["default", "python", "compiled", "tactical", "compiled-tactical", "mcts"] = (
        Field(
            "default",
            description="the pure-Python engine, the compiled one (games with a kernel), the "
            "tactical one (captures and checks: chess) or its compiled twin (chess), Monte Carlo "
            "tree search with a solver (its depth counts iterations, each doubling the "
            "simulations), or the game's own choice (its analyzer)",
        )
    )
    play: bool = Field(False, description="play the move found in the session")


class ThinkMessage(Think):
    action: Literal["think"]


class CompareMessage(BaseModel):
    action: Literal["compare"]
    depth: int = Field(ge=1, le=MAX_COMPARE_DEPTH)


class StopMessage(BaseModel):
    action: Literal["stop"]


Message = Annotated[ThinkMessage | CompareMessage | StopMessage, Field(discriminator="action")]
MESSAGE = TypeAdapter(Message)


def _levels(spec: GameSpec) -> list[dict[str, Any]]:
    return [
        {
            "level": index,
            "depth": depth,
            "label": "perfect" if depth == 0 else f"depth {depth}",
        }
        for index, depth in enumerate(spec.levels, start=1)
    ]


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
        "board": spec.board,
    }


def _engine(spec: GameSpec, engine: str) -> str:
    """The engine layer's name of the engine a search runs, from the API's: ``default`` is the
    game's analyzer (compiled-tactical for chess), ``python`` the pure-Python engine; one the
    game lacks is refused."""
    return choose_engine(spec, None if engine == "default" else _FROM_API.get(engine, engine))


_API_NAMES: Final = {"engine": "python"}
"""The engine layer's names that the HTTP API spells otherwise."""
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
    engine = _engine(session.spec, think.engine)
    return _request(session, depth=depth, time=think.time, seed=think.seed, engine=engine)


def _tree_data(node: TreeNode[Any], format_move: Any, game: Any) -> dict[str, Any]:
    move = None
    if node.move is not None:
        move = format_move(node.move)
        game.make(node.move)
    children = [_tree_data(child, format_move, game) for child in node.children]
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


def _apply(session: Session, think: Think, done: dict[str, Any], snapshot: list[str]) -> None:
    """Play the move a search found, if the session is still where the search started."""
    if not think.play or done.get("best_move") is None:
        return
    with session.lock:
        if session.moves == snapshot:
            session.play(done["best_move"])
            done["played"] = True


def create_app() -> FastAPI:
    """The app with a fresh, empty session store."""
    sessions = Sessions()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(warm_up)  # the first search then starts at once
        yield
        for job in list(Job.running):
            job.kill()

    app = FastAPI(
        title="zerosum",
        version=__version__,
        description="Play every registered game against the search and watch it think.",
        lifespan=lifespan,
    )

    @app.exception_handler(ZerosumError)
    async def bad_input(request: Request, error: ZerosumError) -> JSONResponse:
        status = 404 if isinstance(error, (UnknownSessionError, UnknownGameError)) else 422
        return JSONResponse({"detail": str(error)}, status_code=status)

    # -- games and sessions ------------------------------------------------------------

    @app.get(
        "/api/games",
        summary="The registered games and their named variants, sides and strength levels",
    )
    def games() -> dict[str, Any]:
        specs = [
            variant
            for spec in GAMES.values()
            for variant in (spec, *(get_game(name) for name in spec.variants))
        ]
        return {"games": [_game_info(spec) for spec in specs]}

    @app.get("/api/health", summary="Live sessions and running searches")
    def health() -> dict[str, Any]:
        return {"sessions": len(sessions), "searches": len(Job.running)}

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
    async def think(session_id: str, body: Think) -> dict[str, Any]:
        session = sessions.get(session_id)
        with session.lock:
            if session.game.outcome() is not None:
                raise ZerosumError("the game is over: expected a position with moves to play")
            snapshot = list(session.moves)
            job = Job("think", _think_request(session, body))
        infos: list[dict[str, Any]] = []
        done: dict[str, Any] = {}
        async for event in job.events():
            if event["type"] == "info":
                infos.append(event)
            else:
                done = event
        if done.get("type") == "error":
            return JSONResponse(done, status_code=500)  # type: ignore[return-value]
        _apply(session, body, done, snapshot)
        with session.lock:
            return {"result": done, "iterations": infos, "state": session.state()}

    @app.get("/api/sessions/{session_id}/explain", summary="The search tree of a small search")
    def explain_tree(
        session_id: str,
        depth: Annotated[int, Query(ge=1, le=MAX_EXPLAIN_DEPTH)] = 2,
        algorithm: Annotated[Literal["alphabeta", "minimax"], Query()] = "alphabeta",
        max_nodes: Annotated[int, Query(ge=1, le=MAX_TREE_NODES)] = MAX_TREE_NODES,
    ) -> dict[str, Any]:
        session = sessions.get(session_id)
        with session.lock:
            game = session.game.copy()
        if game.outcome() is not None:
            raise ZerosumError("the game is over: expected a position with moves to search")
        started = time.perf_counter()
        tree = explain(game, depth, algorithm=algorithm, max_nodes=max_nodes)
        seconds = time.perf_counter() - started
        data = {k: v for k, v in asdict(tree).items() if k not in ("root", "best_move", "pv")}
        return {
            **data,
            "value_text": describe(tree.value),
            "best_move": None if tree.best_move is None else game.format_move(tree.best_move),
            "pv": _pv_names(game, tree.pv),
            "side_to_move": game.side_to_move(),
            "time_s": round(seconds, 6),
            "root": _tree_data(tree.root, game.format_move, game),
        }

    @app.websocket("/api/sessions/{session_id}/live")
    async def live(socket: WebSocket, session_id: str) -> None:
        # Only pages served by this app may drive searches: browsers send the page's origin,
        # and another site's page must not put this machine to work.
        origin = socket.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != socket.headers.get("host"):
            await socket.close(code=4403, reason="expected a page served by this app")
            return
        await socket.accept()
        try:
            session = sessions.get(session_id)
        except UnknownSessionError as error:
            await socket.send_json({"type": "error", "message": str(error)})
            await socket.close(code=4404)
            return
        current: tuple[Job, asyncio.Task[None]] | None = None

        def cancel() -> None:
            nonlocal current
            if current is not None:
                job, task = current
                task.cancel()
                job.kill()
                current = None

        async def forward(job: Job, think: Think | None, snapshot: list[str]) -> None:
            try:
                async for event in job.events():
                    if event["type"] == "done" and think is not None:
                        _apply(session, think, event, snapshot)
                        with session.lock:
                            event["state"] = session.state()
                    await socket.send_json(event)
            except (WebSocketDisconnect, RuntimeError):  # the tab went away while we sent
                job.kill()

        try:
            while True:
                text = await socket.receive_text()
                try:
                    message = MESSAGE.validate_python(json.loads(text))
                except (ValueError, ValidationError) as error:
                    await socket.send_json({"type": "error", "message": _message_error(error)})
                    continue
                if isinstance(message, StopMessage):
                    if current is not None:
                        current[0].stop()
                    continue
                cancel()
                try:
                    with session.lock:
                        snapshot = list(session.moves)
                        over = session.game.outcome() is not None
                        if isinstance(message, ThinkMessage):
                            if over:
                                raise ZerosumError(
                                    "the game is over: expected a position with moves to play"
                                )
                            job = Job("think", _think_request(session, message))
                            think: Think | None = message
                        else:
                            job = Job("compare", _request(session, depth=message.depth))
                            think = None
                except ZerosumError as error:
                    await socket.send_json({"type": "error", "message": str(error)})
                    continue
                await socket.send_json({"type": "started", "action": message.action})
                current = (job, asyncio.create_task(forward(job, think, snapshot)))
        except WebSocketDisconnect:
            pass
        finally:
            cancel()

    # -- the page ------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(str(STATIC / "index.html"))

    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    return app


def _pv_names(game: Any, pv: tuple[Any, ...]) -> list[str]:
    names = []
    for move in pv:
        names.append(game.format_move(move))
        game.make(move)
    for _ in pv:
        game.undo()
    return names


def _message_error(error: Exception) -> str:
    if isinstance(error, ValidationError):
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'message'}: {e['msg']}" for e in error.errors()
        )
        return f"bad message: {problems}"
    return f"bad message: expected a JSON object ({error})"
