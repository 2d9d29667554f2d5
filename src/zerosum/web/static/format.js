// Scores: from the side to move, a win n plies away is 1000000 - n (mission.md's convention).
export const WIN = 1000000;
export const PROVEN = WIN - 1000;
export const INFINITY = WIN + 1;

export function shortScore(value) {
  if (value === null || value === undefined) return "";
  if (value >= INFINITY) return "∞";
  if (value <= -INFINITY) return "-∞";
  if (value >= PROVEN) return "W" + (WIN - value);
  if (value <= -PROVEN) return "L" + (WIN + value);
  return String(value);
}

export function longScore(value, solved) {
  if (value >= PROVEN) { const n = WIN - value; return `win in ${n} ${n === 1 ? "ply" : "plies"}`; }
  if (value <= -PROVEN) { const n = WIN + value; return `loss in ${n} ${n === 1 ? "ply" : "plies"}`; }
  if (solved && value === 0) return "draw";
  return value > 0 ? "+" + value : String(value);
}

export function count(n) {
  return Number(n).toLocaleString("en-US");
}
