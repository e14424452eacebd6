// This worker thread's doorbell (wire/doorbell.ts), which its parent rings: set by the thread's entry as
// it starts serving; null in a worker process, in a driver, and in a thread fray did not start.
import { Doorbell } from "../../wire/doorbell.ts";

let own: Doorbell | null = null;

/** The thread's entry: the memory its parent handed it. */
export function adoptParentDoorbell(shared: SharedArrayBuffer): Doorbell {
  return (own = new Doorbell(shared));
}

export function parentDoorbell(): Doorbell | null {
  return own;
}
