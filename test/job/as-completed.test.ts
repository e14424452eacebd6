// ctx.asCompleted(refs): every ref once, in the order the test makes them finish.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { Gate } from "../fixtures/namespace-actors.ts";

for (const kind of ["sync", "threads", "processes"] as const) {
  describe(`asCompleted on ${kind}`, () => {
    const ctx: JobContext = createJobContext(kind, { maxWorkers: 2 });
    after(() => ctx.shutdown());

    it("yields every ref once, in completion order, failed ones included", async () => {
      const gate = await ctx.createActor(Gate, [], { maxConcurrency: 8 });
      const order = [3, 1, -4, 0, 2];
      const refs = [0, 1, 2, 3, -4].map((i) => gate.hold.remote(i));
      await ctx.get(gate.open.remote(order[0]));
      const seen: Array<number | string> = [];
      let next = 1;
      for await (const ref of ctx.asCompleted([...refs, refs[0]])) {
        seen.push(await ctx.get(ref).catch((e: Error) => e.message));
        if (next < order.length) await ctx.get(gate.open.remote(order[next++])); // the next one finishes only now
      }
      assert.deepEqual(seen, [3, 1, "gate -4 fails", 0, 2]);
    });

    it("yields nothing for no refs", async () => {
      const seen = [];
      for await (const ref of ctx.asCompleted([])) seen.push(ref);
      assert.deepEqual(seen, []);
    });
  });
}
