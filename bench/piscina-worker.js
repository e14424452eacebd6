// Piscina's worker for the P1 baseline: the same tiny task as bench/tasks.js.
export default function add({ a, b }) {
  return a + b;
}
