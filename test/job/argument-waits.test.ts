// A task whose ref arguments are not made yet waits at the head, not at a worker (Ray's dependency manager): it holds
// no worker's slot meanwhile, and it is placed once its values exist, where they are (locality.ts) or on a free worker.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createJobContext } from "../../src/job.ts";
import { bigAfterWork, makeFile, pidOf, waitForFile } from "./object-spill-tasks.ts";

const N = 131_072; // 1 MiB of doubles: held by the worker that made it
const dir = mkdtempSync(join(tmpdir(), "fray-argument-waits-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("tasks waiting for their arguments", () => {
  for (const backend of ["processes", "threads"] as const) {
    it(`take no worker's slot while they wait: an independent task runs meanwhile (${backend})`, async () => {
      await using ctx = createJobContext(backend, { maxWorkers: 2 });
      await ctx.get([ctx.run(pidOf), ctx.run(pidOf)]);
      const signal = join(dir, `signal-${backend}`);
      const gate = ctx.run(waitForFile, signal, 30_000); // takes one worker until the signal
      const dependents = [ctx.run(pidOf, gate), ctx.run(pidOf, gate), ctx.run(pidOf, gate)];
      const signalling = ctx.run(makeFile, signal); // needs the other worker: the dependents must not hold it
      assert.equal(await ctx.get(gate), "seen");
      await ctx.get([signalling, ...dependents]);
    });
  }

  it("spread over the free workers once their values are made", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 2 });
    await ctx.get([ctx.run(pidOf), ctx.run(pidOf)]);
    for (let round = 0; round < 3; round++) {
      const maps = Array.from({ length: 40 }, (_, i) => ctx.run(bigAfterWork, N, i, 10));
      const readers = [ctx.run(pidOf, ...maps), ctx.run(pidOf, ...maps)];
      const pids = await ctx.get(readers);
      assert.notEqual(pids[0], pids[1], `round ${round}: both readers ran in process ${pids[0]}, the other worker idle`);
    }
  });
});
