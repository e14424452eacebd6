// The last failures this process's supervisor saw, kept for whoever looks at
// the process from outside (the dashboard): bounded, so a mesh that fails
// over and over cannot grow it without end.
/** One failed member of a mesh this process owns. */
export interface FailureRecord {
  readonly mesh: string;
  readonly meshId: string;
  readonly rank: number;
  /** The failure's own message. */
  readonly message: string;
  /** `Name: message` of the error and each of its causes, outermost first. */
  readonly causes: readonly string[];
  /** When the supervisor heard of it (ms since the epoch). */
  readonly time: number;
}

/** How many failures a process keeps: the newest, the oldest dropped first. */
export const FAILURES_KEPT = 200;

export class FailureHistory {
  #records: FailureRecord[] = [];

  record(meshId: string, mesh: string, rank: number, cause: Error): void {
    this.#records.push({ mesh, meshId, rank, message: cause.message, causes: causeChain(cause), time: Date.now() });
    if (this.#records.length > FAILURES_KEPT) this.#records.splice(0, this.#records.length - FAILURES_KEPT);
  }

  /** Oldest first. */
  list(): FailureRecord[] {
    return [...this.#records];
  }
}

/** `Name: message` of `error` and its causes (at most 10: a cycle must not hang us). */
export function causeChain(error: unknown): string[] {
  const chain: string[] = [];
  for (let e: unknown = error; e !== undefined && e !== null && chain.length < 10; e = (e as { cause?: unknown }).cause) {
    chain.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    if (!(e instanceof Error)) break;
  }
  return chain;
}
