"""Any game without a drawn board: its own text drawing (``render()``) set in SVG, as the web
app shows it in a grey box."""

from __future__ import annotations

from typing import Final

from zerosum.markup import element, svg, text_lines

FONT_SIZE: Final = 15
CHAR_WIDTH: Final = 0.62
"""A monospaced character's width in font sizes (a little over most fonts' 0.6)."""
PAD: Final = 10


def draw(text: str, *, label: str = "board") -> str:
    """``text`` (lines of a monospaced drawing) in a grey rounded box."""
    lines = text.splitlines() or [""]
    width = max(len(line) for line in lines) * FONT_SIZE * CHAR_WIDTH + 2 * PAD
    height = len(lines) * FONT_SIZE * 1.3 + 2 * PAD
    box = element("rect", {"width": width, "height": height, "rx": 8, "fill": "#f3f4f6"})
    body = text_lines(lines, x=PAD, y=PAD + FONT_SIZE, size=FONT_SIZE)
    return svg(round(width), round(height), label, box, body)
