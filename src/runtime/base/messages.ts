// The runtime's message headers. Each frame carries one header; arguments and
// values travel in the frame's payload, encoded once even when fanned out.
// Code reads full field names; on the wire they are short (header-codec.ts).
import type { Encoded } from "../../wire/codec.ts";
import type { ProcPlace } from "./device-env.ts";

/** A port: where replies and channel values go. */
export interface PortRef {
  readonly addr: string;
  readonly id: number;
}

/** The extent a message was sent over, as labels and sizes. */
export type RawExtent = readonly [labels: readonly string[], sizes: readonly number[]];

/** First frame on every connection: who is speaking, and the TCP port it listens on (if any). */
export interface Hello {
  readonly kind: "hello";
  readonly addr: string;
  readonly pid: number;
  readonly port?: number;
  /** A bulk connection (bulk-links.ts): it carries RemoteBuffer chunks, and is not the link. */
  readonly bulk?: true;
  /** The sender's name for its link to the receiver (net/session.ts): what a connection made again resumes. */
  readonly session?: string;
  /** A connection made again after one dropped: the receiver sends again what the sender did not receive. */
  readonly resume?: true;
  /** When resuming: the receiver's name for its end of the link, as the sender learned it. */
  readonly peerSession?: string;
  /** When resuming, and in the answer: how many frames the sender received from the receiver's link. */
  readonly received?: number;
  /** The answer to a resume: whether the link was still known (false: the peer took the sender for lost, or restarted). */
  readonly resumed?: boolean;
}

/** How many frames of the receiver's link the sender has received so far, over a network connection (net/session.ts). */
export interface Ack {
  readonly kind: "ack";
  readonly received: number;
}

/** Create an actor. Payload: constructor arguments. Replies on `reply` once constructed. */
export interface Spawn {
  readonly kind: "spawn";
  readonly actor: string;
  readonly name: string;
  readonly url: string;
  /** The class's export name in the module at `url`. */
  readonly exportName: string;
  readonly rank: number;
  readonly extent: RawExtent;
  /** The owning proc, and the owning actor there (null: the process itself, a client). */
  readonly owner: string;
  readonly ownerActor: string | null;
  readonly reply: PortRef;
  /** How many of its messages may run at once (absent: 1). */
  readonly maxConcurrency?: number;
  /** The tag of its output lines: its proc's place in the ProcMesh (log-origin.ts). */
  readonly origin?: string;
  /** What its spawner tells the actor about itself (plain data; the job layer's actor context, job/actors/current-actor.ts). */
  readonly meta?: unknown;
}

/** What a call says the same to every process it goes to. */
export interface CallFields {
  readonly mesh: string;
  /** The endpoint (method) to call. */
  readonly endpoint: string;
  readonly extent: RawExtent;
  readonly reply?: PortRef;
  /** The members the message's ranks are, when it went to a slice (not all members in order): for collectives. */
  readonly selection?: readonly number[];
  /** How many times the mesh's members moved (respawns), as the sender knows it: collectives regroup when it changes. */
  readonly version?: number;
}

/**
 * Call an endpoint on the actors `${mesh}.${members[i]}` of one process, in
 * that order. Payload: arguments. `ranks[i]` is each receiver's rank within `extent`.
 */
export interface Call extends CallFields {
  readonly kind: "msg";
  readonly members: readonly number[];
  readonly ranks: readonly number[];
  /**
   * Its number among the sender's calls to this process, once the sender has
   * cast to it through relays (call-order.ts): the receiver runs calls in
   * that order whichever way they came. Absent: the link's order is the order.
   */
  readonly seq?: number;
}

/** One process's part of a cast: its members and their ranks. */
export type CastPart = readonly [addr: string, members: readonly number[], ranks: readonly number[]];

/**
 * A call cast down a tree (call-sender.ts): the receiver runs the first part
 * of `tree` (its own) and forwards the rest, split into at most FRAY_CAST_FANOUT
 * runs, each to its first process. Payload: arguments, forwarded as they came.
 */
export interface Cast extends CallFields {
  readonly kind: "cast";
  /** The process that made the call. */
  readonly caller: string;
  /** The run's parts (CastPart[]), encoded once per tree (cast-plan.ts). */
  readonly tree: Uint8Array;
  /** The call's number at each part, run-length encoded: [q, count, q, count, …]. */
  readonly seqs: readonly number[];
  /** The run's id in its origin's tree, under which relays remember `tree` decoded and split; absent: a one-off. */
  readonly treeId?: string;
}

/** To a cast's origin: every numbered call from it up to `seq` has run here (it may forget them). */
export interface CastAck {
  readonly kind: "cast-ack";
  readonly seq: number;
}

/** To a cast's origin, from a relay: the process at `addr` that it forwarded to cannot be reached. */
export interface CastLost {
  readonly kind: "cast-lost";
  readonly addr: string;
  readonly why: string;
}

/** A value (or, with `err`, an error) sent to a port. Payload: the value. */
export interface PortMessage {
  readonly kind: "port";
  readonly id: number;
  readonly rank: number;
  readonly isError?: true;
}

/** Several values for one port, coalesced. Payload: an array of the values; `errors[i]` marks errors. */
export interface PortMessages {
  readonly kind: "ports";
  readonly id: number;
  readonly ranks: readonly number[];
  readonly errors: readonly number[];
}

/** Actor `${mesh}.${member}` failed. Sent to the mesh's owner. Payload: the cause. */
export interface Fault {
  readonly kind: "fault";
  readonly mesh: string;
  readonly member: number;
}

/**
 * Stop the actors `${mesh}.${members[i]}` after the messages already queued for
 * them; each answers on `reply` with its member index as rank.
 */
export interface Stop {
  readonly kind: "stop";
  readonly mesh: string;
  readonly members: readonly number[];
  readonly reply: PortRef;
  /** Once the sender's first `after` calls here ran: they may still be on their way through relays (call-order.ts). */
  readonly after?: number;
}

/** Heartbeat: answer on `reply` if alive. */
export interface Ping {
  readonly kind: "ping";
  readonly reply: PortRef;
}

/**
 * Ask the worker that started the proc at `addr` (`tcp://host:workerPort/name`)
 * which TCP port it listens on; the answer on `reply` is the port or an Error.
 */
export interface Where {
  readonly kind: "where";
  readonly addr: string;
  readonly reply: PortRef;
}

/**
 * Ask a worker's host agent to start procs named `addrs` (each
 * `tcp://host:workerPort/name`; they listen on ports the OS picks) for the
 * client at `client`; each answers on `reply` (rank = index) once up. The
 * procs are stopped when the client goes away.
 */
export interface StartProcs {
  readonly kind: "procs";
  readonly addrs: readonly string[];
  /** Where each proc is in its mesh, for its rank environment. */
  readonly places?: readonly ProcPlace[];
  readonly client: string;
  readonly reply: PortRef;
  /** Stream the procs' output to the client (FRAY_LOG_STREAM): each proc's tag. Absent: they write to the worker's terminal. */
  readonly logs?: readonly string[];
  /** The client runs TypeScript: the procs must load it too (typescript-loader.ts). */
  readonly typescript?: boolean;
}

/** A piece of a mesh collective for the rank named in `tag` (collective-inbox.ts). Payload: the piece. */
export interface CollectivePiece {
  readonly kind: "coll";
  readonly tag: string;
}

/** Member `member` of mesh `mesh` (at `version`) left its collective groups: its endpoint threw `error` (collective-quits.ts). */
export interface CollectiveQuit {
  readonly kind: "coll-quit";
  readonly mesh: string;
  readonly version?: number;
  readonly member: number;
  /** The call it threw in, as its ranks know it (MessageContext.call), if the call had a reply port. */
  readonly call?: string;
  readonly error: string;
}

/** Ask the owner of mesh `mesh` for its members' proc addresses; the answer on `reply` is the array or an Error. */
export interface CollectiveAddrs {
  readonly kind: "coll-addrs";
  readonly mesh: string;
  readonly reply: PortRef;
}

/**
 * Lines a worker wrote to stdout (`s` 1) or stderr (2), for the process that
 * prints them: from a worker to its parent, or from a `fray worker` to the
 * client of its procs. Each is [tag, text]; a null tag: the sender's own.
 */
export interface LogLines {
  readonly kind: "log";
  readonly stream: 1 | 2;
  readonly lines: readonly (readonly [tag: string | null, text: string])[];
}

/** Ask a process to exit. */
export interface Exit {
  readonly kind: "exit";
  /** As Stop's. */
  readonly after?: number;
}

/**
 * Read bytes `off..off+len` of RemoteBuffer `id`: the answer on `reply` is
 * the bytes, or (with `shm`, a tmpfs file of the reader's) null once the
 * owner wrote them there at the same offset. Served by the Proc, not the actor.
 */
export interface BufferRead {
  readonly kind: "buf.read";
  readonly id: string;
  readonly offset: number;
  readonly length: number;
  readonly stagingFile?: string;
  /** Instead of bytes: the buffer's SharedArrayBuffer view and status word (shared-views.ts), or null if it is not on one. */
  readonly share?: true;
  /** Instead of bytes: the ref of the /dev/shm file holding all of the buffer's bytes (shm-bytes.ts), or null if there is none. */
  readonly file?: true;
  readonly reply: PortRef;
}

/** Write bytes at `off` of RemoteBuffer `id`: from the payload, or from `shm` at the same offset. Answers null. */
export interface BufferWrite {
  readonly kind: "buf.write";
  readonly id: string;
  readonly offset: number;
  readonly length: number;
  readonly stagingFile?: string;
  readonly reply: PortRef;
}

/** Release RemoteBuffer `id`. Answers null. */
export interface BufferDrop {
  readonly kind: "buf.drop";
  readonly id: string;
  readonly reply: PortRef;
}

/**
 * Ask a process for its metrics and those of the procs it started, except the
 * procs in `via` (already being asked), each within `ms`; the answer on `reply`
 * is a GatheredMetrics (metrics/collect.ts).
 */
export interface MetricsRequest {
  readonly kind: "metrics";
  readonly via: readonly string[];
  readonly timeoutMs: number;
  readonly reply: PortRef;
}

export type Header =
  | Hello
  | Ack
  | Spawn
  | Call
  | Cast
  | CastAck
  | CastLost
  | PortMessage
  | PortMessages
  | Fault
  | Stop
  | Ping
  | Where
  | StartProcs
  | Exit
  | CollectivePiece
  | CollectiveAddrs
  | CollectiveQuit
  | BufferRead
  | BufferWrite
  | BufferDrop
  | MetricsRequest
  | LogLines;

/**
 * What sends a header to a peer: a Proc, passed in. The layers above send a subsystem's messages through
 * that subsystem's functions taking one (dropBuffer, sendSpawn, …), never building the header themselves.
 */
export interface HeaderSender {
  send(addr: string, header: Header, payload?: Encoded): void;
}
