"""The tic-tac-toe board as the web app draws it: X in blue, O in orange, the last move's cell
shaded yellow, a winning line in green, the cell names in the corners."""

from __future__ import annotations

from typing import Final

from zerosum.markup import element, svg

SIZE: Final = 100
PAD: Final = 10
LINES: Final = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)
"""The lines as cell indices, rank by rank from a1 (a1=0, b1=1, ..., c3=8)."""


def _cells(position: str) -> list[str]:
    """The symbols by cell index from a1 (the position lists them from the top left)."""
    rows = position.replace("/", "").lower()
    if len(rows) != 9 or set(rows) - set("xo."):
        raise ValueError(f"{position!r} is not a tic-tac-toe position: expected 9 of x, o, .")
    return [rows[3 * (2 - cell // 3) + cell % 3] for cell in range(9)]


def draw(position: str, *, last: str | None = None) -> str:
    """The board of ``position`` (nine ``x``, ``o`` or ``.`` from the top left), with ``last``
    (a cell name such as ``b2``) marked."""
    cells = _cells(position)
    winning: set[int] = set()
    for line in LINES:
        a, b, c = (cells[i] for i in line)
        if a != "." and a == b == c:
            winning.update(line)
    total = 3 * SIZE + 2 * PAD
    parts = [element("rect", {"width": total, "height": total, "rx": 8, "fill": "#e7ebf1"})]
    for cell, symbol in enumerate(cells):
        name = "abc"[cell % 3] + str(cell // 3 + 1)
        x, y = PAD + (cell % 3) * SIZE, PAD + (2 - cell // 3) * SIZE
        win = cell in winning
        parts.append(
            element(
                "rect",
                {
                    "x": x + 3,
                    "y": y + 3,
                    "width": SIZE - 6,
                    "height": SIZE - 6,
                    "rx": 6,
                    "fill": "#d9f7e3" if win else "#fff7d6" if name == last else "#fff",
                    "stroke": "#16a34a" if win else "#c3cad6",
                    "stroke-width": 3 if win else 1.5,
                    "data-cell": name,
                },
            )
        )
        cx, cy, r = x + SIZE / 2, y + SIZE / 2, SIZE * 0.3
        if symbol == "x":
            path = f"M{cx - r},{cy - r}L{cx + r},{cy + r}M{cx + r},{cy - r}L{cx - r},{cy + r}"
            stroke = {"stroke": "#1f4fd8", "stroke-width": 10, "stroke-linecap": "round"}
            parts.append(element("path", {"d": path, "fill": "none", **stroke, "class": "x"}))
        elif symbol == "o":
            stroke = {"stroke": "#d97706", "stroke-width": 10}
            parts.append(element("circle", {"cx": cx, "cy": cy, "r": r, "fill": "none", **stroke}))
        parts.append(
            element(
                "text",
                {"x": x + 8, "y": y + SIZE - 8, "font-size": 11, "fill": "#9aa3b2"},
                text=name,
            )
        )
    return svg(total, total, "tic-tac-toe board", *parts)
