// The named actor of test/job/reference-routes.test.ts that keeps references
// for other jobs. It imports nothing from fray, on purpose: the process a
// namespace hosts it in loads only the mesh runtime and this module, and must
// still take in and hand back every kind of reference unchanged.

/** Keeps a value under a key until someone fetches it. */
export class Holder {
  readonly #kept = new Map<string, unknown>();

  keep(key: string, value: unknown): void {
    this.#kept.set(key, value);
  }

  fetch(key: string): unknown {
    if (!this.#kept.has(key)) throw new Error(`nothing is kept under '${key}'`);
    return this.#kept.get(key);
  }
}
