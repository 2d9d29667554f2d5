"""What the browser tests share: Debian's Chromium driven by Playwright (no browser download),
``zerosum serve`` on a free port, an in-process server that can restart, and page helpers.

A test module imports the fixtures it uses from here (``from web_browser import page_fixture``
gives it the fixture ``page``); importing this module skips the module without Chromium (or
fails it under CI).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from waiting import HANG_MS, HANG_S

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

from zerosum.web import server_config  # noqa: E402
from zerosum.web.app import create_app  # noqa: E402

# The machine running the tests may be busy: every assertion waits for its state, bounded only
# against a hang (HANG_MS), not Playwright's 5 s.
expect.set_options(timeout=HANG_MS)


@pytest.fixture(scope="module", name="server")
def server_fixture() -> Iterator[str]:
    """``zerosum serve`` in a process of its own: its URL."""
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
    process.wait(timeout=HANG_S)


@pytest.fixture(scope="module", name="browser")
def browser_fixture() -> Iterator[Browser]:
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=ARGS
        )
        yield browser
        browser.close()


@pytest.fixture(name="page")
def page_fixture(browser: Browser) -> Iterator[Page]:
    """A fresh tab; the test fails if the page raised an error."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.set_default_timeout(HANG_MS)  # clicks, fills and loads: Playwright's 30 s otherwise
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"errors in the page: {errors}"


class LocalServer:
    """The app served from this process on one port, as ``zerosum serve`` serves it (its
    searches are this process's :class:`~zerosum.web.jobs.Job` objects, for the tests to
    look at); :meth:`restart` replaces it by a fresh app (no sessions) on the same port, as
    a restarted ``zerosum serve`` would be."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        """What :func:`create_app` is given (e.g. ``max_searches``)."""
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.url = f"http://127.0.0.1:{self.port}"
        self._start()

    def _start(self) -> None:
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", self.port))
        self._listener.listen()
        # as ``zerosum serve`` configures it (its websocket protocol, its headers)
        self._server = uvicorn.Server(server_config(create_app(**self.options)))
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._listener]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + HANG_S  # ends a hang only
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                pytest.fail("the in-process server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=HANG_S)
        self._listener.close()

    def restart(self) -> None:
        self.stop()
        self._start()


@pytest.fixture(name="local_server")
def local_server_fixture() -> Iterator[LocalServer]:
    served = LocalServer()
    try:
        yield served
    finally:
        served.stop()


def open_game(page: Page, server: str, game: str) -> None:
    page.goto(f"{server}/?game={game}")
    expect(page.locator("body")).to_have_attribute("data-ready", "yes")
    expect(page.locator("#board svg, #board pre")).to_be_visible()


def moves_in_list(page: Page) -> list[str]:
    """The move list's moves as shown (SAN for chess)."""
    return page.locator("#movelist .move").all_inner_texts()
