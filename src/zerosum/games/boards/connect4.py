"""The connect four board as the web app draws it: a blue frame, the first player's discs red,
the second's yellow, the last disc ringed in black, a four in a row ringed in green, the column
names above."""

from __future__ import annotations

from typing import Final

from zerosum.markup import MUTED, element, svg

WIDTH: Final = 7
HEIGHT: Final = 6
SIZE: Final = 60
PAD: Final = 10
TOP: Final = 26
COLOURS: Final = ("#e11d48", "#facc15")


def _grid(position: str) -> tuple[list[list[int]], tuple[int, int] | None]:
    """Per column, the owners (0 or 1) of its discs from the bottom; and the last disc."""
    grid: list[list[int]] = [[] for _ in range(WIDTH)]
    last = None
    for ply, char in enumerate(position.strip()):
        if char not in "1234567" or len(grid[int(char) - 1]) == HEIGHT:
            raise ValueError(f"{position!r} is not a connect four position: expected columns 1-7")
        column = int(char) - 1
        grid[column].append(ply % 2)
        last = (column, len(grid[column]) - 1)
    return grid, last


def winning_cells(grid: list[list[int]]) -> set[tuple[int, int]]:
    """The cells (column, row) of the first four in a row found, or none."""

    def at(column: int, row: int) -> int | None:
        inside = 0 <= column < WIDTH and 0 <= row < len(grid[column])
        return grid[column][row] if inside else None

    for column in range(WIDTH):
        for row in range(len(grid[column])):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                line = [(column + i * dc, row + i * dr) for i in range(4)]
                if all(at(c, r) == grid[column][row] for c, r in line):
                    return set(line)
    return set()


def draw(position: str) -> str:
    """The board after the columns ``position`` (digits 1-7 from the empty board)."""
    grid, last = _grid(position)
    win = winning_cells(grid)
    width, height = WIDTH * SIZE + 2 * PAD, HEIGHT * SIZE + 2 * PAD + TOP
    frame = {"x": PAD - 4, "y": TOP + PAD - 4, "width": WIDTH * SIZE + 8, "rx": 10}
    parts = [element("rect", {**frame, "height": HEIGHT * SIZE + 8, "fill": "#2856c7"})]
    for column in range(WIDTH):
        x = PAD + column * SIZE
        label = {"x": x + SIZE / 2, "y": 18, "font-size": 13, "fill": MUTED}
        parts.append(element("text", {**label, "text-anchor": "middle"}, text=str(column + 1)))
        for row in range(HEIGHT):
            y = TOP + PAD + (HEIGHT - 1 - row) * SIZE
            who = grid[column][row] if row < len(grid[column]) else None
            ring: dict[str, object] = {}
            if (column, row) in win:
                ring = {"stroke": "#16a34a", "stroke-width": 5}
            elif (column, row) == last:
                ring = {"stroke": "#111", "stroke-width": 3}
            disc = {"cx": x + SIZE / 2, "cy": y + SIZE / 2, "r": SIZE * 0.4}
            fill = "#fff" if who is None else COLOURS[who]
            kind = "hole" if who is None else ("disc-x", "disc-o")[who]
            parts.append(element("circle", {**disc, "fill": fill, **ring, "class": kind}))
    return svg(width, height, "connect four board", *parts)
