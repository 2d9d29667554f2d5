// The evaluation graph over the game: what the searches found at each position of the line,
// for the first player (up: better for the first player), one column per position. A click on
// the graph steps to that position.
import { el, svgRoot, title } from "./svg.js";
import { PROVEN } from "./format.js";

// a value for the first player as the first player's share of the bar: 1 = won, 0 = lost
export function firstShare(value) {
  if (Math.abs(value) >= PROVEN) return value > 0 ? 1 : 0;
  return 0.5 + 0.5 * (value / (Math.abs(value) + 100));
}

// evals[k]: {value, text} after k moves (or missing); plies: the line's length; cursor: the
// shown position; first: the first player's name; onPick(ply) when a position is clicked
export function drawEvalGraph(container, { evals, plies, cursor, first, onPick }) {
  const width = 480, height = 110, left = 8, right = 8, top = 8, bottom = 16;
  const svg = svgRoot(container, width, height, `evaluation for ${first} over the game`);
  const plotW = width - left - right, plotH = height - top - bottom;
  const span = Math.max(plies, 1);
  const px = (ply) => left + (ply / span) * plotW;
  const py = (share) => top + (1 - share) * plotH;
  el("rect", { x: left, y: top, width: plotW, height: plotH, class: "graph-frame" }, svg);
  el("line", { x1: left, x2: left + plotW, y1: py(0.5), y2: py(0.5), class: "graph-zero" }, svg);
  el("text", { x: left + 4, y: top + 11, class: "graph-label" }, svg, `${first} better ↑`);
  el("line", { x1: px(cursor), x2: px(cursor), y1: top, y2: top + plotH, class: "graph-cursor" }, svg);
  const known = [];
  for (let ply = 0; ply <= plies; ply++) if (evals[ply]) known.push(ply);
  if (known.length > 1) {
    const d = known.map((ply, i) => `${i ? "L" : "M"}${px(ply).toFixed(1)},${py(firstShare(evals[ply].value)).toFixed(1)}`).join("");
    el("path", { d, class: "graph-line" }, svg);
  }
  for (const ply of known) {
    const dot = el("circle", {
      cx: px(ply), cy: py(firstShare(evals[ply].value)), r: ply === cursor ? 4.5 : 3,
      class: "graph-point" + (ply === cursor ? " current" : ""), "data-ply": ply,
    }, svg);
    title(dot, `after ${ply} move${ply === 1 ? "" : "s"}: ${evals[ply].text} for ${first}`);
  }
  if (!known.length) {
    el("text", { x: width / 2, y: top + plotH / 2 + 4, class: "chart-empty" }, svg,
      "Analyze (or let the computer move) to draw it");
  }
  el("text", { x: left, y: height - 3, class: "axis-label" }, svg, "start");
  el("text", { x: left + plotW, y: height - 3, class: "axis-label end" }, svg, `${plies} move${plies === 1 ? "" : "s"}`);
  svg.addEventListener("click", (event) => {
    const box = svg.getBoundingClientRect();
    const x = ((event.clientX - box.left) / box.width) * width;
    onPick(Math.max(0, Math.min(plies, Math.round(((x - left) / plotW) * span))));
  });
}
