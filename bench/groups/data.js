// D1/D2/D4/D5: the data plane. RemoteBuffer reads across processes of one host (through /dev/shm,
// and through the socket), between threads, and to a TCP loopback "host"; control-message latency
// during a 1 GiB transfer; Monarch's parameter-server step with RemoteBuffers against passing arrays.
import { once } from "node:events";
import { ProcessJob } from "../../dist/launchers.js";
import { thisHost } from "../../dist/mesh.js";
import { BufferHolder, PsServer, PsWorker } from "../fixtures/buffer-actors.js";
import { floorPeer, frame, rawCopyMs, rawShmPeer } from "../lib/baselines.js";
import { report, scale, want } from "../lib/group.js";
import { median, percentile } from "../lib/stats.js";

const MiB = 2 ** 20;
const runs = Math.max(3, Math.round(5 * scale));

/** Median ms of `n` reads of `buf` into `dst`. */
async function readMs(buf, dst, n = runs) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await buf.readInto(dst);
    times.push(performance.now() - t);
  }
  return median(times);
}

/** Median ms of `runs` raw copies of `bytes` into a sink peer over loopback TCP. */
async function rawTcpCopyMs(bytes) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const { socket, close } = await floorPeer("sink", 1, true);
    const big = frame(bytes);
    const t = performance.now();
    const done = once(socket, "data");
    socket.write(big);
    await done;
    times.push(performance.now() - t);
    close();
  }
  return median(times);
}

async function rawUnixCopyMs(bytes) {
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await rawCopyMs(bytes));
  return median(times);
}

const size = 256 * MiB;

// D1: the fair floor is the same mechanism without fray (rawShmPeer: a peer pwrites chunks into a reused tmpfs
// file, this process preads them), alternating with fray's reads; the raw Unix-socket copy the goal was set
// against, and fray's own readInto over the socket, are shown on a row of their own: they measure the choice of
// shared memory over a socket, not fray's cost.
if (want("D1")) {
  const unixRaw = await rawUnixCopyMs(size);
  const procs = thisHost().spawnProcs({ procs: 1 });
  const holder = procs.spawn("holder", BufferHolder);
  const buf = await holder.make.callOne(size);
  const dst = new Uint8Array(size);
  const rawShm = await rawShmPeer(size);
  const [shmTimes, rawTimes] = [[], []];
  for (let i = 0; i < runs; i++) {
    rawTimes.push(await rawShm.copyInto(dst));
    shmTimes.push(await readMs(buf, dst, 1));
  }
  rawShm.close();
  const [shm, raw] = [median(shmTimes), median(rawTimes)];
  process.env.FRAY_BUFFER_SAME_HOST = "socket";
  const socket = await readMs(buf, dst);
  delete process.env.FRAY_BUFFER_SAME_HOST;
  await procs.stop();
  const mbps = (ms) => Math.round(size / MiB / (ms / 1000));
  report(
    "D1",
    `256 MiB readInto across processes on one host (via /dev/shm; median of ${runs}, alternating with the raw copy)`,
    shm.toFixed(0),
    "ms",
    `raw /dev/shm copy ${raw.toFixed(0)} ms (a peer process pwrites 1 MiB chunks, 4 ahead, into a reused tmpfs file; this one preads them)`,
    `${(raw / shm).toFixed(2)}× raw shm (${mbps(shm)} MiB/s)`,
    "(no goal)",
    null,
  );
  report(
    "D1",
    "the same vs a socket, as the goal was set (shared memory against a socket: the mechanism's gain, not fray's cost)",
    shm.toFixed(0),
    "ms",
    `raw Unix-socket copy ${unixRaw.toFixed(0)} ms; readInto over the socket (FRAY_BUFFER_SAME_HOST=socket) ${socket.toFixed(0)} ms`,
    `${(unixRaw / shm).toFixed(2)}× the raw socket`,
    "≥ 2× the socket",
    unixRaw / shm >= 2,
  );
  const threads = thisHost().spawnProcs({ procs: 1 }, { threads: true });
  const tholder = threads.spawn("holder", BufferHolder);
  const small = await tholder.make.callOne(MiB, true);
  const big = await tholder.make.callOne(size, true);
  const smallMs = await readMs(small, new Uint8Array(MiB));
  const bigMs = await readMs(big, dst);
  await threads.stop();
  report(
    "D1",
    "256 MiB readInto from a thread (SharedArrayBuffer owner: shared memory, no message, one memcpy into dst)",
    bigMs.toFixed(0),
    "ms",
    `1 MiB from the same thread ${smallMs.toFixed(2)} ms`,
    `${(bigMs / smallMs).toFixed(0)}× the 1 MiB time for 256× the bytes`,
    "zero-copy (time independent of size)",
    false,
  );
}

if (want("D2")) {
  const raw = await rawTcpCopyMs(size);
  const job = new ProcessJob({ meshes: { hosts: 1 } });
  try {
    const { hosts } = await job.state();
    const procs = hosts.spawnProcs({ procs: 1 });
    const holder = procs.spawn("holder", BufferHolder);
    const buf = await holder.make.callOne(size);
    const ms = await readMs(buf, new Uint8Array(size));
    await procs.stop();
    report(
      "D2",
      "256 MiB readInto across a TCP loopback host (chunked on a bulk connection)",
      ms.toFixed(0),
      "ms",
      `raw TCP copy ${raw.toFixed(0)} ms`,
      `${(raw / ms).toFixed(2)}× raw TCP`,
      "≥ 0.8× raw TCP",
      raw / ms >= 0.8,
    );
  } finally {
    await job.kill();
  }
}

/** Ping p99 of an actor beside a buffer's owner, idle and during a warm 1 GiB readInto from that process. */
async function pingDuringTransfer(procs) {
  const n = Math.round(2000 * scale);
  const holder = procs.spawn("holder", BufferHolder);
  const echo = procs.spawn("echo", BufferHolder);
  const pings = async (until) => {
    const times = [];
    for (let i = 0; until ? !until.done : i < n; i++) {
      const t = performance.now();
      await echo.ping.callOne();
      times.push(performance.now() - t);
    }
    return times;
  };
  await pings(null);
  const idle = percentile(await pings(null), 0.99);
  const gib = Math.round(1024 * Math.max(scale, 0.25)) * MiB;
  const buf = await holder.make.callOne(gib);
  const dst = new Uint8Array(gib);
  await buf.readInto(dst); // warm: a first touch of 1 GiB of pages (dst, the staging file) costs seconds on its own
  const state = { done: false };
  const transfer = buf.readInto(dst).then(() => (state.done = true));
  const during = await pings(state);
  await transfer;
  return { idle, p99: percentile(during, 0.99), pings: during.length, mib: gib / MiB };
}

if (want("D4")) {
  const procs = thisHost().spawnProcs({ procs: 1 });
  const local = await pingDuringTransfer(procs);
  await procs.stop();
  report(
    "D4",
    `actor ping p99 during a ${local.mib} MiB readInto from the same process, one host (warm; ${local.pings} pings)`,
    local.p99.toFixed(2),
    "ms",
    `idle p99 ${local.idle.toFixed(2)} ms`,
    `${(local.p99 / local.idle).toFixed(1)}× idle`,
    "(no goal: pings keep going)",
    null,
  );
  const job = new ProcessJob({ meshes: { hosts: 1 } });
  try {
    const { hosts } = await job.state();
    const remote = hosts.spawnProcs({ procs: 1 });
    const tcp = await pingDuringTransfer(remote);
    await remote.stop();
    report(
      "D4",
      `the same to a TCP loopback host (bulk connection; ${tcp.pings} pings)`,
      tcp.p99.toFixed(2),
      "ms",
      `idle p99 ${tcp.idle.toFixed(2)} ms`,
      `${(tcp.p99 / tcp.idle).toFixed(1)}× idle`,
      "(no goal: pings keep going)",
      null,
    );
  } finally {
    await job.kill();
  }
}

if (want("D5")) {
  const n = 1_000_000;
  const workers = 4;
  const steps = Math.max(5, Math.round(20 * scale));
  const serverProcs = thisHost().spawnProcs({ procs: 1 });
  const workerProcs = thisHost().spawnProcs({ gpus: workers });
  const server = serverProcs.spawn("server", PsServer, n, workers);
  const pool = workerProcs.spawn("workers", PsWorker);
  const { weights, grads } = await server.buffers.callOne();
  const time = async (step) => {
    await step();
    const times = [];
    for (let i = 0; i < steps; i++) {
      const t = performance.now();
      await step();
      times.push(performance.now() - t);
    }
    return median(times);
  };
  const arrays = await time(() => pool.stepArrays.call(server));
  const buffers = await time(() => pool.stepBuffers.call(weights, grads));
  await Promise.all([serverProcs.stop(), workerProcs.stop()]);
  report(
    "D5",
    "parameter-server step (1M float32, 4 worker processes) with RemoteBuffers",
    buffers.toFixed(1),
    "ms",
    `passing arrays ${arrays.toFixed(1)} ms`,
    `${(arrays / buffers).toFixed(2)}× faster`,
    "≥ 3× faster than arrays",
    arrays / buffers >= 3,
  );
}
