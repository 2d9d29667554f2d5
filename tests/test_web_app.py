"""The web API in process (FastAPI's TestClient): sessions, validation, streaming, stopping."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio.to_thread
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketDenialResponse
from waiting import wait_until

from zerosum.formatting import describe
from zerosum.game import WIN
from zerosum.games import GAMES, get_game
from zerosum.search import Limit, search
from zerosum.web.app import create_app
from zerosum.web.jobs import Job


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app()) as client:
        yield client


def new(client: TestClient, game: str = "tictactoe", **body: Any) -> dict[str, Any]:
    response = client.post("/api/sessions", json={"game": game, **body})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def wait_until_no_searches() -> None:
    """Every search has been ended by its owner, at once (a search nobody ended would run on,
    whatever the wait), and then its process reaped (a wait, bounded only against a hang)."""
    running = [job for job in Job.running if not job.ended]
    assert not running, f"{len(running)} search(es) still running: nobody ended them"

    def reaped() -> bool:
        Job.reap()
        return not Job.running

    wait_until(reaped, "the ended searches' processes reaped")


def test_games_lists_the_registry(client: TestClient) -> None:
    games = client.get("/api/games").json()["games"]
    # every registered game, each followed by its named variants (drawn by its board)
    expected = [name for spec in GAMES.values() for name in (spec.name, *spec.variants)]
    assert [game["name"] for game in games] == expected
    assert "morris:six" in expected and "morris:twelve" in expected
    boards = {game["name"]: game["board"] for game in games}
    assert boards["morris:twelve"] == "morris" and boards["chess"] == "chess"
    analyzers = {game["name"]: game["analyzer"] for game in games}
    assert analyzers["chess"] == "compiled-tactical" and analyzers["connect4"] == "python"
    assert {game["name"]: game["compiled"] for game in games}["morris:six"]
    for game in games:
        spec = get_game(game["name"])
        assert game["sides"] == list(spec.sides)
        key = "simulations" if spec.play_engine == "mcts" else "depth"  # as its player reads it
        assert all(key in level for level in game["levels"]), game["levels"]
        if key == "depth":
            assert [level["depth"] for level in game["levels"]] == list(spec.levels)


def test_play_undo_load(client: TestClient) -> None:
    state = new(client)
    assert state["legal"][0] == "b2" and state["side_to_move"] == 0 and state["result"] is None
    sid = state["id"]
    for move in ("b2", "a1", "c3", "a3"):
        state = client.post(f"/api/sessions/{sid}/moves", json={"move": move}).json()
    assert state["moves"] == ["b2", "a1", "c3", "a3"] and state["position"] == "o.x/.x./o.."
    state = client.post(f"/api/sessions/{sid}/moves", json={"move": "c1"}).json()
    state = client.post(f"/api/sessions/{sid}/moves", json={"move": "c2"}).json()
    assert state["result"] is None
    state = client.post(f"/api/sessions/{sid}/undo", json={"count": 1}).json()
    assert state["moves"] == ["b2", "a1", "c3", "a3", "c1"]
    state = client.post(f"/api/sessions/{sid}/moves", json={"move": "a2"}).json()
    assert state["result"] == {"winner": 1, "text": "O wins"} and state["legal"] == []
    assert client.get(f"/api/sessions/{sid}").json() == state

    state = client.post(f"/api/sessions/{sid}/load", json={"position": "xo./.x./..."}).json()
    assert state["start"] == "xo./.x./..." and state["moves"] == [] and state["side_to_move"] == 1
    four = new(client, "connect4", moves=["4453"])
    assert four["moves"] == ["4", "4", "5", "3"] and four["position"] == "4453"
    four = client.post(
        f"/api/sessions/{four['id']}/load", json={"position": "44", "moves": ["5 3"]}
    )
    assert four.json()["position"] == "4453" and four.json()["start"] == "44"


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "message"),
    [
        ("post", "/api/sessions", {"game": "go"}, 404, "unknown game 'go': expected one of"),
        ("post", "/api/sessions", {"game": "tictactoe", "moves": ["z9"]}, 422, "move 1 ('z9')"),
        ("post", "/api/sessions", {"game": "tictactoe", "position": "xxxx"}, 422, "xxxx"),
        ("post", "/api/sessions", {"game": "connect4", "position": "4444444"}, 422, "full column"),
        ("post", "/api/sessions", {"moves": []}, 422, "Field required"),
        ("post", "/api/sessions", {"game": "tictactoe", "moves": "b2"}, 422, "valid list"),
        ("get", "/api/sessions/nope", None, 404, "unknown session 'nope'"),
        ("post", "/api/sessions/{id}/moves", {"move": "b2"}, 422, "already taken"),
        ("post", "/api/sessions/{id}/moves", {"move": "b4"}, 422, "expected"),
        ("post", "/api/sessions/{id}/moves", {}, 422, "Field required"),
        ("post", "/api/sessions/{id}/undo", {"count": 5}, 422, "cannot undo 5 moves"),
        ("post", "/api/sessions/{id}/undo", {"count": 0}, 422, "greater than or equal to 1"),
        ("post", "/api/sessions/{id}/load", {"position": "x"}, 422, "'x'"),
        ("post", "/api/sessions/{id}/think", {"level": 9}, 422, "level 9 is out of range"),
        ("post", "/api/sessions/{id}/think", {"time": -1}, 422, "greater than 0"),
        ("get", "/api/sessions/{id}/explain?depth=0", None, 422, "greater than or equal to 1"),
        ("get", "/api/sessions/{id}/explain?depth=4&max_nodes=50", None, 422, "more than 50 nodes"),
        ("get", "/api/sessions/{id}/explain?algorithm=engine", None, 422, "alphabeta"),
    ],
)
def test_bad_input_answers_4xx(
    client: TestClient, method: str, path: str, body: Any, status: int, message: str
) -> None:
    sid = new(client, moves=["b2"])["id"]
    url = path.replace("{id}", sid)
    response = client.request(method.upper(), url, json=body)
    assert response.status_code == status, response.text[:500]
    assert message in response.text
    # the session is unchanged by a rejected request
    assert client.get(f"/api/sessions/{sid}").json()["moves"] == ["b2"]


def test_malformed_json_is_a_4xx(client: TestClient) -> None:
    response = client.post(
        "/api/sessions", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    game=st.sampled_from(sorted(GAMES)),
    position=st.none() | st.text(max_size=30),
    moves=st.lists(st.text(max_size=6), max_size=4),
)
def test_never_a_500(client: TestClient, game: str, position: str | None, moves: list[str]) -> None:
    response = client.post(
        "/api/sessions", json={"game": game, "position": position, "moves": moves}
    )
    assert response.status_code in (201, 422), response.text
    if response.status_code == 422:
        assert response.json()["detail"]


def test_finished_game_cannot_think(client: TestClient) -> None:
    sid = new(client, position="xxx/oo./...")["id"]
    response = client.post(f"/api/sessions/{sid}/think", json={})
    assert response.status_code == 422 and "the game is over" in response.text
    assert client.get(f"/api/sessions/{sid}/explain").status_code == 422


def test_think_plays_the_move(client: TestClient) -> None:
    state = new(client, moves=["b2", "a1", "c2"])
    answer = client.post(f"/api/sessions/{state['id']}/think", json={"depth": 0, "play": True})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    result = data["result"]
    # X threatens a2: every other move loses, so the perfect player blocks
    assert result["best_moves"] == ["a2"] and result["solved"] and result["played"]
    assert data["state"]["moves"] == ["b2", "a1", "c2", "a2"]
    assert [info["depth"] for info in data["iterations"]] == sorted(
        info["depth"] for info in data["iterations"]
    )
    wait_until_no_searches()


def test_think_with_mcts_proves_the_block(client: TestClient) -> None:
    state = new(client, moves=["b2", "a1", "c2"])
    body = {"depth": 0, "engine": "mcts", "seed": 1, "time": 60}
    answer = client.post(f"/api/sessions/{state['id']}/think", json=body)
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    # every move but a2 loses: the solver proves it and MCTS blocks
    assert result["best_move"] == "a2" and result["solved"] and result["complete"]
    wait_until_no_searches()


def test_value_words_come_from_the_server(client: TestClient) -> None:
    # O to move and lost in 4 plies: the words for the side to move and for the first player
    state = new(client, moves=["a1", "b1", "b2"])
    answer = client.post(f"/api/sessions/{state['id']}/think", json={"depth": 0})
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert result["value"] == -(WIN - 4) and result["solved"]
    assert result["value_text"] == "loss in 4 plies"
    assert result["value_text_first"] == "win in 4 plies"
    for info in answer.json()["iterations"]:
        assert info["value_text"] == describe(info["value"], solved=info["solved"])
        assert info["value_text_first"] == describe(-info["value"])
    wait_until_no_searches()


def test_explain_matches_the_real_search(client: TestClient) -> None:
    sid = new(client, "connect4", moves=["44"])["id"]
    tree = client.get(f"/api/sessions/{sid}/explain", params={"depth": 3}).json()
    game = get_game("connect4").from_position("44")
    real = search(game, algorithm="alphabeta", limit=Limit(depth=3), table=False)
    assert tree["value"] == real.value and tree["nodes"] == real.stats.nodes
    assert tree["value_text"] == describe(real.value)
    assert tree["best_move"] == game.format_move(real.best_move)
    root = tree["root"]
    assert root["chosen"] and root["max"] and len(root["children"]) == 7
    assert sum(child["chosen"] for child in root["children"]) == 1
    minimax = client.get(f"/api/sessions/{sid}/explain?depth=3&algorithm=minimax").json()
    assert minimax["value"] == tree["value"] and minimax["nodes"] == 1 + 7 + 49 + 343
    assert minimax["cutoffs"] == 0 and tree["cutoffs"] > 0


def test_openapi(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    for path in (
        "/api/games",
        "/api/sessions",
        "/api/sessions/{session_id}/moves",
        "/api/sessions/{session_id}/undo",
        "/api/sessions/{session_id}/load",
        "/api/sessions/{session_id}/think",
        "/api/sessions/{session_id}/explain",
    ):
        assert path in schema["paths"]
    assert client.get("/").status_code == 200
    assert client.get("/static/boards/index.js").status_code == 200


def test_the_page_is_served_without_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # A thread hand-over waits for the thread to be scheduled: on a loaded machine the page
    # took up to half a second that way while the health check took milliseconds.
    with TestClient(create_app()) as fresh:

        def no_thread(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("the page's files went through a thread")

        monkeypatch.setattr(anyio.to_thread, "run_sync", no_thread)
        page = fresh.get("/")
        assert page.status_code == 200 and "<html" in page.text
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        script = fresh.get("/static/boards/index.js")
        assert script.status_code == 200 and "text/javascript" in script.headers["content-type"]
        unchanged = fresh.get("/static/app.js", headers={"if-none-match": script.headers["etag"]})
        assert unchanged.status_code == 200  # another file's tag
        tag = fresh.get("/static/app.js").headers["etag"]
        assert fresh.get("/static/app.js", headers={"if-none-match": tag}).status_code == 304
        for missing in ("/static/nope.js", "/static/../app.py", "/static/boards", "/static/"):
            assert fresh.get(missing).status_code == 404
        assert fresh.post("/static/app.js").status_code == 405


# -- the websocket --------------------------------------------------------------------------


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


def test_live_think_streams_iterations(client: TestClient) -> None:
    sid = new(client, "connect4", moves=["4453"])["id"]
    with client.websocket_connect(f"/api/sessions/{sid}/live") as socket:
        socket.send_json({"action": "think", "depth": 5, "play": True, "seed": 1})
        events = events_until_done(socket)
    assert events[0] == {"type": "started", "action": "think"}
    infos = [e for e in events if e["type"] == "info"]
    assert [e["depth"] for e in infos] == [1, 2, 3, 4, 5]
    for info in infos:
        assert info["nodes"] > 0 and info["pv"] and "nps" in info and "value_text" in info
    done = events[-1]
    assert done["type"] == "done" and done["played"] and done["state"]["ply"] == 5
    assert done["state"]["moves"][-1] == done["best_move"]
    wait_until_no_searches()


def test_live_compare_streams_rows(client: TestClient) -> None:
    sid = new(client, moves=["b2"])["id"]
    with client.websocket_connect(f"/api/sessions/{sid}/live") as socket:
        socket.send_json({"action": "compare", "depth": 2})
        events = events_until_done(socket)
    rows = [e for e in events if e["type"] == "row"]
    assert len(rows) == 2 * 16 + 1 and events[-1] == {"type": "done", "complete": True}
    assert {row["depth"] for row in rows} == {1, 2}
    engine = [
        r
        for r in rows
        if (r["algorithm"], r["table"], r["best"], r["depth"]) == ("engine", "table", "one", 2)
    ]
    assert rows[-1]["algorithm"] == "mcts" and rows[-1]["nodes"] == engine[0]["nodes"]
    wait_until_no_searches()


def test_live_bad_messages_keep_the_socket(client: TestClient) -> None:
    sid = new(client, position="xxx/oo./...")["id"]
    with client.websocket_connect(f"/api/sessions/{sid}/live") as socket:
        socket.send_text("not json")
        assert "bad message" in socket.receive_json()["message"]
        socket.send_json({"action": "fly"})
        assert "bad message" in socket.receive_json()["message"]
        socket.send_json({"action": "compare", "depth": 99})
        assert "less than or equal to 12" in socket.receive_json()["message"]
        socket.send_json({"action": "think"})
        assert "the game is over" in socket.receive_json()["message"]
    with client.websocket_connect("/api/sessions/nope/live") as socket:
        assert "unknown session" in socket.receive_json()["message"]


def test_stop_keeps_the_last_iteration(client: TestClient) -> None:
    sid = new(client, "connect4")["id"]
    with client.websocket_connect(f"/api/sessions/{sid}/live") as socket:
        socket.send_json({"action": "think", "depth": 0, "time": 60})
        assert socket.receive_json()["type"] == "started"
        first = next_event(socket)
        assert first["type"] == "info"
        socket.send_json({"action": "stop"})
        events = events_until_done(socket)
    done = events[-1]
    assert done["type"] == "done" and not done["complete"] and done["best_move"]
    assert "state" in done and done.get("played") is None  # not asked to play
    wait_until_no_searches()


def test_closing_the_socket_stops_its_search_and_the_server_stays_responsive(
    client: TestClient,
) -> None:
    sids = [new(client, "connect4")["id"] for _ in range(2)]
    with (
        client.websocket_connect(f"/api/sessions/{sids[0]}/live") as first,
        client.websocket_connect(f"/api/sessions/{sids[1]}/live") as second,
    ):
        for socket in (first, second):
            socket.send_json({"action": "think", "depth": 0, "time": 60})
            assert socket.receive_json()["type"] == "started"
            assert next_event(socket)["type"] == "info"
        assert client.get("/api/health").json()["searches"] == 2
        processes = [job.process for job in Job.running]
        # two searches are running flat out (in processes of their own); the server answers
        # meanwhile: every answer came while both still ran
        for _ in range(5):
            assert client.get("/api/games").status_code == 200
        assert len(processes) == 2 and all(process.is_alive() for process in processes)
        assert client.get("/api/health").json()["searches"] == 2
    # the tabs are closed: the server has ended both searches (long before their 60 s), and
    # their processes are reaped
    wait_until_no_searches()
    assert not any(process.is_alive() for process in processes)
    assert client.get("/api/health").json()["searches"] == 0


def test_compiled_engine_streams_too(client: TestClient) -> None:
    sid = new(client, "connect4", moves=["4453"])["id"]
    with client.websocket_connect(f"/api/sessions/{sid}/live") as socket:
        socket.send_json({"action": "think", "depth": 12, "engine": "compiled", "time": 60})
        events = events_until_done(socket)
    infos = [e for e in events if e["type"] == "info"]
    assert [e["depth"] for e in infos] == list(range(1, len(infos) + 1)) and len(infos) >= 10
    assert events[-1]["type"] == "done" and events[-1]["best_move"] in "1234567"
    wait_until_no_searches()
    response = client.post(
        f"/api/sessions/{new(client, 'tictactoe')['id']}/think", json={"engine": "gpu"}
    )
    assert response.status_code == 422


def test_other_sites_cannot_drive_searches(client: TestClient) -> None:
    sid = new(client)["id"]
    with (
        pytest.raises(WebSocketDenialResponse) as refused,
        client.websocket_connect(
            f"/api/sessions/{sid}/live", headers={"origin": "http://elsewhere.example"}
        ),
    ):
        pass
    assert refused.value.status_code == 403 and "another site" in refused.value.json()["detail"]
    with client.websocket_connect(
        f"/api/sessions/{sid}/live", headers={"origin": "http://testserver"}
    ) as socket:
        socket.send_json({"action": "compare", "depth": 1})
        assert socket.receive_json()["type"] == "started"


def test_chess_state_and_the_tactical_engine_by_default(client: TestClient) -> None:
    fen = "8/4P3/8/8/8/8/k7/7K w - - 0 1"
    state = new(client, "chess", position=fen)
    assert state["position"] == fen and "e7e8q" in state["legal"] and "e7e8n" in state["legal"]
    state = client.post(f"/api/sessions/{state['id']}/moves", json={"move": "e7e8n"}).json()
    assert state["moves"] == ["e7e8n"] and state["position"].startswith("4N3/8/")
    assert state["in_check"] is False
    checked = new(client, "chess", moves=["f2f3", "e7e5", "g2g4", "d8h4"])
    assert checked["in_check"] is True and checked["result"]["text"] == "Black wins"
    assert new(client, "morris")["in_check"] is None  # a game without checks
    sid = new(client, "chess", moves=["e2e4", "e7e5"])["id"]
    with client.websocket_connect(f"/api/sessions/{sid}/live") as socket:
        socket.send_json({"action": "think", "depth": 3, "play": True, "time": 30})
        events = events_until_done(socket)
    infos = [e for e in events if e["type"] == "info"]
    assert [e["depth"] for e in infos] == [1, 2, 3]
    done = events[-1]
    assert done["type"] == "done" and done["played"]
    assert done["state"]["moves"] == ["e2e4", "e7e5", done["best_move"]]
    # the generic engine would prove every best move (several at depth 1 in the start
    # position); the tactical engine names one
    assert all(len(e["best_moves"]) == 1 for e in infos)
    wait_until_no_searches()


def test_morris_variants_play_with_removals(client: TestClient) -> None:
    # White to place on g7 closes the mill a7 d7 g7 and removes a black man
    state = new(client, "morris", position="WW.BB................... w 7 7")
    assert {"g7xb6", "g7xd6"} <= set(state["legal"]) and "g7" not in state["legal"]
    state = client.post(f"/api/sessions/{state['id']}/moves", json={"move": "g7xd6"}).json()
    assert state["position"] == "WWWB.................... b 6 7"
    six = new(client, "morris:six")
    assert six["game"] == "morris:six" and six["position"] == "................ w 6 6"
    assert len(six["legal"]) == 16
    twelve = new(client, "morris:twelve")
    assert twelve["position"].endswith(" w 12 12")


def test_chess_states_carry_the_moves_in_san(client: TestClient) -> None:
    state = new(client, "chess", moves=["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"])
    assert state["san"] == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
    state = client.post(f"/api/sessions/{state['id']}/moves", json={"move": "b5c6"}).json()
    assert state["san"][-1] == "Bxc6" and state["moves"][-1] == "b5c6"
    assert new(client, "chess", position="3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", moves=["e1c1"])[
        "san"
    ] == ["O-O-O+"]
    assert new(client, "connect4", moves=["44"])["san"] is None


def test_games_offer_explain_depths_the_server_accepts(client: TestClient) -> None:
    depths = {
        game["name"]: game["explain_depth"] for game in client.get("/api/games").json()["games"]
    }
    assert depths["tictactoe"] == 4 and depths["chess"] == 2 and depths["morris"] == 2
    for name, depth in depths.items():  # the offered depth is accepted from the start...
        sid = new(client, name)["id"]
        for algorithm in ("minimax", "alphabeta"):
            answer = client.get(f"/api/sessions/{sid}/explain?depth={depth}&algorithm={algorithm}")
            assert answer.status_code == 200, (name, answer.json())
        # ... and it is the deepest whole minimax tree the server draws
        deeper = client.get(f"/api/sessions/{sid}/explain?depth={depth + 1}&algorithm=minimax")
        assert deeper.status_code == 422 and "more than 5,000 nodes" in deeper.json()["detail"]


def test_explain_gives_its_value_for_the_first_player_too(client: TestClient) -> None:
    # X to move wins at once (c3); one X move later O to move loses within two plies
    sid = new(client, "tictactoe", moves=["a1", "b1", "b2", "c1"])["id"]
    tree = client.get(f"/api/sessions/{sid}/explain?depth=1").json()
    assert tree["side_to_move"] == 0 and tree["value_text_first"] == tree["value_text"]
    assert tree["value_text"] == "win in 1 ply"
    sid = new(client, "tictactoe", moves=["a1", "b1", "b2", "c1", "a2"])["id"]
    tree = client.get(f"/api/sessions/{sid}/explain?depth=2").json()
    assert tree["side_to_move"] == 1 and tree["value_text"] == "loss in 2 plies"
    assert tree["value_text_first"] == "win in 2 plies"


def test_mcts_reports_its_root_visits_live(client: TestClient) -> None:
    sid = new(client, "connect4", moves=["4", "4"])["id"]
    with client.websocket_connect(f"/api/sessions/{sid}/live") as socket:
        socket.send_json({"action": "think", "engine": "mcts", "depth": 3, "seed": 1})
        events = events_until_done(socket)
    infos = [e for e in events if e["type"] == "info"]
    assert infos and all(len(e["visits"]) == 7 for e in [*infos, events[-1]])
    totals = [sum(v["visits"] for v in e["visits"]) for e in infos]
    assert totals == sorted(totals) and totals[-1] == events[-1]["nodes"]
    assert events[-1]["visits"][0]["move"] == events[-1]["best_move"]
    sid = new(client, "connect4")["id"]
    with client.websocket_connect(f"/api/sessions/{sid}/live") as socket:
        socket.send_json({"action": "think", "depth": 2})
        assert all("visits" not in e for e in events_until_done(socket))
    wait_until_no_searches()
