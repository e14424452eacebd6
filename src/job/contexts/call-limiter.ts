// At most `limit` calls of an in-process (sync) actor run at once; the rest
// start in the order they were made, as a mailbox would deliver them.
export class CallLimiter {
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.#running < this.limit) this.#running++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve)); // the slot is handed over, not freed
    try {
      return await call();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
