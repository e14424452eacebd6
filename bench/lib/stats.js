// Statistics and timing shared by every benchmark group.

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The `p`-th fraction (0..1) of `xs`, e.g. percentile(times, 0.99). */
export const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** Median time of `fn` over `n` sequential runs, in µs, after `warmup` untimed runs. */
export async function medianMicros(n, fn, warmup = 0) {
  for (let i = 0; i < warmup; i++) await fn();
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  return median(times);
}

/** Events per second for `n` events since `startMs` (a performance.now() reading). */
export const perSecondSince = (n, startMs) => n / ((performance.now() - startMs) / 1000);

/** A rate as a report shows it: 12,345. */
export const thousands = (x) => Math.round(x).toLocaleString("en");
