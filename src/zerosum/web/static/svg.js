// Small helpers for hand-written SVG.
export const NS = "http://www.w3.org/2000/svg";

export function el(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(name, String(value));
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

export function svgRoot(container, width, height, label) {
  container.replaceChildren();
  return el("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label }, container);
}

export function title(node, text) {
  el("title", {}, node, text);
  return node;
}
