"""A recorded search tree (:func:`zerosum.search.explain.explain`) as SVG, drawn as the web app
draws it after seed 001: MAX nodes square, MIN nodes round, each with its value (``≥`` or ``≤``
when alpha-beta's fail-soft result is only a bound) and the window it was searched with; the
chosen path in green, nodes whose move loop was cut off ringed red, the moves a cutoff left
unsearched as red crosses on dashed edges, nodes a table settled in blue. Values are from the
root player's point of view.

A tree with more than 150 leaves is drawn dense (smaller nodes, leaf values written downwards,
windows in the tooltips only, move names on the root's edges only); one with more nodes than
the caller's bound is refused by :meth:`Tree.svg <zerosum.search.explain.Tree.svg>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from zerosum.game import INFINITY, WIN, Score
from zerosum.markup import GREEN, INK, MUTED, RED, element, svg, titled

if TYPE_CHECKING:
    from zerosum.search.explain import Tree, TreeNode

PROVEN: Final = WIN - 1000
"""Scores this close to a win are written ``W<plies>`` / ``L<plies>`` (as the web app does)."""
DENSE_LEAVES: Final = 150
TABLE_FILL: Final = "#eef2ff"
TABLE_STROKE: Final = "#2856c7"
"""A node the table settled: blue (the web app draws no table, its trees have none)."""


def short_score(value: Score | None) -> str:
    """A value in a few characters: ``∞``, ``W3`` (a win in 3 plies), ``L2``, or the number."""
    if value is None:
        return ""
    if value >= INFINITY:
        return "∞"
    if value <= -INFINITY:
        return "-∞"
    if value >= PROVEN:
        return f"W{WIN - value}"
    if value <= -PROVEN:
        return f"L{WIN + value}"
    return str(value)


@dataclass
class _Placed:
    node: TreeNode[Any]
    level: int
    slot: float
    children: list[_Placed]


def _layout(node: TreeNode[Any], level: int, leaves: list[int]) -> _Placed:
    """Leaves side by side in visiting order; a parent centred over its first and last child."""
    if not node.children:
        leaves[0] += 1
        return _Placed(node, level, leaves[0] - 1, [])
    children = [_layout(child, level + 1, leaves) for child in node.children]
    return _Placed(node, level, (children[0].slot + children[-1].slot) / 2, children)


def _value_text(node: TreeNode[Any]) -> str:
    if node.kind.value == "pruned":
        return "✂"
    prefix = {"lower": "≥", "upper": "≤"}.get(node.bound.value, "")
    return prefix + short_score(node.value)


def _move_text(node: TreeNode[Any]) -> str:
    return node.name if node.name is not None else str(node.move)


def _describe(node: TreeNode[Any], path: list[str]) -> str:
    """The tooltip: where the node is and what the search did there."""
    lines = ["after " + " ".join(path) if path else "the root"]
    if node.kind.value == "pruned":
        lines.append("pruned: a cutoff above made this move unnecessary")
        return "\n".join(lines)
    kind = "settled by the table" if node.kind.value == "table" else node.kind.value
    lines.append(f"{'MAX' if node.maximizing else 'MIN'} node, {kind}")
    lines.append(f"value {_value_text(node)} ({node.bound.value})")
    if node.alpha is not None:
        lines.append(f"window [{short_score(node.alpha)}, {short_score(node.beta)}]")
    if node.cutoff:
        lines.append("cut off: the remaining moves were not searched")
    if node.chosen:
        lines.append("on the chosen path")
    return "\n".join(lines)


def tree_svg(tree: Tree[Any]) -> str:
    """The SVG of ``tree`` (every node of it: the caller bounds its size)."""
    leaves = [0]
    root = _layout(tree.root, 0, leaves)
    depth = _depth(root)
    dense = leaves[0] > DENSE_LEAVES
    gap, level_height, margin = (20, 80, 40) if dense else (44, 96, 40)
    width = max(300, leaves[0] * gap + 2 * margin)
    height = (depth + 1) * level_height + 2 * margin + (20 if dense else 0)
    few = leaves[0] < 40
    edges: list[str] = []
    nodes: list[str] = []

    def x(placed: _Placed) -> float:
        return margin + placed.slot * gap + gap / 2

    def y(placed: _Placed) -> float:
        return margin + placed.level * level_height

    def radius(placed: _Placed) -> int:
        return 15 if not dense else 12 if placed.children else 6

    def draw(placed: _Placed, path: list[str]) -> None:
        r = radius(placed)
        for child in placed.children:
            edges.append(_edge(placed, child, x, y, r, radius(child), dense))
            draw(child, [*path, _move_text(child.node)])
        nodes.append(_node(placed, x(placed), y(placed), r, dense, few, path))

    draw(root, [])
    table = f", table: {tree.table_hits:,} hits" if tree.table else ""
    summary = (
        f"{tree.algorithm}, depth {tree.depth}: value {short_score(tree.value)} for the side to "
        f"move, {tree.nodes:,} nodes, {tree.cutoffs:,} cutoffs, {tree.pruned:,} moves pruned"
        f"{table}"
    )
    caption = element("text", {"x": 8, "y": 18, "font-size": 12, "fill": MUTED}, text=summary)
    return svg(
        width,
        height,
        f"{tree.algorithm} search tree",
        caption,
        element("g", {"class": "edges"}, *edges),
        element("g", {"class": "nodes"}, *nodes),
    )


def _depth(placed: _Placed) -> int:
    return max([placed.level, *(_depth(child) for child in placed.children)])


def _edge(
    parent: _Placed, child: _Placed, x: Any, y: Any, r: int, child_r: int, dense: bool
) -> str:
    pruned = child.node.kind.value == "pruned"
    chosen = child.node.chosen
    style: dict[str, object] = {"stroke": "#9aa3b2", "stroke-width": 1.5}
    if chosen:
        style = {"stroke": GREEN, "stroke-width": 4}
    if pruned:
        style = {"stroke": RED, "stroke-width": 1.5, "stroke-dasharray": "5 4"}
    kind = "edge" + (" chosen" if chosen else "") + (" pruned" if pruned else "")
    line = {"x1": x(parent), "y1": y(parent) + r, "x2": x(child), "y2": y(child) - child_r}
    parts = [element("line", {**line, **style, "class": kind})]
    if not dense or parent.level == 0:
        label = {
            "x": (x(parent) + x(child)) / 2 - 4,
            "y": (y(parent) + y(child)) / 2,
            "font-size": 11,
            "fill": RED if pruned else MUTED,
            "text-anchor": "end",
        }
        parts.append(element("text", label, text=_move_text(child.node)))
    return "".join(parts)


def _node(
    placed: _Placed, cx: float, cy: float, r: int, dense: bool, few: bool, path: list[str]
) -> str:
    node = placed.node
    kinds = ["node", "max" if node.maximizing else "min", node.kind.value]
    kinds += ["chosen"] * node.chosen + ["cutoff"] * node.cutoff
    group = {"class": " ".join(kinds), "transform": f"translate({cx:g},{cy:g})"}
    tooltip = _describe(node, path)
    if node.kind.value == "pruned":
        h = r / 2
        cross = {"d": f"M-{h:g},-{h:g}L{h:g},{h:g}M{h:g},-{h:g}L-{h:g},{h:g}", "stroke": RED}
        return titled("g", group, tooltip, element("path", {**cross, "stroke-width": 2.5}))
    fill = "#f3f4f6" if node.kind.value == "terminal" else "#ecfdf3" if node.chosen else "#fff"
    stroke: dict[str, object] = {"stroke": INK, "stroke-width": 1.5}
    if node.kind.value == "table":
        fill, stroke = TABLE_FILL, {"stroke": TABLE_STROKE, "stroke-width": 2}
    if node.chosen:
        stroke = {"stroke": GREEN, "stroke-width": 3}
    if node.cutoff:
        stroke = {"stroke": RED, "stroke-width": 2.5}
    if node.maximizing:
        shape = element(
            "rect",
            {"x": -r, "y": -r, "width": 2 * r, "height": 2 * r, "rx": 3, "fill": fill, **stroke},
        )
    else:
        shape = element("circle", {"r": r, "fill": fill, **stroke})
    parts = [shape]
    bold = {"text-anchor": "middle", "font-weight": 600, "fill": INK}
    if not dense:
        parts.append(element("text", {"y": 4, "font-size": 11, **bold}, text=_value_text(node)))
        if node.alpha is not None and (placed.level < 3 or few):
            window = f"[{short_score(node.alpha)}, {short_score(node.beta)}]"
            style = {"y": r + 12, "font-size": 9, "text-anchor": "middle", "fill": MUTED}
            parts.append(element("text", style, text=window))
    elif placed.children:
        parts.append(element("text", {"y": 3, "font-size": 8, **bold}, text=_value_text(node)))
    else:
        leaf = {"x": r + 3, "y": 3, "font-size": 8, "fill": INK, "transform": "rotate(90)"}
        parts.append(element("text", leaf, text=_value_text(node)))
    return titled("g", group, tooltip, *parts)
