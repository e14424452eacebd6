// runtime/bulk: bytes that bypass mailboxes: RemoteBuffers (this file, buffer-transfer.ts),
// their second TCP connections (bulk-links.ts), shared memory between threads (shared-views.ts)
// and processes (shm-staging.ts), distributed-array shards (shard-store.ts) and the pieces of
// collectives (collective-inbox.ts). Uses net/ to dial, proc/ to send, supervision/ for deaths.
//
// The owning side of RemoteBuffers: the bytes this process's buffers stand
// for, and the Proc's answers to peers reading and writing them. Requests are
// served by the Proc as they arrive, not through the owning actor's mailbox,
// so a busy actor does not delay a transfer. Each request moves one chunk,
// either in the reply frame or, between processes of one host, through the
// reader's staging file (shm-staging.ts), which the owner copies to or from. Bytes the owner keeps in a
// /dev/shm file of their own (shm-bytes.ts) are read whole from it by such a reader instead.
import { closeSync, readSync, writeSync } from "node:fs";
import { decode } from "../../wire/codec.ts";
import type { Frame } from "../../wire/frame.ts";
import type { Transport } from "../../wire/transport.ts";
import type { BufferDrop, BufferRead, BufferWrite, HeaderSender, PortRef } from "../base/messages.ts";
import type { PortSender } from "../ports/port.ts";
import type { Router } from "../proc/routes.ts";
import { SubsystemKey } from "../proc/subsystems.ts";
import { DROPPED, LIVE, STOPPED } from "./shared-views.ts";
import { openStaging } from "./shm-staging.ts";
import { ChunkPool } from "./chunk-pool.ts";

/**
 * Bytes their owner keeps where it likes (the job layer keeps the values it holds in /dev/shm, and spills them to
 * disk past a cap), read-only: each access reads the range it needs, never the whole value for one chunk.
 */
export interface PagedBytes {
  readonly byteLength: number;
  /** Fills `dst` with its bytes from `offset` (restored if need be, or throws saying why it cannot). */
  read(offset: number, dst: Uint8Array): void;
  /** Its bytes from `offset` as they are in this process's memory (sent with no copy; never written), or null if they are not there. */
  view(offset: number, length: number): Uint8Array | null;
  /** The ref of the /dev/shm file holding all of them (shm-bytes.ts), for a process of this host to read whole; null if there is none. */
  file(): string | null;
  released(): void;
}

interface Owned {
  readonly bytes: Uint8Array | PagedBytes;
  /** The actor that created it (released when that actor stops), or null: the process. */
  readonly actor: string | null;
  /** The status word of a buffer shared with other threads (shared-views.ts). */
  state?: Int32Array;
}

/** Answers a request; `sent`, if the reply's way can tell, is called once the value's memory is no longer read. */
type Reply = (ref: PortRef, value: unknown, isError: boolean, sent?: () => void) => void;

/** How many released buffers' reasons are remembered for late readers (older ones are "not known"). */
const REMEMBERED = 4096;

/** Buffers that paged bytes' chunks are read into, to send; used again once sent (warm memory, no garbage). */
const CHUNKS = new ChunkPool();

export const BUFFERS = new SubsystemKey<BufferStore>("RemoteBuffer store");

/**
 * Serves peers' "buf.read", "buf.write" and "buf.drop" requests from `store`, answering on the
 * bulk connection they came by (`replyOn`, bulk-links.ts) or else through the Proc's ports.
 */
export function serveBuffers(proc: Router & PortSender, store: BufferStore, replyOn: (bulk: Transport) => Reply): void {
  const serve = (header: BufferRead | BufferWrite | BufferDrop, frame: Frame, _peer: string, bulk?: Transport) =>
    store.serve(header, frame, bulk ? replyOn(bulk) : (ref, value, isError) => proc.sendToPort(ref, 0, value, isError));
  proc.route("buf.read", serve);
  proc.route("buf.write", serve);
  proc.route("buf.drop", serve);
}

/** Asks `owner` to release its RemoteBuffer `id`; it answers null on `reply`. */
export function dropBuffer(proc: HeaderSender, owner: string, id: string, reply: PortRef): void {
  proc.send(owner, { kind: "buf.drop", id, reply });
}

export class BufferStore {
  #owned = new Map<string, Owned>();
  /** Why a buffer is gone, so a late reader learns whether it was dropped or its actor stopped. */
  #released = new Map<string, string>();

  add(id: string, bytes: Uint8Array | PagedBytes, actor: string | null): void {
    this.#owned.set(id, { bytes, actor });
  }

  /** The bytes of buffer `id`, to read or write in place; throws naming why when it is gone or is read-only (paged). */
  bytes(id: string): Uint8Array {
    const bytes = this.#entry(id).bytes;
    if (bytes instanceof Uint8Array) return bytes;
    throw new Error(`RemoteBuffer ${id} is read-only: its owner keeps a value there (an object store's), not a view it made`);
  }

  /** Fills `dst` with buffer `id`'s bytes from `offset`; throws naming why when it is gone. */
  read(id: string, offset: number, dst: Uint8Array): void {
    const bytes = this.#entry(id).bytes;
    if (bytes instanceof Uint8Array) dst.set(bytes.subarray(offset, offset + dst.byteLength));
    else bytes.read(offset, dst);
  }

  #entry(id: string): Owned {
    const owned = this.#owned.get(id);
    if (owned) return owned;
    const why = this.#released.get(id);
    throw new Error(
      why
        ? `RemoteBuffer ${id} ${why}; its bytes are gone`
        : `RemoteBuffer ${id} is not known to its owner's process (dropped, or released when the actor that made it stopped)`,
    );
  }

  release(id: string, why: string): void {
    const owned = this.#owned.get(id);
    if (!owned) return;
    this.#owned.delete(id);
    if (!(owned.bytes instanceof Uint8Array)) owned.bytes.released();
    if (owned.state) Atomics.store(owned.state, 0, why === "was dropped" ? DROPPED : STOPPED); // threads sharing it see it at once
    this.#released.set(id, why);
    if (this.#released.size > REMEMBERED) this.#released.delete(this.#released.keys().next().value!);
  }

  /** Releases every buffer actor `actor` created: an actor's buffers do not outlive it. */
  releaseOwnedBy(actor: string): void {
    for (const [id, owned] of this.#owned) if (owned.actor === actor) this.release(id, `was released when its owner actor ${actor} stopped`);
  }

  get size(): number {
    return this.#owned.size;
  }

  /** The view and status word a thread of this process reads and writes directly, or null when the bytes are not shared memory. */
  #share(owned: Owned): [Uint8Array, Int32Array] | null {
    const { bytes } = owned;
    if (!(bytes instanceof Uint8Array) || !(bytes.buffer instanceof SharedArrayBuffer)) return null;
    if (!owned.state) Atomics.store((owned.state = new Int32Array(new SharedArrayBuffer(4))), 0, LIVE);
    return [bytes, owned.state];
  }

  /** Answers a peer's request on its reply port. */
  serve(header: BufferRead | BufferWrite | BufferDrop, frame: Frame, reply: Reply): void {
    try {
      if (header.kind === "buf.drop") {
        this.release(header.id, "was dropped");
        return reply(header.reply, null, false);
      }
      const owned = this.#entry(header.id);
      if (header.kind === "buf.read" && header.share) return reply(header.reply, this.#share(owned), false);
      if (header.kind === "buf.read" && header.file) return reply(header.reply, owned.bytes instanceof Uint8Array ? null : owned.bytes.file(), false);
      const { offset: off, length: len } = header;
      if (!(off >= 0 && len >= 0 && off + len <= owned.bytes.byteLength))
        throw new RangeError(`bytes ${off}..${off + len} are outside RemoteBuffer ${header.id} of ${owned.bytes.byteLength} bytes`);
      if (header.kind === "buf.read") {
        const { bytes } = owned;
        if (bytes instanceof Uint8Array) {
          const chunk = bytes.subarray(off, off + len);
          if (header.stagingFile === undefined) return reply(header.reply, chunk, false);
          withShm(header.stagingFile, (fd) => writeAll(fd, chunk, off));
          return reply(header.reply, null, false);
        }
        const view = bytes.view(off, len);
        if (view !== null && header.stagingFile === undefined) return reply(header.reply, view, false);
        // Paged bytes are read into a buffer of the pool, which the reply gives back once written (if its way can tell).
        const chunk = CHUNKS.take(len);
        bytes.read(off, chunk);
        if (header.stagingFile === undefined) return reply(header.reply, chunk, false, () => CHUNKS.give(chunk));
        withShm(header.stagingFile, (fd) => writeAll(fd, chunk, off));
        CHUNKS.give(chunk);
        return reply(header.reply, null, false);
      }
      const chunk = this.bytes(header.id).subarray(off, off + len);
      if (header.stagingFile === undefined) {
        const data = decode(frame.payload, frame.attachments) as Uint8Array;
        if (data.byteLength !== len) throw new RangeError(`a write of ${data.byteLength} bytes announced as ${len}`);
        chunk.set(data);
      } else withShm(header.stagingFile, (fd) => readAll(fd, chunk, off));
      reply(header.reply, null, false);
    } catch (err) {
      reply(header.reply, err, true);
    }
  }
}

function withShm(path: string, use: (fd: number) => void): void {
  const fd = openStaging(path);
  try {
    use(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes all of `bytes` at `position` (a write may be short). */
export function writeAll(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.byteLength;) done += writeSync(fd, bytes, done, bytes.byteLength - done, position + done);
}

/** Fills `bytes` from `position`; a file that ends early is an error naming it as `file`. */
export function readAll(fd: number, bytes: Uint8Array, position: number, file = "shared-memory file"): void {
  for (let done = 0; done < bytes.byteLength;) {
    const n = readSync(fd, bytes, done, bytes.byteLength - done, position + done);
    if (n === 0) throw new Error(`${file} ended at byte ${position + done}, ${bytes.byteLength - done} bytes short`);
    done += n;
  }
}
