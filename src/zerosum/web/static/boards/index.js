// Board renderers by game name. A game without one gets the generic board (its text drawing
// and a button per legal move). A renderer exports draw(container, state, options) with
// options {flipped, interactive, onMove(moveText)}; it calls onMove with a move in the game's
// notation (a renderer that needs two clicks, from and to, keeps that selection itself).
// It may also export sideColours, e.g. ["red", "yellow"], shown beside the side names.
import * as generic from "./generic.js";
import * as tictactoe from "./tictactoe.js";
import * as connect4 from "./connect4.js";

const BOARDS = { tictactoe, connect4 };

export function boardFor(game) {
  return BOARDS[game] || generic;
}
