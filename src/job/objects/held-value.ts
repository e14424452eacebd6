// A task's result that stayed in the worker that ran it (docs/design/object-store.md, slice 1): the worker keeps
// its encoded bytes as a RemoteBuffer and sends the head this HeldValue instead of the value. The head's entry
// keeps only it; a reader (a task on any worker, the driver's get) reads the bytes from the holder by the
// RemoteBuffer path — in place in its own process, through /dev/shm from another process of its host, over a
// bulk connection from another host — never through the driver unless the driver reads. The head drops the
// buffer, freeing the holder's bytes, when it forgets the entry.
import { registerHandleType } from "../../wire/codec.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { useStaging } from "../../runtime/face/buffers.ts";
import { metricsOn } from "../../runtime/face/metrics.ts";
import { SupervisionError } from "../../runtime/face/supervision.ts";
import { isUnreachable } from "../../runtime/face/network.ts";
import { pagedBuffer, RemoteBuffer } from "../../mesh/remote-buffer.ts";
import { holderName, ObjectLostError } from "../base/errors.ts";
import { heldTransfers, type TransferPath } from "../base/metrics.ts";
import { HELD_BYTES } from "./held-bytes.ts";
import { decodeHeld, layoutHeld, type HeldLayout } from "./held-encoding.ts";

export class HeldValue {
  /** @internal */
  constructor(
    /** The ref whose value it is (its id). */
    readonly refId: string,
    /** The task that made it. */
    readonly taskName: string,
    /** The worker that holds it. */
    readonly worker: number,
    readonly buffer: RemoteBuffer,
  ) {}

  /**
   * `value` encoded as a holder keeps it (held-encoding.ts; throws if the codec cannot encode it): where each part
   * goes, not yet copied anywhere.
   */
  static encode(taskName: string, value: unknown): HeldLayout {
    return layoutHeld(value, `the result of task ${taskName}`);
  }

  /**
   * Keeps `encoded` (HeldValue.encode, written straight into /dev/shm or the heap), task `taskName`'s result for ref
   * `refId`, in this process (worker `worker`), under its object store's cap (held-bytes.ts): throws, naming the ref
   * and the fix, if it cannot make room.
   */
  static hold(refId: string, taskName: string, worker: number, encoded: HeldLayout): HeldValue {
    const paged = HELD_BYTES.hold({ refId, taskName, worker }, encoded);
    return new HeldValue(refId, taskName, worker, pagedBuffer(paged));
  }

  /** The value, read from its holder; ObjectLostError if the holder is gone. */
  async read(): Promise<unknown> {
    const bytes = new Uint8Array(this.buffer.size);
    try {
      await this.buffer.readInto(bytes);
    } catch (err) {
      const ref = `ObjectRef(${this.refId})`;
      // A holder on another host is often found gone by the read's own bulk connection (a SupervisionError) before,
      // or without, this process hearing of its death: a worker that never spoke to it otherwise never does.
      // A holder whose host stopped answering (cut off the network) may live on, but its value cannot be had: lost too.
      const gone = currentProc().lostPeer(this.buffer.owner) ?? (err instanceof SupervisionError ? err : undefined);
      const holder = this.buffer.owner;
      const unreachable = isUnreachable(gone) || isUnreachable(err);
      if (gone) throw new ObjectLostError(ref, this.taskName, this.worker, gone.message, { cause: err, holder, unreachable });
      throw new Error(`${ref}, the result of task ${this.taskName} held by ${holderName(this.worker)}, could not be read: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (metricsOn) heldTransfers[this.#path()] += bytes.byteLength;
    return decodeHeld(bytes);
  }

  /** How its bytes came here (for the transfer metric, as the runtime's RemoteBuffer picks the path). */
  #path(): TransferPath {
    const { owner } = this.buffer;
    if (owner === currentProc().addr) return "same-process";
    if (owner.startsWith("tcp:")) return "tcp";
    return useStaging() ? "shm" : "socket";
  }

  /** Frees the holder's bytes (the head forgot the entry); nothing to do if the holder is gone. */
  free(): void {
    this.buffer.drop().catch(() => {}); // a holder that died meanwhile has nothing left to free
  }
}

/**
 * Reads `held` from its holder. If the holder is gone, asks `lost(held)` whether the value's task runs again (lineage,
 * ../tasks/lineage.ts), or a value made anew is there already: if so, the value is what `again()` reads anew; if not,
 * the read rejects with ObjectLostError.
 */
export async function readHeld(held: HeldValue, lost: (held: HeldValue) => boolean | Promise<boolean>, again: () => Promise<unknown>): Promise<unknown> {
  try {
    return await held.read();
  } catch (err) {
    if (!(err instanceof ObjectLostError) || !(await lost(held))) throw err;
    return again();
  }
}

/** `args` with each HeldValue among them read by `read` (the same array if there is none). */
export function readAllHeld(args: unknown[], read: (held: HeldValue) => Promise<unknown>): unknown[] | Promise<unknown[]> {
  return args.some((a) => a instanceof HeldValue) ? Promise.all(args.map((a) => (a instanceof HeldValue ? read(a) : a))) : args;
}

registerHandleType<HeldValue>({
  type: "heldValue",
  Class: HeldValue,
  toWire: (held) => [held.refId, held.taskName, held.worker, held.buffer],
  fromWire: (data) => {
    const [refId, taskName, worker, buffer] = data as [string, string, number, RemoteBuffer];
    return new HeldValue(refId, taskName, worker, buffer);
  },
});
