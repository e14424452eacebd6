// H1–H3: values that stay where they are made (issue 47, docs/design/object-store.md). A task's 256 MiB result
// (Float64Array) is pulled by a task on another worker (its ctx.get timed inside that task: the head's answer, the
// transfer from the holder, the decode), in runs that alternate with the baseline's:
//   H1  worker processes of one host (`processes`, 2 workers): through /dev/shm; baseline a raw Unix-socket copy of
//       256 MiB between two node processes;
//   H2  isolated hosts (test/isolated-hosts.ts; needs root): a `mesh` job whose driver and two workers are on three
//       hosts, over the bulk TCP connection; baseline a raw TCP copy of 256 MiB between processes on the two hosts;
//   H3  a shuffle whose holder of map outputs is SIGKILLed while the reducers read: totals exact (maps and reducers
//       with maxRetries), the shuffle's time against the same shuffle undisturbed;
//   H4  a 2 GiB shuffle whose partitions are made in map tasks, the workers' stores capped at 512 MiB so they spill:
//       totals exact, time, bytes spilled and restored, the driver's and workers' peak RSS; baseline the same shuffle
//       at 1/8 the size with the default cap (nothing spills), time per GiB compared.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";
import { createJobContext } from "../../dist/job.js";
import { makeBig, mapPart, pullOnce, reducePart } from "../fixtures/held-objects.js";
import { rawCopyMs } from "../lib/baselines.js";
import { report, scale, scratch, want } from "../lib/group.js";
import { speaker } from "../lib/host-speaker.js";
import { median } from "../lib/stats.js";

const MiB = 2 ** 20;
const SIZE = 256 * MiB;
const runs = Math.max(3, Math.round(5 * scale));
// H2's runs are short (about 0.3 s each), and the reader's fresh 256 MiB destination sometimes stalls in the kernel's
// compaction of huge pages (up to ~0.6 s): more of them keep one stall from moving the median.
const hostRuns = Math.max(3, Math.round(15 * scale));
const SUBNET = 231; // 10.231.0.0/24, inside this group's own namespaces
const spread = (ms) => `median of ${ms.length}, ${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)} ms`;

if (want("H1")) {
  const ctx = createJobContext("processes", { maxWorkers: 2 });
  try {
    const ref = ctx.run(makeBig, SIZE, 1);
    await ctx.wait([ref]);
    await pullOnce(ctx, ref, SIZE, 1); // warm: both workers' first read, the staging file
    await rawCopyMs(SIZE);
    const [held, raw] = [[], []];
    for (let i = 0; i < runs; i++) {
      raw.push(await rawCopyMs(SIZE));
      held.push(await pullOnce(ctx, ref, SIZE, 1));
    }
    const ratio = median(raw) / median(held);
    report(
      "H1",
      `256 MiB task result (Float64Array) pulled by a task on another worker process of one host (ctx.get in the task; ${spread(held)})`,
      median(held).toFixed(0),
      "ms",
      `raw Unix-socket copy of 256 MiB between two node processes ${median(raw).toFixed(0)} ms (${spread(raw)})`,
      `${ratio.toFixed(2)}× the raw socket`,
      "≥ 2× a raw Unix-socket copy",
      ratio >= 2,
    );
  } finally {
    await ctx.shutdown();
  }
}

/** Why isolated hosts cannot be made here, or null. */
function missing() {
  if (process.getuid?.() !== 0) return "isolated hosts need root (network and mount namespaces)";
  const tools = ["ip", "nsenter", "unshare"].filter((t) => spawnSync("sh", ["-c", `command -v ${t}`]).status !== 0);
  return tools.length ? `isolated hosts need ${tools.join(", ")} on PATH` : null;
}

async function acrossHosts(net) {
  const [client, hostA, hostB] = net.hosts;
  const env = { FRAY_TOKEN: Math.random().toString(16).slice(2) + Date.now() };
  const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
  const workers = [];
  for (const h of [hostA, hostB]) {
    const w = h.spawn(process.execPath, [bin, "worker", "--listen", `tcp://${h.ip}:22222`], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    for await (const line of w.stdout) if (String(line).includes("listening")) break;
    workers.push(`tcp://${h.ip}:22222`);
  }
  const pair = fileURLToPath(new URL("../fixtures/raw-tcp-pair.js", import.meta.url));
  const sink = speaker(hostB, [pair, "sink", hostB.ip, String(SIZE)], {});
  const { port } = await sink.next();
  const sender = speaker(hostA, [pair, "send", hostB.ip, String(port), String(SIZE)], {});
  const driver = speaker(client, [fileURLToPath(new URL("../fixtures/held-xhost-driver.js", import.meta.url)), String(SIZE), ...workers], env);
  await driver.next();
  await driver.ask("pull"); // warm: the bulk connections
  await sender.ask("copy");
  const [held, raw] = [[], []];
  for (let i = 0; i < hostRuns; i++) {
    raw.push((await sender.ask("copy")).ms);
    held.push((await driver.ask("pull")).ms);
  }
  await driver.quit();
  await sender.quit();
  return { held, raw };
}

if (want("H2")) {
  const goal = "≥ 0.8× a raw TCP copy";
  const what = "256 MiB task result (Float64Array) pulled by a task on another isolated host (bulk TCP connection; ctx.get in the task";
  const why = missing();
  let net = null;
  if (!why) {
    const { isolatedHosts } = await tsImport("../../test/isolated-hosts.ts", import.meta.url);
    net = await isolatedHosts(3, SUBNET);
  }
  if (!net) report("H2", `${what})`, `not measured (${why})`, "", "", "", goal, false);
  else {
    let times;
    try {
      times = await acrossHosts(net);
    } finally {
      await net[Symbol.asyncDispose]();
    }
    const { held, raw } = times;
    const ratio = median(raw) / median(held);
    report(
      "H2",
      `${what}; ${spread(held)})`,
      median(held).toFixed(0),
      "ms",
      `raw TCP copy of 256 MiB between processes on the two hosts ${median(raw).toFixed(0)} ms (${spread(raw)})`,
      `${ratio.toFixed(2)}× raw TCP`,
      goal,
      ratio >= 0.8,
    );
  }
}

// H3's shuffle: MAPS map tasks each return PARTS partitions of PER_PART doubles (4 MiB, held by its worker); PARTS
// reducers each sum their partition of every map output (each pulls all MAPS outputs: 128 MiB read in all).
const [MAPS, PARTS, PER_PART] = [8, 4, 131_072];
/** Reducer p's exact total: Σ over maps s and elements j of (s + p + j). */
const expected = (p) => PER_PART * ((MAPS * (MAPS - 1)) / 2) + MAPS * PER_PART * p + (MAPS * PER_PART * (PER_PART - 1)) / 2;

/** One shuffle; with `kill`, the holder of map 0's output is SIGKILLed once the reducers are sent. */
async function shuffle(ctx, kill) {
  const dir = mkdtempSync(join(scratch, "shuffle-"));
  const t = performance.now();
  const maps = Array.from({ length: MAPS }, (_, s) => ctx.createTask(mapPart, [s, PARTS, PER_PART, dir], { maxRetries: 2 }));
  await ctx.wait(maps, { numReturns: MAPS });
  const reducers = Array.from({ length: PARTS }, (_, p) => ctx.createTask(reducePart, [p, PER_PART, ...maps], { maxRetries: 2 }));
  let killedAt = null;
  if (kill) {
    process.kill(Number(readFileSync(join(dir, "map-0"), "utf8")), "SIGKILL");
    killedAt = performance.now();
  }
  const totals = await ctx.get(reducers);
  const end = performance.now();
  rmSync(dir, { recursive: true, force: true });
  totals.forEach((got, p) => {
    if (got !== expected(p)) throw new Error(`H3: reducer ${p} summed ${got}, not ${expected(p)}`);
  });
  return { ms: end - t, afterKill: killedAt === null ? null : end - killedAt };
}

if (want("H3")) {
  const ctx = createJobContext("processes", { maxWorkers: 2 });
  try {
    await shuffle(ctx, false); // warm
    const [calm, killed, afterKill] = [[], [], []];
    for (let i = 0; i < runs; i++) {
      calm.push((await shuffle(ctx, false)).ms);
      const k = await shuffle(ctx, true);
      killed.push(k.ms);
      afterKill.push(k.afterKill);
    }
    report(
      "H3",
      "shuffle of 8 × 4 MiB held map outputs into 4 reducers (2 workers), the holder of map 0 SIGKILLed as the reducers start; " +
        `totals exact (maxRetries 2; ${spread(killed)})`,
      median(killed).toFixed(0),
      "ms",
      `the same shuffle undisturbed ${median(calm).toFixed(0)} ms (${spread(calm)}); from the kill to the last total ${median(afterKill).toFixed(0)} ms`,
      `recovery cost ${(median(killed) - median(calm)).toFixed(0)} ms`,
      "totals exact, time to recover reported",
      true,
    );
  } finally {
    await ctx.shutdown();
  }
}

// H4's shuffle: MAPS map tasks each make PARTS partitions (numReturns), PARTS reducers each sum one partition of every
// map; 16 × 16 × 8 MiB = 2 GiB, on 2 workers each capped at 512 MiB (each makes ~1 GiB, so at least half spills).
// Each run is a driver process of its own (bench/fixtures/big-shuffle-driver.js), so its peak RSS is the driver's.
const BIG = { maps: 16, parts: 16, partBytes: 8 * MiB };
const SMALL = { ...BIG, partBytes: BIG.partBytes / 8 };
const CAP = 512 * MiB;
const GiB = 2 ** 30;
const shuffleDriver = fileURLToPath(new URL("../fixtures/big-shuffle-driver.js", import.meta.url));

/** One shuffle of `shape`, its workers' stores capped at `cap` bytes (null: the default) and spilling to a directory of its own. */
function bigShuffle(shape, cap) {
  const spill = mkdtempSync(join(scratch, "spill-"));
  const env = { ...process.env, FRAY_OBJECT_SPILL_DIR: spill };
  delete env.FRAY_OBJECT_STORE_BYTES;
  if (cap !== null) env.FRAY_OBJECT_STORE_BYTES = String(cap);
  try {
    const args = ["--expose-gc", shuffleDriver, String(shape.maps), String(shape.parts), String(shape.partBytes)];
    const out = JSON.parse(execFileSync(process.execPath, args, { env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }));
    return { ...out, bytes: shape.maps * shape.parts * shape.partBytes, spillLeft: readdirSync(spill).length };
  } finally {
    rmSync(spill, { recursive: true, force: true });
  }
}

if (want("H4")) {
  const { bavail, bsize } = statfsSync(scratch);
  const free = bavail * bsize;
  if (free < 4 * GiB) throw new Error(`H4 spills up to 2 GiB under ${scratch}, which has ${(free / GiB).toFixed(1)} GiB free: free some or set TMPDIR`);
  const h4runs = Math.max(1, Math.round(2 * scale));
  const [big, small] = [[], []];
  for (let i = 0; i < h4runs; i++) {
    small.push(bigShuffle(SMALL, null));
    big.push(bigShuffle(BIG, CAP));
  }
  const mib = (bytes) => (bytes / MiB).toFixed(0);
  const perGiB = (runs) => median(runs.map((r) => (r.ms / r.bytes) * GiB));
  const range = (runs, key) => `${mib(Math.min(...runs.map(key)))}–${mib(Math.max(...runs.map(key)))}`;
  const freed = big.every((r) => r.freed && r.spillLeft === 0);
  const spilled = Math.min(...big.map((r) => r.spilled));
  report(
    "H4",
    `2 GiB shuffle (16 map tasks × 16 partitions × 8 MiB made in the maps, numReturns; 16 reducers sum one partition of every map; totals exact) ` +
      `on processes, 2 workers, each store capped at 512 MiB (FRAY_OBJECT_STORE_BYTES): spilled ${range(big, (r) => r.spilled)} MiB, ` +
      `restored ${range(big, (r) => r.restored)} MiB; every held and spilled byte freed once the refs were dropped: ${freed ? "yes" : "NO"}; ` +
      `median of ${big.length}`,
    median(big.map((r) => r.ms)).toFixed(0),
    "ms",
    `the same shuffle at 1/8 the size (256 MiB, 1 MiB partitions), default cap so nothing spills: ${median(small.map((r) => r.ms)).toFixed(0)} ms, ` +
      `${(perGiB(small) / 1000).toFixed(1)} s per GiB against ${(perGiB(big) / 1000).toFixed(1)} s per GiB here (alternating runs)`,
    `${(perGiB(big) / perGiB(small)).toFixed(2)}× the baseline's time per GiB`,
    "finishes, totals exact, time and bytes spilled reported",
    spilled > 0 && freed,
  );
  const driverPeak = Math.max(...big.map((r) => r.peakRss));
  report(
    "H4",
    "the same 2 GiB shuffle: the driver's peak RSS (the most of its runs)",
    mib(driverPeak),
    "MiB",
    `its idle RSS (job context up, workers started) ${mib(Math.max(...big.map((r) => r.idleRss)))} MiB; ` +
      `the 256 MiB shuffle's driver peak ${mib(Math.max(...small.map((r) => r.peakRss)))} MiB`,
    "",
    "< 300 MiB",
    driverPeak < 300 * MiB,
  );
  report(
    "H4",
    "the same 2 GiB shuffle: each worker's peak RSS (store capped at 512 MiB; the most of its runs)",
    mib(Math.max(...big.flatMap((r) => r.workers))),
    "MiB",
    `the 256 MiB shuffle's workers (nothing spilled) ${mib(Math.max(...small.flatMap((r) => r.workers)))} MiB`,
    "",
    "(report)",
    null,
  );
}
