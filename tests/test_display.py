"""What Jupyter shows: game states as SVG boards and readable reprs, search values as HTML,
the explain tree as SVG. Every drawing must be well-formed XML and show what it claims."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from zerosum_othello import Othello

import zerosum
from zerosum.engines import PythonEngine
from zerosum.game import Game, random_playout
from zerosum.games import get_game
from zerosum.games.boards import BoardState, draw_board
from zerosum.games.chess import Chess
from zerosum.games.connect4 import Connect4
from zerosum.games.display import board_svg, draw
from zerosum.games.morris import Morris
from zerosum.games.morris_rules import parse_options
from zerosum.games.tictactoe import TicTacToe
from zerosum.search import Limit, Stats
from zerosum.search.compare import CompareTable, compare, compare_table
from zerosum.search.explain import Tree, TreeNode, TreeTooLargeError, explain

SVG = "{http://www.w3.org/2000/svg}"
BUILT_IN = ["tictactoe", "connect4", "morris", "morris:six", "morris:twelve", "chess"]
REPR_NAMES = {
    "TicTacToe": TicTacToe,
    "Connect4": Connect4,
    "Morris": Morris,
    "parse_options": parse_options,
    "Chess": Chess,
}


def parse(markup: str) -> ET.Element:
    return ET.fromstring(markup)  # raises on markup that is not well-formed


def classed(root: ET.Element, word: str) -> list[ET.Element]:
    return [e for e in root.iter() if word in e.get("class", "").split()]


def played(name: str, plies: int, seed: int) -> Game[Any]:
    game = get_game(name).new()
    random_playout(game, random.Random(seed), max_plies=plies)
    return game


@pytest.mark.parametrize("name", BUILT_IN)
@pytest.mark.parametrize("plies", [0, 5, 40])
def test_every_built_in_state_draws_and_reprs_back(name: str, plies: int) -> None:
    game = played(name, plies, seed=plies)
    root = parse(game._repr_svg_())  # type: ignore[attr-defined]
    assert root.tag == SVG + "svg"
    assert float(root.get("width", "0")) > 100
    text = repr(game)
    assert "object at 0x" not in text
    again = eval(text, dict(REPR_NAMES))
    assert type(again) is type(game)
    assert again.position() == game.position()
    assert again.name == game.name


def test_tictactoe_board_shows_its_stones_and_the_last_move() -> None:
    game = TicTacToe()
    for cell in ("a1", "a3", "b2", "c3", "c1"):
        game.make(game.parse_move(cell))
    root = parse(game._repr_svg_())
    assert len(classed(root, "x")) == 3
    assert len(list(root.iter(SVG + "circle"))) == 2
    cells = {e.get("data-cell"): e for e in root.iter(SVG + "rect") if e.get("data-cell")}
    assert [c for c, e in cells.items() if e.get("fill") == "#fff7d6"] == ["c1"]
    assert not [c for c, e in cells.items() if e.get("stroke") == "#16a34a"]


def test_tictactoe_winning_line_is_green_and_last_cell_yellow() -> None:
    svg = draw_board("tictactoe", BoardState("tictactoe", "xxx/oo./...", last_move="a2"))
    root = parse(svg)
    cells = {e.get("data-cell"): e for e in root.iter(SVG + "rect") if e.get("data-cell")}
    assert [c for c, e in cells.items() if e.get("stroke") == "#16a34a"] == ["a3", "b3", "c3"]
    assert cells["a2"].get("fill") == "#fff7d6"


def test_connect4_board_shows_the_discs_and_the_four() -> None:
    root = parse(Connect4.from_position("4455667")._repr_svg_())
    assert len(classed(root, "disc-x")) == 4
    assert len(classed(root, "disc-o")) == 3
    assert len(classed(root, "hole")) == 42 - 7
    assert len([e for e in root.iter(SVG + "circle") if e.get("stroke") == "#16a34a"]) == 4


def test_morris_board_shows_men_hand_and_the_last_move() -> None:
    game = get_game("morris").from_position("WWW.B" + "." * 18 + "B b 6 7")
    svg = game._repr_svg_()  # type: ignore[attr-defined]
    root = parse(svg)
    assert len(classed(root, "man-white")) == 3
    assert len(classed(root, "man-black")) == 2
    assert "White in hand: 6" in svg and "Black in hand: 7" in svg
    points = [e.get("data-point") for e in root.iter(SVG + "g") if e.get("data-point")]
    assert len(points) == 24
    game.make(game.parse_move("f6"))
    root = parse(game._repr_svg_())  # type: ignore[attr-defined]
    dashed = [e for e in root.iter(SVG + "circle") if e.get("stroke-dasharray") == "4 3"]
    assert len(dashed) == 1


def test_morris_variants_draw_their_own_boards() -> None:
    six = parse(get_game("morris:six").new()._repr_svg_())  # type: ignore[attr-defined]
    twelve = parse(get_game("morris:twelve").new()._repr_svg_())  # type: ignore[attr-defined]
    nine = parse(get_game("morris").new()._repr_svg_())  # type: ignore[attr-defined]
    lines = [len(list(root.iter(SVG + "line"))) for root in (six, nine, twelve)]
    assert lines[0] < lines[1] < lines[2]  # six's 16 points, nine's 24, twelve's diagonals


def test_chess_board_is_drawn_by_python_chess_with_the_last_move() -> None:
    game = Chess()
    game.make(game.parse_move("e2e4"))
    svg = game._repr_svg_()
    parse(svg)
    assert svg.count("<use") == 32  # one per piece
    assert "lastmove" in svg


class _Undrawn(Othello):
    """A plugin game that draws nothing itself."""

    _repr_svg_ = None  # type: ignore[assignment]


def test_plugin_game_gets_its_text_board() -> None:
    game = _Undrawn()
    drawing = draw(game)
    root = parse(drawing.svg)
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    assert texts == game.render().splitlines()
    assert drawing._repr_svg_() == drawing.svg == board_svg(game)
    assert "Othello" in repr(drawing)


@pytest.mark.parametrize("size", [4, 6, 8])
def test_the_othello_plugin_draws_its_own_board(size: int) -> None:
    game = Othello(size)
    game.make(game.legal_moves()[0])
    root = parse(game._repr_svg_())
    classes = [c.get("class") for c in root.iter(SVG + "circle")]
    black, white = (bits.bit_count() for bits in game.discs())
    assert (classes.count("disc-x"), classes.count("disc-o")) == (black, white)
    assert classes.count("hint") == len(game.legal_moves())
    assert draw(game).svg == game._repr_svg_()  # draw() takes the game's own drawing
    again = eval(repr(game), {"Othello": Othello})
    assert again.position() == game.position() and again.size == size


def test_generic_board_escapes_its_text() -> None:
    svg = draw_board("no such kind", BoardState("x", "", text='<b> & "c"\nsecond'))
    root = parse(svg)
    assert ["".join(t.itertext()) for t in root.iter(SVG + "text")] == ['<b> & "c"', "second"]


def test_search_result_html_names_moves_in_the_game_notation() -> None:
    game = TicTacToe.from_position("x.o/.x./...")
    result = zerosum.solve(game)
    html = result._repr_html_()
    root = parse(html)
    cells = ["".join(td.itertext()) for td in root.iter("td")]
    assert "c1" in cells  # the best move, not its cell index 2
    assert "0 (draw)" in cells
    assert "Root moves" in html
    raw = PythonEngine().search(game, Limit(depth=2))
    assert "result.named(game)" in raw._repr_html_()
    assert "result.named(game)" not in raw.named(game)._repr_html_()
    assert raw.named(game) == raw  # the notation does not change what the result is


def test_stats_html_lists_every_counter() -> None:
    root = parse(Stats(nodes=1234, cutoffs=5, time_s=0.5)._repr_html_())
    cells = ["".join(td.itertext()) for td in root.iter("td")]
    assert cells[cells.index("nodes") + 1] == "1,234"
    assert cells[cells.index("nodes per second") + 1] == "2,468"


def test_compare_table_html_has_a_row_per_search_and_escapes() -> None:
    game = TicTacToe.from_position("x.o/.x./...")
    table = compare_table(game, [2], algorithms=["minimax", "alphabeta"])
    root = parse(table._repr_html_())
    assert len(list(root.iter("tr"))) == 1 + 8
    assert all(names == ("c1",) for names in table.move_names)
    odd = CompareTable.of(game, compare(game, [1], algorithms=["negamax"]), title="<i>&")
    assert "<i>" not in odd._repr_html_()
    assert "&lt;i&gt;&amp;" in odd._repr_html_()


def test_tree_svg_marks_the_chosen_path_cutoffs_and_pruned_moves() -> None:
    game = TicTacToe.from_position("x.o/.x./...")
    tree = explain(game, 3)
    root = parse(tree._repr_svg_())
    assert len(classed(root, "chosen")) == 2 * len(tree.pv) + 1  # nodes and edges
    assert len([e for e in classed(root, "chosen") if e.tag == SVG + "line"]) == len(tree.pv)
    assert len([e for e in classed(root, "cutoff") if e.tag == SVG + "g"]) == tree.cutoffs
    assert len([e for e in classed(root, "pruned") if e.tag == SVG + "g"]) == tree.pruned
    assert len(classed(root, "node")) == tree.nodes + tree.pruned
    labels = {"".join(t.itertext()) for t in root.iter(SVG + "text")}
    assert {"c1", "b1"} <= labels  # moves in the game's notation
    assert any(label.startswith(("≥", "≤")) for label in labels)  # fail-soft bounds


def test_tree_html_holds_the_same_drawing_unshrunk() -> None:
    tree = explain(TicTacToe.from_position("x.o/.x./..."), 3)
    box = parse(tree._repr_html_())
    assert box.tag == "div" and "overflow: auto" in box.get("style", "")
    (drawing,) = list(box)
    assert drawing.get("style", "").startswith("max-width: none")
    assert len(list(drawing.iter())) == len(list(parse(tree.svg()).iter()))


def test_minimax_tree_has_no_windows_or_cutoffs() -> None:
    tree = explain(TicTacToe.from_position("x.o/.x./..."), 2, algorithm="minimax")
    root = parse(tree.svg())
    assert not classed(root, "cutoff") and not classed(root, "pruned")
    assert not any("".join(t.itertext()).startswith("[") for t in root.iter(SVG + "text"))


def test_a_tree_too_large_is_refused_or_noted() -> None:
    tree: Tree[Any] = explain(TicTacToe(), 2)
    with pytest.raises(TreeTooLargeError, match="more than 10 to draw"):
        tree.svg(max_nodes=10)
    leaf = TreeNode(None, True, tree.root.kind, 0, tree.root.bound, None, None, False, True, ())
    big = Tree("alphabeta", 1, leaf, 0, None, (), nodes=10**6, cutoffs=0, pruned=0)
    note = big._repr_svg_()
    assert "more than" in note
    parse(note)


def test_tree_svg_draws_the_nodes_the_table_settled() -> None:
    tree = explain(TicTacToe.from_position("x.o/.../..."), 5, table=True)
    root = parse(tree.svg())

    def settled(node: TreeNode[Any]) -> int:
        return (node.kind.value == "table") + sum(settled(child) for child in node.children)

    drawn = [e for e in classed(root, "table") if e.tag == SVG + "g"]
    assert len(drawn) == settled(tree.root) > 0
    assert f"table: {tree.table_hits:,} hits" in tree.svg()
