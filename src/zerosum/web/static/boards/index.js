// Board renderers by the name a game's spec gives (its "board" in /api/games). A game without one gets the generic board (its text drawing
// and a button per legal move). A renderer exports draw(container, state, options) with
// options {flipped, interactive, hint, onMove(moveText)} (hint: null or the best move a search
// found in this position, which the board marks: chess an arrow, connect four the column,
// tic-tac-toe the cell, morris its points); it calls onMove with a move in the game's
// notation (a renderer that needs two clicks, from and to, keeps that selection itself).
// It may also export sideColours, e.g. ["red", "yellow"], shown beside the side names, and
// facesPlayer (true: the page flips the board when you play the second side).
import * as generic from "./generic.js";
import * as tictactoe from "./tictactoe.js";
import * as connect4 from "./connect4.js";
import * as morris from "./morris.js";
import * as chess from "./chess.js";

const BOARDS = { tictactoe, connect4, morris, chess };

// "generic", or a board that is not here, gets the generic board
export function boardFor(board) {
  return BOARDS[board] || generic;
}
