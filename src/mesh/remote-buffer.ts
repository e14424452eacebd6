// RemoteBuffer (Monarch's RDMABuffer): a handle to bytes that stay with their
// owner. Sending one sends the handle, never the bytes; whoever holds it
// moves bytes with `readInto`/`writeFrom`, served by the owner's process
// outside its actors' mailboxes (runtime/bulk/buffer-store.ts, buffer-transfer.ts).
import { registerHandleType } from "../wire/codec.ts";
import { BUFFERS, dropBuffer, transfer, type BufferAddress, type PagedBytes, type ShareCache } from "../runtime/face/buffers.ts";
import { currentProc, messageContext } from "../runtime/face/procs.ts";
import { optionOrSetting } from "./settings.ts";
import { openChannel } from "../runtime/face/actors.ts";

export interface TransferOptions {
  /** Seconds the transfer may take (Monarch's `timeout`); default FRAY_BUFFER_TIMEOUT_MS. */
  readonly timeout?: number;
}

/** A buffer revived from the wire (module-private: users construct over a view). */
class Revived {
  constructor(readonly address: BufferAddress) {}
}

function bytesOf(view: unknown, what: string): Uint8Array {
  if (view instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && view instanceof SharedArrayBuffer)) return new Uint8Array(view);
  if (ArrayBuffer.isView(view)) return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  throw new TypeError(`${what} must be a typed array, DataView, ArrayBuffer or SharedArrayBuffer, not ${view === null ? "null" : typeof view}`);
}

export class RemoteBuffer {
  readonly #address: BufferAddress;
  #dropped = false;
  /** The owner's shared memory, once a thread of its process asked (shared-views.ts). */
  readonly #share: ShareCache = {};

  /**
   * Makes `view`'s bytes readable and writable by whoever is sent this
   * handle. They are not copied: the owner's later writes are what readers
   * see. Created in an actor, the buffer is released when that actor stops.
   */
  constructor(view: ArrayBufferView | ArrayBuffer | SharedArrayBuffer) {
    if (view instanceof Revived) {
      this.#address = view.address;
      return;
    }
    const bytes = bytesOf(view, "new RemoteBuffer(view): view");
    if (bytes.byteLength === 0) throw new RangeError("new RemoteBuffer(view): the view is empty (0 bytes); a RemoteBuffer stands for at least one byte");
    const proc = currentProc();
    const id = proc.nextId();
    proc.get(BUFFERS).add(id, bytes, messageContext.getStore()?.actor.actorId ?? null);
    this.#address = { owner: proc.addr, id, size: bytes.byteLength, pid: process.pid };
  }

  /** Size in bytes. */
  get size(): number {
    return this.#address.size;
  }

  /** The address of the process that holds the bytes. */
  get owner(): string {
    return this.#address.owner;
  }

  /** Copies the buffer's bytes into the start of `dst`, which must have room for `size` bytes. */
  readInto(dst: ArrayBufferView | ArrayBuffer | SharedArrayBuffer, options: TransferOptions = {}): Promise<void> {
    return this.#move("read", dst, options);
  }

  /** Copies `src` into the start of the buffer; `src` may not be larger than `size` bytes. */
  writeFrom(src: ArrayBufferView | ArrayBuffer | SharedArrayBuffer, options: TransferOptions = {}): Promise<void> {
    return this.#move("write", src, options);
  }

  /** Releases the owner's reference; later transfers by anyone fail. */
  async drop(): Promise<void> {
    if (this.#dropped) return;
    this.#dropped = true;
    const proc = currentProc();
    const { owner, id } = this.#address;
    if (owner === proc.addr) return proc.get(BUFFERS).release(id, "was dropped");
    if (proc.lostPeer(owner)) return; // nothing left to release
    const [port, receiver] = openChannel<null>(proc);
    // An owner that ends before it answers (its process stopping as a late drop arrives) has nothing left to release.
    const stopWatching = proc.onPeerLost((addr) => addr === owner && receiver.close());
    try {
      dropBuffer(proc, owner, id, port.ref!);
      await receiver.recv().catch((err: unknown) => {
        if (!proc.lostPeer(owner)) throw err;
      });
    } finally {
      stopWatching();
      receiver.close();
    }
  }

  /** Several reads and writes submitted together, with one completion (Monarch's RDMAAction). */
  static batch(): BufferBatch {
    return new BufferBatch();
  }

  static {
    registerHandleType<RemoteBuffer>({
      type: "remoteBuffer",
      Class: RemoteBuffer,
      toWire: (b) => {
        const { owner, id, size, pid, inFile } = b.#address;
        return inFile ? [owner, id, size, pid, 1] : [owner, id, size, pid];
      },
      fromWire: (d) => {
        const [owner, id, size, pid, inFile] = d as [string, string, number, number, 1?];
        return new RemoteBuffer(new Revived({ owner, id, size, pid, ...(inFile && { inFile: true }) }) as unknown as ArrayBuffer);
      },
    });
  }

  #move(op: "read" | "write", view: unknown, options: TransferOptions): Promise<void> {
    const what = `${op === "read" ? "readInto" : "writeFrom"} of RemoteBuffer ${this.#address.id} (${this.size} bytes)`;
    try {
      const bytes = bytesOf(view, `${what}: ${op === "read" ? "dst" : "src"}`);
      if (op === "read" && bytes.byteLength < this.size)
        throw new RangeError(`${what}: dst has ${bytes.byteLength} bytes, too small; give a destination of at least ${this.size} bytes`);
      if (op === "write" && bytes.byteLength > this.size)
        throw new RangeError(`${what}: src has ${bytes.byteLength} bytes, more than the buffer holds; write at most ${this.size} bytes`);
      if (this.#dropped) throw new Error(`${what}: this handle was dropped; its bytes are gone`);
      const seconds = options.timeout;
      if (seconds !== undefined && !(seconds > 0)) throw new RangeError(`${what}: timeout must be a positive number of seconds, not ${seconds}`);
      const { ms, bound } =
        seconds === undefined ? optionOrSetting("timeout", undefined, "bufferTimeoutMs") : { ms: seconds * 1000, bound: `the timeout option (${seconds} s)` };
      return transfer(currentProc(), this.#address, op, bytes, ms, bound, what, this.#share);
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

/**
 * A read-only RemoteBuffer over bytes this process keeps where it likes (in /dev/shm, spilled: `paged` reads them on
 * each access), for the job layer's held values; not part of `fray/mesh`. Released with the actor it is made in, as one made over a view is.
 */
export function pagedBuffer(paged: PagedBytes): RemoteBuffer {
  if (paged.byteLength === 0) throw new RangeError("pagedBuffer: the bytes are empty (0 bytes); a RemoteBuffer stands for at least one byte");
  const proc = currentProc();
  const id = proc.nextId();
  proc.get(BUFFERS).add(id, paged, messageContext.getStore()?.actor.actorId ?? null);
  // Only one whose bytes are in a file now has its readers of this host ask for it (a round trip): a smaller value,
  // or one /dev/shm could not take, is read in chunks at once. One that goes to a file later is read in chunks too.
  const inFile = paged.file() !== null;
  return new RemoteBuffer(
    new Revived({ owner: proc.addr, id, size: paged.byteLength, pid: process.pid, ...(inFile && { inFile: true }) }) as unknown as ArrayBuffer,
  );
}

/** Reads and writes of several RemoteBuffers, started together by `submit()`. */
export class BufferBatch {
  #ops: Array<(options: TransferOptions) => Promise<void>> = [];

  read(buffer: RemoteBuffer, dst: ArrayBufferView | ArrayBuffer | SharedArrayBuffer): this {
    this.#ops.push((options) => buffer.readInto(dst, options));
    return this;
  }

  write(buffer: RemoteBuffer, src: ArrayBufferView | ArrayBuffer | SharedArrayBuffer): this {
    this.#ops.push((options) => buffer.writeFrom(src, options));
    return this;
  }

  /** Starts every operation; resolves when all are done, or rejects with the first failure. */
  async submit(options: TransferOptions = {}): Promise<void> {
    await Promise.all(this.#ops.map((op) => op(options)));
  }
}
