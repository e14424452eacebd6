// The raw-socket floors the messaging benchmarks are measured against: a peer process speaking
// 4-byte length-prefixed frames (bench/fixtures/floor-peer.js) and nothing else — no codec, no actors.
import { fork } from "node:child_process";
import { once } from "node:events";
import { createConnection } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scratch } from "./group.js";
import { median, perSecondSince } from "./stats.js";

const floorPeerFile = fileURLToPath(new URL("../fixtures/floor-peer.js", import.meta.url));
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
