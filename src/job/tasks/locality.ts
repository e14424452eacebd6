// Locality (docs/design/object-store.md, slice 4): a task given refs to values held by workers (large results that
// stayed where they were made, large values tasks put, nested tasks' large results whose ref says where they are) runs,
// when that worker has room for it now, on the worker holding the largest of them, so it reads that value in place
// instead of copying it from another process. A busy holder is not waited for: the task goes wherever placement would
// send it anyway (worker-pool.ts).
import type { Resources } from "../base/options.ts";
import { kHeldBytes, kHolder, kOwner, ObjectRef } from "../objects/object-ref.ts";
import type { ObjectStore } from "../objects/object-store.ts";
import type { Worker, WorkerPool } from "./worker-pool.ts";

/**
 * The worker holding the largest held value among `args` (the refs a task reads before it runs), or -1 if none is
 * held: a large result the head knows the holder of, or a large value a task put, held by the worker that put it
 * (its ref says which, and how large).
 */
export function largestHolder(args: readonly unknown[], store: ObjectStore): number {
  let holder = -1;
  let largest = 0;
  for (const arg of args) {
    if (!(arg instanceof ObjectRef)) continue;
    const held = store.held(arg.id);
    if (held && held.worker >= 0 && held.buffer.size > largest) [holder, largest] = [held.worker, held.buffer.size]; // not the driver's
    const owner = arg[kOwner];
    const put = owner.head !== null ? (arg[kHolder] ?? owner.putBy) : undefined; // a nested task's holder, else the putter
    const size = arg[kHeldBytes] ?? 0;
    if (put !== undefined && put >= 0 && size > largest) [holder, largest] = [put, size];
  }
  return holder;
}

/** Where a task with `args` asking for `request` goes now: the holder of its largest held argument if it has room, else the pool's pick. */
export function pickNear(pool: WorkerPool, store: ObjectStore, args: readonly unknown[], request: Resources, idleOnly: boolean): Worker | undefined {
  const holder = largestHolder(args, store);
  return (holder >= 0 ? pool.pickOn(holder, request, idleOnly) : undefined) ?? pool.pick(request, idleOnly);
}
