// The head's task queue behaves as an array would, whatever mix of operations.
import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import { TaskQueue } from "../../src/job/tasks/task-queue.ts";

it("matches an array under any sequence of push, unshift, removeAt and retain", () => {
  const op = fc.oneof(
    fc.record({ k: fc.constant("push" as const), v: fc.integer() }),
    fc.record({ k: fc.constant("unshift" as const), v: fc.integer() }),
    fc.record({ k: fc.constant("removeAt" as const), i: fc.nat(5) }),
    fc.record({ k: fc.constant("removeFront" as const), n: fc.nat(3000) }),
    fc.record({ k: fc.constant("retainEven" as const) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
      const q = new TaskQueue<number>();
      let model: number[] = [];
      for (const o of ops) {
        if (o.k === "push") {
          q.push(o.v);
          model.push(o.v);
        } else if (o.k === "unshift") {
          q.unshift(o.v);
          model.unshift(o.v);
        } else if (o.k === "removeAt" && o.i < model.length) {
          q.removeAt(o.i);
          model.splice(o.i, 1);
        } else if (o.k === "removeFront") {
          for (let j = 0; j < o.n; j++) {
            q.push(j);
            model.push(j);
          }
          for (let j = 0; j < o.n; j++) {
            q.removeAt(0);
            model.shift();
          }
        } else if (o.k === "retainEven") {
          q.retain((v) => v % 2 === 0);
          model = model.filter((v) => v % 2 === 0);
        }
        assert.equal(q.length, model.length);
      }
      assert.deepEqual(
        Array.from({ length: q.length }, (_, i) => q.at(i)),
        model,
      );
    }),
    { numRuns: 200 },
  );
});
