"""The morris boards (nine, six and twelve men's) as the web app draws them: points a1..g7 as
in ``mission.md``, men white and black, the last move's origin ringed orange, its target
ringed dashed, its removed man's point ringed red, and each side's men in hand in a band (the
second player's above the board, the first player's below)."""

from __future__ import annotations

import re
from typing import Final

from zerosum.games.morris_rules import Rules, parse_options
from zerosum.markup import MUTED, RED, element, svg, titled

STEP: Final = 60
PAD: Final = 36
BAND: Final = 44
LINE_COLOUR: Final = "#6b5b3e"
MARK: Final = "#b45309"
MEN: Final = (
    {"fill": "#fbfbfb", "stroke": "#333", "stroke-width": 1.5},
    {"fill": "#262626", "stroke": "#000", "stroke-width": 1.5},
)
MOVE: Final = re.compile(r"^(?:([a-g][1-7])-)?([a-g][1-7])(?:x([a-g][1-7]))?$")


def rules_of(game: str) -> Rules:
    """The rules of a morris game name (``morris``, ``morris:six``, ...)."""
    return parse_options(game.partition(":")[2])


def _at(point: str) -> tuple[int, int]:
    return PAD + "abcdefg".index(point[0]) * STEP, BAND + PAD + (7 - int(point[1])) * STEP


def _parse(position: str, rules: Rules) -> tuple[dict[str, int], tuple[int, int]]:
    """The men by point (0 the first player's, 1 the second's) and the men in hand."""
    words = position.split()
    if len(words) < 4 or len(words[0]) != rules.size or not words[2].isdigit():
        raise ValueError(f"{position!r} is not a {rules.variant} men's morris position")
    men = {
        point: "WB".index(symbol)
        for point, symbol in zip(rules.points, words[0].upper(), strict=True)
        if symbol in "WB"
    }
    return men, (int(words[2]), int(words[3]))


def draw(
    position: str,
    *,
    game: str = "morris",
    last: str | None = None,
    sides: tuple[str, str] = ("White", "Black"),
) -> str:
    """The board of ``position`` (the morris position format) under the rules of ``game``,
    with ``last`` (a move such as ``f2-f4xd5``) marked."""
    rules = rules_of(game)
    men, hand = _parse(position, rules)
    match = MOVE.match(last or "")
    frm, to, removed = match.groups() if match else (None, None, None)
    side = 6 * STEP + 2 * PAD
    parts = [
        element("rect", {"y": BAND, "width": side, "height": side, "rx": 10, "fill": "#f1e4c8"})
    ]
    line = {"stroke": LINE_COLOUR, "stroke-width": 4, "stroke-linecap": "round"}
    for a, name in enumerate(rules.points):
        for b in range(a + 1, rules.size):
            if rules.adjacent[a] >> b & 1:
                (x1, y1), (x2, y2) = _at(name), _at(rules.points[b])
                parts.append(element("line", {"x1": x1, "y1": y1, "x2": x2, "y2": y2, **line}))
    for point in rules.points:
        cx, cy = _at(point)
        marks = [element("circle", {"cx": cx, "cy": cy, "r": 6, "fill": LINE_COLOUR})]
        if point == to:
            dashed = {"stroke": MARK, "stroke-width": 3, "stroke-dasharray": "4 3"}
            marks.append(element("circle", {"cx": cx, "cy": cy, "r": 24, "fill": "none", **dashed}))
        if point in (frm, removed):
            colour = RED if point == removed else MARK
            ring = {"fill": "none", "stroke": colour, "stroke-width": 2, "stroke-dasharray": "3 3"}
            marks.append(element("circle", {"cx": cx, "cy": cy, "r": 11, **ring}))
        if point in men:
            who = men[point]
            kind = ("man-white", "man-black")[who]
            marks.append(
                element("circle", {"cx": cx, "cy": cy, "r": 19, **MEN[who], "class": kind})
            )
        parts.append(titled("g", {"data-point": point}, point, *marks))
    for who in (0, 1):
        y = BAND / 2 if who == 1 else BAND + side + BAND / 2
        label = {"x": 8, "y": y + 5, "font-size": 13, "fill": MUTED}
        group = [element("text", label, text=f"{sides[who]} in hand: {hand[who]}")]
        for i in range(hand[who]):
            group.append(element("circle", {"cx": 170 + i * 20, "cy": y, "r": 8, **MEN[who]}))
        parts.append(element("g", {"data-hand": who}, *group))
    return svg(side, side + 2 * BAND, f"{rules.variant} men's morris board", *parts)
