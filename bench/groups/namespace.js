// Actors that cross jobs: A1 finding a named actor from another job (and calling it) in a local
// cluster's namespace, against a call within one job; A2 kill -9 → the actor restarted and answering,
// against a fresh actor's cold start.
import { fork } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createCluster } from "../../dist/cluster.js";
import { createJobContext } from "../../dist/job.js";
import { Counter } from "../fixtures/namespace-actors.js";
import { quick, report, scale, scratch, want } from "../lib/group.js";
import { median } from "../lib/stats.js";

const lookupFile = fileURLToPath(new URL("../fixtures/namespace-lookup.js", import.meta.url));

// A1: this process (one job) makes a detached named actor in the cluster's namespace and ends its job;
// a second process (another job's driver, with the cluster's token) finds it by name and calls it.
if (want("A1")) {
  const cluster = createCluster(`local?dir=${join(scratch, "cluster")}`);
  try {
    const { address, token } = await cluster.namespace();
    process.env.FRAY_TOKEN = token; // before the first Proc: this process and its workers prove the cluster's token
    const maker = createJobContext("processes", { maxWorkers: 1, namespace: address });
    const made = await maker.createActor(Counter, [], { name: "shared", getIfExists: true, lifetime: "detached" });
    await maker.get(made.ping.remote());
    await maker.shutdown();
    const other = fork(lookupFile, [address, "shared", String(Math.round(500 * scale) + 20), String(Math.round(5000 * scale))], { stdio: "inherit" });
    const [[result]] = await Promise.all([once(other, "message"), once(other, "exit")]);
    const { lookupUs, foundUs, inJobUs } = result;
    report(
      "A1",
      "named actor found from another job: createActor(getIfExists) (p50)",
      (lookupUs / 1000).toFixed(2),
      "ms",
      `call within one job ${inJobUs.toFixed(0)} µs`,
      `${(lookupUs / inJobUs).toFixed(1)}× in-job call`,
      "(no goal)",
      null,
    );
    report(
      "A1",
      "call through the found handle, from another job (p50)",
      foundUs.toFixed(0),
      "µs",
      `call within one job ${inJobUs.toFixed(0)} µs`,
      `${(foundUs / inJobUs).toFixed(2)}× in-job call`,
      "(no goal)",
      null,
    );
  } finally {
    await cluster.killActor("shared").catch(() => {});
    await cluster.stopNamespace();
  }
}

// A2: kill -9 an actor with maxRestarts -1 (in a process of its own); time to the first answer of a
// call made right after the kill. The call reaches the dying process, so without maxTaskRetries it would
// reject with SupervisionError; with it, it is sent again to the restarted actor, as a user who wants
// calls to wait out a restart sets it. Baseline: a fresh actor with the same options (its own process,
// constructor, first answer).
if (want("A2")) {
  const n = quick ? 5 : 10;
  const restarting = { maxRestarts: -1, maxTaskRetries: -1 };
  const ctx = createJobContext("processes", { maxWorkers: 1 });
  try {
    const cold = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const fresh = await ctx.createActor(Counter, [], { name: `cold-${i}`, ...restarting });
      await ctx.get(fresh.ping.remote());
      cold.push(performance.now() - t);
      await ctx.killActor(`cold-${i}`);
    }
    const actor = await ctx.createActor(Counter, [], restarting);
    const restarts = [];
    for (let i = 0; i < n; i++) {
      const pid = await ctx.get(actor.pid.remote());
      const t = performance.now();
      process.kill(pid, "SIGKILL");
      const calls = await ctx.get(actor.ping.remote());
      restarts.push(performance.now() - t);
      if (calls !== 1) throw new Error(`the restarted actor answered ${calls}: its constructor did not run again`);
    }
    const ms = median(restarts);
    const base = median(cold);
    report(
      "A2",
      `kill -9 → actor restarted and answering (processes, median of ${n})`,
      ms.toFixed(0),
      "ms",
      `fresh actor's cold start ${base.toFixed(0)} ms`,
      `${(ms / base).toFixed(2)}× cold start`,
      "≤ 1,000 ms",
      ms <= 1000,
    );
  } finally {
    await ctx.shutdown();
  }
}
