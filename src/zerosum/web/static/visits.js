// Monte Carlo tree search at work: the simulations through each root move as bars, redrawn
// after every iteration the server reports (an info event's `visits`, best move first).
import { count } from "./format.js";

// data: null (nothing to show) or {visits: [{move, visits, value, proven}], side: the side to
// move at the root, first: the first player's name}
export function drawVisits(container, data) {
  container.replaceChildren();
  container.hidden = !data;
  if (!data) {
    delete container.dataset.total;
    return;
  }
  const { visits, side, first } = data;
  const total = visits.reduce((sum, root) => sum + root.visits, 0);
  const most = Math.max(1, ...visits.map((root) => root.visits));
  container.dataset.total = total;
  const heading = document.createElement("h3");
  heading.textContent = `MCTS: simulations per move (${count(total)} in all)`;
  container.appendChild(heading);
  visits.forEach((root, index) => {
    const row = document.createElement("div");
    row.className = "visit" + (index === 0 ? " best" : "");
    row.dataset.move = root.move;
    row.dataset.visits = root.visits;
    const name = document.createElement("span");
    name.className = "visit-move";
    name.textContent = root.label || root.move;  // as people read it (SAN in chess)
    const bar = document.createElement("span");
    bar.className = "bar";
    const fill = document.createElement("span");
    fill.className = "fill";
    fill.style.width = `${((100 * root.visits) / most).toFixed(1)}%`;
    bar.appendChild(fill);
    const figure = document.createElement("span");
    figure.className = "visit-count";
    figure.textContent = count(root.visits);
    // the mean result of its playouts, for the first player: +1 every one won, -1 every one lost
    const mean = side === 0 ? root.value : -root.value;
    const proven = root.proven === null ? null : side === 0 ? root.proven : -root.proven;
    const verdict = proven === null ? "" : proven > 0 ? `won for ${first}` : proven < 0 ? `lost for ${first}` : "a draw";
    row.title = proven !== null
      ? `${root.label || root.move}: proven ${verdict} (${root.visits} simulations)`
      : `${root.label || root.move}: ${root.visits} simulations, mean result for ${first} ${mean >= 0 ? "+" : ""}${mean.toFixed(2)}`;
    row.append(name, bar, figure);
    container.appendChild(row);
  });
}
