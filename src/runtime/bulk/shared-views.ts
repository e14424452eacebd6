// Between threads of one process, a RemoteBuffer on a SharedArrayBuffer is
// shared, not sent: the reader asks the owner once for the memory itself (a
// view on the same SharedArrayBuffer, passed by reference) and a status word
// the owner sets when it releases the buffer; from then on readInto/writeFrom
// copy straight from and to that memory, with no message, even while the
// owner's thread is busy.

/** The status word's values. */
export const LIVE = 1;
export const DROPPED = 2;
export const STOPPED = 3;

export interface SharedView {
  readonly bytes: Uint8Array;
  readonly state: Int32Array;
}

/** What a handle remembers of its owner's memory: undefined (not asked yet), null (not shareable), or the view. */
export interface ShareCache {
  view?: SharedView | null;
}

/** Copies between `bytes` and the shared memory; throws naming why if the owner released it. */
export function copyShared(view: SharedView, op: "read" | "write", bytes: Uint8Array, total: number, id: string, what: string): void {
  const state = Atomics.load(view.state, 0);
  if (state !== LIVE) {
    throw new Error(
      `${what}: RemoteBuffer ${id} ${state === DROPPED ? "was dropped" : "was released when the actor that made it stopped"}; its bytes are gone`,
    );
  }
  if (op === "read") bytes.set(view.bytes.subarray(0, total));
  else view.bytes.set(bytes);
}
