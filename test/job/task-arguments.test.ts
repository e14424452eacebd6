// Bad task arguments are reported as the user wrote the call: the function's
// name and the argument's position, not the runtime's own messages; so is a
// task function no worker can load.
import assert from "node:assert/strict";
import { it } from "node:test";
import { createJobContext } from "../../src/job.ts";
import { add, markFirst, runMarkFirstTooLarge, runSquareWithAFunction, scaleBy, square } from "../fixtures/tasks.ts";

// Read when a connection is made: set before this process or its workers connect anywhere.
process.env.FRAY_MAX_FRAME_BYTES = String(2 ** 20);

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

it("a task argument over FRAY_MAX_FRAME_BYTES names the task's function, the argument and the setting (processes)", async (t) => {
  const ctx = createJobContext("processes", { maxWorkers: 1 });
  t.after(() => ctx.shutdown());
  await assert.rejects(
    ctx.get(ctx.run(markFirst, new Float64Array(2 ** 18), 1)), // 2 MiB
    (e: Error) =>
      /^the arguments of markFirst make a message of \d+ bytes to \S+, more than FRAY_MAX_FRAME_BYTES=1048576: argument 1 of markFirst is 209\d{4} bytes encoded, the largest\. Send it in parts .*or raise FRAY_MAX_FRAME_BYTES on both sides$/.test(
        e.message,
      ) && !/runTask/.test(e.message),
  );
  // From a task in a worker, too: the ref rejects (not hangs), and the worker carries on.
  assert.match(await ctx.get(ctx.run(runMarkFirstTooLarge)), /^the arguments of markFirst make a message .*argument 1 of markFirst is 209\d{4} bytes encoded/);
  assert.equal(await ctx.get(ctx.run(markFirst, new Float64Array(2 ** 10), 1)), 2 ** 10);
});

it("a task function that a factory made (a closure) is refused saying to pass what it captured as arguments, not to export it", async (t) => {
  const ctx = createJobContext("processes", { maxWorkers: 1 });
  t.after(() => ctx.shutdown());
  await assert.rejects(ctx.get(ctx.run(scaleBy(3), 2)), (e: Error) => {
    assert.match(e.message, /^an anonymous function is a closure made by scaleBy\(\) in file:\/\/\S+\/fixtures\/tasks\.ts: /);
    assert.match(e.message, /Define it at the top level of the module, export it, and pass the captured values as arguments$/);
    assert.doesNotMatch(e.message, /add 'export'/);
    return true;
  });
});
