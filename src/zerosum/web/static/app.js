// The page: one session per tab on the server, one websocket for its live searches.
import { boardFor } from "./boards/index.js";
import { drawTree } from "./tree.js";
import { drawChart } from "./chart.js";
import { PROVEN, count } from "./format.js";

const $ = (id) => document.getElementById(id);

const page = {
  games: [],
  info: null,          // the chosen game's entry of GET /api/games
  state: null,         // the session's state (see POST /api/sessions)
  socket: null,
  flipped: false,
  busy: null,          // "think" | "analyze" | "compare" while a search runs
  moving: false,       // while the server checks a move played on the board
  rootSide: 0,         // the side to move when the running search started
  compareRows: [],
};

// -- the API ------------------------------------------------------------------------------

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    let detail = data.detail;
    if (Array.isArray(detail)) detail = detail.map((d) => `${d.loc.slice(1).join(".")}: ${d.msg}`).join("; ");
    throw new Error(detail || `${response.status} ${response.statusText}`);
  }
  return data;
}

function showError(error) {
  $("error").textContent = error ? String(error.message || error) : "";
}

async function guarded(action) {
  showError(null);
  try {
    await action();
  } catch (error) {
    showError(error);
  }
}

// -- sessions and the board ---------------------------------------------------------------

function human() {
  const side = $("side").value;
  return side === "both" ? null : Number(side);
}

function computerToMove() {
  const state = page.state;
  const me = human();
  return state && !state.result && me !== null && state.side_to_move !== me;
}

function setState(state) {
  page.state = state;
  render();
  if (computerToMove() && !page.busy) think(true);
}

function render() {
  const state = page.state;
  const interactive = !page.busy && !page.moving && !state.result && !computerToMove();
  boardFor(page.info.board).draw($("board"), state, {
    flipped: page.flipped,
    interactive,
    onMove: (move) => playMove(move),
  });
  const colours = boardFor(page.info.board).sideColours;
  const mover = state.sides[state.side_to_move] + (colours ? ` (${colours[state.side_to_move]})` : "");
  $("status").textContent = state.result
    ? `Game over: ${state.result.text}.`
    : page.busy === "think" ? `${mover} to move: the computer is thinking…` : `${mover} to move.`;
  $("status").dataset.over = state.result ? "yes" : "no";
  $("position").value = state.start === null ? "" : state.start;
  $("moves").value = state.moves.join(" ");
  $("movelist").replaceChildren(...state.moves.map((move, index) => {
    const item = document.createElement("li");
    item.textContent = `${index + 1}. ${state.sides[(index + (state.ply - state.moves.length)) % 2]} ${move}`;
    return item;
  }));
  $("undo").disabled = !!page.busy || state.moves.length === 0;
  $("engine").disabled = !!page.busy || !!state.result;
  $("analyze").disabled = !!page.busy || !!state.result;
  $("stop").disabled = !page.busy;
  $("explain-run").disabled = !!state.result;
}

// one move at a time: the board takes no clicks until the server has answered
async function playMove(move) {
  if (page.moving) return;
  page.moving = true;
  render();
  try {
    await guarded(async () => {
      const state = await api("POST", `/api/sessions/${page.state.id}/moves`, { move });
      page.moving = false;
      setState(state);
    });
  } finally {
    if (page.moving) {
      page.moving = false;
      render();
    }
  }
}

function openSocket() {
  if (page.socket) page.socket.close();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/sessions/${page.state.id}/live`);
  socket.onmessage = (message) => onEvent(JSON.parse(message.data));
  socket.onclose = () => { if (page.socket === socket) page.socket = null; };
  page.socket = socket;
  return new Promise((resolve) => { socket.onopen = resolve; });
}

async function send(message) {
  if (!page.socket || page.socket.readyState !== WebSocket.OPEN) await openSocket();
  page.socket.send(JSON.stringify(message));
}

async function newSession() {
  const name = $("game").value;
  page.info = page.games.find((game) => game.name === name);
  fillSelectors();
  orient();
  $("format").textContent = "Position format: " + page.info.position_format;
  // every game offers its own engine and MCTS; only games with a kernel the compiled one
  const compiled = $("engine-kind").querySelector('option[value="compiled"]');
  compiled.hidden = compiled.disabled = !page.info.compiled;
  if ($("engine-kind").value === "compiled" && !page.info.compiled) $("engine-kind").value = "default";
  page.busy = null;
  stopClock();
  resetFigures();
  page.state = await api("POST", "/api/sessions", { game: name });
  await openSocket();
  setState(page.state);
  $("tree").replaceChildren();
  $("explain-summary").textContent = "";
}

// boards with a side of their own (chess, morris) turn to face the second player
function orient() {
  page.flipped = !!boardFor(page.info.board).facesPlayer && $("side").value === "1";
}

function fillSelectors() {
  const info = page.info;
  const side = $("side").value;
  const colours = boardFor(info.board).sideColours || ["", ""];
  const label = (index) => `${info.sides[index]} (${["first", "second"][index]}${colours[index] ? ", " + colours[index] : ""})`;
  $("side").replaceChildren(
    new Option(label(0), "0"),
    new Option(label(1), "1"),
    new Option("both sides (no computer)", "both"),
  );
  $("side").value = ["0", "1", "both"].includes(side) ? side : "0";
  $("level").replaceChildren(...info.levels.map((level) => new Option(`${level.level}: ${level.label}`, level.level)));
  $("level").value = String(info.default_level);
}

// -- searches -----------------------------------------------------------------------------

function resetFigures() {
  $("evalfill").style.height = "50%";
  $("evaltext").textContent = "evaluation –";
  for (const id of ["f-depth", "f-score", "f-nodes", "f-nps", "f-time", "f-best", "f-pv"]) $(id).textContent = "–";
  $("iterations").tBodies[0].replaceChildren();
}

function thinkTime() {
  const seconds = Number($("think-time").value);
  return seconds > 0 ? Math.min(seconds, 120) : 5;
}

async function think(play) {
  page.busy = play ? "think" : "analyze";
  page.rootSide = page.state.side_to_move;
  resetFigures();
  $("thinking").hidden = false;
  startClock();
  render();
  // playing: the chosen strength within the think time; analysing: deeper until solved or stopped
  const how = play ? { level: Number($("level").value), time: thinkTime() } : { depth: 0, time: 120 };
  // the game's own engine (its analyzer: compiled-tactical for chess), the compiled one or MCTS
  const kind = $("engine-kind").value;
  const engine = kind === "mcts" || (kind === "compiled" && page.info.compiled) ? kind : "default";
  await send({ action: "think", ...how, engine, play });
}

// the time figure ticks while a search runs (the others change after each iteration)
let clock = null;

function startClock() {
  stopClock();
  const started = performance.now();
  clock = setInterval(() => {
    $("f-time").textContent = `${((performance.now() - started) / 1000).toFixed(1)} s`;
  }, 200);
}

function stopClock() {
  if (clock !== null) clearInterval(clock);
  clock = null;
}

function evalBar(value, text) {
  // the first player's share: 1 = won for the first player; the words come from the server
  const mine = page.rootSide === 0 ? value : -value;
  const share = Math.abs(mine) >= PROVEN ? (mine > 0 ? 1 : 0) : 0.5 + 0.5 * (mine / (Math.abs(mine) + 100));
  $("evalfill").style.height = `${(share * 100).toFixed(1)}%`;
  $("evaltext").textContent = `evaluation for ${page.state.sides[0]}: ${text}`;
}

function showFigures(event) {
  $("f-depth").textContent = event.depth;
  if (clock === null) $("f-time").textContent = `${event.time_s.toFixed(2)} s`;
  $("f-score").textContent = `${event.value_text} for ${page.state.sides[page.rootSide]}`;
  $("f-nodes").textContent = count(event.nodes);
  $("f-nps").textContent = count(event.nps);
  $("f-best").textContent = event.best_moves.join(" ") || "–";
  $("f-pv").textContent = event.pv.join(" ") || "–";
  evalBar(event.value, event.value_text_first);
}

function onEvent(event) {
  if (event.type === "info") {
    showFigures(event);
    const row = document.createElement("tr");
    for (const text of [event.depth, event.value_text, count(event.nodes), event.time_s.toFixed(3), event.pv.join(" ")]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.appendChild(cell);
    }
    $("iterations").tBodies[0].prepend(row);
  } else if (event.type === "row") {
    page.compareRows.push(event);
    addCompareRow(event);
    redrawChart();
  } else if (event.type === "done") {
    stopClock();
    const was = page.busy;
    page.busy = null;
    $("thinking").hidden = true;
    if (was === "compare") {
      $("compare-summary").textContent = event.complete ? "done" : "stopped";
      render();
    } else {
      showFigures(event);
      if (event.state) {
        page.state = event.state;
        render();
        // the computer may have to move again (it plays both sides only if told to)
        if (computerToMove()) think(true);
      }
    }
  } else if (event.type === "error") {
    stopClock();
    page.busy = null;
    $("thinking").hidden = true;
    showError(event.message);
    if (page.state) render();
  }
}

// -- explain and compare ------------------------------------------------------------------

async function explainPosition() {
  const depth = $("explain-depth").value;
  const algorithm = document.querySelector("input[name=explain-algo]:checked").value;
  const id = page.state.id;
  const tree = await api("GET", `/api/sessions/${id}/explain?depth=${depth}&algorithm=${algorithm}`);
  drawTree($("tree"), tree);
  const other = algorithm === "alphabeta" ? "minimax" : "alphabeta";
  let otherNodes;
  try {
    otherNodes = (await api("GET", `/api/sessions/${id}/explain?depth=${depth}&algorithm=${other}`)).nodes;
  } catch {
    otherNodes = null;
  }
  const ab = algorithm === "alphabeta" ? tree.nodes : otherNodes;
  const mm = algorithm === "minimax" ? tree.nodes : otherNodes;
  const saved = ab !== null && mm !== null ? `, alpha-beta visits ${(100 * ab / mm).toFixed(0)}% of minimax's nodes` : "";
  $("explain-summary").textContent =
    `${algorithm === "alphabeta" ? "alpha-beta" : "minimax"}: value ${tree.value_text} for the side to move, ` +
    `best ${tree.best_move}, ${count(tree.nodes)} nodes, ${tree.cutoffs} cut-offs, ${tree.pruned} pruned branches` +
    (mm === null ? ", minimax: more than 5,000 nodes" : saved);
}

function addCompareRow(row) {
  const tr = document.createElement("tr");
  for (const text of [row.depth, row.algorithm, row.table, row.best, row.value, count(row.nodes), count(row.cutoffs), row.time_s.toFixed(4), row.best_moves.join(" ")]) {
    const cell = document.createElement("td");
    cell.textContent = text;
    tr.appendChild(cell);
  }
  $("compare-table").tBodies[0].appendChild(tr);
}

function redrawChart() {
  const measure = document.querySelector("input[name=compare-measure]:checked").value;
  drawChart($("chart"), page.compareRows, { measure, best: $("compare-all").checked ? "all" : "one" });
}

async function comparePosition() {
  page.compareRows = [];
  $("compare-table").tBodies[0].replaceChildren();
  redrawChart();
  page.busy = "compare";
  $("compare-summary").textContent = "running…";
  render();
  await send({ action: "compare", depth: Number($("compare-depth").value) });
}

// -- wiring -------------------------------------------------------------------------------

async function start() {
  page.games = (await api("GET", "/api/games")).games;
  $("game").replaceChildren(...page.games.map((game) => new Option(game.title, game.name)));
  const wanted = new URLSearchParams(location.search).get("game");
  if (wanted && page.games.some((game) => game.name === wanted)) $("game").value = wanted;
  $("game").addEventListener("change", () => guarded(newSession));
  $("side").addEventListener("change", () => {
    orient();
    if (page.state) setState(page.state);
  });
  $("new").addEventListener("click", () => guarded(async () => {
    if (page.busy) await send({ action: "stop" });
    page.busy = null;
    resetFigures();
    setState(await api("POST", `/api/sessions/${page.state.id}/load`, { position: null, moves: [] }));
  }));
  $("undo").addEventListener("click", () => guarded(async () => {
    const state = page.state;
    // against the computer, take back its reply too, so that it is your turn again
    const afterOne = 1 - state.side_to_move;
    const count = human() === null || afterOne === human() ? 1 : Math.min(2, state.moves.length);
    setState(await api("POST", `/api/sessions/${state.id}/undo`, { count }));
  }));
  $("flip").addEventListener("click", () => { page.flipped = !page.flipped; render(); });
  $("engine").addEventListener("click", () => guarded(() => think(true)));
  $("analyze").addEventListener("click", () => guarded(() => think(false)));
  $("stop").addEventListener("click", () => guarded(() => send({ action: "stop" })));
  $("load").addEventListener("click", () => guarded(async () => {
    const position = $("position").value.trim();
    const moves = $("moves").value.trim();
    const body = { position: position === "" ? null : position, moves: moves ? [moves] : [] };
    const state = await api("POST", `/api/sessions/${page.state.id}/load`, body);
    resetFigures();  // the figures of the position before would mislead
    setState(state);
  }));
  $("copy").addEventListener("click", () => guarded(async () => {
    const state = page.state;
    const text = state.position;
    try {
      await navigator.clipboard.writeText(text);
      $("status").textContent = `Copied: ${text}`;
    } catch {
      $("position").select();
      $("status").textContent = `Select and copy: ${text}`;
    }
  }));
  $("explain-run").addEventListener("click", () => guarded(explainPosition));
  $("compare-run").addEventListener("click", () => guarded(comparePosition));
  for (const input of document.querySelectorAll("input[name=compare-measure], #compare-all")) {
    input.addEventListener("change", redrawChart);
  }
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => {
      for (const other of document.querySelectorAll(".tab")) other.classList.toggle("active", other === tab);
      for (const panel of document.querySelectorAll(".panel")) panel.hidden = panel.id !== tab.dataset.tab;
      if (tab.dataset.tab === "compare") redrawChart();
    });
  }
  await newSession();
  document.body.dataset.ready = "yes";
}

guarded(start);
