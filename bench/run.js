// `npm run bench`: runtime benchmarks, each printed against a baseline measured
// in the same run on the same machine, and written to BENCHMARKS.md.
import { fork, spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { once } from "node:events";
import { mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { Agent as HttpAgent, createServer as createHttpServer, request as httpRequest } from "node:http";
import { createConnection } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Channel, ProcessJob, SlurmJob, thisHost, thisProc } from "../dist/mesh.js";
import { Echo, Idle, MemoryProbe, Owner, Sink } from "./actors.js";
import { add, checksum } from "./tasks.js";
import { createJobContext } from "../dist/job.js";
import { createCluster, Entrypoint } from "../dist/cluster.js";
import { FileQueue, HttpQueue, MemoryQueue, serveQueue } from "../dist/queue.js";
import { Piscina } from "piscina";

const quick = process.argv.includes("--quick");
// --only=P8,S1 runs just those benchmarks (BENCHMARKS.md is then left alone).
const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7).split(",");
const want = (...ids) => !only || ids.some((id) => only.includes(id));
const scale = quick ? 0.1 : 1;
const rows = [];
const dir = mkdtempSync(join(tmpdir(), "fray-bench-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

function report(id, what, value, unit, baseline, ratio, goal, met) {
  rows.push({ id, what, value, unit, baseline, ratio, goal, met });
  console.log(`${id.padEnd(4)} ${what}: ${value} ${unit}${baseline ? ` | baseline ${baseline}` : ""}${ratio ? ` | ratio ${ratio}` : ""} | goal ${goal} ${met ? "met" : "MISSED"}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** Median time of `fn` over `n` sequential runs, in µs. */
async function medianMicros(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  return median(times);
}

let peerCount = 0;

/** A raw framed peer process and a client socket to it. */
async function floorPeer(mode, count = 0, overTcp = false) {
  const path = overTcp ? "tcp" : join(dir, `${mode}-${++peerCount}.sock`);
  const child = fork(fileURLToPath(new URL("./floor-peer.js", import.meta.url)), [path, mode, String(count)], { stdio: "inherit" });
  const [ready] = await once(child, "message");
  const socket = overTcp ? createConnection(ready, "127.0.0.1") : createConnection(path);
  socket.setNoDelay(true);
  await once(socket, "connect");
  return { socket, close: () => (socket.destroy(), child.disconnect()) };
}

function frame(bytes) {
  const f = Buffer.alloc(4 + bytes);
  f.writeUInt32LE(bytes, 0);
  return f;
}

async function rawRoundTrip(n, overTcp = false) {
  const { socket, close } = await floorPeer("echo", 0, overTcp);
  const msg = frame(48);
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    socket.write(msg);
    let got = 0;
    while (got < msg.length) {
      const [chunk] = await once(socket, "data");
      got += chunk.length;
    }
    times.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  close();
  return median(times);
}

async function rawThroughput(n, overTcp = false) {
  const { socket, close } = await floorPeer("sink", n, overTcp);
  const msg = frame(40);
  const t = performance.now();
  const done = once(socket, "data");
  for (let i = 0; i < n; i++) if (!socket.write(msg)) await once(socket, "drain");
  await done;
  const s = (performance.now() - t) / 1000;
  close();
  return n / s;
}

/** Median ms from launch() until poll() says running, over `n` jobs of `sleep 60` (each terminated after). */
async function launchToRunningMs(cluster, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const id = await cluster.launch({ name: "p8", entrypoint: Entrypoint.fromBinary("sleep", ["60"]) });
    while ((await cluster.poll(id)).status !== "running") await new Promise((r) => setTimeout(r, 10));
    times.push(performance.now() - t);
    await cluster.terminate(id);
  }
  return median(times);
}

// P8 (local): cluster launch → running, against spawning the same command detached. First, while this
// process is small: spawning gets slower as the parent's memory grows (fork copies its page tables).
if (want("P8")) {
  const local = createCluster(`local?dir=${join(dir, "cluster")}`);
  const ms = await launchToRunningMs(local, quick ? 5 : 20);
  const raw = [];
  for (let i = 0; i < (quick ? 5 : 20); i++) {
    const t = performance.now();
    const child = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    await once(child, "spawn");
    raw.push(performance.now() - t);
    child.kill("SIGKILL");
  }
  report("P8", "local cluster: launch() → poll() says running (p50)", ms.toFixed(1), "ms", `detached spawn of the same command ${median(raw).toFixed(1)} ms`, `${(ms / median(raw)).toFixed(1)}×`, "≤ 100 ms", ms <= 100);
}

// P2: actor round trip across processes vs raw Unix-socket ping-pong.
if (want("P2")) {
  const n = Math.round(5000 * scale);
  const floor = await rawRoundTrip(n);
  const procs = thisHost().spawnProcs({ procs: 1 });
  const echo = procs.spawn("echo", Echo);
  for (let i = 0; i < 200; i++) await echo.ping.callOne();
  const p50 = await medianMicros(n, () => echo.ping.callOne());
  report("P2", "actor round trip across processes (p50)", p50.toFixed(1), "µs", `raw socket ping-pong ${floor.toFixed(1)} µs`, `${(p50 / floor).toFixed(2)}× floor`, "≤ 2× floor", p50 / floor <= 2);
  await procs.stop();
}

// P3: one-way messages per second to an actor in another process vs raw framed throughput.
if (want("P3")) {
  const n = Math.round(200_000 * scale);
  const floor = await rawThroughput(n);
  const procs = thisHost().spawnProcs({ procs: 1 });
  const sink = procs.spawn("sink", Sink);
  await sink.initialized;
  const t = performance.now();
  for (let i = 0; i < n; i++) sink.recv.broadcast(i);
  const count = await sink.count.callOne();
  const rate = n / ((performance.now() - t) / 1000);
  if (count !== n) throw new Error(`sink saw ${count} of ${n} messages`);
  report("P3", "one-way messages to an actor in another process", Math.round(rate).toLocaleString("en"), "msg/s", `raw framed ${Math.round(floor).toLocaleString("en")} msg/s`, `${(rate / floor).toFixed(2)}× floor`, "≥ 0.5× floor", rate / floor >= 0.5);
  await procs.stop();
}

/** Median time to send one small frame to each of `k` raw echo processes and get every echo back. */
async function rawFanOut(k, rounds) {
  const peers = await Promise.all(Array.from({ length: k }, () => floorPeer("echo")));
  const msg = frame(48);
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await Promise.all(peers.map(async ({ socket }) => {
      const got = once(socket, "data");
      socket.write(msg);
      await got;
    }));
    times.push(performance.now() - t);
  }
  peers.forEach((p) => p.close());
  return median(times);
}

// P4: broadcast + collect to 1,024 actors on 8 processes.
if (want("P4")) {
  const floor = await rawFanOut(8, Math.round(200 * scale) + 10);
  const procs = thisHost().spawnProcs({ actors: 1024 }, { processes: 8 });
  const mesh = procs.spawn("wide", Echo);
  await mesh.initialized;
  for (let i = 0; i < 20; i++) await mesh.ping.call();
  const times = [];
  for (let i = 0; i < Math.round(200 * scale) + 10; i++) {
    const t = performance.now();
    const values = await mesh.ping.call();
    times.push(performance.now() - t);
    if (values.size !== 1024) throw new Error("lost replies");
  }
  const p50 = median(times);
  report("P4", "call() on 1,024 actors in 8 processes (p50; p99 " + pct(times, 0.99).toFixed(2) + " ms)", p50.toFixed(2), "ms", `raw one-frame fan-out to 8 processes and back ${floor.toFixed(2)} ms`, `${(p50 / floor).toFixed(2)}× floor`, "p50 ≤ 3 ms", p50 <= 3);
  await procs.stop();
}

// P6: cold start — 4 processes, spawn, first reply.
if (want("P6")) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const procs = thisHost().spawnProcs({ procs: 4 });
    const mesh = procs.spawn("cold", Echo);
    await mesh.ping.call();
    times.push(performance.now() - t);
    await procs.stop();
  }
  const floor = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const children = Array.from({ length: 4 }, () => fork("-e", ["process.send(1)"], { execArgv: ["--input-type=module"] }));
    await Promise.all(children.map((c) => once(c, "message")));
    floor.push(performance.now() - t);
    children.forEach((c) => c.kill());
  }
  const p50 = median(times);
  report("P6", "cold start: 4 processes + spawn + first call (median of 5)", p50.toFixed(0), "ms", `4 bare node processes ${median(floor).toFixed(0)} ms`, `${(p50 / median(floor)).toFixed(2)}× bare`, "≤ 250 ms", p50 <= 250);
}

// P7: idle actors in one process, and heap bytes per actor.
if (want("P7")) {
  const n = Math.round(100_000 * scale);
  const procs = thisHost().spawnProcs({ actors: n }, { processes: 1 });
  const probe = procs.slice({ actors: 0 }).spawn("probe", MemoryProbe);
  const before = await probe.heap.callOne();
  const t = performance.now();
  const idle = procs.spawn("idle", Idle);
  await idle.initialized;
  const spawnMs = performance.now() - t;
  const after = await probe.heap.callOne();
  const perActor = (after - before) / n;
  report("P7", `${n.toLocaleString("en")} idle actors in one process (spawned in ${(spawnMs / 1000).toFixed(1)} s), heap per actor`, Math.round(perActor), "bytes", "", "", "100,000 actors, ≤ 2,048 bytes each", n >= 100_000 && perActor <= 2048);
  await procs.stop();
}

// R1: failure detection — kill -9 to rejected calls and to supervise(); a hung (SIGSTOPped) process at the default heartbeat.
if (want("R1")) {
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const [port, reports] = Channel.open();
    const owner = thisProc().spawn(`owner-${i}`, Owner, port);
    const { mesh, pids } = await owner.start.callOne(2);
    const inflight = mesh.slice({ procs: 1 }).hang.callOne().catch(() => performance.timeOrigin + performance.now());
    const killedAt = performance.timeOrigin + performance.now();
    process.kill(pids[1], "SIGKILL");
    const rejectedAt = await inflight;
    const { at: supervisedAt } = await reports.recv();
    runs.push([rejectedAt - killedAt, supervisedAt - killedAt]);
    reports.close();
    await owner.stopProcs.callOne();
  }
  const reject = median(runs.map((r) => r[0]));
  const supervise = median(runs.map((r) => r[1]));
  report("R1", "kill -9 → in-flight call rejected (median of 5)", reject.toFixed(1), "ms", "Monarch: 10 s poll", "", "≤ 1,000 ms", reject <= 1000);
  report("R1", "kill -9 → supervise() called (median of 5)", supervise.toFixed(1), "ms", "Monarch: 10 s poll", "", "≤ 1,000 ms", supervise <= 1000);

  if (!quick) {
    const [port, reports] = Channel.open();
    const owner = thisProc().spawn("owner-hung", Owner, port);
    const { pids } = await owner.start.callOne(1);
    const stoppedAt = performance.timeOrigin + performance.now();
    process.kill(pids[0], "SIGSTOP");
    const { at } = await reports.recv();
    reports.close();
    await owner.stopProcs.callOne();
    report("R1", "SIGSTOP → hung process reported at the default heartbeat (30 s timeout, 1 s interval)", ((at - stoppedAt) / 1000).toFixed(1), "s", "", "", "timeout + 1 interval", at - stoppedAt <= 31_500);
  }
}

// P1: tiny-task throughput on `threads` vs Piscina, and the per-task overhead of each backend.
if (want("P1")) {
  const n = Math.round(20_000 * scale);
  const threads = 2;
  const pool = new Piscina({ filename: fileURLToPath(new URL("./piscina-worker.js", import.meta.url)), minThreads: threads, maxThreads: threads });
  await Promise.all(Array.from({ length: 100 }, (_, i) => pool.run({ a: i, b: 1 })));
  let t = performance.now();
  await Promise.all(Array.from({ length: n }, (_, i) => pool.run({ a: i, b: 1 })));
  const piscinaRate = n / ((performance.now() - t) / 1000);
  await pool.destroy();

  const ctx = createJobContext("threads", { maxWorkers: threads });
  await ctx.get(Array.from({ length: 100 }, (_, i) => ctx.run(add, i, 1)));
  t = performance.now();
  const results = await ctx.get(Array.from({ length: n }, (_, i) => ctx.run(add, i, 1)));
  const frayRate = n / ((performance.now() - t) / 1000);
  if (results[n - 1] !== n) throw new Error("wrong results");
  await ctx.shutdown();
  report("P1", `tiny tasks on threads (${threads} workers)`, Math.round(frayRate).toLocaleString("en"), "tasks/s", `Piscina ${Math.round(piscinaRate).toLocaleString("en")} tasks/s`, `${(frayRate / piscinaRate).toFixed(2)}× Piscina`, "≥ 1.0× Piscina", frayRate >= piscinaRate);

  for (const kind of ["sync", "threads", "processes"]) {
    const c = createJobContext(kind, { maxWorkers: 2 });
    for (let i = 0; i < 50; i++) await c.get(c.run(add, i, 1));
    const m = Math.round(1000 * scale) + 50;
    const t0 = performance.now();
    for (let i = 0; i < m; i++) await c.get(c.run(add, i, 1));
    const us = ((performance.now() - t0) * 1000) / m;
    await c.shutdown();
    report("P1", `${kind}: one task run and awaited at a time`, us.toFixed(1), "µs/task", "", "", "(overhead, no goal)", true);
  }
}

// P5: a 256 MiB typed array put in the driver and read by a task in a worker process, vs a raw socket copy.
if (want("P5")) {
  const bytes = quick ? 32 * 2 ** 20 : 256 * 2 ** 20;
  const array = new Float64Array(bytes / 8).fill(1);
  const { socket, close } = await floorPeer("sink", 1);
  const big = Buffer.alloc(4 + bytes);
  big.writeUInt32LE(bytes, 0);
  let t = performance.now();
  const done = once(socket, "data");
  socket.write(big);
  await done;
  const rawMs = performance.now() - t;
  close();

  const ctx = createJobContext("processes", { maxWorkers: 1 });
  await ctx.get(ctx.run(add, 1, 1));
  t = performance.now();
  const [length, sum] = await ctx.get(ctx.run(checksum, ctx.put(array)));
  const frayMs = performance.now() - t;
  await ctx.shutdown();
  if (length !== array.length || sum !== Math.ceil(array.length / 4096)) throw new Error("array arrived wrong");
  const mib = bytes / 2 ** 20;
  const sharedArray = new Float64Array(new SharedArrayBuffer(bytes)).fill(1);
  const threads = createJobContext("threads", { maxWorkers: 1 });
  await threads.get(threads.run(add, 1, 1));
  t = performance.now();
  const [sharedLength] = await threads.get(threads.run(checksum, threads.put(sharedArray)));
  const threadMs = performance.now() - t;
  await threads.shutdown();
  if (sharedLength !== sharedArray.length) throw new Error("shared array arrived wrong");
  report("P5", `${bytes / 2 ** 20} MiB SharedArrayBuffer Float64Array put → task in a worker thread (no copy)`, threadMs.toFixed(1), "ms", `raw socket copy ${rawMs.toFixed(0)} ms`, `${(rawMs / threadMs).toFixed(0)}× raw`, "zero-copy", true);
  report("P5", `${mib} MiB Float64Array put → task in another process`, (mib / (frayMs / 1000)).toFixed(0), "MiB/s", `raw socket copy ${(mib / (rawMs / 1000)).toFixed(0)} MiB/s`, `${(rawMs / frayMs).toFixed(2)}× raw`, "≥ 0.5× raw", rawMs / frayMs >= 0.5);
}

// T1/T2: the same over authenticated TCP on loopback, to a host of a ProcessJob (a local `fray worker`).
if (want("T1", "T2")) {
  const n = Math.round(3000 * scale);
  const job = new ProcessJob({ meshes: { hosts: 1 } });
  const { hosts } = await job.state();
  const procs = hosts.spawnProcs({ procs: 1 });
  const echo = procs.spawn("echo", Echo);
  for (let i = 0; i < 300; i++) await echo.ping.callOne();
  const floor = await rawRoundTrip(n, true);
  const p50 = await medianMicros(n, () => echo.ping.callOne());
  report("T1", "actor round trip over TCP loopback to a worker host (p50)", p50.toFixed(1), "µs", `raw TCP ping-pong ${floor.toFixed(1)} µs`, `${(p50 / floor).toFixed(2)}× floor`, "(no goal)", true);
  const m = Math.round(100_000 * scale);
  const rawRate = await rawThroughput(m, true);
  const sink = procs.spawn("sink", Sink);
  await sink.initialized;
  const t = performance.now();
  for (let i = 0; i < m; i++) sink.recv.broadcast(i);
  await sink.count.callOne();
  const rate = m / ((performance.now() - t) / 1000);
  report("T2", "one-way messages over TCP loopback to a worker host", Math.round(rate).toLocaleString("en"), "msg/s", `raw TCP framed ${Math.round(rawRate).toLocaleString("en")} msg/s`, `${(rate / rawRate).toFixed(2)}× floor`, "(no goal)", true);
  await echo.stop();
  await sink.stop();
  await procs.stop();
  await job.kill();
}

// Q1/Q2: lease queues — push → pop → done cycles per second, in one process and in 8 at once, against
// the bare operations underneath (an array; write + rename + unlink of a file; three HTTP round trips).
if (want("Q1", "Q2")) {
  const cycles = async (queue, n) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) {
      await queue.push({ i });
      await queue.done(await queue.pop());
    }
    return n / ((performance.now() - t) / 1000);
  };
  const perSecond = (x) => `${Math.round(x).toLocaleString("en-US")}/s`;
  const token = "bench-queue-token";
  const n = Math.round(20_000 * scale);

  const memory = await cycles(new MemoryQueue(), n * 5);
  const array = [];
  let t = performance.now();
  for (let i = 0; i < n * 5; i++) {
    array.push({ i });
    array.shift();
  }
  const arrayRate = (n * 5) / ((performance.now() - t) / 1000);
  report("Q1", "MemoryQueue push → pop → done, 1 process", perSecond(memory), "", `array push + shift ${perSecond(arrayRate)}`, `${(memory / arrayRate).toFixed(2)}×`, "(no goal)", true);

  // 8 processes at once, each doing n/8 cycles after every one of them is ready.
  const eightProcesses = async (args) => {
    const workers = Array.from({ length: 8 }, () => spawn(process.execPath, [fileURLToPath(new URL("./queue-worker.js", import.meta.url)), ...args, String(Math.round(n / 8))], { env: { ...process.env, FRAY_TOKEN: token }, stdio: ["pipe", "pipe", "inherit"] }));
    const exited = workers.map((w) => once(w, "exit")); // now: some exit before the last "done" is read
    const lines = workers.map((w) => createInterface({ input: w.stdout })[Symbol.asyncIterator]());
    await Promise.all(lines.map((l) => l.next()));
    const start = performance.now();
    for (const w of workers) w.stdin.write("go\n");
    await Promise.all(lines.map((l) => l.next()));
    const rate = (Math.round(n / 8) * 8) / ((performance.now() - start) / 1000);
    await Promise.all(exited);
    return rate;
  };

  const fileDir = join(dir, "file-queue");
  const file1 = await cycles(new FileQueue(fileDir), n);
  t = performance.now();
  for (let i = 0; i < n; i++) {
    writeFileSync(join(dir, "raw-tmp"), "x");
    renameSync(join(dir, "raw-tmp"), join(dir, "raw-item"));
    unlinkSync(join(dir, "raw-item"));
  }
  const rawFile = n / ((performance.now() - t) / 1000);
  report("Q1", "FileQueue push → pop → done, 1 process", perSecond(file1), "", `write + rename + unlink ${perSecond(rawFile)}`, `${(file1 / rawFile).toFixed(2)}×`, "(no goal)", true);
  const file8 = await eightProcesses(["file", fileDir]);
  report("Q2", "FileQueue push → pop → done, 8 processes on one directory", perSecond(file8), "", `1 process ${perSecond(file1)}`, `${(file8 / file1).toFixed(2)}×`, "(no goal)", true);

  const server = await serveQueue(new MemoryQueue(), { token });
  const client = new HttpQueue(server.url, { token });
  const http1 = await cycles(client, n);
  client.close();
  await server.close();
  const echo = createHttpServer((req, res) => req.resume().on("end", () => res.writeHead(204).end()));
  await new Promise((resolve) => echo.listen(0, "127.0.0.1", resolve));
  const agent = new HttpAgent({ keepAlive: true });
  const roundTrip = () => new Promise((resolve) => httpRequest({ host: "127.0.0.1", port: echo.address().port, method: "POST", path: "/", agent }, (res) => res.resume().on("end", resolve)).end());
  t = performance.now();
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) await roundTrip();
  const rawHttp = n / ((performance.now() - t) / 1000);
  agent.destroy();
  echo.close();
  report("Q1", "HttpQueue push → pop → done, 1 process", perSecond(http1), "", `3 bare HTTP round trips ${perSecond(rawHttp)}`, `${(http1 / rawHttp).toFixed(2)}×`, "(no goal)", true);
  const httpServer = spawn(process.execPath, [fileURLToPath(new URL("../dist/cli/main.js", import.meta.url)), "queue", "serve"], { env: { ...process.env, FRAY_TOKEN: token }, stdio: ["ignore", "pipe", "inherit"] });
  const [served] = await once(createInterface({ input: httpServer.stdout }), "line");
  const http8 = await eightProcesses(["http", /at (http:\/\/\S+)/.exec(served)[1]]);
  httpServer.kill("SIGKILL");
  report("Q2", "HttpQueue push → pop → done, 8 processes on one `fray queue serve`", perSecond(http8), "", `1 process ${perSecond(http1)}`, `${(http8 / http1).toFixed(2)}×`, "(no goal)", true);
}

// S1: SlurmJob from state() to the first reply of an actor on its hosts (when Slurm is here: scripts/slurm.sh).
if (want("S1", "P8") && spawnSync("sh", ["-c", "command -v sbatch"]).status === 0 && process.getuid?.() === 0) {
  const script = fileURLToPath(new URL("../scripts/slurm.sh", import.meta.url));
  spawnSync("bash", [script, "up"], { env: { ...process.env, SLURM_NODES: "3" }, stdio: "ignore" });
  try {
    const sbatchStart = performance.now();
    const probe = spawnSync("sbatch", ["--parsable", "--wait", "--nodes=1", "--output=/dev/null", "--wrap", "true"], { encoding: "utf8" });
    const sbatchMs = performance.now() - sbatchStart;
    const t = performance.now();
    const job = new SlurmJob({ meshes: { trainers: 3 }, port: 24000 });
    const { trainers } = await job.state();
    const procs = trainers.spawnProcs({ procs: 1 });
    const echo = procs.spawn("echo", Echo);
    await echo.ping.call();
    const ms = performance.now() - t;
    await echo.stop();
    await procs.stop();
    await job.kill();
    report("S1", "SlurmJob on 3 nodes: state() → first reply from every node", ms.toFixed(0), "ms", probe.status === 0 ? `sbatch --wait of 'true' ${sbatchMs.toFixed(0)} ms` : "", "", "(no goal)", true);
    // P8 (slurm): launch → running, against sbatch alone (same resource options) with squeue polled at the same 10 ms.
    // The two alternate, and each waits for its job to be gone, so both meet the scheduler in the same state.
    const slurm = createCluster(`slurm?dir=${join(dir, "cluster")}`);
    const ours = [];
    const raw = [];
    const state = (id) => spawnSync("squeue", ["-h", "-j", id, "-o", "%T"], { encoding: "utf8" }).stdout.trim();
    for (let i = 0; i < (quick ? 3 : 10); i++) {
      ours.push(await launchToRunningMs(slurm, 1));
      const t = performance.now();
      const id = spawnSync("sbatch", ["--parsable", "--output=/dev/null", "--cpus-per-task=1", "--mem=128M", "--no-requeue", "--wrap", "sleep 60"], { encoding: "utf8" }).stdout.trim();
      while (state(id) !== "RUNNING") await new Promise((r) => setTimeout(r, 10));
      raw.push(performance.now() - t);
      spawnSync("scancel", [id]);
      while (state(id) !== "") await new Promise((r) => setTimeout(r, 10));
    }
    report("P8", "slurm cluster: launch() → poll() says running (p50)", median(ours).toFixed(0), "ms", `sbatch + squeue polling ${median(raw).toFixed(0)} ms`, `${(median(ours) / median(raw)).toFixed(2)}×`, "(no goal)", true);
  } finally {
    spawnSync("bash", [script, "down"], { stdio: "ignore" });
  }
}

// N1/N2: across a network-namespace link (root only): round trip vs raw TCP, and cut host → MeshFailure at the default FRAY_HOST_TIMEOUT_MS.
if (want("N1", "N2") && process.getuid?.() === 0 && spawnSync("sh", ["-c", "command -v ip"]).status === 0) {
  const id = Math.random().toString(16).slice(2, 8);
  const client = `bc-${id}`;
  const host = `bh-${id}`;
  const ip = (...args) => spawnSync("ip", args, { stdio: "ignore" }).status;
  const nsExec = (ns, ...args) => ip("netns", "exec", ns, ...args);
  const children = [];
  try {
    ip("netns", "add", client);
    ip("netns", "add", host);
    nsExec(client, "ip", "link", "set", "lo", "up");
    nsExec(host, "ip", "link", "set", "lo", "up");
    ip("link", "add", `bv${id}`, "type", "veth", "peer", "name", `bp${id}`);
    ip("link", "set", `bv${id}`, "netns", host);
    ip("link", "set", `bp${id}`, "netns", client);
    nsExec(host, "ip", "addr", "add", "10.213.8.2/24", "dev", `bv${id}`);
    nsExec(host, "ip", "link", "set", `bv${id}`, "up");
    nsExec(client, "ip", "addr", "add", "10.213.8.1/24", "dev", `bp${id}`);
    nsExec(client, "ip", "link", "set", `bp${id}`, "up");
    const token = Math.random().toString(16).slice(2) + Date.now();
    const env = { ...process.env, FRAY_TOKEN: token };
    const bin = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
    const worker = spawn("ip", ["netns", "exec", host, process.execPath, bin, "worker", "--listen", "tcp://10.213.8.2:22222"], { env, stdio: ["ignore", "pipe", "inherit"] });
    children.push(worker);
    for await (const line of worker.stdout) if (String(line).includes("listening")) break;
    const echoPeer = spawn("ip", ["netns", "exec", host, process.execPath, "-e", "require('net').createServer((s) => { s.setNoDelay(true); s.pipe(s); }).listen(22300, '10.213.8.2', () => console.log('ready'))"], { stdio: ["ignore", "pipe", "inherit"] });
    children.push(echoPeer);
    await once(echoPeer.stdout, "data");
    const c = spawn("ip", ["netns", "exec", client, process.execPath, fileURLToPath(new URL("./netns-client.js", import.meta.url)), "tcp://10.213.8.2:22222", "10.213.8.2", "22300"], { env, stdio: ["pipe", "pipe", "inherit"] });
    children.push(c);
    const lines = createInterface({ input: c.stdout })[Symbol.asyncIterator]();
    const { actorUs, rawUs } = JSON.parse((await lines.next()).value);
    report("N1", "actor round trip across a network-namespace link (p50)", actorUs.toFixed(1), "µs", `raw TCP ping-pong ${rawUs.toFixed(1)} µs`, `${(actorUs / rawUs).toFixed(2)}× floor`, "(no goal)", true);
    nsExec(client, "ip", "link", "set", `bp${id}`, "down");
    c.stdin.write("cut\n");
    const { detectMs } = JSON.parse((await lines.next()).value);
    report("N2", "cut host → MeshFailure (default FRAY_HOST_TIMEOUT_MS 4 s, 1 s heartbeat)", (detectMs / 1000).toFixed(1), "s", "", "", "≤ 5 s", detectMs <= 5000);
  } finally {
    for (const ch of children) ch.kill("SIGKILL");
    ip("netns", "delete", client);
    ip("netns", "delete", host);
  }
}

const lines = [
  "# Benchmarks",
  "",
  `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${availableParallelism()} cores, Node ${process.version}${quick ? " (quick mode: 10% of the iterations)" : ""}.`,
  "Each baseline is measured in the same run on the same machine.",
  "",
  "| id | what | measured | baseline | ratio | goal | met |",
  "| --- | --- | --- | --- | --- | --- | --- |",
  ...rows.map((r) => `| ${r.id} | ${r.what} | ${r.value} ${r.unit} | ${r.baseline || "—"} | ${r.ratio || "—"} | ${r.goal} | ${r.met ? "yes" : "**no**"} |`),
  "",
];
if (only) {
  console.log("--only: BENCHMARKS.md left as it was");
} else {
  writeFileSync(fileURLToPath(new URL("../BENCHMARKS.md", import.meta.url)), lines.join("\n"));
  console.log("wrote BENCHMARKS.md");
}
