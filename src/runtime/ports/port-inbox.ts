// The receiving side of this process's ports: decodes what arrives for them
// and hands it to their handlers in arrival order. A value holding errors
// whose classes must be imported first (error-classes.ts) waits for that, and
// later values for the same port wait behind it. A value that cannot be
// decoded arrives as a DecodingError naming its sender.
import { decode } from "../../wire/codec.ts";
import { DecodingError } from "../../wire/errors.ts";
import type { Frame } from "../../wire/frame.ts";
import { reviveErrorClasses } from "../code/error-classes.ts";

/** Receives values sent to a port: the sender's rank, whether it is a value (or an error), the value. */
export type PortHandler = (rank: number, ok: boolean, value: unknown) => void;

export class PortInbox {
  #handlers = new Map<number, PortHandler>();
  #next = 1;
  /** Per port, the delivery still waiting for error classes, if any. */
  #waiting = new Map<number, Promise<void>>();

  open(handler: PortHandler): number {
    const id = this.#next++;
    this.#handlers.set(id, handler);
    return id;
  }

  close(id: number): void {
    this.#handlers.delete(id);
  }

  /** Delivers one value (`ok` false: an error) from `rank` of the proc at `from`. */
  deliver(id: number, from: string, rank: number, ok: boolean, frame: Frame): void {
    const handler = this.#handlers.get(id);
    if (!handler) return;
    const unresolved: Error[] = [];
    let value: unknown;
    try {
      value = decode(frame.payload, frame.attachments, unresolved);
    } catch (err) {
      [ok, value] = [false, new DecodingError(`a value from rank ${rank}`, from, err)];
    }
    // Most values (every call's reply) need nothing imported and wait behind nothing: handed over at once, nothing made for them.
    if (unresolved.length === 0 && this.#waiting.size === 0) handler(rank, ok, value);
    else this.#handOver(id, [[rank, ok, value]], unresolved);
  }

  /** Delivers a batch (an array of values) from several ranks; `errs[i]` marks errors. */
  deliverMany(id: number, from: string, ranks: readonly number[], errs: readonly number[], frame: Frame): void {
    if (!this.#handlers.has(id)) return;
    const unresolved: Error[] = [];
    let items: Array<[number, boolean, unknown]>;
    try {
      const values = decode(frame.payload, frame.attachments, unresolved) as unknown[];
      items = ranks.map((rank, i) => [rank, !errs[i], values[i]]);
    } catch (err) {
      const failure = new DecodingError(`values from ranks ${ranks.join(", ")}`, from, err);
      items = ranks.map((rank) => [rank, false, failure]);
    }
    this.#handOver(id, items, unresolved);
  }

  /** Hands `items` to port `id`'s handler once the error classes in them are imported and what came before them is handed over. */
  #handOver(id: number, items: Array<[number, boolean, unknown]>, unresolved: Error[]): void {
    const hand = () => {
      const handler = this.#handlers.get(id);
      if (handler) for (const [rank, ok, value] of items) handler(rank, ok, value);
    };
    const before = this.#waiting.get(id);
    if (!before && unresolved.length === 0) return hand();
    const done = (before ?? Promise.resolve())
      .then(() => reviveErrorClasses(unresolved))
      .then(hand)
      .catch((err: unknown) =>
        process.nextTick(() => {
          throw err; // a handler's own failure, as uncaught as on the synchronous path
        }),
      );
    this.#waiting.set(id, done);
    void done.then(() => {
      if (this.#waiting.get(id) === done) this.#waiting.delete(id);
    });
  }
}
