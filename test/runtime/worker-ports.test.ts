// Workers' procs listen on ports the OS picks, never "the ports after the
// worker's" (which may be another worker's): two workers on consecutive ports
// give every rank its own process. A worker that cannot listen says where.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { freePort } from "../../src/runtime/net/address.ts";
import { waitForExit } from "../helpers.ts";

const token = randomBytes(32).toString("hex");
process.env.FRAY_TOKEN = token;

const { attachToWorkers } = await import("../../src/mesh.ts");
const { Whereabouts } = await import("../fixtures/net-actors.ts");

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

function startWorker(port: number): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", bin, "worker", "--listen", `tcp://127.0.0.1:${port}`], { stdio: ["ignore", "pipe", "pipe"] });
}

async function stopWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  worker.kill("SIGKILL");
  await once(worker, "exit");
}

async function listening(worker: ChildProcess): Promise<void> {
  for await (const line of worker.stdout!) if (String(line).includes("listening")) return;
  throw new Error("the worker exited before listening");
}

async function holdPort(port: number): Promise<Server | null> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

/** Two consecutive free ports N and N+1, held until the caller closes them. */
async function consecutivePorts(): Promise<[number, Server, Server]> {
  for (;;) {
    const port = await freePort();
    const first = await holdPort(port);
    if (!first) continue;
    const second = await holdPort(port + 1);
    if (second) return [port, first, second];
    first.close();
  }
}

describe("worker ports", () => {
  it("two workers on consecutive ports: every rank its own process, right values, clean stop", async (t) => {
    const [port, ...held] = await consecutivePorts();
    for (const s of held) await new Promise((r) => s.close(r));
    const workers = [startWorker(port), startWorker(port + 1)];
    t.after(() => Promise.all(workers.map(stopWorker)));
    await Promise.all(workers.map(listening));

    const procs = attachToWorkers([`tcp://127.0.0.1:${port}`, `tcp://127.0.0.1:${port + 1}`], { token }).spawnProcs({ gpus: 2 });
    const actors = procs.spawn("whereabouts", Whereabouts);
    const pids = (await actors.pid.call()).values();
    assert.equal(new Set(pids).size, 4, `ranks share processes: ${pids.join(", ")}`);
    for (const w of workers) assert.ok(!pids.includes(w.pid!), "a rank runs in a worker itself");
    assert.deepEqual((await actors.double.call(5)).values(), [10, 10, 10, 10]);
    await procs.stop();
    await waitForExit(pids);
    for (const w of workers) assert.equal(w.exitCode, null, "the workers keep serving");
  });

  it("a worker whose --listen port is taken exits non-zero, naming the port", async (t) => {
    const port = await freePort();
    const taken = await holdPort(port);
    assert.ok(taken, "could not hold a port for the test");
    t.after(() => new Promise((r) => taken.close(r)));
    const worker = startWorker(port);
    t.after(() => stopWorker(worker));
    let stdout = "";
    let stderr = "";
    worker.stdout!.on("data", (d) => (stdout += d));
    worker.stderr!.on("data", (d) => (stderr += d));
    const [code] = (await once(worker, "exit")) as [number | null];
    assert.notEqual(code, 0);
    assert.match(stderr, new RegExp(`cannot listen on tcp://127\\.0\\.0\\.1:${port}\\b.*EADDRINUSE`));
    assert.doesNotMatch(stdout, /listening/, "it claimed to listen");
  });
});
