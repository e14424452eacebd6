// A lost held value made anew while tasks wait for it as an argument (docs/design/object-store.md, lineage): the
// waiting task lends its worker's slot out, as a task blocked in get() does, so the task that makes the value again
// can run even when every slot holds such a reader — a shuffle whose holder dies as its reducers start ends exact.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { thisHost } from "../../src/mesh.ts";
import { track } from "../helpers.ts";
import { bigResult, bigResultTelling } from "./held-results-tasks.ts";
import { sumAll } from "./held-rebuild-tasks.ts";

/** 1 MiB of doubles: far above the default inline threshold (100 KiB). */
const N = 131_072;
const MAPS = 6;
const REDUCERS = 4;

const backends: Array<[string, () => JobContext]> = [
  ["processes", () => createJobContext("processes", { maxWorkers: 2 })],
  ["mesh", () => createJobContext("mesh", { procs: track(thisHost().spawnProcs({ workers: 2 })) })],
];

for (const [kind, make] of backends) {
  describe(kind, () => {
    it("a shuffle whose holder of map outputs is killed as the reducers start ends with exact totals", async () => {
      const dir = mkdtempSync(join(tmpdir(), "fray-rebuild-"));
      try {
        await using ctx = make();
        const pidFile = join(dir, "holder");
        const maps = Array.from({ length: MAPS }, (_, s) =>
          s === 0 ? ctx.createTask(bigResultTelling, [N, s, pidFile], { maxRetries: 2 }) : ctx.createTask(bigResult, [N, s], { maxRetries: 2 }),
        );
        await ctx.wait(maps, { numReturns: MAPS });
        const reducers = Array.from({ length: REDUCERS }, () => ctx.createTask(sumAll, maps, { maxRetries: 2 }));
        process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
        const total = N * ((MAPS * (MAPS - 1)) / 2);
        assert.deepEqual(await ctx.get(reducers), Array(REDUCERS).fill(total));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
