// A worker tells the head which of its tasks started (got a slot) and which
// finished, in batches: everything reported in one tick goes in one call. A
// task about to wait in get()/wait() flushes first, so the head knows it
// started before it learns that it blocked. A result the codec cannot send,
// or one too big for a frame, is not lost: its task fails with the reason.
import { encode } from "../wire/codec.ts";
import { SerializationError } from "../wire/errors.ts";
import { ActorError, SupervisionError } from "../mesh/errors.ts";
import { afterMicrotasks, DONE_FIELDS, isPlain } from "./task-batch.ts";

/** How reports reach the head: `oneWay` with no answer (for values that surely arrive), `acked` resolving once the head has them. */
export interface ReportSenders {
  oneWay(started: string[], done: unknown[]): void;
  acked(started: string[], done: unknown[]): Promise<void>;
}

/** A value the head decodes for sure and that fits a frame easily: sent one-way, with no answer to wait for. */
const SURE_BYTES = 64 * 1024;

export class TaskReports {
  #started: string[] = [];
  #done: unknown[] = [];
  #scheduled = false;

  constructor(private readonly senders: ReportSenders) {}

  started(taskId: string): void {
    this.#started.push(taskId);
    this.#schedule();
  }

  done(taskId: string, ok: boolean, value: unknown): void {
    this.#done.push(taskId, ok, value);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    afterMicrotasks(() => this.flush());
  }

  /** Sends what is queued now. */
  flush(): void {
    this.#scheduled = false;
    if (this.#started.length === 0 && this.#done.length === 0) return;
    const started = this.#started;
    const done = this.#done;
    this.#started = [];
    this.#done = [];
    // Plain values go one-way; anything that could fail on the way (an error, a big or odd value) waits for the head's answer.
    let sure = done;
    let acked: unknown[] | null = null;
    for (let i = 0; i < done.length; i += DONE_FIELDS) {
      const ok = done[i + 1] && isSure(done[i + 2]);
      if (!acked && ok) continue;
      if (!acked) (acked = [], (sure = done.slice(0, i)));
      (ok ? sure : acked).push(done[i], done[i + 1], done[i + 2]);
    }
    if (started.length || sure.length) this.senders.oneWay(started, sure);
    if (acked) this.#send([], acked);
  }

  #send(started: string[], done: unknown[]): void {
    let sent: Promise<void>;
    try {
      sent = this.senders.acked(started, done);
    } catch (err) {
      if (!(err instanceof SerializationError)) throw err;
      this.#send(started, sendable(done)); // each unsendable result becomes its task's error
      return;
    }
    sent.catch((failure: unknown) => {
      if (failure instanceof SupervisionError) return; // the head is gone: nobody waits for these any more
      // Too big for one frame, or the head could not decode it: halve until the one result at fault fails with the reason.
      const err = failure instanceof ActorError ? failure.cause : failure;
      const n = done.length / DONE_FIELDS;
      if (n <= 1) {
        if (n === 1 && done[1] !== false) this.#send(started, [done[0], false, err]);
        else if (started.length) this.#send(started, []);
        return;
      }
      const half = Math.ceil(n / 2) * DONE_FIELDS;
      this.#send(started, done.slice(0, half));
      this.#send([], done.slice(half));
    });
  }
}

/** `done` with each value (or thrown value) the codec cannot send replaced by the SerializationError that says why. */
function sendable(done: unknown[]): unknown[] {
  const out = done.slice();
  for (let i = 0; i < out.length; i += DONE_FIELDS) {
    try {
      encode(out[i + 2], out[i + 1] ? "value" : "error");
    } catch (err) {
      out[i + 1] = false;
      out[i + 2] = err instanceof SerializationError ? err : new SerializationError(String(err));
    }
  }
  return out;
}

function isSure(value: unknown): boolean {
  if (isPlain(value)) return true;
  if (typeof value === "object") {
      try {
        const { body, attachments } = encode(value); // only on the worker, which has time to spare
        return attachments.length === 0 && body.length < SURE_BYTES && !(value instanceof Error);
      } catch {
        return false;
      }
  }
  return false;
}
