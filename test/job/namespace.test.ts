// A local cluster's namespace: named and detached actors shared across its
// jobs, and a driver that opts into it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, type TestContext } from "node:test";
import { createCluster } from "../../src/cluster.ts";
import { freePort } from "../../src/runtime/net/address.ts";
import { createJobContext } from "../../src/job.ts";
import { SupervisionError } from "../../src/mesh.ts";
import { clusterFixture } from "../cluster/cluster-suite.ts";
import { Gate, Restartable } from "../fixtures/namespace-actors.ts";
import { waitForExit } from "../helpers.ts";
import { namespaceSuite } from "./namespace-suite.ts";

namespaceSuite("local");

describe("a driver that opts into a local cluster's namespace", () => {
  const fx = clusterFixture("local");

  /** Runs namespace-token-driver.ts in a process of its own, without FRAY_TOKEN; resolves with what it printed. */
  async function tokenDriver(t: TestContext, address: string, token: string): Promise<{ calls?: number; fromTask?: number; error?: string }> {
    const env = { ...process.env };
    delete env.FRAY_TOKEN;
    delete env.FRAY_NAMESPACE;
    const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./namespace-token-driver.ts", import.meta.url)), address, token], {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    t.after(() => void child.kill("SIGKILL"));
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    const [code] = await once(child, "exit");
    assert.equal(code, 0, out);
    return JSON.parse(out);
  }

  // First: the tests after these kill the service, after which this process takes it for lost.
  it("createJobContext's token joins the namespace without FRAY_TOKEN: the driver, the actor the namespace hosts and its worker", async (t) => {
    const service = await fx.cluster.namespace();
    assert.deepEqual(await tokenDriver(t, service.address, service.token), { calls: 1, fromTask: 1 });
  });

  it("a wrong token is refused by the namespace with an error that says so", async (t) => {
    const service = await fx.cluster.namespace();
    const { error } = await tokenDriver(t, service.address, "not-the-namespace-token");
    assert.match(error ?? "", new RegExp(`the namespace service at ${service.address.replace(/[.]/g, "\\.")} refused this process's token`));
    assert.match(error ?? "", /createJobContext\(kind, \{ namespace, token \}\)/);
  });

  it("calls to a named actor whose creator driver ended fail leading with the actor and why it is gone, not with the namespace (which is up)", async () => {
    const service = await fx.cluster.namespace();
    process.env.FRAY_TOKEN = service.token;
    const creator = createJobContext("processes", { maxWorkers: 1, namespace: service.address });
    const user = createJobContext("processes", { maxWorkers: 1, namespace: service.address });
    try {
      await Promise.all([creator.createActor(Restartable, [], { name: "called" }), creator.createActor(Restartable, [], { name: "uncalled" })]);
      const called = await user.createActor(Restartable, [], { name: "called", getIfExists: true });
      const uncalled = await user.createActor(Restartable, [], { name: "uncalled", getIfExists: true }); // never reached before its end
      assert.equal(await user.get(called.bump.remote()), 1);
      await creator.shutdown(); // its ephemeral actors end with it
      for (const [name, handle] of [
        ["called", called],
        ["uncalled", uncalled],
      ] as const) {
        await assert.rejects(user.get(handle.bump.remote()), (e: Error) => {
          assert.ok(e instanceof SupervisionError, `${e.name}: ${e.message}`);
          assert.match(
            e.message,
            new RegExp(`^the named actor '${name}' is gone: it ended with the job that created it \\(its driver \\S+ shut the job down\\)`),
          );
          assert.doesNotMatch(e.message, /cannot be reached/);
          return true;
        });
      }
      assert.equal((await fx.cluster.namespace()).pid, service.pid, "the service was up all along");
    } finally {
      await Promise.all([creator.shutdown(), user.shutdown()]);
      delete process.env.FRAY_TOKEN;
    }
  });

  it(
    "a job's shutdown ends its named actor in the service in bounded time while a call to it never returns; the call rejects saying the " +
      "job was shut down, and other jobs' calls say the actor ended with it",
    { timeout: 30_000 }, // a shutdown that waited for the call would hang: fail instead
    async () => {
      const service = await fx.cluster.namespace();
      process.env.FRAY_TOKEN = service.token;
      const creator = createJobContext("processes", { maxWorkers: 1, namespace: service.address });
      const user = createJobContext("processes", { maxWorkers: 1, namespace: service.address });
      try {
        const gate = await creator.createActor(Gate, [], { name: "held", maxConcurrency: 2 });
        const hosted = await creator.get(gate.pid.remote());
        const held = creator.get(gate.hold.remote(1)); // opened by no one
        held.catch(() => {}); // asserted below, after the shutdown
        await creator.get(gate.open.remote(0)); // after hold(1) on the same actor: hold(1) is running
        const seen = await user.createActor(Gate, [], { name: "held", maxConcurrency: 2, getIfExists: true });
        await creator.shutdown();
        await assert.rejects(held, (e: Error) => {
          assert.ok(e instanceof SupervisionError, `${e.name}: ${e.message}`);
          assert.match(
            e.message,
            /^the actor held is gone: the job that called it was shut down, which ends the actors it created \(its method Gate\.hold could not finish\)/,
          );
          return true;
        });
        await waitForExit([hosted]); // in the service's host; before the fix it drained the call for ever
        await assert.rejects(
          user.get(seen.open.remote(1)),
          (e: Error) =>
            e instanceof SupervisionError &&
            /^the named actor 'held' is gone: it ended with the job that created it \(its driver \S+ shut the job down\)/.test(e.message),
        );
      } finally {
        await Promise.all([creator.shutdown(), user.shutdown()]);
        delete process.env.FRAY_TOKEN;
      }
    },
  );

  it("its named actor restarts in the service after kill -9; with the service killed, naming fails with an error naming its address", async () => {
    const service = await fx.cluster.namespace();
    process.env.FRAY_TOKEN = service.token; // before this process makes its first connection
    const ctx = createJobContext("processes", { maxWorkers: 1, namespace: service.address });
    try {
      // maxTaskRetries: the call after the kill may be in flight, and is sent again.
      const phoenix = await ctx.createActor(Restartable, [], { name: "phoenix", maxRestarts: 1, maxTaskRetries: 1 });
      assert.equal(await ctx.get(phoenix.bump.remote()), 1);
      const first = await ctx.get(phoenix.pid.remote());
      process.kill(first, "SIGKILL");
      await waitForExit([first]);
      assert.equal(await ctx.get(phoenix.bump.remote()), 1, "restarted: its constructor ran again");
      const [row] = await fx.cluster.listActors();
      assert.deepEqual({ name: row.name, state: row.state, restarts: row.restarts }, { name: "phoenix", state: "alive", restarts: 1 });
      assert.notEqual(row.pid, first);

      // The service's dashboard shows its actors, and its own record of the restart's cause; only to the token.
      assert.equal((await fetch(new URL("/api/state", service.dashboard))).status, 401);
      const state = (await (await fetch(new URL("/api/state", service.dashboard), { headers: { authorization: `Bearer ${service.token}` } })).json()) as {
        namespaceActors: Array<{ name: string; restarts: number }>;
        runtime: { failures: Array<{ message: string }> };
      };
      assert.deepEqual(
        state.namespaceActors?.map((a) => [a.name, a.restarts]),
        [["phoenix", 1]],
        JSON.stringify(state).slice(0, 2000),
      );
      assert.ok(
        state.runtime.failures.some((f) => /SIGKILL/.test(f.message)),
        JSON.stringify(state.runtime.failures),
      );

      process.kill(service.pid, "SIGKILL");
      await waitForExit([service.pid, row.pid]); // the actors it hosts end with it
      process.env.FRAY_NAMESPACE_RECONNECT_MS = "0"; // none is started again here: no use waiting for one
      const unreachable = new RegExp(`the namespace service at ${service.address.replace(/[.]/g, "\\.")} cannot be reached .*is it running\\?`);
      await assert.rejects(ctx.createActor(Restartable, [], { name: "other" }), unreachable);
      await assert.rejects(ctx.get(phoenix.bump.remote()), (e: Error) => e instanceof SupervisionError || unreachable.test(e.message));
      await assert.rejects(ctx.killActor("phoenix"), unreachable);
    } finally {
      await ctx.shutdown();
      delete process.env.FRAY_TOKEN;
      delete process.env.FRAY_NAMESPACE_RECONNECT_MS;
    }
  });

  it("a driver names actors again in a service started again at the same address, after the one it used was killed, waiting while it starts", async () => {
    const service = await fx.cluster.namespace(); // started again if the test before killed it
    process.env.FRAY_TOKEN = service.token;
    const ctx = createJobContext("processes", { maxWorkers: 1, namespace: service.address });
    try {
      const before = await ctx.createActor(Restartable, [], { name: "before" });
      assert.equal(await ctx.get(before.bump.remote()), 1);
      process.kill(service.pid, "SIGKILL");
      await waitForExit([service.pid]);
      const naming = ctx.createActor(Restartable, [], { name: "after" }); // none listens yet: it waits for the next
      naming.catch(() => {}); // awaited below, once the service is started again
      const again = await fx.cluster.namespace();
      assert.equal(again.address, service.address, "started again where it was");
      const after = await naming;
      assert.equal(await ctx.get(after.bump.remote()), 1);
      assert.deepEqual(
        (await fx.cluster.listActors()).map((row) => row.name),
        ["after"],
        "the actors of the killed service ended with it",
      );
    } finally {
      await ctx.shutdown();
      delete process.env.FRAY_TOKEN;
    }
  });

  it("a driver waits through a service that dies as each connection comes, for the one started after it", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "fray-ns-dying-"));
    const cluster = createCluster(`local?dir=${dir}`);
    t.after(async () => {
      await cluster.stopNamespace();
      rmSync(dir, { recursive: true, force: true });
    });
    // Its service will listen at a port chosen here; first, a service there that dies just after it accepts each peer.
    const port = await freePort();
    mkdirSync(join(dir, "local", "namespace"), { recursive: true });
    writeFileSync(join(dir, "local", "namespace", "port"), `${port}\n`);
    const dying = createServer((socket) => void setTimeout(() => socket.resetAndDestroy(), 50));
    let connections = 0;
    const dialedTwice = new Promise<void>((resolve) => dying.on("connection", () => ++connections === 4 && resolve()));
    await new Promise<void>((resolve) => dying.listen(port, "127.0.0.1", resolve));
    const ctx = createJobContext("processes", { maxWorkers: 1, namespace: `tcp://127.0.0.1:${port}`, token: cluster.token() });
    try {
      const naming = ctx.createActor(Restartable, [], { name: "survivor" });
      naming.catch(() => {}); // awaited below
      await dialedTwice; // a probe and a dial that was reset, twice over
      await new Promise((resolve) => dying.close(resolve));
      assert.equal((await cluster.namespace()).address, `tcp://127.0.0.1:${port}`);
      const survivor = await naming;
      assert.equal(await ctx.get(survivor.bump.remote()), 1);
    } finally {
      await ctx.shutdown();
    }
  });

  it("a namespace address that nothing listens at fails once FRAY_NAMESPACE_RECONNECT_MS has passed, naming it", async () => {
    process.env.FRAY_NAMESPACE_RECONNECT_MS = "300";
    try {
      await using ctx = createJobContext("processes", { maxWorkers: 1, namespace: "tcp://127.0.0.1:1" });
      await assert.rejects(
        ctx.createActor(Restartable, [], { name: "x" }),
        /the namespace service at tcp:\/\/127\.0\.0\.1:1 cannot be reached \(connect ECONNREFUSED/,
      );
    } finally {
      delete process.env.FRAY_NAMESPACE_RECONNECT_MS;
    }
  });

  it("refuses a malformed namespace address, and sync with a namespace", () => {
    assert.throws(() => createJobContext("processes", { namespace: "localhost:7000" }), /malformed address "localhost:7000"/);
    assert.throws(
      () => createJobContext("sync", { namespace: "tcp://127.0.0.1:7000" }),
      /the sync backend runs actors in this process and cannot share them through a namespace/,
    );
    assert.throws(() => createJobContext("sync", { token: "t" }), /the sync backend makes no connections, so it takes no token/);
    assert.throws(() => createJobContext("processes", { namespace: "tcp://127.0.0.1:7000", token: "" }), /the token is empty/);
  });
});
