// A task's `env` is its own for its whole run: tasks that overlap in one worker
// (one waiting in get() while the other runs) never see each other's variables.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { envViews, Latch, nestedReads, readAroundLatch, readAroundTask, readVariable } from "./task-env-tasks.ts";

const NAME = "FRAY_TEST_TASK_ENV";

for (const kind of ["threads", "processes"] as const) {
  describe(`task env on ${kind} (one worker)`, () => {
    const withContext = async (body: (ctx: JobContext) => Promise<void>) => {
      await using ctx = createJobContext(kind, { maxWorkers: 1 });
      await body(ctx);
    };

    it("two overlapping tasks with different env each read their own value after an await", () =>
      withContext(async (ctx) => {
        const latch = await ctx.createActor(Latch, [], { name: "latch" });
        // a runs, then waits for b to start; b runs in the same worker (a lent it its slot), and waits
        // for a to finish: a ends while b is still running, so neither ends inside the other.
        const a = ctx.createTask(readAroundLatch, [NAME, latch, "b-started"], { env: { [NAME]: "a" } });
        const b = ctx.createTask(readAroundTask, [NAME, latch, "b-started", [a]], { env: { [NAME]: "b" } });
        assert.deepEqual(await ctx.get([a, b]), [
          ["a", "a"],
          ["b", "b"],
        ]);
        assert.equal(await ctx.get(ctx.run(readVariable, NAME)), undefined);
      }));

    it("a task's env does not leak into a task without env that runs while it waits", () =>
      withContext(async (ctx) => {
        const seen = await ctx.get(ctx.createTask(nestedReads, [NAME], { env: { [NAME]: "parent" } }));
        assert.deepEqual(seen, { own: "parent", child: undefined, ownAfter: "parent" });
      }));

    it("in a task, process.env reads, `in`, Object.keys, spreading, child processes, writes and delete all see its env", () =>
      withContext(async (ctx) => {
        const views = await ctx.get(ctx.createTask(envViews, [NAME], { env: { [NAME]: "mine" } }));
        assert.deepEqual(views, {
          read: "mine",
          has: true,
          listed: true,
          spread: "mine",
          child: "mine",
          changed: "changed",
          deleted: undefined,
          hasAfterDelete: false,
        });
        assert.equal(await ctx.get(ctx.run(readVariable, NAME)), undefined); // the worker's own environment is untouched
      }));
  });
}

describe("task env on sync", () => {
  it("holds across the task's awaits, and not outside the task", async () => {
    const ctx = createJobContext("sync");
    const seen = ctx.createTask(
      async () => {
        await new Promise((r) => setImmediate(r));
        return process.env[NAME];
      },
      [],
      { env: { [NAME]: "sync" } },
    );
    assert.equal(process.env[NAME], undefined);
    assert.equal(await ctx.get(seen), "sync");
    assert.deepEqual(await ctx.get(ctx.createTask(nestedReads, [NAME], { env: { [NAME]: "parent" } })), {
      own: "parent",
      child: undefined,
      ownAfter: "parent",
    });
  });
});
