// A batch names a function its worker was told of before by a number, not by
// its URL and export name again (src/job/routes/told-functions.ts): only batches
// that surely arrive tell, a replaced worker is told afresh, and a number a
// worker was not told of fails its tasks instead of running another function.
import assert from "node:assert/strict";
import { after as afterAll, before, describe, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { endpointStats, framesOut } from "../../src/runtime/base/counters.ts";
import type { CodeLocation } from "../../src/runtime/code/code-locator.ts";
import { decode, encodeArguments } from "../../src/wire/codec.ts";
import { TaskBatch } from "../../src/job/routes/task-batch.ts";
import { KnownFunctions, ToldFunctions, unknownFunction, type NamedFunctions, type Telling } from "../../src/job/routes/told-functions.ts";
import { add, square, sum } from "../fixtures/tasks.ts";

const ADD: CodeLocation = { url: "file:///somewhere/with/a/long/path/to/the/tasks/module.js", exportName: "add" };
const SQUARE: CodeLocation = { url: "file:///somewhere/with/a/long/path/to/the/tasks/module.js", exportName: "square" };

/** A batch of one task per location, as the outbox makes them. */
function batchOf(...locations: CodeLocation[]): TaskBatch<null> {
  const batch = new TaskBatch(locations[0], "t0", 0, [1, 2], null, 1, null);
  locations.slice(1).forEach((location, i) => batch.add(location, `t${i + 1}`, i + 1, [3], null, 1, null));
  return batch;
}

/** What the worker reads: the batch's fns through the codec, resolved by `known`. */
function arrive(known: KnownFunctions, fns: NamedFunctions, telling: Telling): { fns: NamedFunctions; bytes: number } {
  const { body } = encodeArguments([fns, [], telling], "Executor.runBatch");
  const [read, , told] = decode(Buffer.from(body)) as [NamedFunctions, unknown[], Telling];
  known.resolve(read, told);
  return { fns: read, bytes: body.byteLength };
}

describe("functions told to workers", () => {
  it("a batch that tells names its function in full once; later ones name it by number, which the worker reads back", () => {
    const told = new ToldFunctions();
    const known = new KnownFunctions();
    const first = told.name(0, batchOf(ADD), true);
    assert.deepEqual(first.fns, [ADD.url, "add"]);
    const full = arrive(known, first.fns, first.telling);
    told.commit(0, first.telling!);
    const later = told.name(0, batchOf(ADD), true);
    assert.equal(typeof later.fns[0], "number");
    assert.equal(later.telling, null, "nothing new to tell");
    const short = arrive(known, later.fns, later.telling);
    assert.deepEqual(short.fns, [ADD.url, "add"]);
    assert.ok(short.bytes + ADD.url.length <= full.bytes, `${short.bytes} bytes, then ${full.bytes}`);
  });

  it("a batch mixing a told function and a new one names the first by number and tells the second", () => {
    const told = new ToldFunctions();
    const known = new KnownFunctions();
    const first = told.name(0, batchOf(ADD), true);
    arrive(known, first.fns, first.telling);
    told.commit(0, first.telling!);
    const mixed = told.name(0, batchOf(ADD, SQUARE), true);
    assert.equal(typeof mixed.fns[0], "number");
    assert.deepEqual(mixed.fns.slice(2), [SQUARE.url, "square"]);
    assert.deepEqual(arrive(known, mixed.fns, mixed.telling).fns, [ADD.url, "add", SQUARE.url, "square"]);
    told.commit(0, mixed.telling!);
    const both = told.name(0, batchOf(SQUARE, ADD), true);
    assert.deepEqual([typeof both.fns[0], typeof both.fns[2]], ["number", "number"]);
    assert.deepEqual(arrive(known, both.fns, both.telling).fns, [SQUARE.url, "square", ADD.url, "add"]);
  });

  it("a batch sent for an answer (it might not arrive) tells nothing: the next names the function in full again", () => {
    const told = new ToldFunctions();
    const acked = told.name(0, batchOf(ADD), false);
    assert.equal(acked.telling, null);
    assert.deepEqual(told.name(0, batchOf(ADD), true).fns, [ADD.url, "add"]);
  });

  it("each worker is told on its own; a worker lost is forgotten, so its replacement is told afresh", () => {
    const told = new ToldFunctions();
    const first = told.name(0, batchOf(ADD), true);
    told.commit(0, first.telling!);
    assert.deepEqual(told.name(1, batchOf(ADD), true).fns, [ADD.url, "add"], "worker 1 was told nothing");
    told.lost(0);
    assert.deepEqual(told.name(0, batchOf(ADD), true).fns, [ADD.url, "add"], "the replacement of worker 0 was told nothing");
  });

  it("a number the worker was not told of resolves to no function (its tasks fail saying so), never to another one", () => {
    const told = new ToldFunctions();
    const known = new KnownFunctions();
    const first = told.name(0, batchOf(SQUARE), true);
    arrive(known, first.fns, first.telling);
    told.commit(0, first.telling!);
    const second = told.name(0, batchOf(ADD), true);
    told.commit(0, second.telling!); // told, but that batch never reached this worker
    const third = told.name(0, batchOf(ADD), true);
    assert.deepEqual(arrive(known, third.fns, third.telling).fns, [null, null]);
    assert.match(unknownFunction().message, /never told of .*did not run/);
  });
});

for (const kind of ["processes", "threads"] as const) {
  describe(`tasks of several functions on ${kind}`, () => {
    let ctx: JobContext;
    before(() => (ctx = createJobContext(kind, { maxWorkers: 2 })));
    afterAll(() => ctx.shutdown());

    it("one at a time, in batches, and after batches sent for an answer, each runs its own function", async () => {
      for (let i = 0; i < 30; i++) {
        assert.equal(await ctx.get(ctx.run(add, i, 1)), i + 1);
        assert.equal(await ctx.get(ctx.run(sum, [i, i])), 2 * i); // an array argument: its batch is sent for an answer
        assert.equal(await ctx.get(ctx.run(square, i)), i * i);
      }
      const refs = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? ctx.run(add, i, 1) : i % 3 === 1 ? ctx.run(square, i) : ctx.run(sum, [i, 1])));
      assert.deepEqual(
        await ctx.get(refs),
        Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? i + 1 : i % 3 === 1 ? i * i : i + 1)),
      );
    });
  });
}

it("on processes, a tiny task goes by its worker's port lane, not as a call, and its batch carries its function's number, not its URL", async () => {
  await using ctx = createJobContext("processes", { maxWorkers: 1 });
  for (let i = 0; i < 10; i++) await ctx.get(ctx.run(add, i, 1));
  const runBatch = endpointStats("Executor", "runBatch");
  const sent = runBatch.sent;
  const bytesOut = () => [...framesOut.values()].reduce((n, c) => n + c.bytes, 0);
  const before = bytesOut();
  for (let i = 0; i < 100; i++) assert.equal(await ctx.get(ctx.run(add, i, 1)), i + 1);
  assert.equal(runBatch.sent, sent, "no Executor.runBatch call was sent for them");
  const perTask = (bytesOut() - before) / 100;
  const url = import.meta.resolve("../fixtures/tasks.ts");
  assert.ok(perTask < url.length, `${perTask} bytes sent per task: the URL of add (${url.length} characters) is not among them`);
});
