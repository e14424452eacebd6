// Buffers used again for the chunks a process reads out of paged bytes (/dev/shm, spilled) to send: a fresh buffer per
// chunk costs its pages' faults and, later, the collector's time — for a 256 MiB transfer, 256 of them. A buffer is
// taken for one chunk and given back once its reply is written; one never given back (its connection closed, or a
// way that cannot tell when it is written) is left to the collector, and the pool makes another.

/** Buffers kept for reuse: more than a transfer's chunks in flight at the default FRAY_BUFFER_INFLIGHT_BYTES. */
const KEPT = 8;

export class ChunkPool {
  #free: ArrayBuffer[] = [];
  /** The size of the buffers kept: that of the first given back while none is kept. */
  #size = 0;

  /** A buffer of `len` bytes, not zeroed (it is filled at once). */
  take(len: number): Uint8Array {
    const buffer = len === this.#size ? this.#free.pop() : undefined;
    return new Uint8Array(buffer ?? Buffer.allocUnsafeSlow(len).buffer, 0, len);
  }

  /** `chunk` (from take) is no longer read. */
  give(chunk: Uint8Array): void {
    const { buffer } = chunk;
    if (!(buffer instanceof ArrayBuffer) || chunk.byteOffset !== 0 || chunk.byteLength !== buffer.byteLength) return;
    if (buffer.byteLength !== this.#size) {
      if (this.#free.length > 0) return; // a transfer's short last chunk, or another size while this one is in use
      this.#size = buffer.byteLength;
    }
    if (this.#free.length < KEPT) this.#free.push(buffer);
  }
}
