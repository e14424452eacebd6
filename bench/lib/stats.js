// Statistics and timing shared by every benchmark group.

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The `p`-th fraction (0..1) of `xs`, e.g. percentile(times, 0.99). */
export const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/**
 * Median µs of each of `fns` over `n` sequential runs each, after `warmup` untimed
 * runs each, timed in ten alternating blocks so that every fn sees the same
 * machine: on a VM a round trip's latency shifts between runs (~20 µs or ~60 µs
 * here, as the scheduler places the processes), which would otherwise land on
 * one side. Blocks are long so each side stays warm within its own (alternating
 * every few calls makes each peer wait idle, and wake slowly, between its turns).
 */
export async function interleavedMedians(n, fns, options = {}) {
  return (await interleavedTimes(n, fns, options)).map(median);
}

/** The µs of every timed run of each of `fns`, measured as interleavedMedians measures them. */
export async function interleavedTimes(n, fns, { blocks = 10, warmup = 200 } = {}) {
  for (const fn of fns) for (let i = 0; i < warmup; i++) await fn();
  const times = fns.map(() => []);
  for (let b = 0; b < blocks; b++) {
    for (const [k, fn] of fns.entries()) {
      for (let i = 0; i < Math.ceil(n / blocks); i++) {
        const t = process.hrtime.bigint();
        await fn();
        times[k].push(Number(process.hrtime.bigint() - t) / 1000);
      }
    }
  }
  return times;
}

/** Events per second for `n` events since `startMs` (a performance.now() reading). */
export const perSecondSince = (n, startMs) => n / ((performance.now() - startMs) / 1000);

/** A rate as a report shows it: 12,345. */
export const thousands = (x) => Math.round(x).toLocaleString("en");
