"""The web app against a hostile client: other sites, bad bodies, too many searches, memory.

In process (FastAPI's TestClient) except where a real socket matters: a client that leaves
in the middle of a search is a real HTTP connection to a uvicorn server in a thread.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketDenialResponse
from waiting import HANG_S, wait_until

from zerosum.web import is_loopback, jobs, sessions
from zerosum.web.app import create_app
from zerosum.web.guard import LOOPBACK, host_name
from zerosum.web.jobs import Job, Searches
from zerosum.web.sessions import Sessions

BASE = "http://127.0.0.1:8000"
HOST = {"host": "127.0.0.1:8000"}
"""The TestClient's websockets name ``testserver`` whatever the base URL: name this one."""


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(hosts=LOOPBACK), base_url=BASE) as client:
        yield client


def new(client: TestClient, game: str = "tictactoe", **body: Any) -> str:
    response = client.post("/api/sessions", json={"game": game, **body})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def wait_until_no_searches() -> None:
    """Every search has been ended by its owner, at once (a search nobody ended would run on,
    whatever the wait), and then its process reaped (a wait, bounded only against a hang)."""
    running = [job for job in Job.running if not job.ended]
    assert not running, f"{len(running)} search(es) still running: nobody ended them"

    def reaped() -> bool:
        Job.reap()
        return not Job.running

    wait_until(reaped, "the ended searches' processes reaped")


# -- who may talk to the server -------------------------------------------------------------


def test_host_names() -> None:
    assert host_name("LocalHost.:8000") == "localhost"
    assert host_name("[::1]:8000") == "::1" and host_name("::1") == "::1"
    assert host_name("127.0.0.1") == "127.0.0.1"
    assert is_loopback("127.0.0.2") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.1")


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000", "localhost"])
def test_this_machines_names_are_served(client: TestClient, host: str) -> None:
    assert client.get("/api/health", headers={"host": host}).status_code == 200


@pytest.mark.parametrize("host", ["evil.example:8000", "127.0.0.1.evil.example", "", "x" * 5000])
def test_other_names_are_refused(client: TestClient, host: str) -> None:
    # a page that rebinds its own name to 127.0.0.1 sends that name
    response = client.get("/", headers={"host": host})
    assert response.status_code == 400
    assert "unexpected Host" in response.json()["detail"] and len(response.text) < 500


def test_pages_of_other_sites_are_refused(client: TestClient) -> None:
    body = {"game": "tictactoe"}
    for origin in ("http://evil.example", "null", "http://127.0.0.1:9999", "https://evil.example"):
        refused = client.post("/api/sessions", json=body, headers={"origin": origin})
        assert refused.status_code == 403, origin
        assert "a page of another site" in refused.json()["detail"]
    assert client.post("/api/sessions", json=body, headers={"origin": BASE}).status_code == 201
    assert client.post("/api/sessions", json=body).status_code == 201  # no Origin: not a browser
    sid = new(client)
    with (
        pytest.raises(WebSocketDenialResponse) as refused_socket,
        client.websocket_connect(
            f"/api/sessions/{sid}/live", headers={**HOST, "origin": "http://evil.example"}
        ),
    ):
        pass
    # the denial is an HTTP 403 with the security headers, as every other answer
    assert refused_socket.value.status_code == 403
    assert refused_socket.value.headers["x-frame-options"] == "DENY"
    assert "content-security-policy" in refused_socket.value.headers
    with client.websocket_connect(
        f"/api/sessions/{sid}/live", headers={**HOST, "origin": BASE}
    ) as live:
        live.send_json({"action": "stop"})
    with (
        pytest.raises(WebSocketDenialResponse) as bad_host,
        client.websocket_connect(f"/api/sessions/{sid}/live", headers={"host": "evil.example"}),
    ):
        pass
    assert bad_host.value.status_code == 400
    assert bad_host.value.headers["x-content-type-options"] == "nosniff"


def test_security_headers_and_no_docs_from_other_sites(client: TestClient) -> None:
    for path in ("/", "/static/app.js", "/api/games", "/api/sessions/nope", "/openapi.json"):
        response = client.get(path)
        policy = response.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
    assert client.get("/openapi.json").status_code == 200
    assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404


# -- bad bodies -----------------------------------------------------------------------------


def test_bodies_over_the_limit_are_413(client: TestClient) -> None:
    big = json.dumps({"game": "tictactoe", "moves": ["b2"] * 20_000})
    response = client.post(
        "/api/sessions", content=big, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413 and "expected at most 65,536" in response.text

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it comes
        yield b'{"game": "tictactoe", "position": "'
        for _ in range(100):
            yield b"x" * 1000
        yield b'"}'

    response = client.post(
        "/api/sessions", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"time": NaN}', "finite number"),
        ('{"time": Infinity}', "finite number"),
        ('{"time": -Infinity}', "finite number"),
        ('{"seed": NaN}', "seed"),
        ('{"level": Infinity}', "level"),
        ("NaN", "valid dictionary"),
        ('{"depth": 1e400}', "depth"),
    ],
)
def test_nan_and_infinity_are_422(client: TestClient, body: str, message: str) -> None:
    sid = new(client)
    response = client.post(
        f"/api/sessions/{sid}/think", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422, response.text
    assert message in response.text
    assert not Job.running


def test_openspiel_parameters_that_break_pyspiel_are_422(client: TestClient) -> None:
    """issue 24: ``connect_four(rows=-1)`` raised in pyspiel (500), ``hex(board_size=100000)``
    took the server to 22 GB and the OOM killer, ``connect_four(rows=0)`` is a segmentation
    fault: each is tried in a child process first and refused."""
    pytest.importorskip("pyspiel")
    for game in ("connect_four(rows=-1)", "hex(board_size=100000)"):
        answer = client.post("/api/sessions", json={"game": f"openspiel:{game}"})
        assert answer.status_code == 422, answer.text
        assert answer.json()["detail"].startswith(f"OpenSpiel cannot load '{game}': ")
    assert client.get("/api/health").status_code == 200


def test_errors_never_echo_large_inputs(client: TestClient) -> None:
    cases = [
        {"game": "tictactoe", "moves": ["x" * 200] * 300},
        {"game": "tictactoe", "position": "y" * 9_000},
        {"game": "tictactoe", "moves": "z" * 60_000},
        {"game": ["w" * 60_000]},
    ]
    for body in cases:
        response = client.post("/api/sessions", json=body)
        assert response.status_code == 422, response.text[:300]
        assert len(response.content) < 3_000, response.text[:300]


# -- searches: bounded, time-limited, ended when their client leaves -------------------------


def next_event(socket: Any) -> dict[str, Any]:
    """The socket's next event past the engine's ``loading`` and ``searching``."""
    while (event := socket.receive_json())["type"] in ("loading", "searching"):
        pass
    return dict(event)


def events_until_done(socket: Any) -> list[dict[str, Any]]:
    events = []
    while True:
        event = socket.receive_json()
        events.append(event)
        if event["type"] in ("done", "error"):
            return events


def test_searches_past_the_limit_get_429_with_retry_after() -> None:
    app = create_app(hosts=LOOPBACK, max_searches=1, session_searches=1)
    with TestClient(app, base_url=BASE) as client:
        first, second = new(client, "connect4"), new(client, "connect4")
        with client.websocket_connect(f"/api/sessions/{first}/live", headers=HOST) as live:
            live.send_json({"action": "think", "depth": 0, "time": 60})
            assert live.receive_json()["type"] == "started"
            assert next_event(live)["type"] == "info"
            assert client.get("/api/health").json()["searches"] == 1
            for method, path in [
                ("POST", f"/api/sessions/{second}/think"),
                ("GET", f"/api/sessions/{second}/explain"),
            ]:
                busy = client.request(method, path, json={} if method == "POST" else None)
                assert busy.status_code == 429, busy.text
                assert 1 <= int(busy.headers["retry-after"]) <= 61
                assert "the server is busy" in busy.json()["detail"]
            with client.websocket_connect(f"/api/sessions/{second}/live", headers=HOST) as other:
                other.send_json({"action": "compare", "depth": 2})
                refused = other.receive_json()
                assert refused["type"] == "error" and refused["retry_after"] >= 1
                # the socket stays usable
                other.send_json({"action": "fly"})
                assert "bad message" in other.receive_json()["message"]
            # a new think on the same socket replaces the running one
            live.send_json({"action": "think", "depth": 2, "time": 10})
            while (event := next_event(live))["type"] == "info":  # the first one's
                pass
            assert event == {"type": "started", "action": "think"}
            last = events_until_done(live)[-1]
            assert last["type"] == "done", last
        wait_until_no_searches()
        answer = client.post(f"/api/sessions/{second}/think", json={"depth": 2})
        assert answer.status_code == 200, answer.text


def test_one_session_cannot_take_every_slot() -> None:
    app = create_app(hosts=LOOPBACK, max_searches=4, session_searches=1)
    with TestClient(app, base_url=BASE) as client:
        sid = new(client, "connect4")
        with client.websocket_connect(f"/api/sessions/{sid}/live", headers=HOST) as live:
            live.send_json({"action": "think", "depth": 0, "time": 60})
            assert live.receive_json()["type"] == "started"
            busy = client.post(f"/api/sessions/{sid}/think", json={})
            assert busy.status_code == 429 and "this session runs 1" in busy.json()["detail"]
            assert client.get(f"/api/sessions/{new(client)}/explain").status_code == 200
        wait_until_no_searches()


def test_compare_keeps_its_time_limit(client: TestClient, monkeypatch: Any) -> None:
    # A compare's clock starts with its job (the child starts, loads, then searches): asked to
    # stop at 0.5 s, it had GRACE (2 s) more to answer, which a starved child on a loaded
    # machine can miss. Allowed to answer when it can, it must still end incomplete: asked to
    # stop at its time limit, long before its 12 plies.
    monkeypatch.setattr(jobs, "GRACE", HANG_S)
    sid = new(client, "connect4")
    with client.websocket_connect(f"/api/sessions/{sid}/live", headers=HOST) as live:
        live.send_json({"action": "compare", "depth": 12, "time": 0.5})
        events = events_until_done(live)
    # asked to stop at 0.5 s, it reports the rows it has and ends (well before its 12 plies,
    # which take hours: an incomplete end is the time limit's, however slow the machine)
    assert events[-1] == {"type": "done", "complete": False}
    wait_until_no_searches()


def test_a_job_past_its_time_limit_is_stopped_then_killed(monkeypatch: Any) -> None:
    import asyncio

    request = {"game": "connect4", "start": None, "moves": [], "depth": 0, "time": 60.0}

    async def run(job: Job) -> list[dict[str, Any]]:
        return [event async for event in job.events()]

    # a think asked to stop at its limit answers with its last iteration (when it can: a
    # starved child may take more than the 2 s of GRACE on a loaded machine)
    monkeypatch.setattr(jobs, "GRACE", HANG_S)
    events = asyncio.run(
        run(Job("think", {**request, "seed": 1, "engine": "engine"}, time_limit=1))
    )
    assert events[-1]["type"] == "done" and not events[-1]["complete"]
    # an explain cannot stop: with no grace it is killed at once
    monkeypatch.setattr(jobs, "GRACE", 0.0)
    explained = {**request, "game": "chess", "depth": 8, "algorithm": "minimax", "max_nodes": 5000}
    events = asyncio.run(run(Job("explain", explained, time_limit=0.0)))
    assert len(events) == 1 and events[0]["type"] == "error"
    assert "did not answer within its time limit of 0 s" in events[0]["message"]
    assert events[0]["retry_after"] >= 1  # the HTTP API answers 503 with Retry-After
    wait_until_no_searches()


def test_search_limits_are_checked() -> None:
    assert Searches(3).limit == 3 and Searches().limit >= 1
    for limit, per_session in ((0, 1), (1, 0)):
        with pytest.raises(ValueError, match="1 or more"):
            Searches(limit, per_session)


@pytest.fixture
def server() -> Iterator[str]:
    """The app on a real socket (uvicorn in a thread): clients can really go away."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    app = create_app(hosts=LOOPBACK)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + HANG_S
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=HANG_S)
        listener.close()


def test_a_search_ends_when_its_http_client_leaves(server: str) -> None:
    # httpx's own 5 s timeout is not for a loaded machine: the hang bound, but for the think
    # the client gives up on.
    with httpx.Client(base_url=server, timeout=HANG_S) as client:
        sid = client.post("/api/sessions", json={"game": "connect4"}).json()["id"]
        started: list[Job] = []
        job_start = Job._start

        def remembered(job: Job) -> None:
            started.append(job)
            job_start(job)

        with (
            pytest.MonkeyPatch.context() as patch,
            pytest.raises(httpx.ReadTimeout),  # the client gives up and closes the connection
        ):
            patch.setattr(Job, "_start", remembered)
            client.post(f"/api/sessions/{sid}/think", json={"depth": 0, "time": 60}, timeout=1.5)
        deadline = time.monotonic() + HANG_S
        while client.get("/api/health").json()["searches"]:
            assert time.monotonic() < deadline, "the search outlived its client"
            time.sleep(0.1)
        # ended because its client left: killed, never asked to stop by its time limit
        assert not any(job.asked_to_stop for job in started)
        assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    wait_until_no_searches()


# -- memory: sessions bounded in count, moves and idle time ---------------------------------


def test_sessions_are_bounded_in_moves_and_idle_time(monkeypatch: Any) -> None:
    now = [0.0]
    store = Sessions(3, max_total_moves=10, max_idle=60, clock=lambda: now[0])
    a = store.create("tictactoe", None, ["b2", "a1", "c3", "a3"])
    b = store.create("tictactoe", None, ["b2", "a1", "c3", "a3"])
    assert len(store) == 2 and store.moves() == 8
    store.get(a.id)  # a is now the most recently used
    c = store.create("tictactoe", None, ["b2", "a1", "c3"])  # 11 moves: b is forgotten
    assert len(store) == 2 and store.moves() == 7
    with pytest.raises(sessions.UnknownSessionError):
        store.get(b.id)
    now[0] = 61.0
    store.get(c.id)  # a was idle for more than a minute
    assert len(store) == 1
    with pytest.raises(sessions.UnknownSessionError, match="forgotten"):
        store.get(a.id)
    # one session holds at most MAX_MOVES moves, by loading or by playing
    monkeypatch.setattr(sessions, "MAX_MOVES", 4)
    with pytest.raises(sessions.ZerosumError, match="5 moves: expected at most 4"):
        store.create("tictactoe", None, ["b2 a1 c3 a3 c1"])
    full = store.create("tictactoe", None, ["b2", "a1", "c3", "a3"])
    with pytest.raises(sessions.ZerosumError, match="holds 4 moves, the most it may"):
        full.play("c1")


def test_the_api_keeps_the_bounds(client: TestClient) -> None:
    health = client.get("/api/health").json()
    assert health["max_sessions"] == sessions.MAX_SESSIONS and health["max_searches"] >= 1
    too_many = client.post("/api/sessions", json={"game": "tictactoe", "moves": ["b2"] * 2001})
    assert too_many.status_code == 422 and "at most 2000 items" in too_many.text
    # the most a session holds, as one word of moves the game splits
    long = client.post("/api/sessions", json={"game": "connect4", "moves": ["1234567" * 15] * 20})
    assert long.status_code == 422 and "2,100 moves: expected at most 2,000" in long.text


def test_a_lost_session_is_made_again_from_its_moves(client: TestClient) -> None:
    # what the page holds: the game (a variant here), the position it started from, the moves
    start = "WW.BB................... w 7 7"
    sid = new(client, "morris", position=start, moves=["g7xd6"])
    before = client.get(f"/api/sessions/{sid}").json()
    again = client.post(
        "/api/sessions",
        json={"game": before["game"], "position": before["start"], "moves": before["moves"]},
    )
    assert again.status_code == 201
    assert {**again.json(), "id": sid} == before
    six = new(client, "morris:six", moves=["b2", "d2", "f2"])
    state = client.get(f"/api/sessions/{six}").json()
    remade = client.post("/api/sessions", json={"game": "morris:six", "moves": state["moves"]})
    assert {**remade.json(), "id": six} == state


# -- fuzzing --------------------------------------------------------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities too
    | st.text(max_size=20)
    | st.sampled_from(["tictactoe", "b2", "a1", "alphabeta", "think", "compare", "stop"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        key: JSON
        for key in ("game", "position", "moves", "move", "count", "depth", "level", "time")
    },
)
PATHS = st.sampled_from(
    [
        "/api/sessions",
        "/api/sessions/{id}",
        "/api/sessions/{id}/moves",
        "/api/sessions/{id}/undo",
        "/api/sessions/{id}/load",
        "/api/sessions/{id}/think",
        "/api/sessions/{id}/explain",
        "/api/sessions/{junk}/moves",
        "/api/{junk}",
        "/{junk}",
        "/static/{junk}",
        "/api/games",
        "/api/health",
    ]
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]),
    path=PATHS,
    junk=st.text(max_size=20),
    body=FIELDS | JSON | st.binary(max_size=50).map(lambda b: b.hex()),
    raw=st.booleans(),
    query=st.dictionaries(
        st.sampled_from(["depth", "algorithm", "max_nodes"]), st.text(max_size=6)
    ),
)
def test_random_requests_get_a_4xx_never_a_5xx(
    client: TestClient,
    method: str,
    path: str,
    junk: str,
    body: Any,
    raw: bool,
    query: dict[str, str],
) -> None:
    sid = new(client, moves=["b2"])
    url = path.replace("{id}", sid).replace("{junk}", quote(junk, safe="/"))
    content = body.encode() if raw and isinstance(body, str) else json.dumps(body).encode()
    response = client.request(
        method, url, content=content, params=query, headers={"content-type": "application/json"}
    )
    assert response.status_code < 500, response.text[:500]
    if response.status_code >= 400:
        assert len(response.content) < 5_000
    assert "Traceback" not in response.text


def test_a_full_session_still_hears_the_computers_move(
    client: TestClient, monkeypatch: Any
) -> None:
    monkeypatch.setattr(sessions, "MAX_MOVES", 3)
    sid = new(client, moves=["b2", "a1", "c3"])
    answer = client.post(f"/api/sessions/{sid}/think", json={"depth": 1, "play": True})
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert result["best_move"] and result["played"] is False
    assert "holds 3 moves" in result["message"]
    with client.websocket_connect(f"/api/sessions/{sid}/live", headers=HOST) as live:
        live.send_json({"action": "think", "depth": 1, "play": True})
        done = events_until_done(live)[-1]
    assert done["type"] == "done" and done["played"] is False
    assert done["state"]["moves"] == ["b2", "a1", "c3"]
    wait_until_no_searches()
