"""The page says one thing: the evaluation after the computer's move, the explain legend in the
game's sides, a tree that fits its box, named morris points, SAN wherever a person reads chess,
and the engine each search used. In Debian's Chromium through Playwright (see ``web_browser``).
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from web_browser import (  # the fixtures; importing web_browser skips without chromium
    browser_fixture,  # noqa: F401
    moves_in_list,
    open_game,
    page_fixture,  # noqa: F401
    server_fixture,  # noqa: F401
)

SAN = re.compile(r"^(?:[NBRQK]?[a-h]?[1-8]?x?[a-h][1-8](?:=[NBRQ])?|O-O(?:-O)?)[+#]?$")
UCI = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")
COLD = 300_000
"""Milliseconds a search may take to start when its compiled engine is not compiled yet."""


def test_the_evaluation_follows_every_computer_move(server: str, page: Page) -> None:
    open_game(page, server, "tictactoe")
    page.select_option("#level", "2")
    page.fill("#think-time", "5")
    page.locator("#board [data-move='a1'].legal").click()
    expect(page.locator("#movelist .move")).to_have_count(2)
    expect(page.locator("#status")).to_contain_text("X to move.")
    # the computer's search valued the position its move leads to: shown there, not a dash
    expect(page.locator("#evaltext")).to_have_text(re.compile(r"^evaluation for X: [^\u2013]+$"))
    expect(page.locator("#evaltext")).to_have_text(
        f"evaluation for X: {page.locator('#f-score').inner_text().removesuffix(' for X')}"
    )


def test_the_explain_legend_names_the_games_sides(server: str, page: Page) -> None:
    open_game(page, server, "tictactoe")
    page.click("#explain-run")
    expect(page.locator("#tree svg .node").first).to_be_visible()
    expect(page.locator("#key-max")).to_have_text("X to move: takes the highest")
    page.select_option("#game", "chess")  # another game: its own sides, before any tree
    expect(page.locator("#key-max")).to_have_text("White to move: takes the highest")
    expect(page.locator("#key-min")).to_have_text("Black to move: takes the lowest")
    page.select_option("#game", "connect4")
    expect(page.locator("#key-max")).to_have_text("X (red) to move: takes the highest")


def test_the_explain_tree_fits_its_box_and_scrolls_when_asked(server: str, page: Page) -> None:
    open_game(page, server, "connect4")
    depths = page.locator("#explain-depth option").all_inner_texts()
    page.select_option("#explain-depth", depths[-1])  # the widest tree the page offers
    page.click("#explain-run")
    expect(page.locator("#explain-summary")).to_contain_text("cut-offs")
    box = page.locator("#tree")
    sizes = box.evaluate(
        "b => ({client: b.clientWidth, scroll: b.scrollWidth,"
        " svg: b.querySelector('svg').getBoundingClientRect().width,"
        " natural: Number(b.dataset.width)})"
    )
    assert sizes["natural"] > sizes["client"], sizes  # a tree wider than its box...
    assert sizes["scroll"] <= sizes["client"] and sizes["svg"] <= sizes["client"] + 1, sizes
    page.click("#tree-zoom")  # ...at its actual size on request, and then it scrolls
    expect(box).not_to_have_class(re.compile(r"\bfit\b"))
    assert box.evaluate("b => b.scrollWidth > b.clientWidth")
    page.click("#tree-zoom")
    expect(box).to_have_class(re.compile(r"\bfit\b"))
    assert box.evaluate("b => b.scrollWidth <= b.clientWidth")


def test_the_morris_board_names_its_points(server: str, page: Page) -> None:
    open_game(page, server, "morris")
    names = page.locator("#board .point-name").all_text_contents()
    assert len(names) == 24
    assert {"a1", "d2", "b4", "g7", "d5"} <= set(names)
    # a name is drawn beside its own point
    assert page.locator("#board [data-point='d2'] .point-name").text_content() == "d2"


def test_chess_reads_in_san_everywhere(server: str, page: Page) -> None:
    open_game(page, server, "chess")
    page.select_option("#side", "both")
    page.fill("#moves", "e2e4 e7e5 g1f3")  # UCI or SAN in, SAN out
    page.click("#load")
    expect(page.locator("#movelist .move")).to_have_count(3)
    assert moves_in_list(page) == ["e4", "e5", "Nf3"]
    expect(page.locator("#moves")).to_have_value("e4 e5 Nf3")
    page.fill("#think-time", "2")
    page.click("#engine")
    expect(page.locator("#movelist .move")).to_have_count(4, timeout=COLD)
    pv = page.locator("#f-pv").inner_text().split()
    best = page.locator("#f-best").inner_text().split()
    rows = page.locator("#iterations tbody tr td:nth-child(5)").all_inner_texts()
    shown = pv + best + [move for row in rows for move in row.split()]
    assert shown and all(SAN.match(move) and not UCI.match(move) for move in shown), shown
    assert all(SAN.match(move) for move in moves_in_list(page))
    # the Moves box reads back what it shows
    page.fill("#moves", "e4 e5 Nf3 Nc6")
    page.click("#load")
    expect(page.locator("#movelist .move")).to_have_count(4)
    expect(page.locator("#moves")).to_have_value("e4 e5 Nf3 Nc6")


def test_the_page_names_the_engine_of_each_search(server: str, page: Page) -> None:
    open_game(page, server, "connect4")
    page.select_option("#level", "1")
    page.locator("#board [data-move='4'].legal").click()
    expect(page.locator("#movelist .move")).to_have_count(2, timeout=COLD)
    # the computer plays connect four with the compiled engine, as zerosum play does
    expect(page.locator("#engine-used")).to_have_text("engine compiled")
    page.select_option("#engine-kind", "mcts")
    page.click("#analyze")
    expect(page.locator("#engine-used")).to_have_text("engine mcts", timeout=COLD)
    page.click("#stop")
    expect(page.locator("#thinking")).to_be_hidden()
