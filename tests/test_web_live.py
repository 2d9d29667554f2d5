"""The live websocket under abuse, and which engine the web app's searches use.

A search slot is freed on every path (a client gone at any step of a search's handshake); a
socket has a budget of messages and searches (a flood is refused, then closed with 1008); a
binary frame is answered; refusals carry the security headers, the server's own 400s too; a
think at a level uses the engine ``zerosum play`` uses, to a depth the one ``zerosum
analyze`` uses; a position whose numbers no engine holds is refused at creation.

Every wait here is on an observable state (the health figures, the reaped processes), with
a generous bound: never a fixed sleep.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from multiprocessing.context import ForkServerProcess
from typing import Any

import httpx
import pytest
import uvicorn
import websockets.sync.client
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from waiting import HANG_S

from zerosum.games import register, unregister
from zerosum.games.chess import MAX_MOVE_NUMBER
from zerosum.web import jobs, server_config
from zerosum.web.app import create_app
from zerosum.web.guard import (
    FLOOD_REFUSALS,
    LOOPBACK,
    MESSAGE_BURST,
    POLICY_VIOLATION,
    SEARCH_BURST,
    Budget,
    Verdict,
)
from zerosum.web.jobs import FINAL, Job, Searches

Message = MutableMapping[str, Any]
BOUND = HANG_S
"""Seconds an observable state may take to come on a busy machine before a test fails (a hang)."""


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND
    while not condition():
        assert time.monotonic() < deadline, f"still waiting after {BOUND:g} s: {what}"
        time.sleep(0.05)


def no_processes() -> bool:
    Job.reap()
    return not Job.running


def searches(client: Any) -> int:
    return int(client.get("/api/health").json()["searches"])


def new(client: Any, game: str = "connect4", **body: Any) -> str:
    response = client.post("/api/sessions", json={"game": game, **body})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def events_until_final(live: Any) -> list[dict[str, Any]]:
    events = []
    while True:
        events.append(live.receive_json())
        if events[-1]["type"] in ("done", "error"):
            return events


# -- a search slot is freed on every path --------------------------------------------------


@pytest.fixture
def started_jobs(monkeypatch: pytest.MonkeyPatch) -> list[Job]:
    """Every job the apps start from now on. A job its client's leaving ended was never asked
    to stop (``asked_to_stop``): only its time limit does that, so a slot freed by the time
    limit rather than by the leaving fails the test however long the wait for it took."""
    started: list[Job] = []
    start = Searches.start

    def recorded(searches: Searches, *args: Any, **kwargs: Any) -> Job:
        job = start(searches, *args, **kwargs)
        started.append(job)
        return job

    monkeypatch.setattr(Searches, "start", recorded)
    return started


def ended_by_their_clients(started: list[Job]) -> bool:
    return bool(started) and not any(job.asked_to_stop for job in started)


class Dropping:
    """The app behind a client that goes away at one step of a search's handshake: the
    app's ``step``-th websocket send fails as a send to a closed connection does (uvicorn
    raises an ``OSError``), and every receive after it says the client has gone."""

    def __init__(self, app: Any, step: int) -> None:
        self.app, self.step = app, step

    async def __call__(
        self,
        scope: Message,
        receive: Callable[[], Awaitable[Message]],
        send: Callable[[Message], Awaitable[None]],
    ) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        sent = 0
        gone = False

        async def dropping_send(message: Message) -> None:
            nonlocal sent, gone
            sent += 1
            if gone or sent >= self.step:
                gone = True
                raise OSError("the client has gone")
            await send(message)

        async def dropping_receive() -> Message:
            if gone:
                return {"type": "websocket.disconnect", "code": 1006}
            return await receive()

        await self.app(scope, dropping_receive, dropping_send)


# The app's sends on a think: accept, started, loading, searching, the first info, ... done.
@pytest.mark.parametrize("step", range(2, 8))
def test_a_client_gone_at_any_step_frees_its_slot(step: int, started_jobs: list[Job]) -> None:
    app = create_app(max_searches=1, session_searches=1)
    with TestClient(Dropping(app, step)) as client:
        sid = new(client)
        with client.websocket_connect(f"/api/sessions/{sid}/live") as live:
            live.send_json({"action": "think", "depth": 0, "time": 60})
            wait_for(lambda: searches(client) == 0, "the search of a client that went away")
        wait_for(no_processes, "the search process reaped")
        assert ended_by_their_clients(started_jobs)
        # the only slot is free again: a search on another session starts and answers
        answer = client.post(f"/api/sessions/{new(client)}/think", json={"depth": 2})
        assert answer.status_code == 200, answer.text
    wait_for(no_processes, "every search process reaped")


def test_a_think_cancelled_before_its_task_ran_frees_its_slot() -> None:
    # The client sends a think and goes at once: the app hears the disconnect before the task
    # that forwards the search's events has run a step.
    app = create_app(max_searches=1, session_searches=1)
    with TestClient(app) as client:
        sid = new(client)
        for _ in range(5):
            with client.websocket_connect(f"/api/sessions/{sid}/live") as live:
                live.send_json({"action": "think", "time": 1})
        wait_for(lambda: searches(client) == 0, "searches of clients that went away")
        assert client.post(f"/api/sessions/{sid}/think", json={"depth": 1}).status_code == 200
    wait_for(no_processes, "every search process reaped")


def hold_starts(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Search processes started from now on wait, inside their start, until the returned
    event is set (by the test, or after ``BOUND`` seconds: then the start sets it): a fork
    server slow to fork on a busy machine. Called once the app's warm-up has started the
    fork server."""
    gate = threading.Event()
    start = ForkServerProcess.start

    def held(process: Any) -> None:
        gate.wait(BOUND)
        gate.set()  # released, by the test or by the bound
        start(process)

    monkeypatch.setattr(ForkServerProcess, "start", held)
    return gate


def test_a_search_process_starts_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    # A start blocked the loop for as long as the fork server took (up to 140 ms a start on
    # a loaded machine, five at once in a flood): the server now answers meanwhile.
    with TestClient(create_app()) as client:  # its warm-up job has started the fork server
        sid = new(client, "tictactoe")
        gate = hold_starts(monkeypatch)
        with client.websocket_connect(f"/api/sessions/{sid}/live") as live:
            live.send_json({"action": "think", "depth": 1, "time": 5})
            assert live.receive_json()["type"] == "started"
            health = client.get("/api/health").json()  # while the start is held
            answered_first = not gate.is_set()
            gate.set()
            assert events_until_final(live)[-1]["type"] == "done"
        assert answered_first, "the health check waited for the search process's start"
        assert health["searches"] == 1  # a starting search holds its slot
    wait_for(no_processes, "every search process reaped")


def test_a_client_gone_while_its_search_starts_frees_the_slot(
    monkeypatch: pytest.MonkeyPatch, started_jobs: list[Job]
) -> None:
    app = create_app(max_searches=1, session_searches=1)
    with TestClient(app) as client:
        sid = new(client)
        gate = hold_starts(monkeypatch)
        with client.websocket_connect(f"/api/sessions/{sid}/live") as live:
            live.send_json({"action": "think", "depth": 0, "time": 60})
            assert live.receive_json()["type"] == "started"
        wait_for(lambda: searches(client) == 0, "the slot of a client gone during the start")
        gate.set()  # the start ends: its child is killed and reaped
        wait_for(no_processes, "the child started after its client had gone")
        assert ended_by_their_clients(started_jobs)
        answer = client.post(f"/api/sessions/{new(client)}/think", json={"depth": 2})
        assert answer.status_code == 200, answer.text
    wait_for(no_processes, "every search process reaped")


@pytest.mark.parametrize("turns", range(10))
def test_a_search_replaced_as_its_event_arrives_says_nothing_more(
    turns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new think ends the socket's running one: its forwarding task is cancelled, then its
    job ended (``live``'s ``cancel``). An event of the old search that had just arrived made
    Python 3.11's ``asyncio.wait_for`` swallow the cancel (its inner ``queue.get()`` was
    done): the old task went on and sent ``the search ended without an answer`` (its ended
    job's last word) after the new think's ``started``, one loaded full-suite run in three.
    Here the event waits in the job's pipe and the replacement comes ``turns`` turns of the
    event loop after the job starts reading it: every interleaving, no child process."""

    async def no_child(job: Job) -> None:
        pass

    monkeypatch.setattr(Job, "_launch", no_child)

    async def replaced() -> tuple[bool, list[dict[str, Any]]]:
        job = Job("think", {}, time_limit=60.0, started=False)
        job._send.send({"type": "info", "depth": 1})  # written as the child writes it
        after_end: list[dict[str, Any]] = []
        ended = False

        async def forward() -> None:  # as the socket's task: with the job, every event out
            with job:
                async for event in job.events():
                    if ended:
                        after_end.append(event)

        task = asyncio.create_task(forward())
        for _ in range(turns):
            await asyncio.sleep(0)
        task.cancel()
        job.end()
        ended = True
        cancelled = False
        try:
            await task
        except asyncio.CancelledError:
            cancelled = True
        job._send.close()
        return cancelled, after_end

    # the old task ends at its cancel, and its job's events stop at its end
    assert asyncio.run(replaced()) == (True, [])
    assert not Job.running


def test_the_event_loop_never_waits_for_a_childs_stop_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stop event is shared with the child, which takes its lock every time it looks at
    it: the server only sets it (at the time limit), never reads it, and never sets it once
    the job has ended (a child killed holding the lock would hold it for ever)."""

    async def no_child(job: Job) -> None:
        pass

    class HeldLock:
        """The stop event while a child, paused or killed, holds its lock."""

        def __init__(self) -> None:
            self.sets = 0

        def is_set(self) -> bool:
            raise AssertionError("the event loop waited for the child's lock")

        def set(self) -> None:
            self.sets += 1

    monkeypatch.setattr(Job, "_launch", no_child)
    monkeypatch.setattr(jobs, "GRACE", 0.0)
    held = HeldLock()

    async def timed_out() -> list[dict[str, Any]]:
        job = Job("think", {}, time_limit=0.0, started=False)
        job._stop = held  # type: ignore[assignment]
        job._send.send({"type": "searching", "engine": "engine"})  # its clock starts: 0 s
        events = [event async for event in job.events()]
        job.stop()  # a client's stop after the end
        job._send.close()
        return events

    events = asyncio.run(timed_out())
    assert [event["type"] for event in events] == ["searching", "error"]
    assert "did not answer within its time limit" in events[-1]["message"]
    assert held.sets == 1  # asked once, at the time limit
    assert not Job.running


def test_a_search_process_yields_the_cpu_to_its_server() -> None:
    request = {"game": "connect4", "start": None, "moves": [], "depth": 0, "time": 60.0}

    async def priority() -> int:
        job = Job("think", {**request, "seed": 1, "engine": "engine"}, time_limit=60.0)
        with job:
            async for event in job.events():  # the first, once the child has started
                assert event["type"] == "loading", event
                return os.getpriority(os.PRIO_PROCESS, job.process.pid)
        raise AssertionError("the search sent nothing")

    lowered = min(19, os.getpriority(os.PRIO_PROCESS, 0) + jobs.SEARCH_NICE)  # 19: the lowest
    assert asyncio.run(priority()) == lowered
    wait_for(no_processes, "every search process reaped")


@pytest.fixture
def served() -> Iterator[str]:
    """The app as ``zerosum serve`` runs it (:func:`server_config`), on a real socket in a
    thread: clients can really go away, and the server's own answers can be read."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    server = uvicorn.Server(server_config(create_app(hosts=LOOPBACK, max_searches=2)))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    wait_for(lambda: server.started, "the server's start")
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=BOUND)
        listener.close()


def test_clients_that_close_at_once_leave_no_search_behind(served: str) -> None:
    # the probe of issue 24: five thinks, each socket closed right after its message
    # httpx's and websockets' own timeouts (5 s, 10 s) are not for a loaded machine: a think
    # over HTTP waits for its process to start and load its engine.
    with httpx.Client(base_url=f"http://{served}", timeout=BOUND) as client:
        sid = new(client)
        for _ in range(5):
            url = f"ws://{served}/api/sessions/{sid}/live"
            with websockets.sync.client.connect(url, open_timeout=BOUND) as ws:
                ws.send('{"action": "think", "time": 1}')
        wait_for(lambda: searches(client) == 0, "searches of clients that went away")
        answer = client.post(f"/api/sessions/{sid}/think", json={"depth": 1, "time": 5})
        assert answer.status_code == 200, answer.text
    wait_for(no_processes, "every search process reaped")


# -- budgets: a flood is refused, then closed -----------------------------------------------


def test_the_budget_takes_refuses_then_closes() -> None:
    now = [0.0]
    budget = Budget(lambda: now[0])
    verdicts = [budget.take() for _ in range(MESSAGE_BURST + FLOOD_REFUSALS + 1)]
    assert verdicts[:MESSAGE_BURST] == [Verdict.TAKE] * MESSAGE_BURST
    assert verdicts[MESSAGE_BURST:-1] == [Verdict.REFUSE] * FLOOD_REFUSALS
    assert verdicts[-1] is Verdict.CLOSE
    now[0] += 60.0  # a client that waited is welcome again
    assert budget.take() is Verdict.TAKE
    searches_taken = [budget.take_search() for _ in range(SEARCH_BURST + 1)]
    assert searches_taken == [True] * SEARCH_BURST + [False]


def test_a_flooding_socket_is_refused_then_closed_with_1008() -> None:
    with TestClient(create_app(clock=lambda: 0.0)) as client:  # time stands still
        sid = new(client, "tictactoe")
        with client.websocket_connect(f"/api/sessions/{sid}/live") as live:
            for _ in range(MESSAGE_BURST + FLOOD_REFUSALS + 1):
                live.send_json({"action": "stop"})
            refusals = 0
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    event = live.receive_json()
                    assert event["type"] == "error" and "too many messages" in event["message"]
                    refusals += 1
            assert refusals == FLOOD_REFUSALS
            assert closed.value.code == POLICY_VIOLATION
        assert client.get("/api/health").status_code == 200


def socket_scope(sid: str) -> Message:
    """The ASGI scope of session ``sid``'s live websocket, as a server passes it."""
    return {
        "type": "websocket",
        "asgi": {"version": "3.0"},
        "scheme": "ws",
        "http_version": "1.1",
        "path": f"/api/sessions/{sid}/live",
        "raw_path": f"/api/sessions/{sid}/live".encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "subprotocols": [],
        "state": {},
    }


def test_a_burst_of_queued_messages_lets_other_connections_in() -> None:
    """A server's receive from a full queue does not suspend: the app yields after each
    message, so a burst on one socket (a flood the server has already read) does not hold up
    the other connections until it has all been handled. Driven at the ASGI level with a
    receive that, like uvicorn's, returns at once while messages wait."""
    app = create_app(clock=lambda: 0.0)
    with TestClient(app) as client:
        sid = new(client, "tictactoe")
        burst = MESSAGE_BURST // 2  # all taken: no refusal, no close, no search
        waiting: list[Message] = [
            {"type": "websocket.connect"},
            *({"type": "websocket.receive", "text": '{"action": "stop"}'} for _ in range(burst)),
            {"type": "websocket.disconnect", "code": 1000},
        ]
        scope = socket_scope(sid)
        handed: list[int] = []
        seen_by_other: list[int] = []

        async def receive() -> Message:
            handed.append(1)
            return waiting.pop(0)

        async def send(message: Message) -> None:
            pass

        async def other_connection() -> None:
            seen_by_other.append(len(handed))

        async def scenario() -> None:
            other = asyncio.create_task(other_connection())
            await app(scope, receive, send)
            await other

        asyncio.run(scenario())
        assert not waiting, "the app read every message"
        # the other connection got its turn after the first messages, not after the burst
        assert seen_by_other and seen_by_other[0] <= 3, (seen_by_other, burst)


def test_a_burst_of_thinks_starts_one_search_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each think replaces the one before; one already received replaces it before its
    process starts, so a burst (a flood's first messages) starts one process, not one a
    think. Driven at the ASGI level, the burst waiting in the socket's queue as uvicorn's."""
    starts: list[Job] = []
    start = Job._start

    def counted(job: Job) -> None:
        starts.append(job)
        start(job)

    monkeypatch.setattr(Job, "_start", counted)
    app = create_app(clock=lambda: 0.0)
    with TestClient(app) as client:
        sid = new(client, "tictactoe")
        starts.clear()  # the app's start-up ping
        think = '{"action": "think", "depth": 1, "time": 60}'
        burst: list[Message] = [
            {"type": "websocket.connect"},
            *({"type": "websocket.receive", "text": think} for _ in range(SEARCH_BURST)),
        ]
        events: list[dict[str, Any]] = []

        async def receive() -> Message:
            if burst:
                return burst.pop(0)
            while not any(event["type"] in FINAL for event in events):
                await asyncio.sleep(0.01)  # the last think's search answers (or fails)
            return {"type": "websocket.disconnect", "code": 1000}

        async def send(message: Message) -> None:
            if message["type"] == "websocket.send":
                events.append(json.loads(message["text"]))

        asyncio.run(app(socket_scope(sid), receive, send))
    wait_for(no_processes, "every search process reaped")
    assert [event["type"] for event in events].count("started") == SEARCH_BURST
    assert len(starts) == 1, f"{len(starts)} processes started for a burst of {SEARCH_BURST}"


def test_searches_started_past_the_budget_are_refused() -> None:
    with TestClient(create_app(clock=lambda: 0.0)) as client:
        sid = new(client, "tictactoe")
        with client.websocket_connect(f"/api/sessions/{sid}/live") as live:
            for _ in range(SEARCH_BURST + 1):  # each replaces the one before
                live.send_json({"action": "think", "depth": 1, "time": 5})
            started = 0
            while (event := live.receive_json())["type"] != "error" or "retry_after" not in event:
                started += event["type"] == "started"
            assert "too many searches started" in event["message"]
            assert started == SEARCH_BURST
            live.send_json({"action": "stop"})  # the socket stays open
    wait_for(no_processes, "every search process reaped")


def test_a_binary_frame_gets_an_error_and_the_socket_stays() -> None:
    with TestClient(create_app()) as client:
        sid = new(client, "tictactoe", moves=["b2", "a1"])
        with client.websocket_connect(f"/api/sessions/{sid}/live") as live:
            live.send_bytes(b'{"action": "think"}')
            event = live.receive_json()
            assert event["type"] == "error" and "binary frame" in event["message"]
            live.send_json({"action": "think", "depth": 2, "time": 5})
            assert events_until_final(live)[-1]["type"] == "done"
    wait_for(no_processes, "every search process reaped")


# -- the security headers on refusals -------------------------------------------------------


def raw(address: str, request: bytes) -> bytes:
    host, port = address.split(":")
    with socket.create_connection((host, int(port)), timeout=BOUND) as connection:
        connection.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer and (chunk := connection.recv(65536)):
            answer += chunk
    return answer


def test_refused_websockets_and_malformed_requests_carry_the_headers(served: str) -> None:
    upgrade = (
        f"GET /api/sessions/x/live HTTP/1.1\r\nHost: {served}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\nOrigin: http://evil.example\r\n\r\n"
    ).encode()
    keyless = (  # a websocket handshake without its key: the websockets library refuses it
        f"GET /api/sessions/x/live HTTP/1.1\r\nHost: {served}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
    cases = ((upgrade, b" 403 "), (b"NOT HTTP AT ALL\r\n\r\n", b" 400 "), (keyless, b" 400 "))
    for request, status in cases:
        head = raw(served, request).split(b"\r\n\r\n")[0].lower()
        assert status in head.split(b"\r\n")[0], head
        assert b"x-frame-options: deny" in head and b"content-security-policy:" in head, head
        assert b"x-content-type-options: nosniff" in head, head


# -- one engine everywhere ------------------------------------------------------------------


@pytest.fixture(scope="module")
def mcts_player() -> Iterator[None]:
    """The game ``mctstoe``, whose player is MCTS, registered while this module's tests run
    (its module registers it in the search processes too)."""
    import web_mcts_game

    register(web_mcts_game.SPEC, replace=True)
    yield
    unregister(web_mcts_game.SPEC.name)


@pytest.mark.usefixtures("mcts_player")
def test_levels_are_named_by_the_player_engine() -> None:
    with TestClient(create_app()) as client:
        games = {game["name"]: game for game in client.get("/api/games").json()["games"]}
    mcts = games["mctstoe"]
    assert mcts["player"] == "mcts"
    assert [level["label"] for level in mcts["levels"]] == [
        "16 simulations",
        "64 simulations",
        "until proven",
    ]
    assert all("depth" not in level for level in mcts["levels"])
    connect4 = games["connect4"]
    assert connect4["player"] == "compiled" and connect4["levels"][0]["label"] == "depth 2"


@pytest.mark.parametrize(
    ("game", "think", "engine"),
    [
        ("mctstoe", {"level": 1}, "mcts"),  # its player, as zerosum play
        ("mctstoe", {"depth": 2}, "python"),  # its analyzer, as zerosum analyze
        ("connect4", {"level": 1}, "compiled"),  # compiled in the browser as in the terminal
        ("chess", {"level": 1}, "compiled-tactical"),
    ],
)
@pytest.mark.usefixtures("mcts_player")
def test_a_think_uses_the_engine_of_the_command_line(
    game: str, think: dict[str, Any], engine: str
) -> None:
    with TestClient(create_app()) as client:
        sid = new(client, game)
        with client.websocket_connect(f"/api/sessions/{sid}/live") as live:
            live.send_json({"action": "think", "time": 60, **think})
            events = events_until_final(live)
    done = events[-1]
    assert done["type"] == "done", done
    assert done["engine"] == engine
    searching = [event for event in events if event["type"] == "searching"]
    assert searching and searching[0]["engine"] == engine
    if engine == "mcts":
        assert done["visits"] and done["depth"] == 1  # one iteration: level 1's 16 simulations
    wait_for(no_processes, "every search process reaped")


@pytest.fixture
def slow_engine() -> Iterator[float]:
    """The game ``slowtoe``, whose engine takes seconds to load in the search processes, as a
    compiled engine does on its first use; the seconds it takes."""
    import web_slow_game

    register(web_slow_game.SPEC, replace=True)
    yield web_slow_game.LOAD_SECONDS
    unregister(web_slow_game.SPEC.name)


def test_the_engines_load_is_not_counted_against_the_time(
    slow_engine: float, monkeypatch: pytest.MonkeyPatch, started_jobs: list[Job]
) -> None:
    """Counted from the job's start, the time limit would pass while the engine loads: the
    job would be asked to stop (``asked_to_stop``), and killed GRACE later. Counted from
    ``searching``, the search of level 2 answers long before its limit and is never asked
    to stop. (GRACE is the hang bound here: the check is whether the job was asked to stop,
    not how fast a loaded machine lets a stopped one answer.)"""
    time_limit = 4.0
    assert time_limit < slow_engine  # counted, the limit would pass during the load
    monkeypatch.setattr(jobs, "GRACE", HANG_S)
    with TestClient(create_app()) as client:
        sid = new(client, "slowtoe")
        answer = client.post(
            f"/api/sessions/{sid}/think", json={"level": 2, "time": time_limit, "play": True}
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["result"]["type"] == "done"
        assert answer.json()["state"]["moves"]  # the move found was played
    assert started_jobs and not any(job.asked_to_stop for job in started_jobs)
    wait_for(no_processes, "every search process reaped")


def test_an_engine_that_does_not_load_in_time_answers_503(monkeypatch: Any) -> None:
    monkeypatch.setattr(jobs, "LOAD_TIME", 0.0)  # the compiled engine's load never fits
    with TestClient(create_app()) as client:
        sid = new(client)
        answer = client.post(f"/api/sessions/{sid}/think", json={"level": 1, "time": 5})
        assert answer.status_code == 503, answer.text
        assert int(answer.headers["retry-after"]) >= 1
        assert "did not load" in answer.json()["detail"]
    wait_for(no_processes, "every search process reaped")


# -- numbers no engine holds ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fen", "words"),
    [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 100000000000000000000", "full-move number"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 99999999999999999999 1", "halfmove clock"),
    ],
)
def test_chess_positions_with_huge_move_numbers_are_refused(fen: str, words: str) -> None:
    with TestClient(create_app()) as client:
        answer = client.post("/api/sessions", json={"game": "chess", "position": fen})
        assert answer.status_code == 422 and words in answer.json()["detail"], answer.text
        assert f"{MAX_MOVE_NUMBER:,}" in answer.json()["detail"]  # the library's bound
        sid = new(client, "chess")
        loaded = client.post(f"/api/sessions/{sid}/load", json={"position": fen})
        assert loaded.status_code == 422
        fine = f"4k3/8/8/8/8/8/8/4K3 w - - 0 {MAX_MOVE_NUMBER}"
        assert client.post("/api/sessions", json={"game": "chess", "position": fine}).is_success
