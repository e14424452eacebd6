// The reading and writing side of RemoteBuffers. A transfer is a series of
// chunk requests to the owner's Proc, a few in flight at once
// (FRAY_BUFFER_INFLIGHT_BYTES), so control messages on the same link pass
// between chunks and no frame exceeds FRAY_MAX_FRAME_BYTES. Between processes
// of one host the bytes go through a staging file in /dev/shm instead of the
// socket (shm-staging.ts): one memory copy on each side, measured about twice
// as fast as the socket (bench/groups/data.js, D1); without /dev/shm they go
// in the frames, as they do when /dev/shm is full; to another host, by a second connection (bulk-links.ts);
// between threads, a buffer on a SharedArrayBuffer is shared (shared-views.ts).
// A buffer whose owner keeps its bytes in a /dev/shm file of their own (shm-bytes.ts:
// the job layer's held values) is read whole from that file by a process of its host.
// Losing the owner rejects the transfer; so does its host falling silent (cut off the network, its processes alive:
// nothing closes the connection), which a reader from another host watches for while it reads by pinging the owner's
// worker, bounded by FRAY_HOST_TIMEOUT_MS.
import { encode, type Encoded } from "../../wire/codec.ts";
import { BUFFERS, readAll, writeAll } from "./buffer-store.ts";
import { config, settingName, settingNow } from "../base/config.ts";
import { workerOf } from "../net/address.ts";
import { heartbeat } from "../proc/heartbeat.ts";
import { hold, release } from "../base/keep-alive.ts";
import type { Header } from "../base/messages.ts";
import { metricsOn, transferStats } from "../base/counters.ts";
import type { Proc } from "../proc/proc.ts";
import { copyShared, type ShareCache } from "./shared-views.ts";
import { readShmBytes } from "./shm-bytes.ts";
import { returnStaging, takeStaging, useStaging, type Staging } from "./shm-staging.ts";
import { SupervisionError, UnreachableError } from "../base/errors.ts";
import { BULK_LINKS } from "./bulk-links.ts";

/** Where a buffer's bytes live: its owner's proc, its id there, its size, and the owner's OS process. */
export interface BufferAddress {
  readonly owner: string;
  readonly id: string;
  readonly size: number;
  readonly pid: number;
  /** Its owner keeps its bytes in a /dev/shm file (PagedBytes.file) when it is made: a process of its host asks for it first. */
  readonly inFile?: boolean;
}

/**
 * Whether processes of this host and the proc at `addr` move bytes through /dev/shm (staging files, the files buffers
 * are kept in): only a proc on a Unix socket (one on TCP is read over TCP by every process), and only while same-host
 * transfers use /dev/shm.
 */
export function sharesShm(addr: string): boolean {
  return addr.startsWith("unix:") && useStaging();
}

function sameHostProcess(proc: Proc, buf: BufferAddress): boolean {
  return buf.pid !== process.pid && sharesShm(buf.owner) && sharesShm(proc.addr);
}

/**
 * Reads the buffer into `bytes` (op "read") or writes `bytes` into it from
 * its start ("write"); `what` names the operation in errors.
 */
export function transfer(
  proc: Proc,
  buf: BufferAddress,
  op: "read" | "write",
  bytes: Uint8Array,
  timeoutMs: number,
  bound: string,
  what: string,
  cache: ShareCache = {},
): Promise<void> {
  const total = op === "read" ? buf.size : bytes.byteLength;
  if (buf.owner === proc.addr) {
    try {
      if (op === "read") proc.get(BUFFERS).read(buf.id, 0, bytes.subarray(0, total));
      else proc.get(BUFFERS).bytes(buf.id).set(bytes);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(new Error(`${what}: ${(err as Error).message}`, { cause: err }));
    }
  }
  const dead = proc.lostPeer(buf.owner);
  if (total === 0 && !dead) return Promise.resolve(); // an empty src: nothing to move
  if (dead) return Promise.reject(ownerLost(buf, what, dead));
  if (buf.pid === process.pid && cache.view !== null) {
    // Another thread of this process: share its memory if it is a SharedArrayBuffer.
    if (cache.view === undefined) {
      return askOwner(proc, buf, { share: true }, timeoutMs, bound, what).then((value) => {
        const shared = value as [Uint8Array, Int32Array] | null;
        cache.view = shared && { bytes: shared[0], state: shared[1] };
        return transfer(proc, buf, op, bytes, timeoutMs, bound, what, cache);
      });
    }
    try {
      copyShared(cache.view, op, bytes, total, buf.id, what);
      if (metricsOn) transferStats[op] += total; // another thread's shared memory: copied, not sent
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }
  if (op === "read" && buf.inFile && sameHostProcess(proc, buf)) return viaFile(proc, buf, bytes, total, timeoutMs, bound, what);
  return chunked(proc, buf, op, bytes, total, timeoutMs, bound, what, true);
}

/** A read from a process of this host: the whole file its bytes are kept in (shm-bytes.ts) if they are, else in chunks. */
async function viaFile(proc: Proc, buf: BufferAddress, bytes: Uint8Array, total: number, timeoutMs: number, bound: string, what: string): Promise<void> {
  const start = Date.now();
  const ref = (await askOwner(proc, buf, { file: true }, timeoutMs, bound, what)) as string | null;
  if (ref !== null && (await readShmBytes(ref, bytes.subarray(0, total)).catch(() => false))) {
    if (metricsOn) transferStats.read += total;
    return;
  }
  // In memory, or gone from its file meanwhile (spilled, released): the chunks say which, within one timeout for both.
  return chunked(proc, buf, "read", bytes, total, Math.max(1, timeoutMs - (Date.now() - start)), bound, what, true);
}

/**
 * The transfer in chunks, through a staging file when `viaShm` and the owner is a process of this host; a /dev/shm
 * too full for the staging file's pages (ENOSPC, on either side) has the transfer made again in frames.
 */
function chunked(
  proc: Proc,
  buf: BufferAddress,
  op: "read" | "write",
  bytes: Uint8Array,
  total: number,
  timeoutMs: number,
  bound: string,
  what: string,
  viaShm: boolean,
): Promise<void> {
  if (!(config.bufferChunkBytes >= 1))
    return Promise.reject(
      new RangeError(
        `${settingNow("bufferChunkBytes")}: a RemoteBuffer chunk must be at least 1 byte; unset it or give e.g. ${settingName("bufferChunkBytes")}=1048576`,
      ),
    );
  return new Promise<void>((resolve, reject) => {
    const chunk = Math.max(1, Math.min(config.bufferChunkBytes, config.maxFrameBytes - 4096));
    const window = Math.max(1, Math.floor(config.bufferInflightBytes / chunk));
    let staging: Staging | undefined;
    try {
      staging = viaShm && sameHostProcess(proc, buf) ? takeStaging() : undefined;
    } catch (err) {
      return reject(err);
    }
    const shm = staging?.path;
    const fd = staging?.fd ?? -1;
    const pending: Array<[off: number, len: number]> = [];
    let next = 0;
    let done = 0;
    let finished = false;
    let send = (header: Header, payload?: Encoded) => proc.send(buf.owner, header, payload);
    let stopBulk = () => {};
    const finish = (error?: Error) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      proc.closePort(port);
      stopWatching();
      stopHostWatch();
      stopBulk();
      release();
      if (staging) returnStaging(staging, !error);
      if (error && staging && noSpace(error)) resolve(chunked(proc, buf, op, bytes, total, timeoutMs, bound, what, false));
      else if (error) reject(error);
      else resolve();
    };
    const timedOut = () => new Error(`${what} did not finish within ${bound}: ${done} of ${total} bytes moved${unreached(proc, buf)}`);
    const timer = setTimeout(() => finish(timedOut()), timeoutMs);
    const stopWatching = proc.onPeerLost((addr, error) => {
      if (addr === buf.owner) finish(ownerLost(buf, what, error));
    });
    const stopHostWatch = watchOwnerHost(proc, buf, what, finish);
    hold();
    const port = proc.openPort((_rank, ok, value) => {
      if (finished) return;
      const [off, len] = pending.shift()!;
      if (!ok) return finish(new Error(`${what}: ${(value as Error).message}`, { cause: value }));
      try {
        if (op === "read") {
          const part = bytes.subarray(off, off + len);
          if (shm !== undefined) readAll(fd, part, off);
          else if (!landedIn(value as Uint8Array, part)) part.set(value as Uint8Array);
        }
      } catch (err) {
        return finish(err as Error);
      }
      done += len;
      if (metricsOn) transferStats[op] += len;
      if (done === total) finish();
      else pump();
    });
    const pump = () => {
      try {
        while (pending.length < window && next < total) {
          const [off, len] = [next, Math.min(chunk, total - next)];
          next += len;
          pending.push([off, len]);
          const reply = { addr: proc.addr, id: port };
          const part = bytes.subarray(off, off + len);
          if (op === "read") send({ kind: "buf.read", id: buf.id, offset: off, length: len, stagingFile: shm, reply });
          else if (shm !== undefined) {
            writeAll(fd, part, off);
            send({ kind: "buf.write", id: buf.id, offset: off, length: len, stagingFile: shm, reply });
          } else send({ kind: "buf.write", id: buf.id, offset: off, length: len, reply }, encode(part));
        }
      } catch (err) {
        finish(err as Error);
      }
    };
    if (!buf.owner.startsWith("tcp:")) return pump();
    // Another host: chunks go by the bulk connection, not the main link.
    proc
      .get(BULK_LINKS)
      .get(buf.owner)
      .then(
        (link) => {
          if (finished) return;
          send = link.send;
          const stopClose = link.onClose((error) => finish(ownerLost(buf, what, error))); // often before the main link reports the loss
          // A chunk read lands in its place in `bytes` straight from the socket (the reply's one copy).
          const inPlace = (length: number) => (pending[0]?.[1] === length ? bytes.subarray(pending[0][0], pending[0][0] + length) : null);
          const stopLanding = op === "read" ? link.land(port, inPlace) : () => {};
          stopBulk = () => (stopClose(), stopLanding());
          pump();
        },
        (err: Error) => {
          const cause = noRoute(err) ? new UnreachableError(err.message, { cause: err }) : err;
          finish(new SupervisionError(`${what}: cannot reach the process owning RemoteBuffer ${buf.id} (${buf.owner}): ${err.message}`, { cause }));
        },
      );
  });
}

/** Whether chunk `value` was received in place, as `part` itself (bulk-links.ts, land). */
function landedIn(value: Uint8Array, part: Uint8Array): boolean {
  return value.buffer === part.buffer && value.byteOffset === part.byteOffset && value.byteLength === part.byteLength;
}

type OwnerAsk = { share: true } | { file: true };

/**
 * Asks the owner for its buffer's shared view (`share`: a thread of this process; null when it is not on a
 * SharedArrayBuffer) or the ref of the file its bytes are kept in (`file`: a process of this host; null if none).
 */
function askOwner(proc: Proc, buf: BufferAddress, ask: OwnerAsk, timeoutMs: number, bound: string, what: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let finished = false;
    const finish = (error: Error | null, value: unknown = null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      proc.closePort(port);
      stopWatching();
      release();
      if (error) reject(error);
      else resolve(value);
    };
    // An owner that never answers where its file is leaves a read as its chunks would.
    const silent = "share" in ask ? "its owner did not answer" : `0 of ${buf.size} bytes moved`;
    const timer = setTimeout(() => finish(new Error(`${what} did not finish within ${bound}: ${silent}${unreached(proc, buf)}`)), timeoutMs);
    const stopWatching = proc.onPeerLost((addr, error) => {
      if (addr === buf.owner) finish(ownerLost(buf, what, error));
    });
    hold();
    const port = proc.openPort((_rank, ok, value) => {
      if (!ok) return finish(new Error(`${what}: ${(value as Error).message}`, { cause: value }));
      finish(null, value);
    });
    proc.send(buf.owner, { kind: "buf.read", id: buf.id, offset: 0, length: 0, ...ask, reply: { addr: proc.addr, id: port } });
  });
}

/** What a transfer that timed out adds when its owner was never reached: the error of the dial, which is still retrying. */
function unreached(proc: Proc, buf: BufferAddress): string {
  const error = proc.dialError(buf.owner) ?? (buf.owner.startsWith("tcp:") ? proc.get(BULK_LINKS).dialError(buf.owner) : undefined);
  return error ? `; the process owning it, ${buf.owner}, has not been reached: ${error.message}` : "";
}

/**
 * While a transfer from a process behind a worker on another host runs, pings that worker (the host's agent, idle
 * while the owner's event loop may be busy): if it does not answer for FRAY_HOST_TIMEOUT_MS, `finish` is called with
 * why. Returns the stop.
 */
function watchOwnerHost(proc: Proc, buf: BufferAddress, what: string, finish: (error: Error) => void): () => void {
  const agent = workerOf(buf.owner);
  if (agent === null) return () => {};
  const silent = (silentMs: number) => {
    const cause = new UnreachableError(`its host's worker ${agent} did not answer for ${silentMs} ms (${settingNow("hostTimeoutMs")})`);
    const where = `the host of the process owning RemoteBuffer ${buf.id} (${buf.owner})`;
    finish(new SupervisionError(`${what}: ${where} could not be reached: ${cause.message}`, { cause }));
  };
  return heartbeat(proc, agent, Promise.resolve(), silent, () => config.hostTimeoutMs);
}

/** Whether a dial failed because the network has no route to the host (not because its process refused). */
function noRoute(error: Error): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) if (/\b(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ETIMEDOUT)\b/.test(e.message)) return true;
  return false;
}

function ownerLost(buf: BufferAddress, what: string, cause: Error): SupervisionError {
  return new SupervisionError(`${what}: the process owning RemoteBuffer ${buf.id} (${buf.owner}) is gone: ${cause.message}`, { cause });
}

/** Whether `error` (or its cause, the owner's) is a write to a full /dev/shm. */
function noSpace(error: Error): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) if ((e as NodeJS.ErrnoException).code === "ENOSPC" || /\bENOSPC\b/.test(e.message)) return true;
  return false;
}
