// The raw-socket floors the messaging benchmarks are measured against: a peer process speaking
// 4-byte length-prefixed frames (bench/fixtures/floor-peer.js) and nothing else — no codec, no actors.
import { fork } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync, readSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scratch } from "./group.js";
import { median, perSecondSince } from "./stats.js";

const floorPeerFile = fileURLToPath(new URL("../fixtures/floor-peer.js", import.meta.url));
const shmPeerFile = fileURLToPath(new URL("../fixtures/shm-peer.js", import.meta.url));
let peerCount = 0;

/** A raw framed peer process ("echo" or "sink" of `count` frames) and a client socket to it, over a Unix socket or loopback TCP. */
export async function floorPeer(mode, count = 0, overTcp = false) {
  const path = overTcp ? "tcp" : join(scratch, `${mode}-${++peerCount}.sock`);
  const child = fork(floorPeerFile, [path, mode, String(count)], { stdio: "inherit" });
  const [ready] = await once(child, "message");
  const socket = overTcp ? createConnection(ready, "127.0.0.1") : createConnection(path);
  socket.setNoDelay(true);
  await once(socket, "connect");
  return { socket, pid: child.pid, close: () => (socket.destroy(), child.disconnect()) };
}

/** One frame of `bytes` payload bytes (zeros). */
export function frame(bytes) {
  const f = Buffer.alloc(4 + bytes);
  f.writeUInt32LE(bytes, 0);
  return f;
}

/**
 * A raw echo peer and one 48-byte frame's round trip to it, for timing beside an
 * actor's. One 'data' listener for the socket's life, as any framed reader has
 * (`events.once` per chunk would add a listener and a promise per round trip).
 */
export async function rawEchoPeer(overTcp = false) {
  const { socket, pid, close } = await floorPeer("echo", 0, overTcp);
  const msg = frame(48);
  let got = 0;
  let answered = () => {};
  socket.on("data", (chunk) => {
    got += chunk.length;
    if (got >= msg.length) answered();
  });
  const roundTrip = () =>
    new Promise((resolve) => {
      got = 0;
      answered = resolve;
      socket.write(msg);
    });
  return { roundTrip, pid, close };
}

/**
 * Frames as fray's SocketTransport (src/wire/socket-transport.ts) sends small ones: copied into a 64 KiB
 * batch buffer, a full buffer written at once, the rest at the end of the tick. A floor for fray's
 * one-way messages must batch the same way, or it measures one write() per frame against fray's one per tick.
 */
export function tickBatched(socket) {
  const batchBytes = 64 * 1024;
  let batch = null;
  let start = 0;
  let used = 0;
  let scheduled = false;
  const cut = () => {
    if (batch && used > start) socket.write(batch.subarray(start, used));
    start = used;
  };
  const endOfTick = () => {
    scheduled = false;
    cut();
  };
  return (f) => {
    if (!scheduled) {
      scheduled = true;
      process.nextTick(endOfTick);
    }
    if (!batch || used + f.length > batch.length) {
      cut(); // a full buffer: on its way now
      batch = Buffer.allocUnsafeSlow(batchBytes);
      start = used = 0;
    }
    f.copy(batch, used);
    used += f.length;
  };
}

/**
 * 40-byte frames per second into a sink peer, `n` of them. `perTick`: sent in one synchronous loop and
 * batched per tick as fray's transport batches (the fair floor for fray's one-way messages, sent the same
 * way); otherwise one write() per frame, waiting for 'drain' when the socket asks.
 */
export async function rawThroughput(n, overTcp = false, perTick = false) {
  const { socket, close } = await floorPeer("sink", n, overTcp);
  const msg = frame(40);
  const t = performance.now();
  const done = once(socket, "data");
  if (perTick) {
    const send = tickBatched(socket);
    for (let i = 0; i < n; i++) send(msg);
  } else for (let i = 0; i < n; i++) if (!socket.write(msg)) await once(socket, "drain");
  await done;
  const rate = perSecondSince(n, t);
  close();
  return rate;
}

/** Median ms to send one small frame to each of `k` echo peers and get every echo back, over `rounds` rounds. */
export async function rawFanOut(k, rounds) {
  const peers = await Promise.all(Array.from({ length: k }, () => floorPeer("echo")));
  const msg = frame(48);
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await Promise.all(
      peers.map(async ({ socket }) => {
        const got = once(socket, "data");
        socket.write(msg);
        await got;
      }),
    );
    times.push(performance.now() - t);
  }
  peers.forEach((p) => p.close());
  return median(times);
}

/** Ms to copy one frame of `bytes` into a sink peer over a Unix socket. */
export async function rawCopyMs(bytes) {
  const { socket, close } = await floorPeer("sink", 1);
  const big = frame(bytes);
  const t = performance.now();
  const done = once(socket, "data");
  socket.write(big);
  await done;
  const ms = performance.now() - t;
  close();
  return ms;
}

/**
 * The raw floor of a RemoteBuffer read between processes of one host, by the same mechanism: a peer process
 * holding `bytes` bytes pwrites each requested chunk into a tmpfs file in /dev/shm that this process made, and
 * this one preads it into `dst`; chunks of `chunk` bytes, `window` requested ahead (fray's defaults:
 * FRAY_BUFFER_CHUNK_BYTES 1 MiB, FRAY_BUFFER_INFLIGHT_BYTES 4 MiB), the file reused from one copy to the next
 * as fray reuses its staging file. `copyInto(dst)` resolves with the ms the copy took.
 */
export async function rawShmPeer(bytes, { chunk = 2 ** 20, window = 4 } = {}) {
  const file = `/dev/shm/fray-bench-raw-${process.pid}-${++peerCount}`;
  const fd = openSync(file, "wx+", 0o600);
  const path = join(scratch, `shm-${peerCount}.sock`);
  const child = fork(shmPeerFile, [path, file, String(bytes)], { stdio: "inherit" });
  await once(child, "message");
  const socket = createConnection(path);
  socket.setNoDelay(true);
  await once(socket, "connect");
  let answered = () => {};
  let partial = Buffer.alloc(0);
  socket.on("data", (chunk) => {
    const data = partial.length ? Buffer.concat([partial, chunk]) : chunk;
    let at = 0;
    for (; data.length - at >= 16; at += 16) answered(data.readDoubleLE(at), data.readDoubleLE(at + 8));
    partial = Buffer.from(data.subarray(at));
  });
  const copyInto = (dst) =>
    new Promise((resolve) => {
      const t = performance.now();
      const request = Buffer.alloc(16);
      let next = 0;
      let done = 0;
      let inflight = 0;
      const pump = () => {
        socket.cork();
        for (; inflight < window && next < dst.byteLength; inflight++) {
          const len = Math.min(chunk, dst.byteLength - next);
          request.writeDoubleLE(next, 0);
          request.writeDoubleLE(len, 8);
          socket.write(Buffer.from(request));
          next += len;
        }
        socket.uncork();
      };
      answered = (off, len) => {
        for (let got = 0, n; got < len; got += n)
          if ((n = readSync(fd, dst, off + got, len - got, off + got)) === 0)
            throw new Error(`the raw shm peer answered for bytes it did not write at ${off + got}`);
        done += len;
        inflight--;
        if (done === dst.byteLength) resolve(performance.now() - t);
        else pump();
      };
      pump();
    });
  const close = () => {
    socket.destroy();
    child.disconnect();
    closeSync(fd);
    rmSync(file, { force: true });
  };
  return { copyInto, close };
}
