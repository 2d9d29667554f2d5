"""SVG and HTML built as strings: what the Jupyter drawings of boards, results and trees share.

Every function returns markup with its text and attribute values escaped, so a move name, a game
title or a plugin's board text can hold ``<``, ``&`` or quotes. Drawings carry their colours as
presentation attributes, not CSS classes, so that they look the same wherever the markup lands
(a notebook, a rendered docs page, a file). No dependency beyond the standard library.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Final

SVG_NS: Final = "http://www.w3.org/2000/svg"

Attributes = Mapping[str, object]
"""Attribute names to values; a ``None`` value leaves the attribute out. A trailing underscore
is dropped from a name (``class_``) and other underscores become hyphens (``font_size``)."""

FONT: Final = "system-ui, -apple-system, 'Segoe UI', sans-serif"
MONOSPACE: Final = "ui-monospace, 'DejaVu Sans Mono', monospace"

# The web app's palette (its style sheet's variables).
INK: Final = "#1d2430"
MUTED: Final = "#667085"
LINE: Final = "#d0d5dd"
GREEN: Final = "#16a34a"
RED: Final = "#dc2626"


def _number(value: float) -> str:
    """A coordinate without a useless ``.0``."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}".rstrip("0")


def _attribute_text(attrs: Attributes) -> str:
    parts = []
    for name, value in attrs.items():
        if value is None:
            continue
        key = name.rstrip("_").replace("_", "-")
        text = _number(value) if isinstance(value, float) else str(value)
        parts.append(f' {key}="{escape(text, quote=True)}"')
    return "".join(parts)


def element(tag: str, attrs: Attributes | None = None, *children: str, text: str = "") -> str:
    """``<tag attrs>text children</tag>``, or ``<tag attrs/>`` when empty; ``text`` is escaped,
    ``children`` are markup already."""
    opening = tag + _attribute_text(attrs or {})
    body = escape(text, quote=False) + "".join(children)
    return f"<{opening}>{body}</{tag}>" if body else f"<{opening}/>"


def svg(width: float, height: float, label: str, *children: str) -> str:
    """A standalone SVG document of ``width`` x ``height`` user units, labelled for screen
    readers, with a ``<title>`` (a tooltip) of ``label``."""
    return element(
        "svg",
        {
            "xmlns": SVG_NS,
            "width": width,
            "height": height,
            "viewBox": f"0 0 {_number(width)} {_number(height)}",
            "role": "img",
            "aria-label": label,
            "font-family": FONT,
        },
        element("title", text=label),
        *children,
    )


def titled(tag: str, attrs: Attributes, tooltip: str, *children: str) -> str:
    """An element with a tooltip (an SVG ``<title>`` first child)."""
    return element(tag, attrs, element("title", text=tooltip), *children)


def text_lines(
    lines: Sequence[str], *, x: float, y: float, size: float = 14, colour: str = INK
) -> str:
    """Monospaced lines of text, one ``<text>`` each, spaces kept, from baseline ``y`` down."""
    return "".join(
        element(
            "text",
            {
                "x": x,
                "y": y + index * size * 1.3,
                "font-family": MONOSPACE,
                "font-size": size,
                "fill": colour,
                "xml:space": "preserve",
            },
            text=line,
        )
        for index, line in enumerate(lines)
    )


TABLE_STYLE: Final = "border-collapse: collapse; font-family: " + MONOSPACE + "; font-size: 12px"
_CELL: Final = "padding: 2px 10px 2px 0; border-bottom: 1px solid #f0f1f3; text-align: "
_HEAD: Final = (
    f"padding: 2px 10px 2px 0; border-bottom: 1px solid {LINE}; color: {MUTED}; text-align: "
)


def html_table(
    headers: Sequence[str] | None,
    rows: Iterable[Sequence[object]],
    *,
    caption: str = "",
    numeric: Sequence[bool] = (),
) -> str:
    """An HTML table (no header row when ``headers`` is ``None``); every cell is escaped text.
    ``numeric`` right-aligns the columns it marks (integers get thousands separators, floats
    three decimals)."""

    def cell(tag: str, value: object, column: int, style: str) -> str:
        if isinstance(value, bool) or not isinstance(value, int | float):
            shown = str(value)
        else:
            shown = f"{value:,}" if isinstance(value, int) else f"{value:,.3f}"
        right = column < len(numeric) and numeric[column]
        return element(tag, {"style": style + ("right" if right else "left")}, text=shown)

    parts = []
    if caption:
        parts.append(
            element("caption", {"style": "text-align: left; font-weight: 600"}, text=caption)
        )
    if headers is not None:
        parts.append(element("tr", None, *(cell("th", h, i, _HEAD) for i, h in enumerate(headers))))
    for row in rows:
        parts.append(element("tr", None, *(cell("td", v, i, _CELL) for i, v in enumerate(row))))
    return element("table", {"style": TABLE_STYLE}, *parts)


def scrolling(svg_document: str, *, max_height: int = 640) -> str:
    """An SVG document in an HTML box that scrolls, drawn at its own size (a page's style that
    fits images to the width is overridden)."""
    unshrunk = svg_document.replace("<svg ", '<svg style="max-width: none; height: auto" ', 1)
    box = f"overflow: auto; max-width: 100%; max-height: {max_height}px"
    return element("div", {"style": box}, unshrunk)


def notice_svg(message: str, *, width: int = 520) -> str:
    """A short message in a box, where a drawing was refused (e.g. a tree too large)."""
    words, lines, line = message.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width // 8:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    height = 20 + 18 * len(lines)
    box = element("rect", {"width": width, "height": height, "rx": 8, "fill": "#fff7ed"})
    body = "".join(
        element("text", {"x": 12, "y": 26 + 18 * i, "font-size": 13, "fill": RED}, text=text)
        for i, text in enumerate(lines)
    )
    return svg(width, height, "notice", box, body)
