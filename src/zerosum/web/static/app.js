// The page: one session per tab on the server, one websocket for its live searches.
//
// The page is an analysis board. It keeps the game's line (every move from the start position,
// with its display name: SAN for chess) and a cursor into it; the server's session always holds
// the position at the cursor. Stepping through the line loads that prefix into the session;
// playing a move at an earlier point keeps the line if it is the line's next move and
// otherwise cuts the line there and continues with the new move.
//
// One score convention everywhere: values are for the first player (White, X, Red...), labelled
// with that side's name; the server sends the words (value_text_first).
import { boardFor } from "./boards/index.js";
import { drawTree, fitTree } from "./tree.js";
import { drawChart } from "./chart.js";
import { drawEvalGraph, firstShare } from "./evalgraph.js";
import { drawVisits } from "./visits.js";
import { WIN, count } from "./format.js";

const $ = (id) => document.getElementById(id);

const page = {
  games: [],
  info: null,          // the chosen game's entry of GET /api/games
  state: null,         // the session's state (see POST /api/sessions): the position at the cursor
  start: null,         // the position the line starts from (null: the game's start)
  line: [],            // the line: {move, name} from the start; the session holds line[0:cursor]
  lineId: 0,           // changes whenever the line is cut or replaced
  evals: [],           // evals[k]: what a search found after k moves: {value, text, best}
  socket: null,
  flipped: false,
  busy: null,          // "think" | "analyze" | "compare" while a search runs
  moving: false,       // while the server answers a move or a step
  search: null,        // where the running search started: {ply, lineId}
  lastMessage: null,   // the last websocket message, sent again after a lost session
  resent: null,        // the message sent again already (once is enough)
  compareRows: [],
  compareSide: 0,      // the side to move in the compared position
};

const cursor = () => (page.state ? page.state.moves.length : 0);
const atEnd = () => cursor() === page.line.length;

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
    const error = new Error(detail || `${response.status} ${response.statusText}`);
    error.status = response.status;
    // 429: the server runs as many searches as it may; it says when to try again
    error.retryAfter = Number(data.retry_after ?? response.headers.get("Retry-After")) || null;
    throw error;
  }
  return data;
}

const lostSession = (text) => /^unknown session/.test(text || "");

// A request about this tab's session; if the server has lost it (a restart, or it forgot the
// least recently used sessions), set the game up again from the page's line and ask again.
// A server busy with other searches (429) is asked again after the wait it names, a few times.
async function sessionApi(method, suffix, body) {
  for (let tries = 1; ; tries += 1) {
    try {
      return await api(method, `/api/sessions/${page.state.id}${suffix}`, body);
    } catch (error) {
      if (error.status === 429 && error.retryAfter && tries < BUSY_TRIES) {
        await waitForServer(error.retryAfter);
        continue;
      }
      if (error.status !== 404 || !lostSession(error.message)) throw error;
      await recover();
      return await api(method, `/api/sessions/${page.state.id}${suffix}`, body);
    }
  }
}

const BUSY_TRIES = 4;

function waitForServer(seconds) {
  notice(`The server is busy with other searches: trying again in ${seconds} s.`);
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

async function recover() {
  const moves = page.line.slice(0, cursor()).map((entry) => entry.move);
  const state = await api("POST", "/api/sessions", { game: page.info.name, position: page.start, moves });
  page.state = state;
  notice("The server had lost this game (restarted?): it was set up again from the moves on this page.");
  await openSocket();
}

function showError(error) {
  $("error").textContent = error ? String(error.message || error) : "";
}

let noticeTimer = null;

function notice(text) {
  $("notice").textContent = text;
  $("notice").hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { $("notice").hidden = true; }, 8000);
}

async function guarded(action) {
  showError(null);
  try {
    await action();
  } catch (error) {
    showError(error);
  }
}

// -- the line -----------------------------------------------------------------------------

// Take a state from the server. "browse": the line is kept past the state's moves when they are
// a prefix of it (else it is cut where they part); "cut": the line ends at the state's moves.
function adopt(state, mode = "browse") {
  const moves = state.moves;
  const names = state.san || moves;
  let same = 0;
  if (state.start === page.start) {
    while (same < moves.length && same < page.line.length && page.line[same].move === moves[same]) same++;
  }
  const keep = mode === "browse" && same === moves.length ? page.line.length : same;
  if (keep < page.line.length || state.start !== page.start) page.lineId++;
  page.line = page.line.slice(0, keep);
  page.evals = state.start === page.start ? page.evals.slice(0, keep + 1) : [];
  moves.forEach((move, index) => { page.line[index] = { move, name: names[index] }; });
  page.start = state.start;
  page.state = state;
  const result = state.result;
  if (result && !page.evals[moves.length]) {  // a finished game's value is its result
    const value = result.winner === null ? 0 : result.winner === 0 ? WIN : -WIN;
    const text = result.winner === null ? "a draw" : result.winner === 0 ? "won" : "lost";
    page.evals[moves.length] = { value, text, best: null };
  }
}

function human() {
  const side = $("side").value;
  return side === "both" ? null : Number(side);
}

// the computer moves by itself only at the end of the line
function computerToMove() {
  const state = page.state;
  const me = human();
  return state && !state.result && me !== null && state.side_to_move !== me && atEnd();
}

function setState(state, mode) {
  adopt(state, mode);
  render();
  if (computerToMove() && !page.busy) think(true);
}

// step to the position after `ply` moves of the line; steps asked for while one is under way
// (a key held down) go on from where that one is going
let stepping = null;  // the ply the steps are heading for, while they run

const stepBase = () => (stepping === null ? cursor() : stepping);

async function goTo(ply) {
  const target = Math.max(0, Math.min(ply, page.line.length));
  if (stepping !== null) {
    stepping = target;
    return;
  }
  if (target === cursor() || page.moving) return;
  if (page.busy) await stopSearch();
  stepping = target;
  page.moving = true;
  try {
    while (stepping !== cursor()) {
      const goal = stepping;
      const moves = page.line.slice(0, goal).map((entry) => entry.move);
      adopt(await sessionApi("POST", "/load", { position: page.start, moves }));
      render();
      if (cursor() !== goal) break;  // the server holds another line: it has the last word
    }
  } finally {
    stepping = null;
    page.moving = false;
    render();
  }
}

async function stopSearch() {
  await send({ action: "stop" });
  page.busy = null;
  page.search = null;
  stopClock();
  $("thinking").hidden = true;
}

// the numbered move list: a full move per item, each move a button to step to
function renderMoveList() {
  const state = page.state;
  const first = (((state.side_to_move - cursor()) % 2) + 2) % 2;  // the side that moved first
  const fen = page.info.board === "chess" && page.start ? Number(page.start.split(/\s+/)[5]) : 1;
  let number = Number.isFinite(fen) && fen > 0 ? fen : 1;
  const items = [];
  let item = null;
  page.line.forEach((entry, index) => {
    const side = (first + index) % 2;
    if (item === null || side === 0) {
      item = document.createElement("li");
      const label = document.createElement("span");
      label.className = "number";
      label.textContent = side === 0 ? `${number}.` : `${number}…`;
      item.appendChild(label);
      items.push(item);
    }
    const button = document.createElement("button");
    button.className = "move" + (index + 1 === cursor() ? " current" : "");
    button.dataset.ply = index + 1;
    button.textContent = entry.name;
    button.title = `${state.sides[side]}: ${entry.move}`;
    if (index + 1 === cursor()) button.setAttribute("aria-current", "step");
    button.addEventListener("click", () => guarded(() => goTo(index + 1)));
    item.appendChild(button);
    if (side === 1) number++;
  });
  $("movelist").replaceChildren(...items);
  const current = $("movelist").querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest", inline: "nearest" });
}

// -- drawing ------------------------------------------------------------------------------

function sideName(side) {
  const colours = boardFor(page.info.board).sideColours;
  return page.state.sides[side] + (colours ? ` (${colours[side]})` : "");
}

function render() {
  const state = page.state;
  const interactive = !page.busy && !page.moving && !state.result && !computerToMove();
  const here = page.evals[cursor()];
  boardFor(page.info.board).draw($("board"), state, {
    flipped: page.flipped,
    interactive,
    hint: here && here.best && !state.result ? here.best : null,
    onMove: (move) => playMove(move),
  });
  const mover = sideName(state.side_to_move);
  const check = state.in_check ? ", in check" : "";
  const where = atEnd() ? "" : ` (move ${cursor()} of ${page.line.length}: ← → step through the game)`;
  let status;
  if (state.result) {
    const how = state.in_check && state.result.winner !== null ? "checkmate, " : "";
    status = `Game over: ${how}${state.result.text}.${where}`;
  } else if (page.busy === "think") {
    status = `${mover} to move${check}: the computer is thinking…`;
  } else {
    status = `${mover} to move${check}.${where}`;
  }
  $("status").textContent = status;
  $("status").dataset.over = state.result ? "yes" : "no";
  $("status").dataset.check = state.in_check ? "yes" : "no";
  $("position").value = page.start === null ? "" : page.start;
  // the moves as people read them (SAN in chess), which Load reads back
  $("moves").value = page.line.map((entry) => entry.name).join(" ");
  renderMoveList();
  showEvaluation();
  drawEvalGraph($("evalgraph"), {
    evals: page.evals,
    plies: page.line.length,
    cursor: cursor(),
    first: state.sides[0],
    onPick: (ply) => guarded(() => goTo(ply)),
  });
  for (const [id, target] of [["to-start", 0], ["back", cursor() - 1], ["forward", cursor() + 1], ["to-end", page.line.length]]) {
    $(id).disabled = page.moving || target < 0 || target > page.line.length || target === cursor();
  }
  $("undo").disabled = !!page.busy || state.moves.length === 0;
  $("engine").disabled = !!page.busy || !!state.result;
  $("analyze").disabled = !!page.busy || !!state.result;
  $("stop").disabled = !page.busy;
  $("explain-run").disabled = !!state.result;
}

// the evaluation bar and its words: the last search's value at the shown position
function showEvaluation() {
  const here = page.evals[cursor()];
  const first = page.state.sides[0];
  if (!here) {
    $("evalfill").style.height = "50%";
    $("evaltext").textContent = `evaluation for ${first}: –`;
    return;
  }
  $("evalfill").style.height = `${(firstShare(here.value) * 100).toFixed(1)}%`;
  $("evaltext").textContent = `evaluation for ${first}: ${here.text}`;
}

// one move at a time: the board takes no clicks until the server has answered
async function playMove(move) {
  if (page.moving) return;
  page.moving = true;
  render();
  try {
    await guarded(async () => {
      const state = await sessionApi("POST", "/moves", { move });
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
  let opened = false;
  socket.onclose = (event) => {
    if (page.socket !== socket) return;  // replaced by a newer socket
    page.socket = null;
    if (!opened) return;  // never connected: openSocket's caller hears of it
    // the connection dropped while a search ran (the server restarted?): ask once more; an
    // unknown session (4404) was reported by an error event, which sets the session up again
    if (event.code !== 4404 && page.busy && page.lastMessage) resume(page.lastMessage);
  };
  page.socket = socket;
  return new Promise((resolve, reject) => {
    socket.onopen = () => {
      opened = true;
      resolve();
    };
    socket.onerror = () => reject(new Error("the server does not answer: is zerosum serve running?"));
  });
}

// send a search again after the connection dropped (once per search): the server may be
// restarting, so try for a while, then give up with the error
async function resume(message) {
  if (page.resent === message) {
    endSearch();
    showError("the connection to the server dropped again: try again");
    render();
    return;
  }
  page.resent = message;
  notice("The connection to the server dropped: asking again…");
  if (message.action === "think") resetFigures();  // the search starts over
  for (let wait = 250; ; wait *= 2) {
    try {
      await send(message);
      return;
    } catch (error) {
      if (wait > 8000 || !page.busy) {
        endSearch();
        showError(error);
        if (page.state) render();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

function endSearch() {
  stopClock();
  page.busy = null;
  page.search = null;
  $("thinking").hidden = true;
}

async function send(message) {
  if (message.action !== "stop" && message !== page.lastMessage) {
    page.lastMessage = message;
    page.resent = null;
  }
  if (!page.socket || page.socket.readyState !== WebSocket.OPEN) {
    if (message.action === "stop") return;  // nothing runs without a socket
    await openSocket();
  }
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
  page.start = null;
  page.line = [];
  page.evals = [];
  page.lineId++;
  page.state = await api("POST", "/api/sessions", { game: name });
  await openSocket();
  setState(page.state, "cut");
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
    new Option("both (no computer)", "both"),
  );
  $("side").value = ["0", "1", "both"].includes(side) ? side : "0";
  $("level").replaceChildren(...info.levels.map((level) => new Option(`${level.level}: ${level.label}`, level.level)));
  $("level").value = String(info.default_level);
  // the tree depths the server accepts for this game (its whole minimax tree from the start)
  const depths = Array.from({ length: info.explain_depth }, (_, i) => String(i + 1));
  const depth = $("explain-depth").value;
  $("explain-depth").replaceChildren(...depths.map((d) => new Option(d, d)));
  $("explain-depth").value = depths.includes(depth) ? depth : String(Math.min(2, info.explain_depth));
  for (const id of ["iterations-score", "compare-value"]) $(id).textContent = `score for ${info.sides[0]}`;
  legend(info);
}

// the explain tree's legend names this game's sides (with their colours where they have them)
function legend(info) {
  const colours = boardFor(info.board).sideColours;
  const named = (side) => info.sides[side] + (colours && colours[side].toLowerCase() !== info.sides[side].toLowerCase() ? ` (${colours[side]})` : "");
  $("key-max").textContent = `${named(0)} to move: takes the highest`;
  $("key-min").textContent = `${named(1)} to move: takes the lowest`;
}

// -- searches -----------------------------------------------------------------------------

function resetFigures() {
  for (const id of ["f-depth", "f-score", "f-nodes", "f-nps", "f-time", "f-best", "f-pv"]) $(id).textContent = "–";
  $("iterations").tBodies[0].replaceChildren();
  drawVisits($("visits"), null);
}

function thinkTime() {
  const seconds = Number($("think-time").value);
  return seconds > 0 ? Math.min(seconds, 120) : 5;
}

async function think(play) {
  page.busy = play ? "think" : "analyze";
  page.search = { ply: cursor(), lineId: page.lineId, side: page.state.side_to_move };
  resetFigures();
  $("thinking").textContent = "thinking…";
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

// a search's event belongs to the shown line if the line still holds its position
function searchPosition() {
  const search = page.search;
  return search && search.lineId === page.lineId && search.ply <= page.line.length ? search : null;
}

function showFigures(event) {
  const search = searchPosition();
  if (!search) return;
  const first = search.side === 0 ? event.value : -event.value;
  page.evals[search.ply] = { value: first, text: event.value_text_first, best: event.best_move };
  $("f-depth").textContent = event.depth;
  if (clock === null) $("f-time").textContent = `${event.time_s.toFixed(2)} s`;
  $("f-score").textContent = `${event.value_text_first} for ${page.state.sides[0]}`;
  $("f-nodes").textContent = count(event.nodes);
  $("f-nps").textContent = count(event.nps);
  $("f-best").textContent = (event.best_labels || event.best_moves).join(" ") || "–";
  $("f-pv").textContent = (event.pv_labels || event.pv).join(" ") || "–";
  if (event.engine) showEngine(event.engine);
  if (event.visits) drawVisits($("visits"), { visits: event.visits, side: search.side, first: page.state.sides[0] });
}

// the engine the search runs with, as the command line names it
function showEngine(name, loading = false) {
  $("engine-used").textContent = loading ? `engine ${name}: loading…` : `engine ${name}`;
  $("engine-used").dataset.engine = loading ? "" : name;
}

function onEvent(event) {
  if (event.type === "loading") {
    showEngine(event.engine, true);
    $("thinking").textContent = "loading the engine (its first use compiles it)…";
  } else if (event.type === "searching") {
    showEngine(event.engine);
    $("thinking").textContent = "thinking…";
  } else if (event.type === "info") {
    showFigures(event);
    const row = document.createElement("tr");
    for (const text of [event.depth, event.value_text_first, count(event.nodes), event.time_s.toFixed(3), (event.pv_labels || event.pv).join(" ")]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.appendChild(cell);
    }
    $("iterations").tBodies[0].prepend(row);
    if (page.state) render();
  } else if (event.type === "row") {
    page.compareRows.push(event);
    addCompareRow(event);
    redrawChart();
  } else if (event.type === "done") {
    page.busyTries = 0;
    stopClock();
    const was = page.busy;
    page.busy = null;
    $("thinking").hidden = true;
    if (was === "compare") {
      $("compare-summary").textContent = event.complete ? "done" : "stopped";
      render();
    } else {
      // a search the page gave up (it stepped elsewhere) has nothing more to say
      const current = page.search !== null;
      const search = searchPosition();
      showFigures(event);
      page.search = null;
      if (event.state && current) {
        adopt(event.state);
        // the move played keeps the value for the first player: the evaluation after it
        if (event.played && search && !page.evals[search.ply + 1]) {
          const first = search.side === 0 ? event.value : -event.value;
          page.evals[search.ply + 1] = { value: first, text: event.value_text_first, best: null };
        }
        render();
        // the computer may have to move again (it plays both sides only if told to)
        if (computerToMove()) think(true);
      } else if (page.state) {
        render();
      }
    }
  } else if (event.type === "error") {
    if (event.retry_after && page.lastMessage && page.busy && (page.busyTries ?? 0) < BUSY_TRIES - 1) {
      // the server runs as many searches as it may: ask again when it expects a free slot
      const message = page.lastMessage;
      page.busyTries = (page.busyTries ?? 0) + 1;
      waitForServer(event.retry_after).then(() => {
        if (page.busy && page.lastMessage === message) send(message);
      });
      return;
    }
    page.busyTries = 0;
    if (lostSession(event.message) && page.lastMessage && page.busy) {
      // the server restarted or forgot the session: set it up again, then ask again
      const message = page.lastMessage;
      recover().then(() => send(message)).catch((error) => {
        endSearch();
        showError(error);
        render();
      });
      return;
    }
    endSearch();
    showError(event.message);
    if (page.state) render();
  }
}

// -- explain and compare ------------------------------------------------------------------

async function explainPosition() {
  const depth = $("explain-depth").value;
  const algorithm = document.querySelector("input[name=explain-algo]:checked").value;
  const tree = await sessionApi("GET", `/explain?depth=${depth}&algorithm=${algorithm}`);
  const first = page.state.sides[0];
  drawTree($("tree"), tree);
  legend(page.info);
  const other = algorithm === "alphabeta" ? "minimax" : "alphabeta";
  let otherNodes;
  try {
    otherNodes = (await sessionApi("GET", `/explain?depth=${depth}&algorithm=${other}`)).nodes;
  } catch {
    otherNodes = null;
  }
  const ab = algorithm === "alphabeta" ? tree.nodes : otherNodes;
  const mm = algorithm === "minimax" ? tree.nodes : otherNodes;
  const saved = ab !== null && mm !== null ? `, alpha-beta visits ${(100 * ab / mm).toFixed(0)}% of minimax's nodes` : "";
  $("explain-summary").textContent =
    `${algorithm === "alphabeta" ? "alpha-beta" : "minimax"}: value ${tree.value_text_first} for ${first}, ` +
    `best ${tree.best_label || tree.best_move}, ${count(tree.nodes)} nodes, ${tree.cutoffs} cut-offs, ${tree.pruned} pruned branches` +
    (mm === null ? ", minimax: more than 5,000 nodes" : saved);
}

function addCompareRow(row) {
  const tr = document.createElement("tr");
  const value = page.compareSide === 0 ? row.value : -row.value;
  for (const text of [row.depth, row.algorithm, row.table, row.best, value, count(row.nodes), count(row.cutoffs), row.time_s.toFixed(4), (row.best_labels || row.best_moves).join(" ")]) {
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
  page.compareSide = page.state.side_to_move;
  $("compare-table").tBodies[0].replaceChildren();
  redrawChart();
  page.busy = "compare";
  $("compare-summary").textContent = "running…";
  render();
  await send({ action: "compare", depth: Number($("compare-depth").value) });
}

// -- wiring -------------------------------------------------------------------------------

function onKey(event) {
  const target = event.target;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
  const steps = { ArrowLeft: stepBase() - 1, ArrowRight: stepBase() + 1, Home: 0, End: page.line.length };
  if (!(event.key in steps) || !page.state) return;
  event.preventDefault();
  guarded(() => goTo(steps[event.key]));
}

async function start() {
  page.games = (await api("GET", "/api/games")).games;
  $("game").replaceChildren(...page.games.map((game) => new Option(game.title, game.name)));
  const wanted = new URLSearchParams(location.search).get("game");
  if (wanted && !page.games.some((game) => game.name === wanted)) {
    // a game the list leaves out, such as one with its options (?game=openspiel:clobber)
    try {
      const [game] = (await api("GET", `/api/games?name=${encodeURIComponent(wanted)}`)).games;
      page.games.push(game);
      $("game").append(new Option(game.title, game.name));
    } catch (error) {
      notice(error.message);
    }
  }
  if (wanted && page.games.some((game) => game.name === wanted)) $("game").value = wanted;
  $("game").addEventListener("change", () => guarded(newSession));
  $("side").addEventListener("change", () => {
    orient();
    if (page.state) setState(page.state);
  });
  $("new").addEventListener("click", () => guarded(async () => {
    if (page.busy) await stopSearch();
    resetFigures();
    page.evals = [];
    setState(await sessionApi("POST", "/load", { position: null, moves: [] }), "cut");
  }));
  $("undo").addEventListener("click", () => guarded(async () => {
    const state = page.state;
    // against the computer, take back its reply too, so that it is your turn again
    const afterOne = 1 - state.side_to_move;
    const count = human() === null || afterOne === human() ? 1 : Math.min(2, state.moves.length);
    setState(await sessionApi("POST", "/undo", { count }), "cut");
  }));
  $("flip").addEventListener("click", () => { page.flipped = !page.flipped; render(); });
  $("to-start").addEventListener("click", () => guarded(() => goTo(0)));
  $("back").addEventListener("click", () => guarded(() => goTo(stepBase() - 1)));
  $("forward").addEventListener("click", () => guarded(() => goTo(stepBase() + 1)));
  $("to-end").addEventListener("click", () => guarded(() => goTo(page.line.length)));
  document.addEventListener("keydown", onKey);
  $("engine").addEventListener("click", () => guarded(() => think(true)));
  $("analyze").addEventListener("click", () => guarded(() => think(false)));
  $("stop").addEventListener("click", () => guarded(() => send({ action: "stop" })));
  $("load").addEventListener("click", () => guarded(async () => {
    const position = $("position").value.trim();
    const moves = $("moves").value.trim();
    const body = { position: position === "" ? null : position, moves: moves ? [moves] : [] };
    const state = await sessionApi("POST", "/load", body);
    resetFigures();  // the figures of the position before would mislead
    page.evals = [];
    page.start = undefined;  // a new line, even from the same position
    setState(state, "cut");
  }));
  $("copy").addEventListener("click", () => guarded(async () => {
    const text = page.state.position;
    try {
      await navigator.clipboard.writeText(text);
      $("status").textContent = `Copied: ${text}`;
    } catch {
      $("position").select();
      $("status").textContent = `Select and copy: ${text}`;
    }
  }));
  $("explain-run").addEventListener("click", () => guarded(explainPosition));
  $("tree-zoom").addEventListener("click", () => {
    const fit = !$("tree").classList.contains("fit");
    fitTree($("tree"), fit);
    $("tree-zoom").textContent = fit ? "Actual size" : "Fit to the box";
    $("tree-zoom").setAttribute("aria-pressed", String(!fit));
  });
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
