"""The page in a real browser: Debian's Chromium driven by Playwright (no browser download).

Starts ``zerosum serve`` on a free port, plays a full game of tic-tac-toe and a few connect
four moves by clicking the boards, checks the live figures, the Explain tree and the Compare
chart appear, and saves screenshots into ``artifacts/`` (git-ignored).
"""

from __future__ import annotations

import dataclasses
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from playwright.sync_api import Browser, Page, expect
from waiting import HANG_MS, HANG_S, wait_until
from web_browser import (  # the fixtures; importing web_browser skips without chromium
    ARTIFACTS,
    LocalServer,
    browser_fixture,  # noqa: F401
    open_game,
    page_fixture,  # noqa: F401
    server_fixture,  # noqa: F401
)

from zerosum.games import GAMES, get_game, register, unregister
from zerosum.web.app import create_app
from zerosum.web.jobs import Job, Searches


def wait_for_more_moves(page: Page, played: int) -> None:
    """Wait until the server has taken the move just clicked (the list grows past ``played``)."""
    page.wait_for_function(
        f"() => document.querySelectorAll('#movelist .move').length > {played}", timeout=HANG_MS
    )


def wait_for_my_turn(page: Page) -> None:
    page.wait_for_function(
        "() => document.querySelector('#status').dataset.over === 'yes'"
        " || document.querySelector('#board [data-move].legal') !== null",
        timeout=HANG_MS,
    )


def test_full_tictactoe_game(server: str, page: Page) -> None:
    open_game(page, server, "tictactoe")
    page.select_option("#level", "1")
    page.fill("#think-time", "2")
    clicks = 0
    while page.locator("#status").get_attribute("data-over") != "yes":
        wait_for_my_turn(page)
        if page.locator("#status").get_attribute("data-over") == "yes":
            break
        played = page.locator("#movelist .move").count()
        page.locator("#board [data-move].legal").first.click()
        clicks += 1
        wait_for_more_moves(page, played)
        wait_for_my_turn(page)
    assert 3 <= clicks <= 5
    expect(page.locator("#status")).to_contain_text("Game over")
    # the computer's last search left its live figures
    expect(page.locator("#f-depth")).not_to_have_text("\u2013")  # the dash of no figure yet
    assert page.locator("#f-nodes").inner_text().replace(",", "").isdigit()
    assert page.locator("#iterations tbody tr").count() >= 1
    assert len(page.locator("#movelist .move").all()) >= 5
    # the final position's value for the first player: its result
    words = r"won|lost|a draw"
    expect(page.locator("#evaltext")).to_have_text(re.compile(rf"evaluation for X: ({words})$"))
    page.screenshot(path=str(ARTIFACTS / "tictactoe-game.png"), full_page=True)

    # undo twice back into the game, then explain the position as a tree
    page.click("#undo")
    expect(page.locator("#status")).not_to_contain_text("Game over")
    page.click("#new")
    expect(page.locator("#movelist .move")).to_have_count(0)
    page.select_option("#explain-depth", "3")
    page.click("#explain-run")
    expect(page.locator("#tree svg .node").first).to_be_visible()
    assert page.locator("#tree svg .node").count() > 10
    assert page.locator("#tree svg .edge.pruned").count() > 0
    assert page.locator("#tree svg .edge.chosen").count() == 3
    expect(page.locator("#explain-summary")).to_contain_text("cut-offs")
    page.screenshot(path=str(ARTIFACTS / "tictactoe-explain.png"), full_page=True)
    page.select_option("#explain-depth", "2")
    page.click("#explain-run")
    expect(page.locator("#explain-summary")).to_contain_text(" 26 nodes")
    page.screenshot(path=str(ARTIFACTS / "tictactoe-explain-depth2.png"), full_page=True)
    page.check("input[name=explain-algo][value=minimax]")
    page.click("#explain-run")
    expect(page.locator("#explain-summary")).to_have_text(
        re.compile(r"^minimax: value ([+-]\d+|0) for X, ")
    )
    assert page.locator("#tree svg .edge.pruned").count() == 0


def test_connect4_moves_analysis_and_compare(server: str, page: Page) -> None:
    open_game(page, server, "connect4")
    page.select_option("#level", "2")
    for played, column in enumerate(("4", "3", "5")):
        wait_for_my_turn(page)
        page.locator(f"#board [data-move='{column}'].legal").click()
        wait_for_more_moves(page, 2 * played)
        wait_for_my_turn(page)
    expect(page.locator("#movelist .move")).to_have_count(6)
    expect(page.locator("#f-depth")).to_have_text("4")
    page.screenshot(path=str(ARTIFACTS / "connect4-game.png"), full_page=True)

    # analysis streams iterations until stopped
    page.click("#analyze")
    expect(page.locator("#thinking")).to_be_visible()
    page.wait_for_function(
        "() => document.querySelectorAll('#iterations tbody tr').length >= 3", timeout=HANG_MS
    )
    page.screenshot(path=str(ARTIFACTS / "connect4-analysis.png"), full_page=True)
    page.click("#stop")
    expect(page.locator("#thinking")).to_be_hidden(timeout=HANG_MS)
    expect(page.locator("#movelist .move")).to_have_count(6)  # analysis plays nothing

    page.select_option("#explain-depth", "3")
    page.click("#explain-run")
    expect(page.locator("#explain-summary")).to_contain_text("cut-offs")
    assert page.locator("#tree svg .edge.chosen").count() == 3
    page.screenshot(path=str(ARTIFACTS / "connect4-explain.png"), full_page=True)

    page.click(".tab[data-tab=compare]")
    page.select_option("#compare-depth", "3")
    page.click("#compare-run")
    expect(page.locator("#compare-summary")).to_have_text("done", timeout=HANG_MS)
    assert page.locator("#chart svg path.series").count() >= 4
    assert page.locator("#compare-table tbody tr").count() == 3 * 16 + 1  # MCTS last
    expect(page.locator("#compare-table tbody tr").last).to_contain_text("mcts")
    page.screenshot(path=str(ARTIFACTS / "connect4-compare.png"), full_page=True)


def test_position_load_and_bad_input(server: str, page: Page) -> None:
    open_game(page, server, "tictactoe")
    page.select_option("#side", "both")
    page.fill("#position", "xo./.x./...")
    page.click("#load")
    expect(page.locator("#status")).to_have_text("O to move.")
    expect(page.locator("#board [data-move='c3'].legal")).to_have_count(1)
    page.fill("#position", "xxxx")
    page.click("#load")
    expect(page.locator("#error")).not_to_be_empty()
    expect(page.locator("#status")).to_have_text("O to move.")


def test_closing_the_tab_ends_its_search(browser: Browser, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[Job] = []
    start = Searches.start

    def recorded(searches: Searches, *args: Any, **kwargs: Any) -> Job:
        job = start(searches, *args, **kwargs)
        started.append(job)
        return job

    monkeypatch.setattr(Searches, "start", recorded)
    served = LocalServer()
    try:
        context = browser.new_context()
        context.set_default_timeout(HANG_MS)
        page = context.new_page()
        open_game(page, served.url, "connect4")
        page.click("#analyze")
        page.wait_for_function(
            "() => document.querySelectorAll('#iterations tbody tr').length >= 2",
            timeout=HANG_MS,
        )
        assert page.request.get(f"{served.url}/api/health").json()["searches"] >= 1
        context.close()
        probe = browser.new_context()
        probe.set_default_timeout(HANG_MS)
        wait_until(
            lambda: probe.request.get(f"{served.url}/api/health").json()["searches"] == 0,
            "the closed tab's search ended",
        )
        probe.close()
        # Ended by the tab's leaving, not by its 120 s time limit (which would have asked it
        # to stop first): however long the wait took on a loaded machine.
        assert started and not any(job.asked_to_stop for job in started)
    finally:
        served.stop()


@pytest.fixture
def server_with_a_boardless_game() -> Iterator[str]:
    """The app in this process with one more game that has no board renderer on the page."""
    spec = dataclasses.replace(
        get_game("tictactoe"), name="plain", title="Plain tic-tac-toe", board="generic"
    )
    register(spec)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + HANG_S  # ends a hang only
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=HANG_S)
        listener.close()
        unregister("plain")


def test_generic_board_for_a_game_without_one(
    server_with_a_boardless_game: str, page: Page
) -> None:
    open_game(page, server_with_a_boardless_game, "plain")
    titles = page.locator("#game option").all_inner_texts()
    assert titles == [
        get_game(name).title for spec in GAMES.values() for name in (spec.name, *spec.variants)
    ]
    page.select_option("#side", "both")
    expect(page.locator("#board .move-buttons button")).to_have_count(9)
    page.click("#board button[data-move='b2']")
    expect(page.locator("#movelist .move")).to_have_count(1)
    expect(page.locator("#board pre")).to_contain_text("X")
    expect(page.locator("#board .move-buttons button")).to_have_count(8)
    page.screenshot(path=str(ARTIFACTS / "generic-board.png"), full_page=True)


def morris_position(white: str, black: str, tail: str) -> str:
    """A nine men's morris position from the points of each side (checked by the game)."""
    from zerosum.games.morris_rules import NINE_POINTS

    board = "".join(
        "W" if point in white.split() else "B" if point in black.split() else "."
        for point in NINE_POINTS
    )
    text = f"{board} {tail}"
    get_game("morris").from_position(text)
    return text


def load(page: Page, position: str) -> None:
    page.select_option("#side", "both")
    page.fill("#position", position)
    page.fill("#moves", "")
    page.click("#load")
    expect(page.locator("#movelist .move")).to_have_count(0)


def test_morris_placements_mill_and_removal_by_clicking(server: str, page: Page) -> None:
    open_game(page, server, "morris")
    load(page, morris_position("a7 d7", "b6 d6", "w 7 7"))
    expect(page.locator("#board [data-point].legal")).to_have_count(20)
    expect(page.locator("#board .hand[data-side='0']")).to_have_attribute("data-count", "7")
    page.click("#board [data-point='a1']")  # White places
    expect(page.locator("#movelist .move")).to_have_count(1)
    page.click("#board [data-point='f4']")  # Black places
    expect(page.locator("#movelist .move")).to_have_count(2)
    page.click("#board [data-point='g7']")  # White closes the mill a7 d7 g7
    # the page now asks which black man to take: b6, d6 and f4, none of them in a mill
    removable = page.locator("#board [data-point].removable")
    expect(removable).to_have_count(3)
    assert sorted(removable.evaluate_all("els => els.map(e => e.dataset.point)")) == [
        "b6",
        "d6",
        "f4",
    ]
    expect(page.locator("#movelist .move")).to_have_count(2)  # nothing sent yet
    expect(page.locator("#board .hand[data-side='0']")).to_have_attribute("data-count", "5")
    page.screenshot(path=str(ARTIFACTS / "morris-removal.png"), full_page=True)
    page.click("#board [data-point='d6']")
    expect(page.locator("#movelist .move").last).to_contain_text("g7xd6")
    expect(page.locator("#board [data-point='d6'] .man-black")).to_have_count(0)
    expect(page.locator("#board [data-point='g7'] .man-white")).to_have_count(1)
    expect(page.locator("#board .hand[data-side='1']")).to_have_attribute("data-count", "6")

    # the movement phase: own man, then its target, then the man to remove: one move
    load(page, morris_position("a7 d7 g4 b2", "b6 d6 f2 c3", "w 0 0"))
    page.click("#board [data-point='g4']")
    expect(page.locator("#board [data-point='g4'].selected")).to_have_count(1)
    expect(page.locator("#board [data-point='g7'].legal")).to_have_count(1)
    page.click("#board [data-point='g7']")
    expect(page.locator("#board [data-point].removable")).to_have_count(4)
    page.click("#board [data-point='g7']")  # taken back: the man is at g4 again
    expect(page.locator("#board [data-point].removable")).to_have_count(0)
    expect(page.locator("#board [data-point='g4'] .man-white")).to_have_count(1)
    page.click("#board [data-point='g4']")
    page.click("#board [data-point='g7']")
    page.click("#board [data-point='c3']")
    expect(page.locator("#movelist .move").last).to_contain_text("g4-g7xc3")
    page.screenshot(path=str(ARTIFACTS / "morris-slide.png"), full_page=True)

    # the variants draw their own boards: six men's without the inner square, twelve's with
    # the diagonals
    page.select_option("#game", "morris:six")
    expect(page.locator("#board [data-point]")).to_have_count(16)
    expect(page.locator("#board line.morris-line")).to_have_count(12)
    page.select_option("#game", "morris:twelve")
    expect(page.locator("#board [data-point]")).to_have_count(24)
    expect(page.locator("#board line.morris-line")).to_have_count(20)
    expect(page.locator("#board .hand[data-side='1']")).to_have_attribute("data-count", "12")
    page.screenshot(path=str(ARTIFACTS / "morris-twelve.png"), full_page=True)


def test_chess_moves_promotion_and_flip_by_clicking(server: str, page: Page) -> None:
    open_game(page, server, "chess")
    page.select_option("#level", "1")
    page.fill("#think-time", "2")
    page.click("#board [data-square='e2']")
    expect(page.locator("#board [data-square].legal")).to_have_count(2)  # e3, e4
    page.click("#board [data-square='e4']")
    # the computer answers with the tactical engine and shows its figures
    expect(page.locator("#movelist .move")).to_have_count(2, timeout=HANG_MS)
    expect(page.locator("#movelist .move").first).to_have_text("e4")  # SAN
    expect(page.locator("#f-depth")).not_to_have_text("\u2013")
    expect(page.locator("#board [data-square='e4'] [data-piece='P']")).to_have_count(1)
    expect(page.locator("#board [data-square='e2'] rect.last-move")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "chess-game.png"), full_page=True)

    load(page, "r7/4P3/8/8/8/8/k7/7K w - - 0 1")
    page.click("#board [data-square='e7']")
    page.click("#board [data-square='e8']")
    expect(page.locator("#board .promotion-choice")).to_have_count(4)
    page.click("#board .promotion-veil", position={"x": 30, "y": 400})  # beside: taken back
    expect(page.locator("#board .promotion-choice")).to_have_count(0)
    page.click("#board [data-square='e7']")
    page.click("#board [data-square='e8']")
    expect(page.locator("#movelist .move")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "chess-promotion.png"), full_page=True)
    page.click("#board .promotion-choice[data-promotion='n']")
    expect(page.locator("#movelist li")).to_have_text(["1.e8=N"])
    expect(page.locator("#board [data-square='e8'] [data-piece='N']")).to_have_count(1)
    expect(page.locator("#board [data-square='e8'] rect.last-move")).to_have_count(1)

    def top(square: str) -> float:
        box = page.locator(f"#board [data-square='{square}'] rect").bounding_box()
        assert box is not None
        return box["y"]

    assert top("a8") < top("a1")
    page.select_option("#side", "1")  # playing Black turns the board to face you
    expect(page.locator("#board [data-square='a2'] [data-piece='k']")).to_have_count(1)
    assert top("a8") > top("a1")
    page.screenshot(path=str(ARTIFACTS / "chess-flipped.png"), full_page=True)
    page.click("#flip")
    assert top("a8") < top("a1")

    page.fill("#position", "")
    page.fill("#moves", "f2f3 e7e5 g2g4 d8h4")
    page.click("#load")
    expect(page.locator("#status")).to_have_text("Game over: checkmate, Black wins.")
    expect(page.locator("#board [data-square='e1'] rect.check")).to_have_count(1)
    page.screenshot(path=str(ARTIFACTS / "chess-mate.png"), full_page=True)


def test_the_computer_plays_with_mcts_on_any_game(server: str, page: Page) -> None:
    """The engine menu offers MCTS on every game (the compiled engine only with a kernel)."""
    open_game(page, server, "chess")
    compiled = page.locator('#engine-kind option[value="compiled"]')
    assert compiled.is_disabled()
    page.select_option("#side", "both")
    page.select_option("#engine-kind", "mcts")
    page.fill("#think-time", "0.5")
    page.click("#engine")
    expect(page.locator("#movelist .move")).to_have_count(1, timeout=HANG_MS)
    expect(page.locator("#f-nodes")).not_to_have_text("\u2013")
    open_game(page, server, "connect4")
    assert not page.locator('#engine-kind option[value="compiled"]').is_disabled()
