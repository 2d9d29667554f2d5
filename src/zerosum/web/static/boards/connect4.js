// Connect four: columns 1..7 from the left; the position is the columns played, e.g. "4453".
import { el, svgRoot } from "../svg.js";

const WIDTH = 7, HEIGHT = 6;

// how the page names the sides next to the game's own names
export const sideColours = ["red", "yellow"];

function parse(position) {
  const grid = Array.from({ length: WIDTH }, () => []);
  let last = null;
  [...position].forEach((char, ply) => {
    const column = Number(char) - 1;
    grid[column].push(ply % 2);
    last = [column, grid[column].length - 1];
  });
  return { grid, last };
}

function winningCells(grid) {
  const at = (c, r) => (c >= 0 && c < WIDTH && r >= 0 && r < HEIGHT ? grid[c][r] : undefined);
  for (let c = 0; c < WIDTH; c++) {
    for (let r = 0; r < HEIGHT; r++) {
      const who = at(c, r);
      if (who === undefined) continue;
      for (const [dc, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
        const line = [0, 1, 2, 3].map((i) => [c + i * dc, r + i * dr]);
        if (line.every(([x, y]) => at(x, y) === who)) return line;
      }
    }
  }
  return [];
}

export function draw(container, state, { flipped, interactive, onMove, hint }) {
  const size = 60, pad = 10, top = 26;
  const width = WIDTH * size + 2 * pad, height = HEIGHT * size + 2 * pad + top;
  const svg = svgRoot(container, width, height, "connect four board");
  const { grid, last } = parse(state.position);
  const win = winningCells(grid);
  const legal = new Set(state.legal);
  el("rect", { x: pad - 4, y: top + pad - 4, width: WIDTH * size + 8, height: HEIGHT * size + 8, rx: 10, class: "c4-frame" }, svg);
  for (let column = 0; column < WIDTH; column++) {
    const name = String(column + 1);
    const col = flipped ? WIDTH - 1 - column : column;
    const x = pad + col * size;
    const playable = interactive && legal.has(name);
    const group = el("g", { class: "column" + (playable ? " legal" : ""), "data-move": name }, svg);
    el("rect", { x, y: 0, width: size, height: height, class: "column-hit" }, group);
    el("text", { x: x + size / 2, y: 18, class: "column-name" }, group, name);
    if (hint === name) {  // the best move a search found: a marker over the column, a ring below
      const landing = top + pad + (HEIGHT - 1 - grid[column].length) * size + size / 2;
      const marker = el("g", { class: "hint", "data-move": name }, group);
      el("rect", { x: x + 3, y: top + pad, width: size - 6, height: HEIGHT * size, rx: 8, class: "hint-column" }, marker);
      el("circle", { cx: x + size / 2, cy: landing, r: size * 0.44, class: "hint-ring" }, marker);
      el("title", {}, marker, `best move found: column ${name}`);
    }
    if (playable) {
      el("path", { d: `M${x + size / 2 - 8},${top - 2}L${x + size / 2 + 8},${top - 2}L${x + size / 2},${top + 6}Z`, class: "target" }, group);
      group.addEventListener("click", () => onMove(name));
    }
    for (let row = 0; row < HEIGHT; row++) {
      const y = top + pad + (HEIGHT - 1 - row) * size;
      const who = grid[column][row];
      const isLast = last && last[0] === column && last[1] === row;
      const isWin = win.some(([c, r]) => c === column && r === row);
      el("circle", {
        cx: x + size / 2, cy: y + size / 2, r: size * 0.4,
        class: (who === undefined ? "hole" : who === 0 ? "disc-x" : "disc-o") + (isLast ? " last" : "") + (isWin ? " win" : ""),
      }, group);
    }
  }
}
