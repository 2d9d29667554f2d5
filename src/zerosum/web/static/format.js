// Scores: from the side to move, a win n plies away is 1000000 - n (mission.md's convention).
// Values in words come from the server (value_text, zerosum.formatting); this module only
// shortens values for the tree's small labels.
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

export function count(n) {
  return Number(n).toLocaleString("en-US");
}
