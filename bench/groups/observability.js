// O1: what metrics cost. P2 round trips and P3 one-way messages from two client
// processes, one with FRAY_METRICS=1 and one with =0 (each with its own worker,
// which inherits the setting), taking turns in ten blocks so both see the same machine.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { quick, report, scale, want } from "../lib/group.js";
import { median, thousands } from "../lib/stats.js";

const client = fileURLToPath(new URL("../fixtures/metrics-client.js", import.meta.url));

/** A client process with FRAY_METRICS=`on`: `run(op, n)` answers what it measured. */
async function start(on) {
  const child = fork(client, [], { env: { ...process.env, FRAY_METRICS: on }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let waiting = null;
  const failed = new Promise((_, reject) =>
    child.once("exit", (code, signal) => reject(new Error(`the FRAY_METRICS=${on} client exited (${signal ?? code})`))),
  );
  failed.catch(() => {});
  child.on("message", (m) => waiting?.(m));
  const next = () => Promise.race([new Promise((resolve) => (waiting = resolve)), failed]);
  await next(); // ready
  return {
    run: (op, n) => (child.send({ op, n }), next()),
    stop: async () => {
      child.send({ op: "stop" });
      await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", resolve)));
    },
  };
}

if (want("O1")) {
  // Where the scheduler places a pair of processes moves their round trip by ±15% or more for as long
  // as they live (measured with both sides off), so each round starts a fresh pair of clients and the
  // cost is the median of the rounds' ratios.
  const rounds = quick ? 3 : 15;
  const blocks = 4;
  const p2 = Math.ceil((2000 * scale) / blocks);
  const p3 = Math.ceil((80_000 * scale) / blocks);
  const times = { on: [], off: [] };
  const rates = { on: [], off: [] };
  const p2Costs = [];
  const p3Costs = [];
  for (let r = 0; r < rounds; r++) {
    const [on, off] = await Promise.all([start("1"), start("0")]);
    try {
      // Warm-up: a fresh pair's one-way rate climbs ~10× over its first ~300,000 messages (JIT, heap
      // sizing), so fewer left each round comparing two warm-ups rather than metrics.
      for (const c of [on, off]) {
        await c.run("p2", 200);
        await c.run("p3", Math.ceil(300_000 * scale));
      }
      const round = { on: [], off: [] };
      const roundRates = { on: [], off: [] };
      for (let b = 0; b < blocks; b++) {
        // Alternate which side goes first, so neither always follows the other.
        const order =
          (b + r) % 2
            ? [
                ["off", off],
                ["on", on],
              ]
            : [
                ["on", on],
                ["off", off],
              ];
        for (const [side, c] of order) round[side].push(...(await c.run("p2", p2)).times);
        for (const [side, c] of order) roundRates[side].push((await c.run("p3", p3)).rate);
      }
      p2Costs.push(median(round.on) / median(round.off) - 1);
      p3Costs.push(median(roundRates.off) / median(roundRates.on) - 1); // time per message, on over off
      for (const side of ["on", "off"]) {
        times[side].push(...round[side]);
        rates[side].push(...roundRates[side]);
      }
    } finally {
      await Promise.all([on.stop(), off.stop()]);
    }
  }
  const [p2Cost, p3Cost] = [median(p2Costs), median(p3Costs)];
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  const spread = (xs) => `rounds ${pct(Math.min(...xs))} to ${pct(Math.max(...xs))}`;
  report(
    "O1",
    `P2 round trip with metrics on (p50; cost: median of ${rounds} rounds, ${spread(p2Costs)})`,
    median(times.on).toFixed(1),
    "µs",
    `metrics off ${median(times.off).toFixed(1)} µs`,
    `${pct(p2Cost)} cost`,
    "≤ 5% cost",
    p2Cost <= 0.05,
  );
  report(
    "O1",
    `P3 one-way messages with metrics on (cost: median of ${rounds} rounds, ${spread(p3Costs)})`,
    thousands(median(rates.on)),
    "msg/s",
    `metrics off ${thousands(median(rates.off))} msg/s`,
    `${pct(p3Cost)} cost`,
    "≤ 5% cost",
    p3Cost <= 0.05,
  );
}
