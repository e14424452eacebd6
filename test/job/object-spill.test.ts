// A worker's object store has a cap, FRAY_OBJECT_STORE_BYTES (docs/design/object-store.md, slice 4): past it the
// least recently read values it holds go to a spill directory and come back, exactly, when read; a value larger than
// the cap, and a spill directory that cannot take a value, are errors naming the ref, the task that made it and the
// fix, and no other value is lost. The bytes held, spilled, restored and read (by path) are metrics, and the
// dashboard's object figures show them.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createJobContext } from "../../src/job.ts";
import { metricsSources, type MetricFamily } from "../../src/dashboard.ts";
import { collectMetrics } from "../../src/runtime/face/metrics.ts";
import { thisHost } from "../../src/mesh.ts";
import { track, waitForExit } from "../helpers.ts";
import { bigFrom, checkFill } from "./object-spill-tasks.ts";
import { withSettings } from "./held-backends.ts";

/** 1 MiB of doubles, and a store cap of 2.5 of them: at most two such values stay in memory. */
const N = 131_072;
const MIB = 1 << 20;
const CAP = 2.5 * MIB;

function total(json: readonly MetricFamily[], name: string, where: Record<string, string> = {}): number {
  const family = json.find((m) => m.name === name);
  assert.ok(family, `metric ${name} is declared`);
  return family.values.filter((v) => Object.entries(where).every(([k, x]) => v.labels[k] === x)).reduce((n, v) => n + v.value, 0);
}

describe("a worker's object store past FRAY_OBJECT_STORE_BYTES", () => {
  it("spills the least recently read values to its directory and restores them exactly when read; the metrics and dashboard show it", async () => {
    const spill = mkdtempSync(join(tmpdir(), "fray-spill-test-"));
    try {
      await withSettings({ FRAY_OBJECT_STORE_BYTES: String(CAP), FRAY_OBJECT_SPILL_DIR: spill }, async () => {
        const pids: number[] = [];
        {
          await using ctx = createJobContext("processes", { maxWorkers: 1 });
          const fills = [1, 2, 3, 4, 5, 6];
          const refs = fills.map((fill) => ctx.run(bigFrom, N, fill));
          await ctx.wait(refs, { numReturns: refs.length });
          assert.equal(readdirSync(spill).length, 1, "the worker spilled into a directory of its own under FRAY_OBJECT_SPILL_DIR");
          // The driver reads each (the oldest come back from disk), and a task on the holder reads each again.
          for (const [i, ref] of refs.entries()) {
            const big = await ctx.get(ref);
            assert.equal(big.data.length, N);
            assert.ok(
              big.data.every((x) => x === fills[i]),
              `value ${i} read back exactly`,
            );
            pids.push(big.pid);
          }
          const checks = await ctx.get(refs.map((ref, i) => ctx.run(checkFill, ref, fills[i])));
          assert.deepEqual(
            checks.map((c) => [c.exact, c.length]),
            fills.map(() => [true, N]),
          );
          const { json } = await collectMetrics();
          const metrics = json as unknown as MetricFamily[];
          assert.ok(total(metrics, "fray_object_spilled_bytes_total") >= 4 * MIB, "at least four values were spilled");
          assert.ok(total(metrics, "fray_object_restored_bytes_total") >= 4 * MIB, "and restored when read");
          assert.ok(total(metrics, "fray_object_held_bytes") <= CAP, "the worker holds no more than its cap in memory");
          assert.ok(total(metrics, "fray_object_held_bytes") + total(metrics, "fray_object_spilled_bytes") >= 6 * MIB, "nothing was dropped");
          assert.ok(total(metrics, "fray_object_transfer_bytes_total", { path: "same-process" }) >= 6 * MIB, "the tasks read in the holder's process");
          const fromHost =
            total(metrics, "fray_object_transfer_bytes_total", { path: "shm" }) + total(metrics, "fray_object_transfer_bytes_total", { path: "socket" });
          assert.ok(fromHost >= 6 * MIB, "the driver read from another process of its host (through /dev/shm where there is one)");
          const objects = await metricsSources(async () => ({ text: "", json: metrics })).objects!();
          assert.ok(objects.heldBytes > 0 && objects.heldBytes <= CAP);
          assert.ok(objects.spilledBytesTotal >= 4 * MIB && objects.restoredBytesTotal >= 4 * MIB);
          assert.ok(objects.transferBytes["same-process"] >= 6 * MIB && (objects.transferBytes.shm ?? 0) + (objects.transferBytes.socket ?? 0) >= 6 * MIB);
        }
        await waitForExit(new Set(pids));
        assert.deepEqual(readdirSync(spill), [], "the worker removed its spill directory when it ended");
      });
    } finally {
      rmSync(spill, { recursive: true, force: true });
    }
  });

  it("on mesh too: a worker process spills past its cap and its values come back exactly, to the driver and to tasks", async () => {
    const spill = mkdtempSync(join(tmpdir(), "fray-spill-test-"));
    try {
      await withSettings({ FRAY_OBJECT_STORE_BYTES: String(CAP), FRAY_OBJECT_SPILL_DIR: spill }, async () => {
        const procs = track(thisHost().spawnProcs({ workers: 1 }));
        try {
          await using ctx = createJobContext("mesh", { procs });
          const fills = [1, 2, 3, 4];
          const refs = fills.map((fill) => ctx.run(bigFrom, N, fill));
          await ctx.wait(refs, { numReturns: refs.length });
          assert.equal(readdirSync(spill).length, 1, "the worker spilled");
          const values = await ctx.get(refs);
          assert.deepEqual(
            values.map((v) => v.data.length === N && v.data.every((x) => x === v.data[0]) && v.data[0]),
            fills,
          );
          const checks = await ctx.get(refs.map((ref, i) => ctx.run(checkFill, ref, fills[i])));
          assert.ok(checks.every((c) => c.exact));
        } finally {
          await procs.stop();
        }
        await waitForExit(procs.pids);
        assert.deepEqual(readdirSync(spill), [], "the worker removed its spill directory when it ended");
      });
    } finally {
      rmSync(spill, { recursive: true, force: true });
    }
  });

  it("a value larger than the cap fails its task with an error naming the ref, the task and the setting to raise", async () => {
    await withSettings({ FRAY_OBJECT_STORE_BYTES: String(MIB / 2) }, async () => {
      await using ctx = createJobContext("processes", { maxWorkers: 1 });
      const ref = ctx.run(bigFrom, N, 7);
      await assert.rejects(ctx.get(ref), (err: Error) => {
        assert.match(err.message, new RegExp(`ObjectRef\\(${ref.id}\\)`));
        assert.match(err.message, /task bigFrom/);
        assert.match(err.message, /FRAY_OBJECT_STORE_BYTES=524288/);
        assert.match(err.message, /raise FRAY_OBJECT_STORE_BYTES/);
        return true;
      });
      // The worker goes on: a value that fits is kept as before.
      assert.equal((await ctx.get(ctx.run(bigFrom, N / 16, 8))).data[0], 8);
    });
  });

  it("a spill directory that cannot be written fails the task that needed room, naming it and the fix; values held before are kept", async () => {
    const parent = mkdtempSync(join(tmpdir(), "fray-spill-test-"));
    const file = join(parent, "a-file");
    try {
      // A directory under a regular file cannot be made: every spill fails, as on a full disk.
      writeFileSync(file, "");
      await withSettings({ FRAY_OBJECT_STORE_BYTES: String(CAP), FRAY_OBJECT_SPILL_DIR: join(file, "spill") }, async () => {
        await using ctx = createJobContext("processes", { maxWorkers: 1 });
        const kept = [ctx.run(bigFrom, N, 1), ctx.run(bigFrom, N, 2)];
        await ctx.wait(kept, { numReturns: 2 });
        const third = ctx.run(bigFrom, N, 3);
        await assert.rejects(ctx.get(third), (err: Error) => {
          assert.match(err.message, new RegExp(`ObjectRef\\(${third.id}\\)`));
          assert.match(err.message, /task bigFrom/);
          assert.match(err.message, /FRAY_OBJECT_SPILL_DIR/);
          assert.match(err.message, /FRAY_OBJECT_STORE_BYTES/);
          return true;
        });
        const values = await ctx.get(kept);
        assert.deepEqual(
          values.map((v) => v.data.every((x) => x === v.data[0]) && v.data[0]),
          [1, 2],
        );
      });
      assert.ok(existsSync(file));
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
