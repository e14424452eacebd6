// Tasks for unreachable-holder.test.ts, besides cross-host-held-tasks.ts's: the large result made on the worker that
// holds another value, and a reader run on the worker that holds another value (locality: a task runs on the holder
// of its largest ref argument when that worker has room), so each lands on the host the test means.
import type { ObjectRef } from "../../src/job.ts";
import { bigOn, checkByGet } from "./cross-host-held-tasks.ts";

/** bigOn(fill, tellFile), run on the worker holding `_near`'s value. */
export function bigNear(fill: number, tellFile: string, _near: Float64Array): Float64Array {
  return bigOn(fill, tellFile);
}

/** checkByGet(wrapped, fill), run on the worker holding `_near`'s value: it reads `wrapped.ref` with ctx.get. */
export function checkByGetNear(wrapped: { ref: ObjectRef<Float64Array> }, fill: number, _near: Float64Array): ReturnType<typeof checkByGet> {
  return checkByGet(wrapped, fill);
}
