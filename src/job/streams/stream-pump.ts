// The producing side of a stream: a worker (a task's Executor, or an actor
// running a streaming method) sends each value the generator yields to the
// stream's port at the job's head as rank i, in order, then the end as rank
// -1: the count, or what the generator threw. One port keeps them in order
// (port-inbox.ts), and an item that cannot be sent arrives as the error that
// says why, ending the stream there.
import type { PortRef } from "../../runtime/face/actors.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { encode } from "../../wire/codec.ts";

/** Rank of the stream's end on its port; an actor's stream first sends its control port as rank CONTROL. */
export const STREAM_END = -1;
export const STREAM_CONTROL = -2;

/** Sends what `iterable` yields to `port`; stops pulling once `stopped()` (its task was cancelled). Resolves with the count sent. */
export async function pump(iterable: AsyncIterable<unknown>, port: PortRef, stopped: () => boolean): Promise<number> {
  const proc = currentProc();
  let n = 0;
  try {
    for await (const value of iterable) {
      if (stopped()) break;
      proc.sendToPort(port, n++, value, false);
    }
  } catch (err) {
    let error = err;
    try {
      encode(error, "error"); // an error must be sendable before it is sent as one
    } catch (unsendable) {
      error = unsendable;
    }
    proc.sendToPort(port, STREAM_END, error, true);
    return n;
  }
  proc.sendToPort(port, STREAM_END, n, false);
  return n;
}
