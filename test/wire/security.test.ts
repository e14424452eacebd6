// Every listener authenticates: a peer without the token — no handshake, a
// wrong token, or silence — is disconnected before anything it sent is
// decoded, and no code runs; the token never shows on a command line.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createConnection, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { after, before, it } from "node:test";
import { freePort } from "../../src/runtime/net/address.ts";

const token = randomBytes(32).toString("hex");
process.env.FRAY_TOKEN = token; // this client's token, read when its Proc starts
process.env.FRAY_AUTH_TIMEOUT_MS = "500";

const { authenticateServer, AuthenticationError } = await import("../../src/wire/auth.ts");
const { ProcMesh } = await import("../../src/mesh/proc-mesh.ts");
const { Shape } = await import("../../src/mesh/shape/shape.ts");
const { Extent } = await import("../../src/mesh/shape/extent.ts");
const { Inspector } = await import("../fixtures/actors.ts");

let port = 0;
let worker: ReturnType<typeof spawn>;

async function connect(): Promise<Socket> {
  for (;;) {
    const socket = createConnection({ host: "127.0.0.1", port });
    try {
      await once(socket, "connect");
      return socket;
    } catch {
      await new Promise((r) => setTimeout(r, 20)); // the worker is still starting
    }
  }
}

before(async () => {
  port = await freePort();
  worker = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./security-tcp-worker.ts", import.meta.url))], {
    env: { ...process.env, ADDR: `tcp://127.0.0.1:${port}` },
    stdio: "inherit",
  });
  (await connect()).destroy();
});

after(async () => {
  worker.kill("SIGKILL");
  if (worker.exitCode === null && worker.signalCode === null) await once(worker, "exit");
});

it("a peer that skips the handshake is disconnected", async () => {
  const socket = await connect();
  socket.write(Buffer.from([40, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ...Buffer.from("this is not a handshake at all!!")]));
  socket.resume();
  await once(socket, "close");
});

it("a peer with the wrong token is refused", async () => {
  const socket = await connect();
  await assert.rejects(authenticateServer(socket, "not-the-token", 2000), AuthenticationError);
  socket.destroy();
});

it("a silent peer is disconnected after FRAY_AUTH_TIMEOUT_MS", async () => {
  const socket = await connect();
  socket.resume();
  await once(socket, "close");
});

it("the right token works, and the worker ran no code for the refused peers", async () => {
  const procs = new ProcMesh(Shape.full(new Extent([], [])), [{ addr: `tcp://127.0.0.1:${port}`, handle: null }], Promise.resolve());
  const inspector = procs.spawn("inspector", Inspector);
  const stats = await inspector.stats.callOne();
  // Refused: the readiness probe in before() and the three peers above. Spawned: only the inspector.
  assert.deepEqual(stats, { authFailures: 4, actors: 1 });
  await inspector.stop(); // so the worker going away later is no failure of ours
});

it("the token appears in no process's command line", () => {
  const commandLines = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
  assert.ok(commandLines.includes("security-tcp-worker.ts"), "the worker is running");
  assert.ok(!commandLines.includes(token), "a command line shows the token");
});
