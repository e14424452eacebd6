// The Client (Marin's current Fray API) on a local cluster, with real job processes: submit → JobHandle
// (status, wait with timeout/raiseOnFailure/streamLogs, logs, terminate), waitAll, adoptExisting, actors in
// the cluster's namespace (alone and in groups, isDone/shutdown, fail() and maxRestarts), actors the client
// hosts in its own process that jobs reach by name, currentClient()'s choice, and a program that used a client exiting by itself.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import {
  createClient,
  currentClient,
  Entrypoint,
  JobAlreadyExistsError,
  JobFailedError,
  JobHandle,
  ResourceConfig,
  waitAll,
  withClient,
  type Client,
} from "../../src/cluster.ts";
import { SupervisionError } from "../../src/mesh.ts";
import { pollUntil } from "../../src/runtime/base/poll.ts";
import { Board, Introspect, postTo, visit } from "../fixtures/client-actors.ts";
import { clusterFixture, nodeScript } from "./cluster-suite.ts";
import { runProgram, waitForExit } from "../helpers.ts";

const FOREVER = nodeScript("console.log('up'); setInterval(() => {}, 1000)");

describe("Client on a local cluster", () => {
  let client: Client;
  // Registered before the fixture's: the client's actors end before the namespace service is stopped.
  after(() => client?.shutdown());
  const fx = clusterFixture("local");
  before(() => {
    client = createClient(fx.spec);
  });

  it("submit → JobHandle; wait({ streamLogs }) hands each line to the sink while the job runs; status, logs({ maxLines })", async () => {
    const go = join(fx.dir, "go");
    const handle = await client.submit({
      name: "live",
      entrypoint: nodeScript(
        `const fs = require("fs"); console.log("ready"); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(go)})) { ` +
          `clearInterval(t); for (let i = 0; i < 3; i++) console.log("line", i); } }, 20)`,
      ),
    });
    assert.ok(handle instanceof JobHandle);
    const seen: string[] = [];
    // The job only goes on once the sink has seen "ready": a wait that streamed only at the end would never return.
    const status = await handle.wait({
      streamLogs: (line) => {
        seen.push(line);
        if (line === "[replica-0] ready") writeFileSync(go, "");
      },
    });
    assert.equal(status, "succeeded");
    assert.deepEqual(seen, ["[replica-0] ready", "[replica-0] line 0", "[replica-0] line 1", "[replica-0] line 2"]);
    assert.equal(await handle.status(), "succeeded");
    assert.deepEqual(await handle.logs({ maxLines: 2 }), ["[replica-0] line 1", "[replica-0] line 2"]);
    assert.equal((await handle.logs()).length, 4);
    assert.equal((await handle.info()).jobId, handle.jobId);
  });

  it("wait({ streamLogs: true }) writes the job's lines to the caller's stdout", () => {
    const script = fileURLToPath(new URL("../fixtures/client-stream-logs.ts", import.meta.url));
    const run = spawnSync(process.execPath, ["--import", "tsx", script, fx.spec], { encoding: "utf8", timeout: 120_000, killSignal: "SIGKILL" });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, "[replica-0] hello from the job\nstatus succeeded\n");
  });

  it("a program that used the client and touched getJobContext() exits by itself, status 0, once it ends after shutdown()", { timeout: 60_000 }, async (t) => {
    const script = fileURLToPath(new URL("../fixtures/program-exit-client.ts", import.meta.url));
    const { code, signal, stdout, stderr } = await runProgram(t, script, [fx.spec]);
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, stderr);
    assert.equal(stdout, "ping pong\nsquare 49\n");
  });

  it("wait raises JobFailedError by default and returns the status with raiseOnFailure: false; waitAll with collectAll names every failed job", async () => {
    const fine = await client.submit({ name: "fine", entrypoint: nodeScript("console.log('ok')") });
    const exits = await client.submit({ name: "exits", entrypoint: nodeScript("process.exit(3)") });
    const throws = await client.submit({ name: "throws", entrypoint: nodeScript("throw new Error('no data for shard 7')") });
    await assert.rejects(exits.wait(), (e: Error) => e instanceof JobFailedError && e.jobs.length === 1 && e.jobs[0].jobId === exits.jobId);
    assert.equal(await exits.wait({ raiseOnFailure: false }), "failed");
    await assert.rejects(waitAll([fine, exits, throws], { collectAll: true }), (e: Error) => {
      assert.ok(e instanceof JobFailedError);
      assert.deepEqual(e.jobs.map((j) => j.name).sort(), ["exits", "throws"]);
      assert.match(e.message, new RegExp(`^2 jobs did not succeed:\\n  ${exits.jobId} failed: .*\\n  ${throws.jobId} failed: .*no data for shard 7`));
      return true;
    });
    assert.deepEqual(await waitAll([fine, exits, throws], { raiseOnFailure: false }), ["succeeded", "failed", "failed"]);
  });

  it("a timeout rejects wait and waitAll with a TimeoutError naming the job, which goes on; terminate() stops it", async () => {
    const handle = await client.submit({ name: "forever", entrypoint: FOREVER });
    const timedOut = (e: Error) => e.name === "TimeoutError" && e.message.includes(handle.jobId) && /timeout of 0\.2 s/.test(e.message);
    await assert.rejects(handle.wait({ timeout: 0.2 }), timedOut);
    await assert.rejects(handle.wait({ timeout: 0.2, streamLogs: () => {} }), timedOut);
    await assert.rejects(waitAll([handle], { timeout: 0.2 }), timedOut);
    assert.ok(["pending", "running"].includes(await handle.status()));
    await handle.terminate();
    assert.equal(await handle.wait({ raiseOnFailure: false }), "stopped");
  });

  it("submit adopts a pending or running job of the same name; adoptExisting: false throws JobAlreadyExistsError carrying its handle", async () => {
    const first = await client.submit({ name: "unique", entrypoint: FOREVER });
    const again = await client.submit({ name: "unique", entrypoint: FOREVER });
    assert.equal(again.jobId, first.jobId, "adopted: nothing else started");
    const refused: unknown = await client.submit({ name: "unique", entrypoint: FOREVER }, { adoptExisting: false }).catch((e: unknown) => e);
    assert.ok(refused instanceof JobAlreadyExistsError);
    assert.ok(refused.handle instanceof JobHandle);
    assert.equal(refused.handle.jobId, first.jobId);
    await refused.handle.terminate();
    assert.equal(await first.status(), "stopped");
    // The Cluster API it is built on works alongside, unchanged.
    assert.equal((await fx.cluster.poll(first.jobId)).status, "stopped");
  });

  it("options that cannot be honoured are refused, naming the fix", async () => {
    const handle = await client.submit({ name: "quick", entrypoint: nodeScript("") });
    await assert.rejects(handle.wait({ streamLogs: "yes" as never }), /streamLogs must be true \(to stdout\), false, or a function that takes each line/);
    await assert.rejects(handle.wait({ timeout: -1 }), /wait's timeout must be a non-negative number of seconds, got -1/);
    await assert.rejects(handle.wait({ follow: true } as never), /unknown wait option follow/);
    await assert.rejects(handle.logs({ maxLines: 0 }), /maxLines must be a positive integer/);
    await assert.rejects(waitAll([handle], { streamLogs: true } as never), /waitAll does not stream logs/);
    await assert.rejects(
      client.createActor(Introspect, [], { environment: { envVars: { SEED: "1" } } }),
      /environment is not supported for a client's actors: .* submit a job with that environment whose entrypoint hosts the actor/,
    );
    await assert.rejects(client.createActor(Introspect, [], { resources: ResourceConfig.withGpu("H100", 1) }), /resources device cannot be given/);
    await assert.rejects(client.createActor(Introspect, [], { actorConfig: { retries: 1 } as never }), /unknown option retries/);
    assert.throws(() => client.createActorGroup(Introspect, [], 0), /needs a positive integer count/);
    await assert.rejects(client.hostActor(Board, [], {} as never), /needs a name: jobs find the actor by it/);
    await assert.rejects(client.hostActor(new Board(), [1] as never, { name: "x" }), /an instance is already constructed, so args must be \[\]/);
    await handle.wait();
  });

  it("createActor: an actor in the cluster's namespace, in a process of its own, that the cluster's jobs find by its name", async () => {
    const actor = await client.createActor(Introspect, [], { name: "shared-introspect", resources: { cpu: 1, ram: "64m" } });
    assert.equal(await client.get(actor.bump.remote()), 1);
    const job = await client.submit({ name: "visitor", entrypoint: Entrypoint.fromCallable(visit, ["shared-introspect", { cpu: 1, memory: 64 * 2 ** 20 }]) });
    assert.equal(await job.wait({ timeout: 120 }), "succeeded");
    assert.match((await job.logs()).join("\n"), /visited shared-introspect: calls=2 place=\{"index":0,"groupName":"shared-introspect","sameInMethod":true\}/);
    const row = (await fx.cluster.listActors()).find((r) => r.name === "shared-introspect");
    assert.equal(row?.state, "alive");
    assert.notEqual(row.pid, process.pid);
  });

  it("createActorGroup: members know their place; isDone() only once every member ended; shutdown() ends them and frees their names", async () => {
    const group = client.createActorGroup(Introspect, [], 2, { name: "crew" });
    await group.waitReady();
    assert.deepEqual(
      await client.get(group.all.place.remote()),
      [0, 1].map((index) => ({ index, groupName: "crew", sameInMethod: true })),
    );
    assert.equal(await group.isDone(), false);
    await group.shutdown();
    assert.equal(await group.isDone(), true);
    assert.ok(!(await fx.cluster.listActors()).some((r) => r.name?.startsWith("crew-")));
  });

  it("a group's any skips a member whose process was killed (no maxRestarts); readyCount counts the live ones", async () => {
    const group = client.createActorGroup(Introspect, [], 3, { name: "serving" });
    const members = await group.waitReady();
    const row = (await fx.cluster.listActors()).find((r) => r.name === "serving-1");
    assert.ok(row?.pid);
    process.kill(row.pid, "SIGKILL");
    await assert.rejects(client.get(members[1].ping.remote()), SupervisionError); // this process knows it is dead
    for (let i = 0; i < 30; i++) assert.equal(await client.get(group.any.ping.remote()), "pong");
    assert.equal(group.readyCount, 2);
    assert.deepEqual(
      await client.get(group.all.place.remote()),
      [0, 2].map((index) => ({ index, groupName: "serving", sameInMethod: true })),
    );
    await group.shutdown();
  });

  it("members that fail() come back fresh within maxRestarts; past it they end, and the group is done", async () => {
    const group = client.createActorGroup(Introspect, [], 2, { name: "fragile", actorConfig: { maxRestarts: 1 } });
    const [a, b] = await group.waitReady();
    assert.equal(await client.get(a.bump.remote()), 1);
    assert.equal(await client.get(a.bump.remote()), 2);
    await assert.rejects(client.get(a.failNow.remote("a diverged")), /a diverged/);
    assert.equal(await client.get(a.bump.remote()), 1, "constructed again");
    assert.deepEqual(await client.get(a.place.remote()), { index: 0, groupName: "fragile", sameInMethod: true });
    assert.equal(await group.isDone(), false);
    await assert.rejects(client.get(a.failNow.remote("a again")), /a again/);
    await assert.rejects(client.get(b.failNow.remote("b once")), /b once/);
    await assert.rejects(client.get(b.failNow.remote("b twice")), /b twice/);
    await assert.rejects(
      client.get(b.bump.remote()),
      (e: Error) => e instanceof SupervisionError && /maxRestarts 1/.test(e.message) && /b twice/.test(e.message),
    );
    // The namespace records each end as it hears of the failure, a moment after the call rejected.
    await pollUntil(() => group.isDone(), { intervalMs: 50, deadlineMs: 30_000, what: "the group to be done", bound: "the test's 30 s" });
  });

  it("hostActor: an actor in this very process that cluster jobs reach by name — a class's new instance, or an instance made here", async () => {
    const hosted = await client.hostActor(Board, [], { name: "board" });
    const posters = await Promise.all(
      ["a", "b"].map((word) => client.submit({ name: `poster-${word}`, entrypoint: Entrypoint.fromCallable(postTo, ["board", word]) })),
    );
    assert.deepEqual(await waitAll(posters, { timeout: 120 }), ["succeeded", "succeeded"]);
    assert.deepEqual((await client.get(hosted.handle.read.remote())).sort(), ["a", "b"]);
    assert.equal((await fx.cluster.listActors()).find((r) => r.name === "board")?.pid, process.pid, "it lives in this process");

    const board = new Board();
    const instance = await client.hostActor(board, [], { name: "board-instance" });
    const poster = await client.submit({ name: "poster-c", entrypoint: Entrypoint.fromCallable(postTo, ["board-instance", "c"]) });
    assert.equal(await poster.wait({ timeout: 120 }), "succeeded");
    assert.deepEqual(board.posts, ["c"], "the job's call reached this very object");

    await hosted.shutdown();
    await instance.shutdown();
    const names = (await fx.cluster.listActors()).map((r) => r.name);
    assert.ok(!names.includes("board") && !names.includes("board-instance"), `names freed: ${names.join(", ")}`);
    await assert.rejects(client.get(hosted.handle.read.remote()), /board/);
  });

  it("a hosted actor is found by its name after the namespace service was killed and started again: jobs reach this very object", async () => {
    const board = new Board();
    const hosted = await client.hostActor(board, [], { name: "board-kept" });
    const service = await fx.cluster.namespace();
    process.kill(service.pid, "SIGKILL");
    await waitForExit([service.pid]);
    // The launch starts the service again; the job asks it for the board by name.
    const poster = await client.submit({ name: "poster-kept", entrypoint: Entrypoint.fromCallable(postTo, ["board-kept", "kept"]) });
    assert.equal(await poster.wait({ timeout: 120 }), "succeeded");
    assert.notEqual((await fx.cluster.namespace()).pid, service.pid);
    assert.deepEqual(board.posts, ["kept"], "the job's call reached this very object, not a new actor in the service");
    await hosted.shutdown();
    assert.ok(!(await fx.cluster.listActors()).some((r) => r.name === "board-kept"), "its name is freed");
  });

  it("a hosted actor knows itself (currentActor()); fail() ends it without ending this process, and frees its name", async () => {
    const hosted = await client.hostActor(Introspect, [], { name: "hosted-introspect" });
    assert.deepEqual(await client.get(hosted.handle.place.remote()), { index: 0, groupName: "hosted-introspect", sameInMethod: true });
    const self = await client.get(hosted.handle.self.remote());
    assert.equal(await client.get(self.bump.remote()), 1);
    assert.equal(await client.get(hosted.handle.bump.remote()), 2, "its own handle reached the same instance");
    await assert.rejects(client.get(hosted.handle.failNow.remote("hosted gave up")), /hosted gave up/);
    // Its keeper hears of the failure and takes its name out of the namespace.
    await pollUntil(async () => !(await fx.cluster.listActors()).some((r) => r.name === "hosted-introspect"), {
      intervalMs: 50,
      deadlineMs: 30_000,
      what: "hosted-introspect to leave the namespace",
      bound: "the test's 30 s",
    });
    await assert.rejects(client.get(hosted.handle.bump.remote()), /hosted-introspect|hosted gave up/);
  });

  it("currentClient(): the one withClient set, else FRAY_CLUSTER_SPEC's (one per spec), else local's", () => {
    assert.equal(
      withClient(client, () => currentClient()),
      client,
    );
    const saved = process.env.FRAY_CLUSTER_SPEC;
    try {
      process.env.FRAY_CLUSTER_SPEC = fx.spec;
      const ambient = currentClient();
      assert.equal(ambient.spec, fx.spec);
      assert.equal(currentClient(), ambient);
      delete process.env.FRAY_CLUSTER_SPEC;
      assert.equal(currentClient().spec, "local");
    } finally {
      if (saved === undefined) delete process.env.FRAY_CLUSTER_SPEC;
      else process.env.FRAY_CLUSTER_SPEC = saved;
    }
  });
});
