// Nodes (or time) per algorithm and depth on a log scale: `zerosum compare` made visible.
// Algorithms often count exactly the same nodes (minimax and negamax are one search written two
// ways), so no line may hide another: each series has its own colour and marker shape, its
// points are shifted a little sideways at each depth, series with a table are dashed, and the
// legend says which series coincide with an earlier one.
import { el, svgRoot } from "./svg.js";

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];
const SHAPES = ["circle", "square", "triangle", "diamond"];

function marker(parent, shape, x, y, colour) {
  const r = 4.5;
  const points = {
    triangle: [[0, -r - 1], [r + 1, r], [-r - 1, r]],
    diamond: [[0, -r - 1], [r + 1, 0], [0, r + 1], [-r - 1, 0]],
  }[shape];
  if (shape === "circle") return el("circle", { cx: x, cy: y, r, fill: colour, class: "point" }, parent);
  if (shape === "square") return el("rect", { x: x - r + 0.5, y: y - r + 0.5, width: 2 * r - 1, height: 2 * r - 1, fill: colour, class: "point" }, parent);
  return el("polygon", { points: points.map(([dx, dy]) => `${x + dx},${y + dy}`).join(" "), fill: colour, class: "point" }, parent);
}

export function drawChart(container, rows, { measure, best }) {
  const chosen = rows.filter((row) => row.best === best && row[measure] > 0);
  const width = 760, height = 380, left = 70, right = 250, top = 20, bottom = 44;
  const svg = svgRoot(container, width, height, `${measure} per algorithm and depth`);
  if (!chosen.length) {
    el("text", { x: width / 2, y: height / 2, class: "chart-empty" }, svg, "run a comparison to see the chart");
    return;
  }
  const depths = [...new Set(chosen.map((row) => row.depth))].sort((a, b) => a - b);
  const values = chosen.map((row) => row[measure]);
  const lo = Math.floor(Math.log10(Math.min(...values)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...values))));
  const plotW = width - left - right, plotH = height - top - bottom;
  const maxDepth = Math.max(...depths), minDepth = Math.min(...depths);
  const px = (d) => left + (maxDepth === minDepth ? plotW / 2 : ((d - minDepth) / (maxDepth - minDepth)) * plotW);
  const py = (v) => top + plotH - ((Math.log10(v) - lo) / (hi - lo)) * plotH;
  for (let e = lo; e <= hi; e++) {
    el("line", { x1: left, x2: left + plotW, y1: py(10 ** e), y2: py(10 ** e), class: "grid" }, svg);
    const label = measure === "time_s" ? `${10 ** e >= 1 ? 10 ** e : (10 ** e).toPrecision(1)} s` : `1e${e}`;
    el("text", { x: left - 8, y: py(10 ** e) + 4, class: "axis-label y" }, svg, label);
  }
  for (const d of depths) el("text", { x: px(d), y: top + plotH + 18, class: "axis-label x" }, svg, String(d));
  el("text", { x: left + plotW / 2, y: height - 6, class: "axis-title" }, svg, "depth (plies)");
  el("text", { x: 14, y: top + plotH / 2, class: "axis-title", transform: `rotate(-90 14 ${top + plotH / 2})` }, svg,
    measure === "time_s" ? "time (log)" : "nodes (log)");
  el("rect", { x: left, y: top, width: plotW, height: plotH, class: "plot-frame" }, svg);
  const series = new Map();
  for (const row of chosen) {
    const name = `${row.algorithm}${row.table === "none" ? "" : " + " + row.table}`;
    if (!series.has(name)) series.set(name, []);
    series.get(name).push(row);
  }
  // a series' sideways shift: at most a third of the gap between two depths, split evenly
  const gap = depths.length > 1 ? plotW / (maxDepth - minDepth) : plotW;
  const step = Math.min(4, gap / 3 / Math.max(series.size, 1));
  const seen = new Map();  // the values of a series, as text -> the first series with them
  [...series.entries()].forEach(([name, points], index) => {
    const colour = COLOURS[index % COLOURS.length];
    const shape = SHAPES[index % SHAPES.length];
    const dashed = name.includes("+");
    const shift = (index - (series.size - 1) / 2) * step;
    points.sort((a, b) => a.depth - b.depth);
    const group = el("g", { class: "series-group", "data-series": name }, svg);
    const d = points.map((p, i) => `${i ? "L" : "M"}${(px(p.depth) + shift).toFixed(2)},${py(p[measure]).toFixed(2)}`).join("");
    el("path", { d, class: "series", stroke: colour, "stroke-dasharray": dashed ? "6 4" : null }, group);
    for (const p of points) {
      const dot = marker(group, shape, px(p.depth) + shift, py(p[measure]), colour);
      el("title", {}, dot, `${name}, depth ${p.depth}: ${p.nodes.toLocaleString("en-US")} nodes, ${p.time_s.toFixed(4)} s`);
    }
    const signature = points.map((p) => `${p.depth}:${p[measure]}`).join(" ");
    const twin = seen.get(signature);
    if (twin === undefined) seen.set(signature, name);
    const ly = top + 14 + index * 20;
    const lx = width - right + 16;
    el("line", { x1: lx, x2: lx + 24, y1: ly, y2: ly, stroke: colour, class: "series", "stroke-dasharray": dashed ? "6 4" : null }, svg);
    marker(svg, shape, lx + 12, ly, colour);
    el("text", { x: lx + 30, y: ly + 4, class: "legend-label", "data-series": name }, svg, twin === undefined ? name : `${name} (= ${twin})`);
  });
}
