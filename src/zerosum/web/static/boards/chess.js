// Chess: the position is a FEN, the moves are UCI ("e2e4", "e7e8q"); options.hint, a move, is
// drawn as an arrow (the best move a search found). Click one of your pieces,
// then a highlighted square; a promotion then asks for the piece (queen, rook, bishop, knight;
// a click beside the picker takes the move back).
// The candidate clicks come only from the legal moves the server sent.
import { el, svgRoot, title } from "../svg.js";

const FILES = "abcdefgh";
// the solid glyphs for both colours (filled white or black by the style), as text, not emoji
const GLYPHS = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const NAMES = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
const PROMOTIONS = ["q", "r", "b", "n"];

// the page turns the board to face the second player when you play that side
export const facesPlayer = true;

let drawn = null;
// the clicks so far in the position `key`: from (a square), to (set: the promotion is missing)
let picked = { key: null, from: null, to: null };

// pieces by square name: {colour: 0 white | 1 black, kind: "k".."p"}
function parse(fen) {
  const [placement, side] = fen.split(/\s+/);
  const pieces = {};
  placement.split("/").forEach((row, index) => {
    let file = 0;
    for (const char of row) {
      if (/\d/.test(char)) {
        file += Number(char);
      } else {
        const kind = char.toLowerCase();
        pieces[FILES[file] + (8 - index)] = { colour: char === kind ? 1 : 0, kind };
        file += 1;
      }
    }
  });
  return { pieces, mover: side === "b" ? 1 : 0 };
}

function click(square) {
  const { container, state, options } = drawn;
  const legal = state.legal;
  const { from, to } = picked;
  const reset = () => { picked = { key: picked.key, from: null, to: null }; };
  if (to !== null) {  // the picker is open: square holds the chosen piece ("q") or nothing
    const move = from + to + square;
    reset();
    if (legal.includes(move)) {
      options.onMove(move);
      return;
    }
  } else if (from !== null && legal.some((m) => m.startsWith(from + square))) {
    if (legal.includes(from + square)) {
      reset();
      options.onMove(from + square);
      return;
    }
    picked = { key: picked.key, from, to: square };
  } else if (square !== from && legal.some((m) => m.startsWith(square))) {
    picked = { key: picked.key, from: square, to: null };
  } else {
    reset();
  }
  draw(container, state, options);
}

function piece(parent, x, y, size, { colour, kind }, extra = "") {
  const text = el("text", {
    x: x + size / 2, y: y + size * 0.78,
    class: `piece ${colour === 0 ? "piece-white" : "piece-black"}${extra}`,
    "font-size": size * 0.78,
    "data-piece": colour === 0 ? kind.toUpperCase() : kind,
  }, parent, GLYPHS[kind] + "\uFE0E");
  title(text, `${colour === 0 ? "white" : "black"} ${NAMES[kind]}`);
  return text;
}

export function draw(container, state, options) {
  const { flipped, interactive } = options;
  drawn = { container, state, options };
  const key = `${state.id} ${state.ply} ${state.position}`;
  if (picked.key !== key || !interactive) picked = { key, from: null, to: null };
  const { pieces, mover } = parse(state.position);
  const legal = interactive ? state.legal : [];
  const starts = new Set(legal.map((m) => m.slice(0, 2)));
  const targets = new Set(picked.from ? legal.filter((m) => m.startsWith(picked.from)).map((m) => m.slice(2, 4)) : []);
  const last = state.moves.length ? state.moves[state.moves.length - 1] : null;
  const marked = last ? [last.slice(0, 2), last.slice(2, 4)] : [];

  const size = 56, margin = 18, total = 8 * size + 2 * margin;
  const svg = svgRoot(container, total, total, "chess board");
  const at = (square) => {
    const file = FILES.indexOf(square[0]), rank = Number(square[1]) - 1;
    const col = flipped ? 7 - file : file, row = flipped ? rank : 7 - rank;
    return [margin + col * size, margin + row * size];
  };
  el("rect", { x: 0, y: 0, width: total, height: total, rx: 8, class: "chess-frame" }, svg);
  for (let rank = 1; rank <= 8; rank++) {
    for (let file = 0; file < 8; file++) {
      const square = FILES[file] + rank;
      const [x, y] = at(square);
      const light = (file + rank) % 2 === 1;
      const kind = targets.has(square) ? "legal" : square === picked.from ? "selected" : starts.has(square) ? "movable" : "";
      const group = el("g", { class: `sq${kind ? " " + kind : ""}`, "data-square": square }, svg);
      el("rect", {
        x, y, width: size, height: size,
        class: `${light ? "light" : "dark"}${marked.includes(square) ? " last-move" : ""}`,
      }, group);
      const here = pieces[square];
      if (state.in_check && here && here.kind === "k" && here.colour === mover) {
        el("rect", { x, y, width: size, height: size, class: "check" }, group);
      }
      if (here) piece(group, x, y, size, here);
      if (kind === "legal") {
        el("circle", here ? { cx: x + size / 2, cy: y + size / 2, r: size / 2 - 3, class: "capture-ring" }
          : { cx: x + size / 2, cy: y + size / 2, r: 8, class: "target" }, group);
      }
      if (kind) group.addEventListener("click", () => click(square));
    }
  }
  for (let i = 0; i < 8; i++) {
    const file = flipped ? FILES[7 - i] : FILES[i];
    const rank = flipped ? i + 1 : 8 - i;
    el("text", { x: margin + i * size + size / 2, y: total - 4, class: "chess-coord" }, svg, file);
    el("text", { x: margin / 2, y: margin + i * size + size / 2 + 4, class: "chess-coord" }, svg, String(rank));
  }
  if (options.hint && /^[a-h][1-8][a-h][1-8][qrbn]?$/.test(options.hint)) {
    // the best move the last search found here: an arrow from its square to its target
    const [x1, y1] = at(options.hint.slice(0, 2)), [x2, y2] = at(options.hint.slice(2, 4));
    const c1 = [x1 + size / 2, y1 + size / 2], c2 = [x2 + size / 2, y2 + size / 2];
    const length = Math.hypot(c2[0] - c1[0], c2[1] - c1[1]);
    const [ux, uy] = [(c2[0] - c1[0]) / length, (c2[1] - c1[1]) / length];
    const head = 16, half = 11, tip = [c2[0] - ux * 6, c2[1] - uy * 6];
    const base = [tip[0] - ux * head, tip[1] - uy * head];
    const group = el("g", { class: "hint-arrow", "data-move": options.hint }, svg);
    el("line", { x1: c1[0] + ux * 8, y1: c1[1] + uy * 8, x2: base[0], y2: base[1], class: "hint-shaft" }, group);
    el("path", {
      d: `M${tip[0]},${tip[1]}L${base[0] - uy * half},${base[1] + ux * half}L${base[0] + uy * half},${base[1] - ux * half}Z`,
      class: "hint-head",
    }, group);
    title(group, `best move found: ${options.hint}`);
  }
  if (picked.to !== null) {  // the promotion picker, over the target square's file
    const [x, y] = at(picked.to);
    const down = y < total / 2;
    const group = el("g", { class: "promotion" }, svg);
    // a click beside the picker takes the move back
    const veil = el("rect", { x: 0, y: 0, width: total, height: total, class: "promotion-veil" }, group);
    veil.addEventListener("click", () => click(null));
    PROMOTIONS.forEach((kind, index) => {
      const py = down ? y + index * size : y - index * size;
      const button = el("g", { class: "promotion-choice", "data-promotion": kind }, group);
      el("rect", { x, y: py, width: size, height: size, rx: 6, class: "promotion-bg" }, button);
      piece(button, x, py, size, { colour: mover, kind });
      button.addEventListener("click", (event) => {
        event.stopPropagation();
        click(kind);
      });
    });
  }
}
