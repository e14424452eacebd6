// O1: what metrics cost. P2 round trips and P3 one-way messages from two client
// processes, one with FRAY_METRICS=1 and one with =0 (each with its own worker,
// which inherits the setting), taking turns in ten blocks so both see the same machine.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { report, scale, want } from "../lib/group.js";
import { median, thousands } from "../lib/stats.js";

const client = fileURLToPath(new URL("../fixtures/metrics-client.js", import.meta.url));

/** A client process with FRAY_METRICS=`on`: `run(op, n)` answers what it measured. */
async function start(on) {
  const child = fork(client, [], { env: { ...process.env, FRAY_METRICS: on }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let waiting = null;
  const failed = new Promise((_, reject) => child.once("exit", (code, signal) => reject(new Error(`the FRAY_METRICS=${on} client exited (${signal ?? code})`))));
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
  const [on, off] = await Promise.all([start("1"), start("0")]);
  try {
    const blocks = 10;
    const p2 = Math.ceil((5000 * scale) / blocks);
    const p3 = Math.ceil((200_000 * scale) / blocks);
    for (const c of [on, off]) await c.run("p2", 200); // warm-up
    const times = { on: [], off: [] };
    const rates = { on: [], off: [] };
    for (let b = 0; b < blocks; b++) {
      // Alternate which side goes first, so neither always follows the other.
      const order = b % 2 ? [["off", off], ["on", on]] : [["on", on], ["off", off]];
      for (const [side, c] of order) times[side].push(...(await c.run("p2", p2)).times);
      for (const [side, c] of order) rates[side].push((await c.run("p3", p3)).rate);
    }
    const [p2On, p2Off] = [median(times.on), median(times.off)];
    const [p3On, p3Off] = [median(rates.on), median(rates.off)];
    const p2Cost = p2On / p2Off - 1;
    const p3Cost = p3Off / p3On - 1; // time per message, on over off
    const pct = (x) => `${(x * 100).toFixed(1)}%`;
    report("O1", "P2 round trip with metrics on (p50)", p2On.toFixed(1), "µs", `metrics off ${p2Off.toFixed(1)} µs`, `${pct(p2Cost)} cost`, "≤ 5% cost", p2Cost <= 0.05);
    report("O1", "P3 one-way messages with metrics on (median of blocks)", thousands(p3On), "msg/s", `metrics off ${thousands(p3Off)} msg/s`, `${pct(p3Cost)} cost`, "≤ 5% cost", p3Cost <= 0.05);
  } finally {
    await Promise.all([on.stop(), off.stop()]);
  }
}
