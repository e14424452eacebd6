// A value is freed once no process its owner counts holds a ref to it (object-borrowers.test.ts). Where the only
// holder is an actor whose module imports nothing from fray, the ref must still keep its value when that actor runs
// in a process of its own (one the namespace hosts), and a read of a value freed anyway must fail, not wait forever.
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, it } from "node:test";
import { createJobContext, ObjectFreedError, type JobKind, type ObjectRef } from "../../src/job.ts";
import { refCountsOf } from "../../src/job/objects/ref-counts.ts";
import { thisHost } from "../../src/mesh.ts";
import { track } from "../helpers.ts";
import { Holder } from "./reference-holder.ts";
import { MeshHolder } from "./freed-refs-holder.ts";
import { collect } from "./object-borrowers-tasks.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Collects this process's garbage until the driver holds no ref to `id` (finalizers run after a collection). */
async function dropped(id: string): Promise<void> {
  for (let round = 0; refCountsOf(id).own > 0; round++) {
    assert.ok(round < 100, `the driver still counts its ref to ${id} after 100 collections`);
    gc();
    await new Promise((r) => setImmediate(r));
  }
}

/** Puts `value` and hands the ref to `keep`, keeping only its id here: the driver's ref is garbage once this returns. */
async function putAndGive(
  put: (v: string) => ObjectRef<string>,
  value: string,
  keep: (wrapped: { ref: ObjectRef<string> }) => Promise<unknown>,
): Promise<string> {
  const ref = put(value);
  assert.equal(refCountsOf(ref.id).own, 1, "the job's head counts the driver's ref");
  await keep({ ref }); // wrapped: a bare ref argument would be resolved to its value
  return ref.id;
}

for (const backend of ["threads", "processes"] as const satisfies readonly JobKind[]) {
  describe(backend, () => {
    it("a ref only an actor in a process of its own holds (its module imports nothing from fray) keeps its value once the driver dropped its ref", async () => {
      await using ctx = createJobContext(backend, { maxWorkers: 1 });
      const holder = await ctx.createActor(Holder, [], { maxRestarts: 1 }); // restartable: the namespace hosts it in a process of its own
      const id = await putAndGive(
        (v) => ctx.put(v),
        "kept by the holder",
        (wrapped) => ctx.get(holder.keep.remote("k", wrapped)),
      );
      await dropped(id);
      assert.ok(refCountsOf(id).borrowed > 0, "the holder's process counts as a borrower");
      const fetched = (await ctx.get(holder.fetch.remote("k"))) as { ref: ObjectRef<string> };
      assert.equal(await ctx.get(fetched.ref), "kept by the holder");
    });
  });
}

it("a read of a ref whose value was freed (its only holder, a mesh actor in a proc no job runs in, is not counted) rejects with ObjectFreedError", async () => {
  await using ctx = createJobContext("processes", { maxWorkers: 1 });
  await ctx.get(ctx.run(collect)); // the job is up: its head counts refs
  await using procs = track(thisHost().spawnProcs({ workers: 1 }));
  const holder = procs.spawn("holder", MeshHolder);
  const id = await putAndGive(
    (v) => ctx.put(v),
    "freed",
    (wrapped) => holder.keep.call(wrapped),
  );
  await dropped(id);
  const fetched = (await holder.fetch.callOne()) as { ref: ObjectRef<string> };
  await assert.rejects(ctx.get(fetched.ref), (err: Error) => {
    assert.ok(err instanceof ObjectFreedError, String(err));
    assert.match(err.message, new RegExp(`ObjectRef\\(${id}\\)'s value was freed.*import 'fray' in the module of the actor that keeps it`));
    return true;
  });
});
