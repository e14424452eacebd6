// In a worker thread fray started: its workerData (with what the parent's thread-spawn hooks added,
// hosts/thread-spawn.ts) and what its transport to its parent tells of itself, for an upper layer to read
// (the job layer's doorbell, job/routes/thread-lane/doorbell.ts). Set by the thread's entry as it starts
// serving; null in a worker process, in a driver, and in a thread fray did not start.

/** The thread's transport to its parent (wire/message-port-transport.ts): messages it took, and whether it has frames queued to send. */
export interface ParentPort {
  /** Counted from the first, wrapping as an Int32 does. */
  readonly taken: number;
  readonly queued: boolean;
}

export interface ParentLink {
  readonly workerData: Readonly<Record<string, unknown>>;
  readonly port: ParentPort;
}

let own: ParentLink | null = null;

/** The thread's entry, once it has its transport to its parent. */
export function adoptParentLink(link: ParentLink): void {
  own = link;
}

export function parentLink(): ParentLink | null {
  return own;
}
