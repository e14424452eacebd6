// The shape of a casting tree. A process that sends to more than `fanout`
// processes splits them, in order, into `fanout` runs of near-equal length and
// sends each run to its first process, which does the same with the rest of
// its run: depth ⌈log_fanout n⌉, and every process sends at most `fanout` copies.

/** Splits `items` into at most `fanout` consecutive runs whose lengths differ by at most one. */
export function subtrees<T>(items: readonly T[], fanout: number): T[][] {
  const n = items.length;
  const count = Math.min(fanout, n);
  const runs: T[][] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const length = Math.floor(n / count) + (i < n % count ? 1 : 0);
    runs.push(items.slice(at, at + length));
    at += length;
  }
  return runs;
}

/** How many hops the farthest of `n` processes is from the sender, with `fanout`. */
export function castDepth(n: number, fanout: number): number {
  if (n === 0) return 0;
  if (n <= fanout) return 1;
  return 1 + castDepth(Math.ceil(n / fanout) - 1, fanout); // the head of the longest run forwards the rest of it
}
