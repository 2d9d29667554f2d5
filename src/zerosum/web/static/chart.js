// Nodes (or time) per algorithm and depth on a log scale: `zerosum compare` made visible.
import { el, svgRoot } from "./svg.js";

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];

export function drawChart(container, rows, { measure, best }) {
  const chosen = rows.filter((row) => row.best === best && row[measure] > 0);
  const width = 760, height = 360, left = 70, right = 210, top = 20, bottom = 44;
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
  [...series.entries()].forEach(([name, points], index) => {
    const colour = COLOURS[index % COLOURS.length];
    const dashed = name.includes("+");
    points.sort((a, b) => a.depth - b.depth);
    const d = points.map((p, i) => `${i ? "L" : "M"}${px(p.depth)},${py(p[measure])}`).join("");
    el("path", { d, class: "series", stroke: colour, "stroke-dasharray": dashed ? "6 4" : null }, svg);
    for (const p of points) {
      const dot = el("circle", { cx: px(p.depth), cy: py(p[measure]), r: 4, fill: colour, class: "point" }, svg);
      el("title", {}, dot, `${name}, depth ${p.depth}: ${p.nodes.toLocaleString("en-US")} nodes, ${p.time_s.toFixed(4)} s`);
    }
    const ly = top + 14 + index * 20;
    el("line", { x1: width - right + 16, x2: width - right + 40, y1: ly, y2: ly, stroke: colour, class: "series", "stroke-dasharray": dashed ? "6 4" : null }, svg);
    el("text", { x: width - right + 46, y: ly + 4, class: "legend-label" }, svg, name);
  });
}
