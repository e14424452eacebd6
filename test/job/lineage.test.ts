// Lineage (docs/design/object-store.md, "Loss and lineage"): a reader that found the holder of a value gone runs its
// task again only if the value it read is still the one the head keeps. A reader given the value before its holder
// died may report it after the value was made anew elsewhere: that report must not run the task once more (each run
// spends one of its retries, and with none left its readers get ObjectLostError).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RemoteBuffer } from "../../src/mesh/remote-buffer.ts";
import { HeldValue } from "../../src/job/objects/held-value.ts";
import { ObjectStore } from "../../src/job/objects/object-store.ts";
import { TASK_RESOURCES } from "../../src/job/base/options.ts";
import { Lineage } from "../../src/job/tasks/lineage.ts";
import type { Task } from "../../src/job/tasks/task-records.ts";

/** A value held by the process at `owner` (only its address and size are read here). */
function heldAt(owner: string): HeldValue {
  return new HeldValue("r1", "map", 0, { owner, size: 8, drop: () => Promise.resolve() } as unknown as RemoteBuffer);
}

describe("lineage", () => {
  it("a holder reported gone after its value was made anew elsewhere runs the task no more", () => {
    const store = new ObjectStore();
    const reruns: Task[] = [];
    const lineage = new Lineage({ store, rerun: (task) => reruns.push(task) });
    const task: Task = { id: "r1", name: "map", fn: () => 0, args: [], resources: TASK_RESOURCES, env: undefined, stream: null, returns: 0, retriesLeft: 2 };
    const first = heldAt("unix:/first");
    lineage.finished(task, first);
    store.entry("r1").resolve(first);

    assert.equal(lineage.holderLost("r1", "unix:/first"), true);
    assert.equal(reruns.length, 1);
    const again = heldAt("unix:/second");
    lineage.finished(task, again);
    store.entry("r1").resolve(again);

    // A second reader of the first value reports its holder gone now: it reads the value again, from its new holder.
    assert.equal(lineage.holderLost("r1", "unix:/first"), true);
    assert.equal(reruns.length, 1);
    assert.equal(task.retriesLeft, 1);
    // The new holder's own loss runs the task again.
    assert.equal(lineage.holderLost("r1", "unix:/second"), true);
    assert.equal(reruns.length, 2);
  });
});
