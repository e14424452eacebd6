// The items of one streaming task as its owner (a job's head, or a sync job)
// keeps them: the ids of the values yielded so far, in order, and how the
// stream ended. Readers ask for item i and wait until it is there or the
// stream has ended. No backpressure: a generator runs ahead of its reader, as
// in Ray by default; the values wait in the job's object store.
export class StreamBuffer {
  readonly #ids: string[] = [];
  /** Undefined while the stream runs; null once it returned; else what ended it. */
  #end: { error: unknown } | null | undefined = undefined;
  /** Set once the stream was cancelled: every read from then on rejects with it, even after the generator returned. */
  #cancelled: { error: unknown } | undefined = undefined;
  #waiters: Array<() => void> = [];

  get ended(): boolean {
    return this.#end !== undefined;
  }

  /** How many items arrived. */
  get size(): number {
    return this.#ids.length;
  }

  push(id: string): void {
    if (this.#end !== undefined) return; // a late item of a cancelled stream
    this.#ids.push(id);
    this.#wake();
  }

  /** The generator returned (`error` absent) or threw; the first end counts. */
  finish(error?: { error: unknown }): void {
    if (this.#end !== undefined) return;
    this.#end = error ?? null;
    this.#wake();
  }

  /** The stream was cancelled (`error`: its TaskCancelledError): it ends, and its reader's next read rejects, whether or not its generator had returned. */
  cancel(error: unknown): void {
    this.finish({ error });
    this.#cancelled ??= { error };
    this.#wake();
  }

  /** The id of item `index`, or null once the stream returned before it; rejects with what ended the stream. */
  async next(index: number): Promise<string | null> {
    while (index >= this.#ids.length && this.#end === undefined) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    if (this.#cancelled) throw this.#cancelled.error;
    if (index < this.#ids.length) return this.#ids[index];
    if (this.#end) throw this.#end.error;
    return null;
  }

  /** Ids of items past `index` nobody was handed: a reader that left early releases them. */
  unread(index: number): string[] {
    return this.#ids.slice(index);
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}

/** What a streaming task or actor method returned, if it is an async iterable; else the error that says what to write instead. */
export function asStream(value: unknown, name: string): AsyncIterable<unknown> {
  if (value !== null && typeof value === "object" && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function") {
    return value as AsyncIterable<unknown>;
  }
  const got = value === null ? "null" : typeof value === "object" ? `a ${value.constructor?.name ?? "plain object"}` : typeof value;
  throw new TypeError(`${name} returned ${got}, not an async iterable: a streaming task is an async generator function, async function* ${name}() { yield … }`);
}
