// Actor groups (Marin's create_actor_group): readiness, calls to all/any
// members, named members, failures and timeouts — on every backend, plus the
// group's bookkeeping over a createActor whose members the test settles itself.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after as afterAll, before, describe, it } from "node:test";
import { createJobContext, type ActorHandle, type JobContext } from "../../src/job.ts";
import { createActorGroup } from "../../src/job/actors/actor-group.ts";
import { SupervisionError, thisHost, type ProcMesh } from "../../src/mesh.ts";
import { incrementGroupFromTask, Member, Replica } from "./actor-group-actors.ts";
import { Counter } from "../fixtures/tasks.ts";
import { track } from "../helpers.ts";

const backends: Array<[string, (workers: number) => { ctx: JobContext; procs?: ProcMesh }]> = [
  ["sync", () => ({ ctx: createJobContext("sync") })],
  ["threads", (workers) => ({ ctx: createJobContext("threads", { maxWorkers: workers }) })],
  ["processes", (workers) => ({ ctx: createJobContext("processes", { maxWorkers: workers }) })],
  [
    "mesh",
    (workers) => {
      const procs = track(thisHost().spawnProcs({ workers }));
      return { ctx: createJobContext("mesh", { procs }), procs };
    },
  ],
];

function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), "fray-group-"));
}

for (const [kind, make] of backends) {
  describe(`actor groups on ${kind}`, () => {
    let ctx: JobContext;
    let procs: ProcMesh | undefined;
    before(() => ({ ctx, procs } = make(4)));
    afterAll(async () => {
      await ctx.shutdown();
      await procs?.stop();
    });

    it("waitReady() gives a handle per member, and all.method gives a ref per member, each with its own state", async () => {
      const group = ctx.createActorGroup(Counter, [0], 3);
      assert.equal(group.count, 3);
      const handles = await group.waitReady();
      assert.equal(handles.length, 3);
      assert.equal(group.readyCount, 3);
      const refs = group.all.increment.remote(1);
      assert.equal(refs.length, 3);
      assert.deepEqual(await ctx.get(refs), [1, 1, 1]); // one shared counter would give 1, 2, 3
      assert.deepEqual(await ctx.get(group.all.increment.remote(10)), [11, 11, 11]);
      assert.equal(await ctx.get(handles[1].increment.remote(1)), 12);
      assert.deepEqual(await ctx.get(group.all.increment.remote(0)), [11, 12, 11]); // the refs are in member order
    });

    it("any.method takes the ready members in turn", async () => {
      const group = ctx.createActorGroup(Counter, [0], 3);
      await group.waitReady();
      const values = await ctx.get(Array.from({ length: 6 }, () => group.any.increment.remote(1)));
      assert.deepEqual(values, [1, 1, 1, 2, 2, 2]); // each member once, then each again
      assert.deepEqual(await ctx.get(group.all.increment.remote(0)), [2, 2, 2]);
    });

    it("names member i of a named group `${name}-${i}`, so createActor finds it by name", async () => {
      const group = ctx.createActorGroup(Counter, [5], 3, { name: "g" });
      await group.waitReady();
      const found = await ctx.createActor(Counter, [0], { name: "g-1", getIfExists: true });
      assert.equal(await ctx.get(found.increment.remote(1)), 6); // started at 5: the member, not a new actor
      assert.deepEqual(await ctx.get(group.all.increment.remote(0)), [5, 6, 5]);

      const again = ctx.createActorGroup(Counter, [0], 3, { name: "g", getIfExists: true });
      assert.deepEqual(await ctx.get((await again.waitReady()).map((h) => h.increment.remote(0))), [5, 6, 5]);
      const clash = ctx.createActorGroup(Counter, [0], 3, { name: "g" });
      await assert.rejects(clash.waitReady(1), (e: Error) => /member 0 \(g-0\): Error: Actor g-0 already exists/.test(e.message));
    });

    it("a member whose constructor throws makes waitReady(3) reject naming it, while waitReady(2) resolves", async () => {
      const dir = scratchDir();
      try {
        const group = ctx.createActorGroup(Member, [dir, 1], 3);
        await assert.rejects(group.waitReady(3), (e: Error) => {
          assert.match(
            e.message,
            /actor group Member: 3 ready members can never be reached: 1 of 3 failed to start \(member \d: Error: constructor of turn 1 failed on purpose\)/,
          );
          assert.ok(e.cause instanceof AggregateError);
          assert.equal((e.cause.errors[0] as Error).message, "constructor of turn 1 failed on purpose");
          return true;
        });
        const handles = await group.waitReady(2);
        assert.deepEqual((await ctx.get(handles.map((h) => h.whoAmI.remote()))).sort(), [0, 2]);
        assert.equal(group.readyCount, 2);
        assert.equal(group.all.whoAmI.remote().length, 2);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("refuses a count that is not a positive integer, and bad waitReady arguments", async () => {
      for (const count of [0, 1.5, -1, Number.NaN]) {
        assert.throws(
          () => ctx.createActorGroup(Counter, [0], count),
          (e: Error) => e instanceof RangeError && /positive integer count .*createActorGroup\(Counter, args, 3\)/.test(e.message),
        );
      }
      assert.throws(() => ctx.createActorGroup(Counter, 3 as unknown as [number], 3), /args must be an array/);
      assert.throws(() => ctx.createActorGroup(Counter, [0], 2, { maxRestarts: -2 }), RangeError);
      assert.throws(() => ctx.createActorGroup(Counter, [0], 2, { name: "fray-x" }), /reserved/);
      const group = ctx.createActorGroup(Counter, [0], 2);
      await assert.rejects(group.waitReady(3), /n must be an integer from 1 to the group's count \(2\)/);
      await assert.rejects(group.waitReady(0), RangeError);
      await assert.rejects(group.waitReady(1, { timeout: -1 }), /non-negative number of seconds/);
    });

    it("works from inside a task, through the context the task sees", async () => {
      assert.deepEqual(await ctx.get(ctx.run(incrementGroupFromTask, 3)), [11, 11, 11]);
    });

    // In `sync` a constructor runs inline on the caller's thread, so a member
    // that blocks would block the test itself; the timeout is covered for every
    // backend by "ActorGroup over a createActor the test controls" below.
    if (kind !== "sync") {
      it("waitReady times out saying how many are ready while a member's constructor is blocked, and resolves once it is released", async () => {
        const dir = scratchDir();
        execFileSync("mkfifo", [join(dir, "gate")]);
        const own = make(3); // a cpu per member: each on its own worker, so the blocked one holds up no other
        try {
          const group = own.ctx.createActorGroup(Member, [dir, -1, 2], 3, { resources: { cpu: 1 } });
          await group.waitReady(2);
          await assert.rejects(
            group.waitReady(3, { timeout: 0.2 }),
            (e: Error) => e.name === "TimeoutError" && /2 of 3 members ready after 0.2 s .*1 still starting/.test(e.message),
          );
          await writeFile(join(dir, "gate"), "go");
          const handles = await group.waitReady(3);
          assert.deepEqual((await own.ctx.get(handles.map((h) => h.whoAmI.remote()))).sort(), [0, 1, 2]);
        } finally {
          await own.ctx.shutdown();
          await own.procs?.stop();
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
}

describe("an actor group on processes whose members die for good (maxRestarts 0)", () => {
  let ctx: JobContext;
  before(() => {
    ctx = createJobContext("processes", { maxWorkers: 3 });
  });
  afterAll(() => ctx.shutdown());

  /** Kills the process of `member` and waits until this process knows: a call to its own handle fails. */
  async function kill(member: ActorHandle<Replica>, pid: number): Promise<void> {
    process.kill(pid, "SIGKILL");
    await assert.rejects(ctx.get(member.pid.remote()), SupervisionError);
  }

  it("any skips a member whose process was killed, readyCount and handles count the live ones; all dead: calls say to use maxRestarts", async () => {
    // A worker each (cpu: 1 of 1), so one process's death ends one member.
    const group = ctx.createActorGroup(Replica, [], 3, { resources: { cpu: 1 } });
    const members = await group.waitReady();
    const pids = await ctx.get(members.map((m) => m.pid.remote()));
    assert.equal(new Set(pids).size, 3);
    await kill(members[1], pids[1]);
    const answered: number[] = [];
    for (let i = 0; i < 30; i++) answered.push(await ctx.get(group.any.pid.remote()));
    assert.deepEqual([...new Set(answered)].sort(), [pids[0], pids[2]].sort());
    assert.equal(group.readyCount, 2);
    assert.equal(group.handles.length, 2);
    assert.deepEqual((await ctx.get(group.all.pid.remote())).sort(), [pids[0], pids[2]].sort());
    await kill(members[0], pids[0]);
    await kill(members[2], pids[2]);
    assert.equal(group.readyCount, 0);
    const remedy = /every member of actor group Replica is dead for good .*member 0.*member 1.*member 2.*maxRestarts/s;
    assert.throws(() => group.any.pid.remote(), remedy);
    assert.throws(() => group.all.pid.remote(), remedy);
    await assert.rejects(group.waitReady(1), remedy);
  });
});

describe("ActorGroup over a createActor the test controls", () => {
  type Fake = { who: () => number };
  function fakeContext() {
    const members: Array<{ resolve(h: unknown): void; reject(e: unknown): void }> = [];
    const ctx = {
      createActor: () => new Promise((resolve, reject) => members.push({ resolve, reject })),
    } as unknown as Pick<JobContext, "createActor">;
    const handle = (i: number) => ({ who: { remote: () => i } }) as unknown as ActorHandle<Fake>;
    return { ctx, members, handle };
  }
  class FakeClass {
    who(): number {
      return -1;
    }
  }

  it("starts every member at once and reports them as they become ready, in member order", async () => {
    const { ctx, members, handle } = fakeContext();
    const group = createActorGroup(ctx, FakeClass, [], 3, { name: "f" });
    assert.equal(members.length, 3);
    assert.equal(group.readyCount, 0);
    assert.throws(() => group.any.who.remote(), /group.any.who.remote\(\): no member of actor group f is ready yet; await group.waitReady\(1\)/);
    assert.throws(() => group.all.who.remote(), /no member of actor group f is ready yet/);

    const first = group.waitReady(1);
    members[2].resolve(handle(2));
    assert.deepEqual(
      (await first).map((h) => h.who.remote()),
      [2],
    );
    assert.equal(group.readyCount, 1);
    await assert.rejects(
      group.waitReady(2, { timeout: 0.01 }),
      (e: Error) => e.name === "TimeoutError" && /actor group f: 1 of 2 members ready after 0.01 s .*2 still starting/.test(e.message),
    );

    const two = group.waitReady(2);
    members[0].resolve(handle(0));
    const handles = await two;
    assert.deepEqual(
      handles.map((h) => h.who.remote()),
      [0, 2],
    ); // member order, not readiness order
    assert.deepEqual(group.discoverNew(), []); // both were handed out by waitReady
    assert.deepEqual(
      Array.from({ length: 4 }, () => group.any.who.remote()),
      [0, 2, 0, 2],
    );
    assert.deepEqual(group.all.who.remote(), [0, 2]);

    const three = group.waitReady(3);
    members[1].reject(new Error("boom"));
    await assert.rejects(three, (e: Error) => {
      assert.match(
        e.message,
        /actor group f: 3 ready members can never be reached: 1 of 3 failed to start \(member 1 \(f-1\): Error: boom\), 2 ready; fix what the constructor failed on, or wait for fewer/,
      );
      assert.deepEqual(
        (e.cause as AggregateError).errors.map((x: Error) => x.message),
        ["boom"],
      );
      return true;
    });
    assert.deepEqual(
      (await group.waitReady(2)).map((h) => h.who.remote()),
      [0, 2],
    );
  });

  it("discoverNew hands out the members that became ready since the last waitReady or discoverNew", async () => {
    const { ctx, members, handle } = fakeContext();
    const group = createActorGroup(ctx, FakeClass, [], 3);
    const first = group.waitReady(1);
    members[1].resolve(handle(1));
    assert.deepEqual(
      (await first).map((h) => h.who.remote()),
      [1],
    );
    members[0].resolve(handle(0));
    members[2].resolve(handle(2));
    await new Promise(setImmediate); // lets the members' settled promises run (microtasks only)
    assert.deepEqual(
      group.discoverNew().map((h) => h.who.remote()),
      [0, 2],
    );
    assert.deepEqual(group.discoverNew(), []);
    assert.deepEqual(
      group.handles.map((h) => h.who.remote()),
      [0, 1, 2],
    );
  });

  it("when every member failed, calls fail naming the failures instead of waiting", async () => {
    const { ctx, members } = fakeContext();
    const group = createActorGroup(ctx, FakeClass, [], 2);
    members[0].reject(new Error("no gpu"));
    members[1].reject("not an error");
    await assert.rejects(group.waitReady(1), /2 of 2 failed to start \(member 0: Error: no gpu; member 1: not an error\)/);
    assert.throws(() => group.any.who.remote(), /1 ready members can never be reached/);
  });
});
