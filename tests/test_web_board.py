"""The page as an analysis board, in a real browser (see ``web_browser``): the move list in the
game's notation (SAN for chess) with full-move numbers, stepping through the line by click and
by keyboard, branching, the best move on the board, the evaluation graph, one score convention,
check, the explain depths the server accepts, MCTS's visit bars, the compare chart's identical
lines, the layout at desktop and phone widths, a session the server lost, and a server busy with
other searches.
"""

from __future__ import annotations

import json
import re
import socket
import time

import httpx
from playwright.sync_api import Page, expect
from waiting import HANG_MS, HANG_S
from web_browser import (  # the fixtures; importing web_browser skips without chromium
    ARTIFACTS,
    LocalServer,
    browser_fixture,  # noqa: F401
    local_server_fixture,  # noqa: F401
    moves_in_list,
    open_game,
    page_fixture,  # noqa: F401
    server_fixture,  # noqa: F401
)


def click_cell(page: Page, cell: str, played: int) -> None:
    """Play a tic-tac-toe cell; wait until the move list holds ``played`` moves."""
    page.click(f"#board [data-move='{cell}'].legal")
    expect(page.locator("#movelist .move")).to_have_count(played)


def current(page: Page) -> str:
    return page.locator("#movelist .move.current").inner_text()


def test_stepping_through_the_line_branching_and_the_best_move(server: str, page: Page) -> None:
    open_game(page, server, "tictactoe")
    page.select_option("#side", "both")
    for played, cell in enumerate(("a1", "b2", "c3"), start=1):
        click_cell(page, cell, played)
    # two full moves: X and O, then X
    expect(page.locator("#movelist li")).to_have_text(["1.a1b2", "2.c3"])
    expect(page.locator("#movelist .move.current")).to_have_text("c3")

    # the arrow keys step back (the rest of the line stays), Home and End jump
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#movelist .move.current")).to_have_text("a1")
    expect(page.locator("#board [data-move='b2'] .stone-o")).to_have_count(0)
    expect(page.locator("#status")).to_contain_text("(move 1 of 3")
    assert moves_in_list(page) == ["a1", "b2", "c3"]
    page.keyboard.press("End")
    expect(page.locator("#movelist .move.current")).to_have_text("c3")
    page.keyboard.press("Home")
    expect(page.locator("#movelist .move.current")).to_have_count(0)
    expect(page.locator("#board [data-move].legal")).to_have_count(9)
    # a click on a move shows the position after it; the buttons step too
    page.click("#movelist .move[data-ply='2']")
    expect(page.locator("#movelist .move.current")).to_have_text("b2")
    page.click("#back")
    expect(page.locator("#movelist .move.current")).to_have_text("a1")

    # playing the line's next move keeps the line; another move cuts it there
    click_cell(page, "b2", 3)  # the list already held three moves: wait for the step itself
    expect(page.locator("#movelist .move.current")).to_have_text("b2")
    assert moves_in_list(page) == ["a1", "b2", "c3"]
    page.click("#board [data-move='a3'].legal")
    expect(page.locator("#movelist .move")).to_have_text(["a1", "b2", "a3"])
    expect(page.locator("#movelist .move.current")).to_have_text("a3")
    expect(page.locator("#status")).to_have_text("O to move.")

    # analysis: the best move marked on the board, the value for X in the bar's words, the
    # table and the evaluation graph (a point at this position)
    page.click("#analyze")
    expect(page.locator("#thinking")).to_be_hidden()  # tic-tac-toe is solved at once
    # the mark is the move the search chose, one of its best moves
    expect(page.locator("#board rect.hint")).to_have_count(1)
    best = page.locator("#board rect.hint").get_attribute("data-move")
    assert best in page.locator("#f-best").inner_text().split()
    expect(page.locator("#evaltext")).to_have_text(re.compile(r"^evaluation for X: "))
    expect(page.locator("#f-score")).to_have_text(re.compile(r" for X$"))
    expect(page.locator("#iterations-score")).to_have_text("score for X")
    expect(page.locator("#evalgraph circle.graph-point[data-ply='3']")).to_have_count(1)
    page.screenshot(path=str(ARTIFACTS / "board-analysis.png"), full_page=True)
    # away and back: the position keeps what its search found
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#board .hint")).to_have_count(0)
    expect(page.locator("#evaltext")).to_have_text("evaluation for X: \N{EN DASH}")
    page.keyboard.press("ArrowRight")
    expect(page.locator(f"#board rect.hint[data-move='{best}']")).to_have_count(1)
    # the graph steps to a position too
    page.locator("#evalgraph svg").click(position={"x": 10, "y": 50})
    expect(page.locator("#movelist .move.current")).to_have_count(0)

    # the explain tree offers the depths the server accepts for the game, values for X
    assert page.locator("#explain-depth option").all_inner_texts() == ["1", "2", "3", "4"]
    page.click("#explain-run")
    expect(page.locator("#explain-summary")).to_contain_text("for X, best ")


def test_chess_san_check_mate_and_the_arrow(server: str, page: Page) -> None:
    open_game(page, server, "chess")
    assert page.locator("#explain-depth option").all_inner_texts() == ["1", "2"]
    page.select_option("#side", "both")
    page.fill("#moves", "e2e4 f7f6 d1h5")
    page.click("#load")
    expect(page.locator("#movelist li")).to_have_text(["1.e4f6", "2.Qh5+"])
    expect(page.locator("#status")).to_have_text("Black to move, in check.")
    expect(page.locator("#board [data-square='e8'] rect.check")).to_have_count(1)

    # Black to move in the start position: the list starts at its full move with "12…"
    page.fill("#position", "6k1/5ppp/8/2p5/8/8/8/R5K1 b - - 0 12")
    page.fill("#moves", "c5c4")
    page.click("#load")
    expect(page.locator("#movelist li")).to_have_text(["12…c4"])
    # White mates in one: the search's best move is an arrow a1 -> a8
    page.click("#analyze")
    expect(page.locator("#board .hint-arrow[data-move='a1a8']")).to_have_count(1)
    expect(page.locator("#thinking")).to_be_hidden()  # a mate ends the analysis
    expect(page.locator("#evaltext")).to_have_text("evaluation for White: win in 1 ply")
    page.screenshot(path=str(ARTIFACTS / "chess-arrow.png"), full_page=True)
    page.click("#board [data-square='a1']")
    page.click("#board [data-square='a8']")
    expect(page.locator("#movelist li")).to_have_text(["12…c4", "13.Ra8#"])
    expect(page.locator("#status")).to_have_text("Game over: checkmate, White wins.")
    expect(page.locator("#evaltext")).to_have_text("evaluation for White: won")


def test_mcts_visit_bars_grow_while_it_searches(server: str, page: Page) -> None:
    open_game(page, server, "connect4")
    page.select_option("#side", "both")
    page.select_option("#engine-kind", "mcts")
    page.click("#analyze")
    expect(page.locator("#visits .visit")).to_have_count(7)
    first = int(page.locator("#visits").get_attribute("data-total") or 0)
    # a later iteration redraws the bars with more simulations
    page.wait_for_function(
        f"() => Number(document.querySelector('#visits').dataset.total) > {first}",
        timeout=HANG_MS,
    )
    page.click("#stop")
    expect(page.locator("#thinking")).to_be_hidden()
    bars = page.locator("#visits .visit")
    counts = [int(v) for v in bars.evaluate_all("rows => rows.map(r => r.dataset.visits)")]
    assert counts == sorted(counts, reverse=True) and sum(counts) > first
    best = page.locator("#visits .visit.best").get_attribute("data-move")
    expect(page.locator("#f-best")).to_have_text(best or "?")
    expect(page.locator(f"#board .hint[data-move='{best}']")).to_have_count(1)
    page.screenshot(path=str(ARTIFACTS / "mcts-visits.png"), full_page=True)


def test_compare_lines_that_coincide_stay_visible(server: str, page: Page) -> None:
    open_game(page, server, "tictactoe")
    page.click(".tab[data-tab=compare]")
    page.select_option("#compare-depth", "2")
    page.click("#compare-run")
    expect(page.locator("#compare-summary")).to_have_text("done", timeout=HANG_MS)
    # minimax and negamax count the same nodes: both drawn, apart, and the legend says so
    marks = {
        name: page.locator(f"#chart g[data-series='{name}'] .point").evaluate_all(
            "ps => ps.map(p => p.getBBox()).map(b => [b.x + b.width / 2, b.y + b.height / 2])"
        )
        for name in ("minimax", "negamax")
    }
    assert len(marks["minimax"]) == len(marks["negamax"]) == 2
    for (x1, y1), (x2, y2) in zip(marks["minimax"], marks["negamax"], strict=True):
        assert abs(y1 - y2) < 1 and abs(x1 - x2) >= 2
    tags = page.locator("#chart g[data-series] .point:first-of-type").evaluate_all(
        "ps => ps.map(p => p.tagName)"
    )
    assert len(set(tags)) >= 3  # circles, squares and triangles (polygons)
    expect(page.locator("#chart text[data-series='negamax']")).to_have_text("negamax (= minimax)")
    expect(page.locator("#compare-value")).to_have_text("score for X")
    page.screenshot(path=str(ARTIFACTS / "compare-chart.png"), full_page=True)


def test_header_on_one_line_and_no_overflow_on_a_phone(server: str, page: Page) -> None:
    for game in ("chess", "morris:twelve"):
        page.set_viewport_size({"width": 1440, "height": 900})
        open_game(page, server, game)
        tops = page.locator("header > *").evaluate_all(
            "items => items.map(e => e.getBoundingClientRect()).map(r => [r.top, r.bottom])"
        )
        # one line: every item of the header overlaps every other vertically
        assert max(top for top, _ in tops) < min(bottom for _, bottom in tops), (game, tops)
        page.set_viewport_size({"width": 390, "height": 800})
        expect(page.locator("#board svg")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, game
    page.screenshot(path=str(ARTIFACTS / "phone.png"), full_page=True)


def test_a_lost_session_is_set_up_again_from_the_page(
    local_server: LocalServer, page: Page
) -> None:
    open_game(page, local_server.url, "morris:six")
    page.select_option("#side", "both")
    for played, point in enumerate(("a7", "b4"), start=1):
        page.click(f"#board [data-point='{point}']")
        expect(page.locator("#movelist .move")).to_have_count(played)

    local_server.restart()  # the server forgets every session
    page.click("#board [data-point='f6']")
    expect(page.locator("#movelist .move")).to_have_text(["a7", "b4", "f6"])
    expect(page.locator("#notice")).to_contain_text("set up again")
    expect(page.locator("#board [data-point='f6'] .man-white")).to_have_count(1)
    expect(page.locator("#error")).to_be_empty()
    health = page.request.get(f"{local_server.url}/api/health").json()
    assert health["sessions"] == 1

    # a search over the websocket after another restart: set up again, then it runs
    local_server.restart()
    page.click("#analyze")
    expect(page.locator("#iterations tbody tr").first).to_be_visible()
    page.click("#stop")
    expect(page.locator("#thinking")).to_be_hidden()
    # the best move's points are marked on the morris board
    expect(page.locator("#board circle.hint").first).to_be_visible()
    best = page.locator("#board circle.hint").first.get_attribute("data-move")
    assert best in page.locator("#f-best").inner_text().split()
    expect(page.locator("#movelist .move")).to_have_text(["a7", "b4", "f6"])
    expect(page.locator("#error")).to_be_empty()

    # a restart while a search runs: the page asks again (its figures start over) and the
    # search runs on the new server
    page.click("#analyze")
    expect(page.locator("#iterations tbody tr").first).to_be_visible()
    # every notice shown from now on (the next may replace this one within milliseconds)
    page.evaluate(
        """() => {
          window.notices = [];
          new MutationObserver(() => window.notices.push(document.querySelector('#notice')
            .textContent)).observe(document.querySelector('#notice'), {childList: true});
        }"""
    )
    local_server.restart()
    page.wait_for_function(
        "() => window.notices.some((text) => text.includes('asking again'))", timeout=HANG_MS
    )
    page.wait_for_function(
        "() => document.querySelectorAll('#iterations tbody tr').length > 0", timeout=HANG_MS
    )
    expect(page.locator("#thinking")).to_be_visible()
    expect(page.locator("#stop")).to_be_enabled()
    page.click("#stop")
    expect(page.locator("#thinking")).to_be_hidden()
    expect(page.locator("#error")).to_be_empty()
    assert page.request.get(f"{local_server.url}/api/health").json()["sessions"] == 1

    # and New game after yet another
    local_server.restart()
    page.click("#new")
    expect(page.locator("#movelist .move")).to_have_count(0)
    expect(page.locator("#error")).to_be_empty()
    expect(page.locator("#status")).to_have_text(re.compile(r"^White .*to move\.$"))


def test_a_busy_server_is_asked_again_when_it_names(page: Page) -> None:
    served = LocalServer(max_searches=1)  # one search at a time: a second one gets a 429
    try:
        client = httpx.Client(base_url=served.url, timeout=HANG_S)
        other = client.post("/api/sessions", json={"game": "connect4"}).json()["id"]
        # Another tab's search holds the only slot until its connection closes (the server
        # ends a think whose client leaves), however long the page takes to open.
        body = json.dumps({"depth": 0, "time": 60}).encode()
        holder = socket.create_connection(("127.0.0.1", served.port))
        holder.sendall(
            f"POST /api/sessions/{other}/think HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        deadline = time.monotonic() + HANG_S  # only ends a hang
        while client.get("/api/health").json()["searches"] < 1:
            assert time.monotonic() < deadline, "the other tab's search never ran"
            time.sleep(0.05)

        page.clock.install()  # the page's wait before asking again is run forward below
        open_game(page, served.url, "connect4")
        page.click("#analyze")
        expect(page.locator("#notice")).to_contain_text("busy with other searches")
        expect(page.locator("#error")).to_be_empty()
        holder.close()  # the other tab leaves: its search ends and frees the slot
        while client.get("/api/health").json()["searches"] > 0:
            assert time.monotonic() < deadline + HANG_S, "the other tab's search never ended"
            time.sleep(0.05)
        page.clock.fast_forward(61_000)  # past the longest wait a busy server names
        # once the other search has ended the page's own runs, without a click
        page.wait_for_function(
            "() => document.querySelectorAll('#iterations tbody tr').length > 0", timeout=HANG_MS
        )
        page.click("#stop")
        expect(page.locator("#thinking")).to_be_hidden()
        expect(page.locator("#error")).to_be_empty()
        client.close()
    finally:
        served.stop()
