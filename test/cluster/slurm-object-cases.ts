// The object store on the test Slurm (run on its submit host by slurm.test.ts, as slurm-cases.ts is): a `mesh` job
// whose workers sbatch/srun started on two nodes (their own /tmp, /dev/shm and network), its driver on the submit
// host. An 8 MiB result stays on the node that made it: a task on the other node and the driver read it from there,
// exactly; its holder killed, the task runs again (maxRetries) and every read gets the value made anew; without
// retries, the read rejects with ObjectLostError naming the ref and the holder.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { createJobContext, ObjectLostError } from "../../src/job.ts";
import { objectStats } from "../../src/job/base/metrics.ts";
import { SlurmJob } from "../../src/launchers.ts";
import { slurmHosts } from "./slurm-hosts.ts";
import { bigOn, check, checkByGet, wrongElements } from "../job/cross-host-held-tasks.ts";
import { waitForExit } from "../helpers.ts";

it("held values on two Slurm nodes: read across nodes and by the driver exactly, made again when their holder is killed, else ObjectLostError", async () => {
  const dir = mkdtempSync(join(slurmHosts().shared, "fray-slurm-objects-"));
  const job = new SlurmJob({ meshes: { workers: 2 } });
  try {
    const { workers } = await job.state();
    await using ctx = createJobContext("mesh", { procs: workers.spawnProcs({}) });
    const told = (name: string) => JSON.parse(readFileSync(join(dir, name), "utf8")) as { pid: number; host: string };

    const before = objectStats.bytes;
    const ref = ctx.run(bigOn, 1, join(dir, "read.json"));
    await ctx.wait([ref]);
    // Two readers at once take both workers: one of them reads from the other node.
    const readers = await ctx.get([ctx.run(check, ref, 1), ctx.run(checkByGet, { ref }, 1)]);
    assert.deepEqual(
      readers.map((r) => r.wrong),
      [0, 0],
    );
    assert.ok(
      readers.some((r) => r.host !== told("read.json").host),
      `a reader ran on the other node: ${JSON.stringify(readers)}, made on ${told("read.json").host}`,
    );
    assert.equal(wrongElements(await ctx.get(ref), 1), 0, "the driver reads it exactly");
    assert.equal(objectStats.bytes - before, 0, "the driver's store holds none of its bytes");

    const again = ctx.createTask(bigOn, [2, join(dir, "retry.json")], { maxRetries: 1 });
    await ctx.wait([again]);
    const first = told("retry.json");
    process.kill(first.pid, "SIGKILL");
    await waitForExit([first.pid]);
    assert.equal(wrongElements(await ctx.get(again), 2), 0, "made again after its holder was killed");
    assert.equal((await ctx.get(ctx.createTask(check, [again, 2], { maxRetries: 1 }))).wrong, 0);
    assert.notEqual(told("retry.json").pid, first.pid, "by another process");

    const lost = ctx.run(bigOn, 3, join(dir, "lost.json"));
    await ctx.wait([lost]);
    const holder = told("lost.json");
    process.kill(holder.pid, "SIGKILL");
    await waitForExit([holder.pid]);
    await assert.rejects(ctx.get(lost), (err: unknown) => {
      assert.ok(err instanceof ObjectLostError, String(err));
      assert.match(err.message, new RegExp(`ObjectRef\\(${lost.id}\\), the result of task bigOn, was held by worker \\d`));
      return true;
    });
  } finally {
    await job.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
