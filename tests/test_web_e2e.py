"""The page in a real browser: Debian's Chromium driven by Playwright (no browser download).

Starts ``zerosum serve`` on a free port, plays a full game of tic-tac-toe and a few connect
four moves by clicking the boards, checks the live figures, the Explain tree and the Compare
chart appear, and saves screenshots into ``artifacts/`` (git-ignored).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

if not CHROMIUM.exists():
    if os.environ.get("CI"):
        pytest.fail("Debian's chromium is missing: .ci/run installs it", pytrace=False)
    pytest.skip(
        "needs Debian's chromium at /usr/bin/chromium (.ci/run installs it)",
        allow_module_level=True,
    )

import uvicorn  # noqa: E402
from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

from zerosum.games import GAMES, get_game  # noqa: E402
from zerosum.web.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "zerosum.cli", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        errors = process.stderr.read() if process.stderr else ""
        pytest.fail(f"zerosum serve did not start: {line!r} {errors}")
    url = line.split("http://", 1)[1].split()[0].rstrip("/")
    yield f"http://{url}"
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"errors in the page: {errors}"


def open_game(page: Page, server: str, game: str) -> None:
    page.goto(f"{server}/?game={game}")
    expect(page.locator("body")).to_have_attribute("data-ready", "yes")
    expect(page.locator("#board svg, #board pre")).to_be_visible()


def wait_for_my_turn(page: Page) -> None:
    page.wait_for_function(
        "() => document.querySelector('#status').dataset.over === 'yes'"
        " || document.querySelector('#board [data-move].legal') !== null",
        timeout=20_000,
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
        page.locator("#board [data-move].legal").first.click()
        clicks += 1
        wait_for_my_turn(page)
    assert 3 <= clicks <= 5
    expect(page.locator("#status")).to_contain_text("Game over")
    # the computer's last search left its live figures
    expect(page.locator("#f-depth")).not_to_have_text("\u2013")  # the dash of no figure yet
    assert page.locator("#f-nodes").inner_text().replace(",", "").isdigit()
    assert page.locator("#iterations tbody tr").count() >= 1
    assert len(page.locator("#movelist li").all()) >= 5
    page.screenshot(path=str(ARTIFACTS / "tictactoe-game.png"), full_page=True)

    # undo twice back into the game, then explain the position as a tree
    page.click("#undo")
    expect(page.locator("#status")).not_to_contain_text("Game over")
    page.click("#new")
    expect(page.locator("#movelist li")).to_have_count(0)
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
    expect(page.locator("#explain-summary")).to_contain_text("minimax: value")
    assert page.locator("#tree svg .edge.pruned").count() == 0


def test_connect4_moves_analysis_and_compare(server: str, page: Page) -> None:
    open_game(page, server, "connect4")
    page.select_option("#level", "2")
    for column in ("4", "3", "5"):
        wait_for_my_turn(page)
        page.locator(f"#board [data-move='{column}'].legal").click()
        wait_for_my_turn(page)
    expect(page.locator("#movelist li")).to_have_count(6)
    expect(page.locator("#f-depth")).to_have_text("4")
    page.screenshot(path=str(ARTIFACTS / "connect4-game.png"), full_page=True)

    # analysis streams iterations until stopped
    page.click("#analyze")
    expect(page.locator("#thinking")).to_be_visible()
    page.wait_for_function(
        "() => document.querySelectorAll('#iterations tbody tr').length >= 3", timeout=20_000
    )
    page.screenshot(path=str(ARTIFACTS / "connect4-analysis.png"), full_page=True)
    page.click("#stop")
    expect(page.locator("#thinking")).to_be_hidden(timeout=10_000)
    expect(page.locator("#movelist li")).to_have_count(6)  # analysis plays nothing

    page.click(".tab[data-tab=compare]")
    page.select_option("#compare-depth", "3")
    page.click("#compare-run")
    expect(page.locator("#compare-summary")).to_have_text("done", timeout=30_000)
    assert page.locator("#chart svg path.series").count() >= 4
    assert page.locator("#compare-table tbody tr").count() == 3 * 16
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


def test_closing_the_tab_ends_its_search(server: str, browser: Browser) -> None:
    context = browser.new_context()
    page = context.new_page()
    open_game(page, server, "connect4")
    page.click("#analyze")
    page.wait_for_function(
        "() => document.querySelectorAll('#iterations tbody tr').length >= 2", timeout=20_000
    )
    health = page.request.get(f"{server}/api/health").json()
    assert health["searches"] >= 1
    context.close()
    probe = browser.new_context()
    deadline = time.monotonic() + 5
    while (
        probe.request.get(f"{server}/api/health").json()["searches"] and time.monotonic() < deadline
    ):
        time.sleep(0.1)
    assert probe.request.get(f"{server}/api/health").json()["searches"] == 0
    probe.close()


@pytest.fixture
def server_with_a_boardless_game() -> Iterator[str]:
    """The app in this process with one more game that has no board renderer on the page."""
    spec = dataclasses.replace(get_game("tictactoe"), name="plain", title="Plain tic-tac-toe")
    GAMES["plain"] = spec
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()
        del GAMES["plain"]


def test_generic_board_for_a_game_without_one(
    server_with_a_boardless_game: str, page: Page
) -> None:
    open_game(page, server_with_a_boardless_game, "plain")
    titles = page.locator("#game option").all_inner_texts()
    assert titles == [spec.title for spec in GAMES.values()]
    page.select_option("#side", "both")
    expect(page.locator("#board .move-buttons button")).to_have_count(9)
    page.click("#board button[data-move='b2']")
    expect(page.locator("#movelist li")).to_have_count(1)
    expect(page.locator("#board pre")).to_contain_text("X")
    expect(page.locator("#board .move-buttons button")).to_have_count(8)
    page.screenshot(path=str(ARTIFACTS / "generic-board.png"), full_page=True)
