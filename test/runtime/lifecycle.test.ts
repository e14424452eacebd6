// Lifecycle: stop() drains, stops owned meshes first, runs cleanup() once, and
// then calls reject; ProcMesh.stop() takes its processes' children with it; an
// unhandled failure at the root exits the client with status 1.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, type TestContext } from "node:test";
import { Channel, SupervisionError, thisHost } from "../../src/mesh.ts";
import { Recorder } from "../fixtures/actors.ts";
import { Cleaner, Spawner } from "../fixtures/supervision-actors.ts";
import { isAlive, track, waitForExit } from "../helpers.ts";

describe("ActorMesh.stop()", () => {
  it("drains queued messages, runs cleanup once per actor, then calls reject", async () => {
    await using procs = track(thisHost().spawnProcs({ gpus: 2 }));
    const [log, lines] = Channel.open<string>();
    try {
      const cleaners = procs.spawn("cleaners", Cleaner, log, "top");
      const recorders = procs.spawn("recorders", Recorder);
      for (let i = 0; i < 100; i++) recorders.record.broadcast(i);
      const stopping = recorders.stop();
      await cleaners.stop();
      assert.deepEqual([await lines.recv(), await lines.recv()], ["cleanup top", "cleanup top"]);
      await stopping;
      await assert.rejects(cleaners.ping.call(), (e: Error) => e instanceof SupervisionError && /stopped/.test(e.message));
      await assert.rejects(recorders.count.call(), SupervisionError);
      await cleaners.stop(); // a second stop is a no-op: no second cleanup
      const again = procs.spawn("again", Cleaner, log, "again");
      assert.deepEqual((await again.ping.call()).values(), ["again", "again"]);
      await again[Symbol.asyncDispose]();
      assert.deepEqual([await lines.recv(), await lines.recv()], ["cleanup again", "cleanup again"]);
    } finally {
      lines.close();
    }
  });

  it("stops the meshes an actor owns before the actor itself", async () => {
    await using procs = track(thisHost().spawnProcs({ gpus: 1 }));
    const [log, lines] = Channel.open<string>();
    try {
      const parents = procs.spawn("parents", Cleaner, log, "parent");
      await parents.adopt.call();
      await parents.stop();
      assert.deepEqual([await lines.recv(), await lines.recv()], ["cleanup child of parent", "cleanup parent"]);
    } finally {
      lines.close();
    }
  });
});

describe("ProcMesh.stop()", () => {
  it("ends its processes and their children", async () => {
    const procs = track(thisHost().spawnProcs({ gpus: 1 }));
    const spawners = procs.spawn("spawners", Spawner);
    const grandchildren = await spawners.start.callOne();
    assert.equal(grandchildren.length, 2);
    assert.ok(grandchildren.every(isAlive));
    await procs.stop();
    await waitForExit(grandchildren);
    assert.deepEqual([...procs.pids, ...grandchildren].filter(isAlive), []);
    assert.throws(() => procs.spawn("late", Spawner), SupervisionError);
  });

  it("supports Symbol.asyncDispose", async () => {
    const procs = track(thisHost().spawnProcs({ gpus: 1 }));
    await procs.initialized;
    await procs[Symbol.asyncDispose]();
    assert.deepEqual(procs.pids.filter(isAlive), []);
  });
});

describe("the default unhandled-fault hook", () => {
  it("logs the failure and exits the client with status 1, taking its workers along", async (t) => {
    const client = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./lifecycle-unhandled-client.ts", import.meta.url))], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    t.after(() => void client.kill("SIGKILL"));
    let stdout = "";
    let stderr = "";
    client.stdout.on("data", (d) => (stdout += d));
    client.stderr.on("data", (d) => (stderr += d));
    const [code] = await once(client, "exit");
    assert.equal(code, 1, stderr);
    assert.match(stderr, /fray: unhandled failure, exiting with status 1:\nmesh 'workers' rank 1 failed: Error: boom under broadcast/);
    assert.match(stderr, /setUnhandledFaultHook/);
    const { pids } = JSON.parse(stdout) as { pids: number[] };
    await waitForExit(pids);
    assert.deepEqual(pids.filter(isAlive), []);
  });
});

/**
 * Socket directories made in a TMPDIR of the test's own: `keep()` starts a process that makes one and stays (its
 * directory's path, and the process), `make(prefix)` a process that makes one and exits (run under `prefix`).
 */
function socketDirMakers(t: TestContext) {
  const tmp = mkdtempSync(join(tmpdir(), "fray-test-"));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const listener = fileURLToPath(new URL("../../src/runtime/net/listener.ts", import.meta.url));
  const makeDir = `import { privateSocketDir } from ${JSON.stringify(listener)}; console.log(privateSocketDir());`;
  const env = { ...process.env, TMPDIR: tmp };
  const node = (script: string) => [process.execPath, "--import", "tsx", "--input-type=module", "-e", script];
  return {
    tmp,
    async keep(): Promise<{ dir: string; child: ChildProcess }> {
      const [cmd, ...args] = node(`${makeDir} setInterval(() => {}, 1000);`);
      const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "inherit"] });
      t.after(() => void child.kill("SIGKILL"));
      const [first] = await once(child.stdout!, "data");
      return { dir: String(first).trim(), child };
    },
    async make(prefix: string[] = []): Promise<number | null> {
      const [cmd, ...args] = [...prefix, ...node(makeDir)];
      const [code] = await once(spawn(cmd, args, { env, stdio: ["ignore", "pipe", "inherit"] }), "exit");
      return code as number | null;
    },
  };
}

it("a client killed by SIGKILL leaves its socket directory behind; the next process to make one removes it", async (t) => {
  const dirs = socketDirMakers(t);
  const { dir: left, child: killed } = await dirs.keep();
  killed.kill("SIGKILL");
  await once(killed, "exit");
  const socketDirs = () => readdirSync(dirs.tmp).filter((name) => name.startsWith("fray-")); // (tsx keeps a cache there too)
  assert.deepEqual(socketDirs(), [basename(left)]);
  assert.equal(await dirs.make(), 0);
  assert.deepEqual(socketDirs(), [], "the stale directory and the next process's own are both gone");
});

it(
  "a process in another pid namespace, sharing /tmp, leaves a live process's socket directory alone",
  { skip: process.platform !== "linux" && "Linux pid namespaces" },
  async (t) => {
    const dirs = socketDirMakers(t);
    const { dir: kept } = await dirs.keep();
    // Its pid is not one the other namespace sees: to a check by pid there, it looks dead.
    assert.equal(await dirs.make(["unshare", "--pid", "--fork", "--mount-proc"]), 0);
    assert.ok(existsSync(kept), "the live process's socket directory is still there");
  },
);
