// Tic-tac-toe: cells a1..c3 (file a-c from the left, rank 1-3 from the bottom).
// The position format lists the cells row by row from the top left: "x.o/.x./..o".
import { el, svgRoot } from "../svg.js";

const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

// cells[rank][file], rank 0 = bottom
function parse(position) {
  const rows = position.replace(/\//g, "").split("");
  const cells = [[], [], []];
  rows.forEach((symbol, index) => {
    const rank = 2 - Math.floor(index / 3);
    cells[rank][index % 3] = symbol;
  });
  return cells;
}

export function draw(container, state, { flipped, interactive, onMove, hint }) {
  const size = 100, pad = 10, total = 3 * size + 2 * pad;
  const svg = svgRoot(container, total, total, "tic-tac-toe board");
  const cells = parse(state.position);
  const legal = new Set(state.legal);
  const last = state.moves.length ? state.moves[state.moves.length - 1] : null;
  const flat = [];
  for (let rank = 0; rank < 3; rank++) for (let file = 0; file < 3; file++) flat.push(cells[rank][file]);
  let winning = [];
  for (const line of LINES) {
    const [a, b, c] = line.map((i) => flat[i]);
    if (a !== "." && a === b && b === c) winning = line;
  }
  const place = (file, rank) => {
    const col = flipped ? 2 - file : file;
    const row = flipped ? rank : 2 - rank;
    return [pad + col * size, pad + row * size];
  };
  el("rect", { x: 0, y: 0, width: total, height: total, class: "board-bg", rx: 8 }, svg);
  for (let rank = 0; rank < 3; rank++) {
    for (let file = 0; file < 3; file++) {
      const name = "abc"[file] + (rank + 1);
      const [x, y] = place(file, rank);
      const playable = interactive && legal.has(name);
      const group = el("g", { class: "cell" + (playable ? " legal" : ""), "data-move": name }, svg);
      el("rect", { x: x + 3, y: y + 3, width: size - 6, height: size - 6, rx: 6,
        class: "square" + (name === last ? " last" : "") + (winning.includes(rank * 3 + file) ? " win" : "") }, group);
      const symbol = cells[rank][file];
      const cx = x + size / 2, cy = y + size / 2, r = size * 0.3;
      if (symbol === "x") {
        el("path", { d: `M${cx - r},${cy - r}L${cx + r},${cy + r}M${cx + r},${cy - r}L${cx - r},${cy + r}`, class: "stone-x" }, group);
      } else if (symbol === "o") {
        el("circle", { cx, cy, r, class: "stone-o" }, group);
      } else if (playable) {
        el("circle", { cx, cy, r: 6, class: "target" }, group);
        group.addEventListener("click", () => onMove(name));
      }
      if (hint === name) {  // the best move a search found
        const mark = el("rect", { x: x + 8, y: y + 8, width: size - 16, height: size - 16, rx: 8, class: "hint", "data-move": name }, group);
        el("title", {}, mark, `best move found: ${name}`);
      }
      el("text", { x: x + 8, y: y + size - 8, class: "coord" }, group, name);
    }
  }
}
