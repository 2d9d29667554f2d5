// The search tree as seed 001 draws it: values and windows at the nodes, the chosen path in
// green, cut-off branches in red. The server sends values from the root player's point of
// view; the page shows them for the first player, as every score on the page: square nodes are
// where the first player moves (and takes the highest value), round ones the second player's.
import { el, svgRoot, title } from "./svg.js";
import { shortScore } from "./format.js";

function layout(root) {
  let leaves = 0, depth = 0;
  const visit = (node, level) => {
    node.level = level;
    depth = Math.max(depth, level);
    if (!node.children.length) {
      node.slot = leaves++;
    } else {
      node.children.forEach((child) => visit(child, level + 1));
      node.slot = (node.children[0].slot + node.children[node.children.length - 1].slot) / 2;
    }
  };
  visit(root, 0);
  return { leaves, depth };
}

function valueText(node) {
  if (node.kind === "pruned") return "✂";
  const prefix = node.bound === "lower" ? "≥" : node.bound === "upper" ? "≤" : "";
  return prefix + shortScore(node.value);
}

function describe(node, path) {
  const lines = [path.length ? "after " + path.join(" ") : "the root"];
  if (node.kind === "pruned") {
    lines.push("pruned: a cutoff above made this move unnecessary");
    return lines.join("\n");
  }
  lines.push(`${node.max ? "MAX" : "MIN"} node, ${node.kind}`);
  lines.push(`value ${valueText(node)} (${node.bound})`);
  if (node.alpha !== null) lines.push(`window [${shortScore(node.alpha)}, ${shortScore(node.beta)}]`);
  if (node.cutoff) lines.push("cut off: the remaining moves were not searched");
  if (node.chosen) lines.push("on the chosen path");
  return lines.join("\n");
}

// the node as seen by the first player, when the second player was to move at the root: the
// values change sign, so bounds swap and the window [alpha, beta] becomes [-beta, -alpha]
function forFirst(node) {
  const negate = (v) => (v === null || v === undefined ? v : -v);
  const bound = { lower: "upper", upper: "lower" }[node.bound] || node.bound;
  return {
    ...node, max: !node.max, value: negate(node.value), bound,
    alpha: negate(node.beta), beta: negate(node.alpha), children: node.children.map(forFirst),
  };
}

export function drawTree(container, data) {
  const tree = data.side_to_move === 1 ? { ...data, root: forFirst(data.root) } : data;
  const { leaves, depth } = layout(tree.root);
  // a wide tree is drawn dense: smaller leaves with their values written downwards, the
  // windows left to the tooltips, move labels only on the root's edges
  const dense = leaves > 150;
  const gap = dense ? 20 : 44, levelHeight = dense ? 80 : 96, margin = 40;
  const width = Math.max(300, leaves * gap + 2 * margin);
  const height = (depth + 1) * levelHeight + 2 * margin + (dense ? 20 : 0);
  const svg = svgRoot(container, width, height, `${tree.algorithm} search tree`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  const edges = el("g", { class: "edges" }, svg);
  const nodes = el("g", { class: "nodes" }, svg);
  const x = (node) => margin + node.slot * gap + gap / 2;
  const y = (node) => margin + node.level * levelHeight;
  const radius = (node) => (!dense ? 15 : node.children.length ? 12 : 6);
  const draw = (node, path) => {
    const r = radius(node);
    for (const child of node.children) {
      const pruned = child.kind === "pruned";
      const cls = "edge" + (child.chosen ? " chosen" : "") + (pruned ? " pruned" : "");
      el("line", { x1: x(node), y1: y(node) + r, x2: x(child), y2: y(child) - radius(child), class: cls }, edges);
      if (!dense || node.level === 0) {
        el("text", { x: (x(node) + x(child)) / 2 - 4, y: (y(node) + y(child)) / 2, class: "edge-label" + (pruned ? " pruned" : "") }, edges, child.label || child.move);
      }
      draw(child, [...path, child.label || child.move]);
    }
    const cls = ["node", node.max ? "max" : "min", node.kind];
    if (node.chosen) cls.push("chosen");
    if (node.cutoff) cls.push("cutoff");
    const group = el("g", { class: cls.join(" "), transform: `translate(${x(node)},${y(node)})` }, nodes);
    title(group, describe(node, path));
    if (node.kind === "pruned") {
      el("path", { d: `M-${r / 2},-${r / 2}L${r / 2},${r / 2}M${r / 2},-${r / 2}L-${r / 2},${r / 2}`, class: "pruned-mark" }, group);
      return;
    }
    if (node.max) el("rect", { x: -r, y: -r, width: 2 * r, height: 2 * r, rx: 3 }, group);
    else el("circle", { r }, group);
    if (!dense) {
      el("text", { y: 4, class: "node-value" }, group, valueText(node));
      if (node.alpha !== null && (node.level < 3 || leaves < 40)) {
        el("text", { y: r + 12, class: "node-window" }, group, `[${shortScore(node.alpha)}, ${shortScore(node.beta)}]`);
      }
    } else if (node.children.length) {
      el("text", { y: 3, class: "node-value dense" }, group, valueText(node));
    } else {
      el("text", { x: r + 3, y: 3, class: "node-value dense leaf", transform: "rotate(90)" }, group, valueText(node));
    }
  };
  draw(tree.root, []);
  container.dataset.width = width;
  fitTree(container, container.classList.contains("fit"));
  // at its actual size, start with the root in view
  container.scrollLeft = Math.max(0, x(tree.root) - container.clientWidth / 2);
}

// the tree scaled to its box (fit: no scrolling), or at its actual size (scrolls)
export function fitTree(container, fit) {
  container.classList.toggle("fit", fit);
  const svg = container.querySelector("svg");
  if (!svg) return;
  const [, , width, height] = svg.getAttribute("viewBox").split(" ").map(Number);
  if (fit) {
    svg.removeAttribute("width");
    svg.removeAttribute("height");
  } else {
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
  }
}
