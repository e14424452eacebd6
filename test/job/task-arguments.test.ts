// Bad task arguments are reported as the user wrote the call: the function's
// name and the argument's position, not the runtime's own messages.
import assert from "node:assert/strict";
import { it } from "node:test";
import { createJobContext } from "../../src/job.ts";
import { add, runSquareWithAFunction, square } from "../fixtures/tasks.ts";

it("a task argument that cannot be sent names the task's function and the argument (processes)", async (t) => {
  const ctx = createJobContext("processes", { maxWorkers: 1 });
  t.after(() => ctx.shutdown());
  const unsendable = /^SerializationError: argument 2 of add: the function cannot be sent to another process\. Pass data instead/;
  await assert.rejects(
    ctx.get(ctx.run(add, 1, (() => 2) as never)),
    (e: Error) => unsendable.test(`${e.name}: ${e.message}`) && !/runTask|\[3\]/.test(e.message),
  );
  await assert.rejects(
    ctx.get(ctx.run(square, { nested: { callback: () => 2 } } as never)),
    /argument 1 of square: the function callback at \.nested\.callback cannot be sent/,
  );
  // From a task in a worker, too (the ref rejects; the worker carries on).
  assert.match(await ctx.get(ctx.run(runSquareWithAFunction)), /^SerializationError: argument 1 of square: the function cannot be sent to another process/);
  assert.equal(await ctx.get(ctx.run(square, 3)), 9);
});
