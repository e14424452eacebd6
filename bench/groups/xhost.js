// X1: a trainer job's 16 MiB of weights to a rollout job on another host, per step, as RL weight transfer
// does it. The hosts are isolated (test/isolated-hosts.ts: each a network namespace on a bridge and a
// mount namespace with its own /tmp and /dev/shm; needs root): a namespace service on a submit host, the
// trainer's driver on host A, the rollout's on host B (bench/fixtures/xhost-driver.js). Measured, in
// blocks that alternate so each sees the same machine:
//   - the rollout reads the trainer's RemoteBuffer (its handle taken from a named actor once);
//   - the weights go through the named actor (the namespace service hosts it, on the submit host): the trainer's
//     setWeights(Float32Array), then the rollout's getWeights();
//   - baseline: the same 16 MiB copied over a plain TCP socket between the same two processes.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";
import { quick, report, want } from "../lib/group.js";
import { speaker } from "../lib/host-speaker.js";
import { median } from "../lib/stats.js";

const MiB = 2 ** 20;
const BYTES = 16 * MiB;
const SUBNET = 230; // 10.230.0.0/24, inside the bench's own namespaces
const WARMUP = 3;
const BLOCKS = quick ? 5 : 10;
const PER_BLOCK = 3; // steps of each kind per block: ≥ 10 steps of each even in quick mode
const driver = fileURLToPath(new URL("../fixtures/xhost-driver.js", import.meta.url));
const clusterModule = fileURLToPath(new URL("../../dist/cluster.js", import.meta.url));
const what = {
  buffer:
    "16 MiB weights, trainer job on host A → rollout job on host B (isolated hosts): readInto of the trainer driver's RemoteBuffer, found by a named actor",
  actor: "the same 16 MiB through a named actor (hosted on the namespace's host): setWeights(Float32Array) from A, then getWeights() from B",
};
// One copy over the network, as D2's readInto: the same goal as D2. Through the actor the weights cross
// the network twice (trainer → the actor's process on the submit host → rollout), so half of that.
const goals = { buffer: ["≥ 0.8× raw TCP (as D2)", 0.8], actor: ["≥ 0.4× raw TCP (two hops)", 0.4] };

/** Why isolated hosts cannot be made here, or null. */
function missing() {
  if (process.getuid?.() !== 0) return "isolated hosts need root (network and mount namespaces)";
  const tools = ["ip", "nsenter", "unshare"].filter((t) => spawnSync("sh", ["-c", `command -v ${t}`]).status !== 0);
  return tools.length ? `isolated hosts need ${tools.join(", ")} on PATH` : null;
}

/** Prints why and reports each row as not measured (on one line: the row is a line of a Markdown table). */
function notMeasured(reason) {
  const why = reason.replace(/\s+/g, " ").trim();
  console.log(`X1 not measured: ${why}`);
  for (const kind of ["buffer", "actor"]) report("X1", what[kind], `not measured (${why})`, "", "", "", goals[kind][0], false);
}

async function measure(net) {
  const [submit, hostA, hostB] = net.hosts;
  const script =
    `const { createCluster } = await import(${JSON.stringify(clusterModule)});` +
    `console.log(JSON.stringify(await createCluster(${JSON.stringify(`local?dir=${net.shared}/cluster`)}).namespace()));`;
  const service = speaker(submit, ["--input-type=module", "-e", script], { FRAY_NAMESPACE_LISTEN: `tcp://${submit.ip}:0` });
  const { address, token, pid } = await service.next();
  try {
    const env = { FRAY_NAMESPACE: address, FRAY_TOKEN: token };
    const trainer = speaker(hostA, [driver, "trainer", hostA.ip], env);
    const { rawPort, sum } = await trainer.next();
    const rollout = speaker(hostB, [driver, "rollout", hostA.ip, String(rawPort)], env);
    await rollout.next();
    const steps = {
      buffer: () => rollout.ask("buffer"),
      actor: async () => {
        const set = await trainer.ask("set");
        const get = await rollout.ask("get");
        return { ms: set.ms + get.ms, sum: get.sum, hops: { set: set.ms, get: get.ms } };
      },
      raw: () => rollout.ask("raw"),
    };
    const times = { buffer: [], actor: [], raw: [], set: [], get: [] };
    const step = async (kind, keep) => {
      const r = await steps[kind]();
      if (r.sum !== sum) throw new Error(`X1 ${kind}: the rollout got weights summing to ${r.sum}, not the trainer's ${sum}`);
      if (!keep) return;
      times[kind].push(r.ms);
      for (const [hop, ms] of Object.entries(r.hops ?? {})) times[hop].push(ms);
    };
    for (const kind of Object.keys(steps)) for (let i = 0; i < WARMUP; i++) await step(kind, false);
    for (let b = 0; b < BLOCKS; b++) for (const kind of Object.keys(steps)) for (let i = 0; i < PER_BLOCK; i++) await step(kind, true);
    await rollout.quit();
    await trainer.quit();
    return times;
  } finally {
    process.kill(pid, "SIGKILL");
  }
}

/** The isolated hosts, or null when they cannot be made here (a row says so). */
async function hostsOrWhy() {
  const why = missing();
  if (why) return (notMeasured(why), null);
  const { isolatedHosts } = await tsImport("../../test/isolated-hosts.ts", import.meta.url);
  try {
    return await isolatedHosts(3, SUBNET);
  } catch (err) {
    return (notMeasured(`isolated hosts could not be made: ${err.message}`), null);
  }
}

const net = want("X1") ? await hostsOrWhy() : null;
if (net) {
  let times;
  try {
    times = await measure(net);
  } finally {
    await net[Symbol.asyncDispose]();
  }
  const rate = (ms) => BYTES / MiB / (ms / 1000);
  const rates = (ms) => {
    const r = ms.map(rate);
    return `${rate(median(ms)).toFixed(0)} (${Math.min(...r).toFixed(0)}–${Math.max(...r).toFixed(0)})`;
  };
  const raw = median(times.raw);
  const n = times.raw.length;
  const baseline = `raw TCP copy of 16 MiB between the same two processes ${rates(times.raw)} MiB/s`;
  for (const kind of ["buffer", "actor"]) {
    const ratio = raw / median(times[kind]);
    const hops = kind === "actor" ? `; setWeights() alone ${rates(times.set)}, getWeights() alone ${rates(times.get)} MiB/s` : "";
    report(
      "X1",
      `${what[kind]} (median, min–max of ${n} steps)`,
      rates(times[kind]),
      "MiB/s",
      baseline + hops,
      `${ratio.toFixed(2)}× raw TCP`,
      goals[kind][0],
      ratio >= goals[kind][1],
    );
  }
}
