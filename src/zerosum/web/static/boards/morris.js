// Nine men's morris and its variants (morris:six, morris:twelve): points a1..g7 as in
// mission.md. The position lists the points row by row from the top left ("W", "B" or "."),
// then the side to move and the men in hand: "W..B.... w 7 8".
// Clicks only pick among the legal moves the server sent: a placement is one click, a slide or
// fly two (own man, then the target); a move that closes a mill waits for a further click on one
// of the enemy men it may remove (or on the new man, to take it back), and the whole move
// ("f2-f4xd5") goes to onMove at once.
import { el, svgRoot, title } from "../svg.js";

const FILES = "abcdefg";
const SQUARES = [["a7", "g7", "g1", "a1"], ["b6", "f6", "f2", "b2"], ["c5", "e5", "e3", "c3"]];
const NINE_SPOKES = [["d7", "d5"], ["a4", "c4"], ["e4", "g4"], ["d3", "d1"]];
const SIX_SPOKES = [["d7", "d6"], ["a4", "b4"], ["f4", "g4"], ["d2", "d1"]];
const DIAGONALS = [["a7", "c5"], ["g7", "e5"], ["a1", "c3"], ["g1", "e3"]];
const MOVE = /^(?:([a-g][1-7])-)?([a-g][1-7])(?:x([a-g][1-7]))?$/;

// the page turns the board to face the second player when you play that side
export const facesPlayer = true;

// what the last draw() was given, so that a click can draw again with its selection
let drawn = null;
// the clicks so far in the position `key`: {from, to} (to set: only the removal is missing)
let picked = { key: null, from: null, to: null };

function variantOf(game) {
  const options = game.split(":").slice(1);
  return options.includes("six") ? "six" : options.includes("twelve") ? "twelve" : "nine";
}

// the board's lines as pairs of points, and its points in the standard order
function geometry(variant) {
  const squares = variant === "six" ? SQUARES.slice(0, 2) : SQUARES;
  const lines = [];
  for (const corners of squares) corners.forEach((a, i) => lines.push([a, corners[(i + 1) % 4]]));
  lines.push(...(variant === "six" ? SIX_SPOKES : NINE_SPOKES));
  if (variant === "twelve") lines.push(...DIAGONALS);
  const points = new Set();
  for (const corners of squares) {
    for (let i = 0; i < 4; i++) {
      const [a, b] = [corners[i], corners[(i + 1) % 4]];
      points.add(a);
      points.add(a[0] === b[0] ? a[0] + "4" : "d" + a[1]);  // the middle of each side
    }
  }
  const order = [...points].sort((p, q) => q[1] - p[1] || p.charCodeAt(0) - q.charCodeAt(0));
  return { lines, order };
}

function parse(position, order) {
  const [board, side, white, black] = position.split(/\s+/);
  const men = {};
  order.forEach((point, index) => {
    const symbol = board[index].toUpperCase();
    if (symbol !== ".") men[point] = symbol === "W" ? 0 : 1;
  });
  return { men, mover: side === "w" ? 0 : 1, hand: [Number(white), Number(black)] };
}

function parseMove(text) {
  const match = MOVE.exec(text);
  return match ? { text, from: match[1] || null, to: match[2], remove: match[3] || null } : null;
}

// the move's text without its removal, e.g. "f2-f4" or "d2"
const stem = (move) => (move.from ? `${move.from}-` : "") + move.to;

function click(point) {
  const { container, state, options } = drawn;
  const moves = state.legal.map(parseMove).filter(Boolean);
  const { from, to } = picked;
  if (to !== null) {  // waiting for the removal
    const done = moves.find((m) => m.from === from && m.to === to && m.remove === point);
    picked = { key: picked.key, from: null, to: null };
    if (done) {
      options.onMove(done.text);
      return;
    }
  } else {
    const here = moves.filter((m) => m.to === point && m.from === from);
    if (here.length) {
      const plain = here.find((m) => m.remove === null);
      if (plain) {
        picked = { key: picked.key, from: null, to: null };
        options.onMove(plain.text);
        return;
      }
      picked = { key: picked.key, from, to: point };
    } else if (moves.some((m) => m.from === point)) {
      picked = { key: picked.key, from: point === from ? null : point, to: null };
    } else {
      picked = { key: picked.key, from: null, to: null };
    }
  }
  draw(container, state, options);
}

export function draw(container, state, options) {
  const { flipped, interactive } = options;
  drawn = { container, state, options };
  const key = `${state.id} ${state.ply} ${state.position}`;
  if (picked.key !== key || !interactive) picked = { key, from: null, to: null };
  const variant = variantOf(state.game);
  const { lines, order } = geometry(variant);
  const { men, mover, hand } = parse(state.position, order);
  const moves = interactive ? state.legal.map(parseMove).filter(Boolean) : [];

  // what a click may do now: the class of each clickable point
  const clickable = {};
  if (picked.to !== null) {
    for (const m of moves) {
      if (m.from === picked.from && m.to === picked.to && m.remove) clickable[m.remove] = "removable";
    }
    clickable[picked.to] = "selected";  // a click on the new man takes it back
  } else {
    for (const m of moves) {
      if (m.from === null) clickable[m.to] = "legal";
      else if (m.from === picked.from) clickable[m.to] = "legal";
      else clickable[m.from] = clickable[m.from] || "movable";
    }
    if (picked.from) clickable[picked.from] = "selected";
  }
  // the board as it will be once the pending man has moved
  const shown = { ...men };
  if (picked.to !== null) {
    if (picked.from) delete shown[picked.from];
    shown[picked.to] = mover;
  }
  const last = state.moves.length ? parseMove(state.moves[state.moves.length - 1]) : null;
  const hint = options.hint ? parseMove(options.hint) : null;  // the best move a search found

  const step = 60, pad = 36, band = 44;
  const side = 6 * step + 2 * pad;
  const svg = svgRoot(container, side, side + 2 * band, `${variant} men's morris board`);
  const at = (point) => {
    let col = FILES.indexOf(point[0]), row = 7 - Number(point[1]);
    if (flipped) [col, row] = [6 - col, 6 - row];
    return [pad + col * step, band + pad + row * step];
  };
  el("rect", { x: 0, y: band, width: side, height: side, rx: 10, class: "morris-bg" }, svg);
  for (const [a, b] of lines) {
    const [x1, y1] = at(a), [x2, y2] = at(b);
    el("line", { x1, y1, x2, y2, class: "morris-line" }, svg);
  }
  for (const point of order) {
    const [cx, cy] = at(point);
    const kind = clickable[point];
    const who = shown[point];
    const group = el("g", {
      class: "point" + (kind ? ` ${kind}` : "") + (last && point === last.to ? " last-move" : ""),
      "data-point": point,
    }, svg);
    el("circle", { cx, cy, r: 24, class: "point-hit" }, group);
    el("circle", { cx, cy, r: 6, class: "point-dot" }, group);
    if (last && (point === last.from || point === last.remove)) {
      el("circle", { cx, cy, r: 11, class: point === last.remove ? "removed-mark" : "from-mark" }, group);
    }
    if (who !== undefined) {
      el("circle", {
        cx, cy, r: 19,
        class: (who === 0 ? "man-white" : "man-black") + (picked.to === point ? " pending" : ""),
      }, group);
    }
    if (hint && [hint.from, hint.to, hint.remove].includes(point)) {
      const role = point === hint.remove ? "remove" : point === hint.from ? "from" : "to";
      const mark = el("circle", { cx, cy, r: 23, class: `hint hint-${role}`, "data-move": hint.text }, group);
      el("title", {}, mark, `best move found: ${hint.text}`);
    }
    // its name, up and left of the point, clear of a man on it (a move is written "d2 b4")
    el("text", { x: cx - 13, y: cy - 13, class: "point-name" }, group, point);
    if (kind === "legal") el("circle", { cx, cy, r: 8, class: "target" }, group);
    if (kind === "removable") el("path", { d: `M${cx - 9},${cy - 9}L${cx + 9},${cy + 9}M${cx + 9},${cy - 9}L${cx - 9},${cy + 9}`, class: "remove-cross" }, group);
    title(group, point);
    if (kind) group.addEventListener("click", () => click(point));
  }
  // the men in hand: the first player's at the bottom unless flipped
  for (const who of [0, 1]) {
    const top = (who === 1) !== flipped;
    const y = top ? band / 2 : band + side + band / 2;
    const count = hand[who] - (picked.to !== null && picked.from === null && who === mover ? 1 : 0);
    const group = el("g", { class: "hand", "data-side": who, "data-count": count }, svg);
    el("text", { x: 8, y: y + 5, class: "hand-label" }, group, `${state.sides[who]} in hand: ${count}`);
    for (let i = 0; i < count; i++) {
      el("circle", { cx: 170 + i * 20, cy: y, r: 8, class: who === 0 ? "man-white" : "man-black" }, group);
    }
  }
  if (picked.to !== null) {
    el("text", { x: side / 2, y: band + side - 8, class: "morris-hint" }, svg,
      "a mill: click the man to remove (or your new man to take it back)");
  }
}
