// Any game without a drawn board yet: the game's own text drawing and a button per legal move.
export function draw(container, state, { interactive, onMove, hint }) {
  container.replaceChildren();
  const pre = document.createElement("pre");
  pre.className = "render";
  pre.textContent = state.render;
  container.appendChild(pre);
  const moves = document.createElement("div");
  moves.className = "move-buttons";
  for (const name of state.legal) {
    const button = document.createElement("button");
    button.textContent = name;
    button.dataset.move = name;
    if (name === hint) {  // the best move a search found
      button.classList.add("hint");
      button.title = "best move found";
    }
    button.disabled = !interactive;
    button.addEventListener("click", () => onMove(name));
    moves.appendChild(button);
  }
  container.appendChild(moves);
}
