// What a caller reads when the process of the actor (or task) it waits on is
// killed: a SupervisionError in the caller's terms — the class and method it
// called, the actor's name, the process and the signal that ended it — and no
// internal mesh or endpoint names, whatever the caller's connection saw first.
import assert from "node:assert/strict";
import { after as afterAll, before, describe, it } from "node:test";
import { createJobContext, type ActorHandle, type JobContext } from "../../src/job.ts";
import { SupervisionError, type ProcMesh } from "../../src/mesh.ts";
import { clusterFixture } from "../cluster/cluster-suite.ts";
import { Board } from "../fixtures/cancel-tasks.ts";
import { jobBackends, waitForExit } from "../helpers.ts";
import { embed, ModelReplica } from "./killed-worker-errors-actors.ts";

/** Asserts `e` is the SupervisionError of `what` (`Class.method`, or `task name`), whose process `pid` was killed by SIGKILL. */
function killedError(e: unknown, what: string, pid: number, actorName?: string): true {
  assert.ok(e instanceof SupervisionError, `not a SupervisionError: ${e}`);
  const { message } = e;
  assert.ok(message.includes(what), `does not name ${what}: ${message}`);
  if (actorName !== undefined) assert.ok(message.includes(`'${actorName}'`), `does not name the actor '${actorName}': ${message}`);
  assert.match(message, new RegExp(`process ${pid} was killed by SIGKILL`));
  assert.doesNotMatch(message, /fray:|\bmesh\b|\brank\b|ECONNRESET/, "names internals");
  assert.equal((e as SupervisionError & { pid?: number }).pid, pid);
  assert.equal((e as SupervisionError & { signal?: string }).signal, "SIGKILL");
  return true;
}

/** Reads `replica.generate`'s stream, kills the replica's process after the first token, and returns what the reader got. */
async function streamUntilKilled(ctx: JobContext, replica: ActorHandle<ModelReplica>, pid: number): Promise<unknown> {
  const tokens: string[] = [];
  try {
    for await (const ref of replica.generate.remoteStreaming("hello")) {
      tokens.push(await ctx.get(ref));
      if (tokens.length === 1) process.kill(pid, "SIGKILL");
    }
  } catch (err) {
    assert.equal(tokens[0], "hello:0");
    return err;
  }
  assert.fail("the stream ended without an error");
}

describe("a caller whose named actor in a cluster's namespace is killed", () => {
  const fx = clusterFixture("local");

  it("reads the method, the actor and the process's signal, not the connection's reset, whether the actor is started again or not", async () => {
    const service = await fx.cluster.namespace();
    process.env.FRAY_TOKEN = service.token; // before this process makes its first connection: this suite runs first
    const ctx = createJobContext("processes", { maxWorkers: 1, namespace: service.address });
    try {
      const replica = await ctx.createActor(ModelReplica, [], { name: "replica-3" });
      const pid = await ctx.get(replica.pid.remote());
      killedError(await streamUntilKilled(ctx, replica, pid), "ModelReplica.generate", pid, "replica-3");
      await waitForExit([pid]);
      // One that is started again: the call in flight still says how its process ended.
      const restarted = await ctx.createActor(ModelReplica, [], { name: "replica-4", maxRestarts: 1 });
      const first = await ctx.get(restarted.pid.remote());
      killedError(await streamUntilKilled(ctx, restarted, first), "ModelReplica.generate", first, "replica-4");
      assert.notEqual(await ctx.get(restarted.pid.remote()), first);
    } finally {
      await ctx.shutdown();
      delete process.env.FRAY_TOKEN;
    }
  });
});

for (const [kind, make] of jobBackends(["processes", "mesh"], 4)) {
  describe(`a caller whose actor's or task's process is killed, on ${kind}`, () => {
    let ctx: JobContext;
    let procs: ProcMesh | undefined;
    before(async () => ({ ctx, procs } = await make()));
    afterAll(async () => {
      await ctx.shutdown();
      await procs?.stop();
    });

    it("a stream from a member of an actor group names the method and the process's signal", async () => {
      // A worker each (cpu: 1 of 1), so the kill ends one member.
      const [member] = await ctx.createActorGroup(ModelReplica, [], 1, { resources: { cpu: 1 } }).waitReady();
      const pid = await ctx.get(member.pid.remote());
      killedError(await streamUntilKilled(ctx, member, pid), "ModelReplica.generate", pid);
      await waitForExit([pid]);
    });

    it("a call in flight to a named actor names the method, the actor and the process's signal", async () => {
      const replica = await ctx.createActor(ModelReplica, [], { name: "replica-1", resources: { cpu: 1 } });
      const pid = await ctx.get(replica.pid.remote());
      const answer = ctx.get(replica.complete.remote("hello"));
      process.kill(pid, "SIGKILL");
      await assert.rejects(answer, (e) => killedError(e, "ModelReplica.complete", pid, "replica-1"));
      await waitForExit([pid]);
    });

    it("a stream from a named actor in a process of its own names the method, the actor and the process's signal", async () => {
      const replica = await ctx.createActor(ModelReplica, [], { name: "replica-2", preemptible: false });
      const pid = await ctx.get(replica.pid.remote());
      killedError(await streamUntilKilled(ctx, replica, pid), "ModelReplica.generate", pid, "replica-2");
      await waitForExit([pid]);
    });

    it("a task names itself and the process's signal", async () => {
      const board = await ctx.createActor(Board, [], { maxConcurrency: 8, preemptible: false });
      const task = ctx.createTask(embed, [board], { maxRetries: 0 });
      const pid = (await ctx.get(board.waitFor.remote("embed"))) as number;
      process.kill(pid, "SIGKILL");
      await assert.rejects(ctx.get(task), (e) => killedError(e, "task embed", pid));
      await waitForExit([pid]);
    });
  });
}
