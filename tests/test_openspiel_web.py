"""The web page opens an OpenSpiel game that its list leaves out, by its name in the address
(``/?game=openspiel:NAME(params)``), and plays it with the generic board. In Debian's Chromium
through Playwright (see ``web_browser``)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel")

from playwright.sync_api import Page, expect
from web_browser import (  # the fixtures; importing web_browser skips without chromium
    browser_fixture,  # noqa: F401
    moves_in_list,
    open_game,
    page_fixture,  # noqa: F401
    server_fixture,  # noqa: F401
)

pytestmark = pytest.mark.slow  # a browser and a server of their own: about half a minute


def test_the_page_opens_and_plays_a_game_by_its_name(server: str, page: Page) -> None:
    name = "openspiel:clobber(rows=4,columns=4)"
    open_game(page, server, name)
    expect(page.locator("#game")).to_have_value(name)
    expect(page.locator("#board pre")).to_contain_text("abcd")
    page.locator("#board [data-move='a1b1']").click()
    expect(page.locator("#movelist .move")).to_have_count(1)
    assert moves_in_list(page) == ["a1b1"]


def test_a_game_zerosum_cannot_search_is_named_on_the_page(server: str, page: Page) -> None:
    page.goto(f"{server}/?game=openspiel:kuhn_poker")
    expect(page.locator("body")).to_have_attribute("data-ready", "yes")
    expect(page.locator("#notice")).to_contain_text("lacks determinism")
