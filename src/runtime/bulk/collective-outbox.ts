// Shared memory for the pieces of mesh collectives between ranks of one host.
// A rank copies what its peers need into its outbox once; each peer copies out
// (or, between threads, reads in place) what it needs, instead of receiving it
// in socket frames. Between processes the outbox is a file in /dev/shm,
// made and opened as shm-file.ts says (made exclusively under an unguessable
// name, unlinked at once, opened by peers through /proc/<pid>/fd/<fd> and
// checked to be that file). Between worker threads of one process
// it is a SharedArrayBuffer, announced once (and again when it grows) on a
// BroadcastChannel every thread using collectives listens on (threads talk to
// each other over sockets, which would copy it); a piece then names it, and the
// peer reads it in place.
//
// Two ranks use shared memory only if they see the same /dev/shm: the host
// identity below (kernel boot id, the device and inode of /dev/shm, the pid
// namespace) differs between machines, and between hosts that are network and
// mount namespaces of one machine with a private /dev/shm (test/isolated-hosts.ts).
import { closeSync, existsSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import type { BroadcastChannel } from "node:worker_threads"; // the value is node's global (no load of node:worker_threads at start)
import { config, settingName } from "../base/config.ts";
import { readAll, writeAll } from "./buffer-store.ts";
import type { PiecePath } from "./collective-paths.ts";
import { createShmFile, openShmFile } from "./shm-file.ts";

/** What a rank tells its peers in a group's first call, to choose the path to each. */
export interface HostIdentity {
  /** Null when this rank does not use shared memory (FRAY_COLLECTIVE_SAME_HOST=socket, or no /dev/shm). */
  readonly host: string | null;
  readonly pid: number;
}

let identity: HostIdentity | undefined;

/** Whether collectives between ranks of one host use shared memory (FRAY_COLLECTIVE_SAME_HOST). */
function sharedMemoryOn(): boolean {
  const how = config.collectiveSameHost;
  if (how !== "shm" && how !== "socket")
    throw new RangeError(`${settingName("collectiveSameHost")}=${JSON.stringify(how)} is neither "shm" nor "socket"; unset it or give one of those`);
  return how === "shm";
}

export function hostIdentity(): HostIdentity {
  if (!sharedMemoryOn()) return { host: null, pid: process.pid };
  identity ??= { host: readHost(), pid: process.pid };
  return identity;
}

function readHost(): string | null {
  try {
    if (!existsSync(`/proc/${process.pid}/fd`)) return null;
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const shm = statSync("/dev/shm");
    if (!shm.isDirectory()) return null;
    return `${boot}/${shm.dev}:${shm.ino}/${readlinkSync("/proc/self/ns/pid")}`;
  } catch {
    return null; // no /dev/shm or /proc: sockets
  }
}

/** The path to a peer that said `peer`, from this rank (whose proc is not the peer's). */
export function pathTo(peer: HostIdentity): PiecePath {
  const mine = hostIdentity();
  if (mine.host === null || peer.host !== mine.host) return "socket";
  return peer.pid === process.pid ? "sharedArrayBuffer" : "sharedMemory";
}

/** Whether this process may open the outbox files of process `pid` (not so for another user's, unless root). */
export function canReadOutboxesOf(pid: number): boolean {
  try {
    readdirSync(`/proc/${pid}/fd`);
    return true;
  } catch {
    return false;
  }
}

/** Where a peer finds a piece in a /dev/shm outbox: the file (shm-file.ts), the offset and the length in bytes. */
export interface ShmRef {
  readonly f: string;
  readonly o: number;
  readonly n: number;
}

export function isShmRef(value: unknown): value is ShmRef {
  return typeof value === "object" && value !== null && typeof (value as ShmRef).f === "string";
}

/** Where a thread of this process finds a piece in another's SharedArrayBuffer outbox: its id, the offset, the length in bytes, the array type. */
export interface SabRef {
  readonly s: string;
  readonly o: number;
  readonly n: number;
  readonly t: string;
}

export function isSabRef(value: unknown): value is SabRef {
  return typeof value === "object" && value !== null && typeof (value as SabRef).s === "string";
}

/** The SharedArrayBuffer outboxes of this process's threads, by id, as announced to groups with a rank here; and the pieces waiting for one. */
const announced = new Map<string, { sab: SharedArrayBuffer; group: string }>();
const awaited = new Map<string, Array<(sab: SharedArrayBuffer) => void>>();
/** The groups with ranks on this thread, and how many. */
const groupsHere = new Map<string, number>();
let channel: BroadcastChannel | null = null;

interface Announcement {
  readonly id?: string;
  readonly sab?: SharedArrayBuffer;
  readonly group?: string;
  readonly drop?: string;
}

/**
 * A rank of this thread takes part in group `key` (before it tells its peers where it runs): other threads'
 * outboxes for the group are kept from now on, until `leaveGroup`.
 */
export function joinGroup(key: string): void {
  groupsHere.set(key, (groupsHere.get(key) ?? 0) + 1);
}

/** A rank of this thread is done with group `key` (its actor stopped): once none is left, the group's outboxes here are let go. */
export function leaveGroup(key: string): void {
  const left = (groupsHere.get(key) ?? 1) - 1;
  if (left > 0) return void groupsHere.set(key, left);
  groupsHere.delete(key);
  for (const [id, { group }] of announced) if (group === key) announced.delete(id);
}

/**
 * Hears of other threads' outboxes from now on. A rank calls it before it tells its peers where it
 * runs (a group's first call), so it is listening before any of them can announce an outbox to it.
 */
export function hearOutboxes(): BroadcastChannel {
  if (channel) return channel;
  channel = new globalThis.BroadcastChannel("fray-collective-outboxes");
  (channel as unknown as { unref(): void }).unref(); // never what keeps a thread alive
  channel.onmessage = (event) => {
    const { id, sab, group, drop } = (event as unknown as { data: Announcement }).data;
    if (drop) announced.delete(drop);
    if (!id || !sab || !group || !groupsHere.has(group)) return; // no rank here reads it
    announced.set(id, { sab, group });
    for (const wake of awaited.get(id) ?? []) wake(sab);
    awaited.delete(id);
  };
  return channel;
}

/** A typed array over the piece `ref` names, once its outbox's announcement has arrived. */
export function sabView(ref: SabRef): ArrayBufferView | Promise<ArrayBufferView> {
  const view = (sab: SharedArrayBuffer) => {
    const Ctor = (globalThis as unknown as Record<string, new (b: SharedArrayBuffer, o: number, n: number) => ArrayBufferView & { BYTES_PER_ELEMENT: number }>)[
      ref.t
    ];
    return new Ctor(sab, ref.o, ref.n / (Ctor as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT);
  };
  const sab = announced.get(ref.s)?.sab;
  if (sab) return view(sab);
  return new Promise((resolve) => {
    const list = awaited.get(ref.s) ?? [];
    list.push((got) => resolve(view(got)));
    awaited.set(ref.s, list);
  });
}

let next = 0;
/** Outbox files and SharedArrayBuffers of this thread's ranks still open. */
let open = 0;

/** How many outboxes this thread holds: its ranks' own (files and SharedArrayBuffers) and other threads' it was told of. */
export function outboxesHeld(): number {
  return open + announced.size;
}

/** One rank's outbox for one group: a /dev/shm file, a SharedArrayBuffer, or both (peers of both kinds), grown as calls need. */
export class Outbox {
  #fd = -1;
  #file = "";
  #sab: SharedArrayBuffer | null = null;
  #sabId = "";

  constructor(
    readonly file: boolean,
    readonly sab: boolean,
    /** The group's key, which announcements carry. */
    readonly group: string,
  ) {}

  /** Makes room for `bytes` (a grown SharedArrayBuffer is a new one: pieces already sent keep the old). */
  reserve(bytes: number): void {
    if (this.file && this.#fd < 0) {
      const made = createShmFile("fray-coll-");
      this.#fd = made.fd;
      this.#file = made.ref;
      open++;
    }
    if (this.sab && (this.#sab === null || this.#sab.byteLength < bytes)) {
      const drop = this.#sabId || undefined;
      if (!drop) open++;
      this.#sab = new SharedArrayBuffer(bytes);
      this.#sabId = `${process.getBuiltinModule("node:worker_threads").threadId}-${next++}`; // loaded here, not at a worker's start
      hearOutboxes().postMessage({ id: this.#sabId, sab: this.#sab, group: this.group, drop } satisfies Announcement);
    }
  }

  /** Copies `view` into the outbox at byte `offset`. */
  put(offset: number, view: ArrayBufferView): void {
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    if (this.file) writeAll(this.#fd, bytes, offset);
    if (this.sab) new Uint8Array(this.#sab!, offset, bytes.byteLength).set(bytes);
  }

  /** What a peer on `path` is sent for the `length` bytes at `offset`, as a typed array like `like`. */
  ref(path: PiecePath, offset: number, length: number, like: ArrayBufferView): ShmRef | SabRef {
    if (path === "sharedMemory") return { f: this.#file, o: offset, n: length };
    return { s: this.#sabId, o: offset, n: length, t: like.constructor.name };
  }

  /** Frees the memory (peers that still have the file open keep it until they close it). */
  close(): void {
    if (this.#fd >= 0) closeSync(this.#fd);
    if (this.#fd >= 0) open--;
    if (this.#sabId) open--;
    if (this.#sabId) hearOutboxes().postMessage({ drop: this.#sabId } satisfies Announcement);
    this.#fd = -1;
    this.#sab = null;
    this.#sabId = "";
  }
}

/** Peers' outbox files opened by one call, closed when it ends. */
export class OpenedOutboxes {
  #fds = new Map<string, number>();

  /**
   * Copies bytes `from`… of those `ref` names into `into`, which `whole` says must take all of them. Returns false
   * when the file is gone (its process died: the caller waits for the loss to be reported).
   */
  read(ref: ShmRef, from: number, into: Uint8Array, whole: boolean): boolean {
    if (whole ? ref.n !== into.byteLength : from + into.byteLength > ref.n)
      throw new RangeError(`a collective piece of ${ref.n} bytes where ${whole ? into.byteLength : `at least ${from + into.byteLength}`} were expected`);
    let fd = this.#fds.get(ref.f);
    if (fd === undefined) {
      const opened = openShmFile(ref.f, "r", "collective outbox");
      if (opened === null) {
        // Its process died (its loss, being reported, fails the call), or it freed the outbox.
        if (existsSync(ref.f.slice(0, ref.f.indexOf("/fd/"))))
          throw new Error(
            `a peer's collective piece is gone: its process freed that group's outbox (it kept those of ` +
              `FRAY_COLLECTIVE_OUTBOX_GROUPS more recently used groups); raise it`,
          );
        return false;
      }
      fd = opened;
      this.#fds.set(ref.f, fd);
    }
    readAll(fd, into, ref.o + from);
    return true;
  }

  close(): void {
    for (const fd of this.#fds.values()) closeSync(fd);
    this.#fds.clear();
  }
}
