// A listener survives whatever unauthenticated peers send: 1,000 connections of
// random bytes (bursts past the handshake's length, partial writes, silence,
// resets) against a real `fray worker` leave it up, with flat memory, serving a
// real client during and after.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createConnection, createServer, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import fc from "fast-check";
import { freePort } from "../../src/runtime/net/address.ts";

const token = randomBytes(32).toString("hex");
process.env.FRAY_TOKEN = token;

const { attachToWorkers } = await import("../../src/mesh.ts");
const { Whereabouts } = await import("../fixtures/net-actors.ts");

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(/(\d+)/.exec(line!)![1]) * 1024;
}

/** What one hostile peer does after connecting. */
type Peer =
  | { kind: "burst"; bytes: Uint8Array } // one write, ≥ 70 bytes: more than the handshake reply
  | { kind: "magic"; bytes: Uint8Array } // the protocol's magic, then garbage
  | { kind: "partial"; chunks: Uint8Array[] } // dribbles, then hangs up
  | { kind: "reset"; bytes: Uint8Array } // writes and resets at once
  | { kind: "silence" }; // says nothing until the worker closes it

const peerArb: fc.Arbitrary<Peer> = fc.oneof(
  fc.record({ kind: fc.constant("burst" as const), bytes: fc.uint8Array({ minLength: 70, maxLength: 70_000 }) }),
  fc.record({
    kind: fc.constant("magic" as const),
    bytes: fc.uint8Array({ minLength: 64, maxLength: 300 }).map((b) => Buffer.concat([Buffer.from("FRAY1"), b])),
  }),
  fc.record({ kind: fc.constant("partial" as const), chunks: fc.array(fc.uint8Array({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant("reset" as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 5_000 }) }),
  fc.record({ kind: fc.constant("silence" as const) }),
);

async function connect(port: number): Promise<Socket> {
  const socket = createConnection({ host: "127.0.0.1", port });
  await once(socket, "connect");
  socket.on("error", () => {}); // the worker may reset us: that is the point
  socket.resume(); // read (and drop) the worker's hello
  return socket;
}

/** Plays one hostile peer; resolves once its connection is closed. */
async function play(port: number, peer: Peer): Promise<void> {
  const socket = await connect(port);
  const closed = once(socket, "close");
  switch (peer.kind) {
    case "burst":
    case "magic":
      socket.end(peer.bytes);
      break;
    case "partial":
      for (const chunk of peer.chunks) {
        socket.write(chunk);
        await new Promise((r) => setImmediate(r));
      }
      socket.end();
      break;
    case "reset":
      socket.write(peer.bytes);
      socket.resetAndDestroy();
      break;
    case "silence":
      break; // the worker closes it after FRAY_AUTH_TIMEOUT_MS
  }
  await closed;
}

describe("hostile peers", () => {
  it("1,000 connections of random bytes leave a fray worker up, with flat memory, serving a client during and after", async (t) => {
    const port = await freePort();
    const addr = `tcp://127.0.0.1:${port}`;
    const worker = spawn(process.execPath, ["--import", "tsx", bin, "worker", "--listen", addr], {
      env: { ...process.env, FRAY_AUTH_TIMEOUT_MS: "2000" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    t.after(async () => {
      if (worker.exitCode === null && worker.signalCode === null) {
        worker.kill("SIGKILL");
        await once(worker, "exit");
      }
    });
    for await (const line of worker.stdout!) if (String(line).includes("listening")) break;

    // A real client first, so the baseline includes what serving it costs.
    const procs = attachToWorkers([addr], { token }).spawnProcs({ gpus: 1 });
    const actors = procs.spawn("whereabouts", Whereabouts);
    assert.deepEqual((await actors.double.call(1)).values(), [2]);
    const before = rssBytes(worker.pid!);

    const peers = fc.sample(peerArb, { seed: 12, numRuns: 1000 });
    assert.ok(peers.some((p) => p.kind === "burst") && peers.some((p) => p.kind === "silence") && peers.some((p) => p.kind === "partial"));
    let next = 0;
    const flood = Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < peers.length) await play(port, peers[next++]);
      }),
    );
    // The client is served while the flood goes on …
    for (let i = 0; i < 5; i++) assert.deepEqual((await actors.double.call(i)).values(), [2 * i]);
    await flood;
    // … and after it.
    assert.deepEqual((await actors.double.call(21)).values(), [42]);
    const again = attachToWorkers([addr], { token }).spawnProcs({ gpus: 1 });
    assert.deepEqual((await again.spawn("again", Whereabouts).double.call(4)).values(), [8]);

    const grown = rssBytes(worker.pid!) - before;
    assert.ok(grown < 100 * 2 ** 20, `the worker's resident memory grew by ${(grown / 2 ** 20).toFixed(0)} MB`);
    assert.equal(worker.exitCode, null, "the worker is still running");
    await procs.stop();
    await again.stop();
  });

  it("a server that floods the handshake fails the client's dial, not the client", async (t) => {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.write(randomBytes(4096)); // far more than the 37-byte hello the client reads
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      server.close();
    });
    const { port } = server.address() as { port: number };
    const procs = attachToWorkers([`tcp://127.0.0.1:${port}`], { token }).spawnProcs({ gpus: 1 });
    await assert.rejects(procs.initialized, /does not speak the Fray protocol/);
  });
});
