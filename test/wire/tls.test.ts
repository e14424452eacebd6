// Mutual TLS: a worker started with `--tls-dir` refuses a client whose
// certificate comes from another CA (even with the right token) and runs no
// code for it; a client with a certificate from the worker's CA works.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, it } from "node:test";
import { makeCerts, type Certs } from "../../src/cli/commands/certs.ts";

const dir = mkdtempSync(join(tmpdir(), "fray-tls-"));
const ours: Certs = makeCerts(join(dir, "ours"));
const theirs: Certs = makeCerts(join(dir, "theirs"));
const token = readFileSync(ours.token, "utf8").trim();
process.env.FRAY_TOKEN = token;

const { attachToWorkers, ProcMesh } = await import("../../src/mesh.ts");
const { Shape } = await import("../../src/mesh/shape/shape.ts");
const { Extent } = await import("../../src/mesh/shape/extent.ts");
const { Inspector } = await import("../fixtures/actors.ts");

const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
let worker: ChildProcess;
let addr = "";

before(async () => {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  addr = `tcp://127.0.0.1:${(server.address() as { port: number }).port}`;
  server.close();
  worker = spawn(process.execPath, ["--import", "tsx", bin, "worker", "--listen", addr, "--token-file", ours.token, "--tls-dir", join(dir, "ours")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  for await (const line of worker.stdout!) if (String(line).includes("listening")) break;
});

after(async () => {
  worker.kill("SIGKILL");
  if (worker.exitCode === null && worker.signalCode === null) await once(worker, "exit");
  rmSync(dir, { recursive: true, force: true });
});

it("a certificate from another CA is refused, even with the right token", () => {
  const client = fileURLToPath(new URL("./tls-client.ts", import.meta.url));
  const { stdout, stderr, status } = spawnSync(process.execPath, ["--import", "tsx", client, addr], {
    encoding: "utf8",
    timeout: 60_000,
    killSignal: "SIGKILL",
    env: { ...process.env, FRAY_TOKEN: token, FRAY_TLS_CA: theirs.ca, FRAY_TLS_CERT: theirs.cert, FRAY_TLS_KEY: theirs.key },
  });
  assert.equal(status, 0, stderr);
  const outcome = JSON.parse(stdout) as { ok: boolean; error?: string };
  assert.equal(outcome.ok, false);
  assert.match(outcome.error!, new RegExp(`worker ${addr.replace(/\./g, "\\.")} is unreachable`));
});

it("a certificate from the worker's CA works, and the refused client ran no code", async () => {
  const hosts = attachToWorkers([addr], { token, tls: { ca: ours.ca, cert: ours.cert, key: ours.key } });
  const procs = hosts.spawnProcs({ gpus: 1 });
  await procs.initialized;
  const onWorker = new ProcMesh(Shape.full(new Extent([], [])), [{ addr, handle: null }], Promise.resolve());
  const inspector = onWorker.spawn("inspector", Inspector);
  const stats = await inspector.stats.callOne();
  assert.ok(stats.authFailures >= 1, `refused ${stats.authFailures} connection(s)`);
  assert.equal(stats.actors, 1); // the inspector: nothing ran for the refused client
  await inspector.stop();
  await procs.stop();
});

it("RemoteBuffer transfers to a proc behind a TLS worker go by a bulk connection with the same certificates", async () => {
  const { BufferOwner } = await import("../fixtures/buffer-actors.ts");
  const hosts = attachToWorkers([addr], { token, tls: { ca: ours.ca, cert: ours.cert, key: ours.key } });
  await using procs = hosts.spawnProcs({ gpus: 1 });
  const owner = procs.spawn("owner", BufferOwner);
  const buf = await owner.big.callOne(3 * 2 ** 20 + 1, 6);
  const dst = new Uint8Array(buf.size);
  await buf.readInto(dst);
  assert.ok(dst.every((v) => v === 6));
  await buf.writeFrom(dst.fill(8));
  assert.ok((await owner.copyOf.callOne(buf)).every((v) => v === 8));
});
