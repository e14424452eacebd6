// A large value a worker holds lives in /dev/shm from the start (src/job/objects/held-copies.ts), not in the worker's
// heap: its one copy in memory, counted under FRAY_OBJECT_STORE_BYTES (fray_object_held_bytes{tier="shm"}), read whole
// from that file by a process of its host, by ranges over the socket path, spilled past the cap and brought back, and
// freed with the value. Where /dev/shm is off (FRAY_BUFFER_SAME_HOST=socket) or full, the value stays in the heap.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { createJobContext, type JobContext, type ObjectRef } from "../../src/job.ts";
import type { MetricFamily } from "../../src/dashboard.ts";
import { collectMetrics } from "../../src/runtime/face/metrics.ts";
import { runProgramWithFileLimit, runProgramWithSmallShm } from "../helpers.ts";
import { gc, withSettings } from "./held-backends.ts";
import { firstWrong, patterned, probe, readPatterned } from "./held-in-shm-tasks.ts";

const MiB = 2 ** 20;
const SIZE = 4 * MiB;

/** Metric `name`'s sum over the job's processes, of the values whose labels match `where`. */
async function metric(name: string, where: Record<string, string> = {}): Promise<number> {
  const json = (await collectMetrics()).json as unknown as MetricFamily[];
  const family = json.find((m) => m.name === name);
  assert.ok(family, `metric ${name} is declared`);
  return family.values.filter((v) => Object.entries(where).every(([k, x]) => v.labels[k] === x)).reduce((n, v) => n + v.value, 0);
}

type Probe = Awaited<ReturnType<typeof probe>>;

/** What worker `pid` keeps (probe), running probes until one lands there and finds `done` (or it runs out of tries). */
async function probeOf(ctx: JobContext, pid: number, done: (p: Probe) => boolean = () => true): Promise<Probe> {
  let last: Probe | undefined;
  for (let round = 0; round < 100 && !(last && done(last)); round++) {
    gc(); // the driver's garbage refs, returned to the holder
    last = (await ctx.get([ctx.run(probe), ctx.run(probe)])).find((p) => p.pid === pid) ?? last;
  }
  assert.ok(last, `no probe ran on worker process ${pid}`);
  return last;
}

describe("a large held value in /dev/shm", () => {
  it("is read exactly by a task on another worker process; its holder keeps it in /dev/shm, not its heap, and frees it with the value", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 2 });
    const holder = await (async () => {
      const ref = ctx.run(patterned, SIZE, 1);
      await ctx.wait([ref]);
      // Two readers at once take both workers: one reads in the holder's process, the other from the holder's file.
      const reads = await ctx.get([ctx.run(readPatterned, { ref }, SIZE, 1), ctx.run(readPatterned, { ref }, SIZE, 1)]);
      assert.notEqual(reads[0].pid, reads[1].pid, "the readers ran on both workers");
      assert.deepEqual(
        reads.map((r) => r.wrong),
        [-1, -1],
        "the first byte out of place",
      );
      assert.ok((await metric("fray_object_held_bytes", { tier: "shm" })) >= SIZE, "the holder counts the value in /dev/shm");
      assert.equal(await metric("fray_object_held_bytes", { tier: "memory" }), 0, "and none in its heap");
      const kept = await probeOf(ctx, reads[0].holder, (p) => p.arrayBuffers < SIZE / 2);
      assert.equal(kept.shmFiles, 1, "the holder has the value's /dev/shm file open");
      assert.ok(kept.arrayBuffers < SIZE / 2, `the holder's heap keeps no copy of it (${kept.arrayBuffers} bytes of ArrayBuffers)`);
      assert.equal(firstWrong(await ctx.get(ref), SIZE, 1), -1, "the driver reads it exactly too");
      return reads[0].holder;
    })();
    // The driver's ref is garbage now: the holder frees the value, closing its file.
    assert.equal((await probeOf(ctx, holder, (p) => p.shmFiles === 0)).shmFiles, 0, "the value's file is closed once it is freed");
    assert.equal(await metric("fray_object_held_bytes"), 0);
  });

  it("counts under FRAY_OBJECT_STORE_BYTES: two 4 MiB values under a 6 MiB cap, one is spilled, and both read back exactly", async () => {
    await withSettings({ FRAY_OBJECT_STORE_BYTES: String(6 * MiB) }, async () => {
      await using ctx = createJobContext("processes", { maxWorkers: 1 });
      const refs: ObjectRef<{ pid: number; bytes: Uint8Array }>[] = [ctx.run(patterned, SIZE, 1), ctx.run(patterned, SIZE, 2)];
      await ctx.wait(refs, { numReturns: 2 });
      const shm = await metric("fray_object_held_bytes", { tier: "shm" });
      assert.ok(shm >= SIZE && shm <= 6 * MiB, `one value in /dev/shm (${shm} bytes)`);
      assert.equal(await metric("fray_object_held_bytes", { tier: "memory" }), 0);
      assert.ok((await metric("fray_object_spilled_bytes")) >= SIZE, "the other spilled");
      for (const [i, ref] of refs.entries()) assert.equal(firstWrong(await ctx.get(ref), SIZE, i + 1), -1, `value ${i} read back exactly`);
      assert.ok((await metric("fray_object_restored_bytes_total")) >= SIZE, "the spilled one was brought back to be read");
      assert.ok((await metric("fray_object_held_bytes", { tier: "shm" })) <= 6 * MiB, "within the cap still");
    });
  });

  it("is read exactly in chunks over the socket path, each chunk a range of its file", async () => {
    await using ctx = createJobContext("processes", { maxWorkers: 1 });
    const ref = ctx.run(patterned, SIZE, 3);
    await ctx.wait([ref]);
    assert.ok((await metric("fray_object_held_bytes", { tier: "shm" })) >= SIZE, "the worker keeps it in /dev/shm");
    const before = await metric("fray_object_transfer_bytes_total", { path: "socket" });
    // Only this process reads without /dev/shm: the worker, started before, keeps the value in it.
    const value = await withSettings({ FRAY_BUFFER_SAME_HOST: "socket" }, () => ctx.get(ref));
    assert.equal(firstWrong(value, SIZE, 3), -1);
    assert.ok((await metric("fray_object_transfer_bytes_total", { path: "socket" })) - before >= SIZE, "it came by the socket");
  });

  it("stays in the heap, counted there, where FRAY_BUFFER_SAME_HOST=socket turns /dev/shm off", async () => {
    await withSettings({ FRAY_BUFFER_SAME_HOST: "socket" }, async () => {
      await using ctx = createJobContext("processes", { maxWorkers: 1 });
      const ref = ctx.run(patterned, SIZE, 4);
      await ctx.wait([ref]);
      assert.ok((await metric("fray_object_held_bytes", { tier: "memory" })) >= SIZE);
      assert.equal(await metric("fray_object_held_bytes", { tier: "shm" }), 0);
      const value = await ctx.get(ref);
      assert.equal(firstWrong(value, SIZE, 4), -1);
      assert.equal((await ctx.get(ctx.run(probe))).shmFiles, 0, "the worker keeps no /dev/shm file");
    });
  });

  it("stays in the heap, counted there, where /dev/shm is too small for it (a 1 MiB tmpfs), and is read exactly by another worker", async (t) => {
    const program = fileURLToPath(new URL("held-in-shm-small-program.ts", import.meta.url));
    const { code, stdout, stderr } = await runProgramWithSmallShm(t, program);
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), { wrong: [-1, -1], memory: true, shm: 0 });
  });

  it("takes at most a quarter of its process's file descriptors: past that, values stay in the heap and all read exactly", async (t) => {
    const program = fileURLToPath(new URL("held-in-shm-fd-program.ts", import.meta.url));
    const { code, stdout, stderr } = await runProgramWithFileLimit(t, program, 256);
    assert.equal(code, 0, stderr);
    const found = JSON.parse(stdout) as { wrong: number[]; shmFiles: number; inMemory: number };
    assert.ok(
      found.wrong.every((w) => w === -1),
      `values read wrong at ${found.wrong}`,
    );
    assert.equal(found.shmFiles, 64, "a quarter of 256 file descriptors hold /dev/shm files");
    assert.equal(found.inMemory, 80 - 64, "the other values are in the heap");
  });
});
