// A task waiting in get()/wait() lends its worker's slot out until every value it waits for is there, not until the
// first is (docs/design/object-store.md: a reader waiting for several lost values made anew is such a task): before,
// the first value back took the slot again while the task still waited for a value whose task needed that slot.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createJobContext } from "../../src/job.ts";
import { waitForChain } from "./blocked-waits-tasks.ts";

describe("a task waiting for several values at once", () => {
  it("lends its slot until the last is ready, so tasks that make the later ones run on its one-slot worker", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 1 });
    assert.deepEqual(await ctx.get(ctx.createTask(waitForChain, [])), [1, 3]);
  });
});
