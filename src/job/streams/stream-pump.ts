// The producing side of a stream: a worker (a task's Executor, or an actor
// running a streaming method) sends each value the generator yields to the
// stream's port at the job's head as rank i, in order, then the end as rank
// -1: the count, or what the generator threw. One port keeps them in order
// (port-inbox.ts), and an item that cannot be sent arrives as the error that
// says why, ending the stream there.
//
// Each value is written out as it is yielded, in a frame of its own, and the
// event loop is let turn at least every millisecond: a generator that computes
// between its yields (an epoch, a model step, rows from memory) keeps the
// microtask queue busy, and without this its values would wait for its end as
// one frame, and its cancel could not get in. The pump first sends the
// owner a control port of its own, where the owner grants credit (how many
// items the generator may have yielded, its reader's count plus the window)
// and, for an actor's stream, says stop.
import type { PortRef } from "../../runtime/face/actors.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { encode } from "../../wire/codec.ts";

/** Rank of the stream's end on its port; the pump first sends its control port as rank CONTROL. */
export const STREAM_END = -1;
export const STREAM_CONTROL = -2;
/** Ranks of what the owner sends to a pump's control port: stop (an actor's stream), or the credit (a count). */
export const CONTROL_STOP = 0;
export const CONTROL_CREDIT = 1;

/** A stream's port at its owner, with how many items its generator may run ahead of its reader (absent: no limit). */
export interface StreamTarget extends PortRef {
  readonly window?: number;
}

/** The longest a pump keeps the event loop from turning, in ms of wall time. */
const TURN_EVERY_MS = 1;

/** Lets the event loop turn (timers, what arrived) when a generator has kept it from turning for TURN_EVERY_MS. */
export class EventLoopTurns {
  #turned = performance.now();

  /** Resolves after a turn if one is due, else at once (a microtask). */
  async take(): Promise<void> {
    if (performance.now() - this.#turned < TURN_EVERY_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.#turned = performance.now();
  }
}

/**
 * Sends what `iterable` yields to `target`; stops pulling once `stopped(told)` (`told`: the owner said stop on the
 * control port), checked after each value and whenever `signal` aborts. Resolves with the count sent.
 */
export async function pump(iterable: AsyncIterable<unknown>, target: StreamTarget, stopped: (told: boolean) => boolean, signal?: AbortSignal): Promise<number> {
  const proc = currentProc();
  let credit = target.window ?? Infinity;
  let told = false;
  let wake: (() => void) | null = null;
  const control = proc.openPort((rank, ok, value) => {
    if (ok && rank === CONTROL_CREDIT) credit = Math.max(credit, value as number);
    else told = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort);
  const halted = () => stopped(told);
  let n = 0;
  const turns = new EventLoopTurns();
  try {
    proc.sendToPort(target, STREAM_CONTROL, { addr: proc.addr, id: control }, false);
    for await (const value of iterable) {
      if (halted()) break;
      proc.sendToPort(target, n++, value, false);
      proc.flushPorts();
      await turns.take(); // the owner's stop, a cancel, credit get in
      while (n >= credit && !halted()) await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      if (halted()) break;
    }
  } catch (err) {
    let error = err;
    try {
      encode(error, "error"); // an error must be sendable before it is sent as one
    } catch (unsendable) {
      error = unsendable;
    }
    proc.sendToPort(target, STREAM_END, error, true);
    return n;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    proc.closePort(control);
  }
  proc.sendToPort(target, STREAM_END, n, false);
  return n;
}
