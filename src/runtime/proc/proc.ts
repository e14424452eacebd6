// runtime/proc: one process's place in the runtime (a simulator's process holds several:
// simulator/virtual-proc.ts). A Proc listens on an address, hosts actors, owns ports, and keeps one
// Link to every peer (net/). Messages go straight from proc to proc, except calls to many processes,
// which are cast down a tree of relays (calls/). The Proc routes each frame to the mechanism that
// serves it: calls/, ports/, bulk/, supervision/, metrics/, output/, hosts/; proc-directory.ts says
// where a worker's procs listen.
import { join } from "node:path";
import { decode, encode, encodePlain, type Encoded } from "../../wire/codec.ts";
import type { Frame } from "../../wire/frame.ts";
import type { Transport } from "../../wire/transport.ts";
import { ActorCell } from "../actors/actor-cell.ts";
import { BufferStore } from "../bulk/buffer-store.ts";
import { BulkLinks, replyOn } from "../bulk/bulk-links.ts";
import { CallInbox } from "../calls/call-inbox.ts";
import { CallSender, type CallGroup } from "../calls/call-sender.ts";
import { parseAddress, workerOf } from "../net/address.ts";
import { config } from "../config.ts";
import { messageContext } from "./context.ts";
import { CollectiveInbox } from "../bulk/collective-inbox.ts";
import { Connections } from "../net/connections.ts";
import { ConnectionError } from "../errors.ts";
import { privateSocketDir } from "../net/listener.ts";
import { PortInbox, type PortHandler } from "../ports/port-inbox.ts";
import { locate, ProcDirectory } from "./proc-directory.ts";
import { PortOutbox } from "../ports/port-outbox.ts";
import { setWirePortSender, type PortOwner } from "../ports/port.ts";
import type { CallFields, Header, PortRef } from "../messages.ts";
import { answerMetrics } from "../metrics/collect.ts";
import { countFrameIn, countFrameOut, encodedBytes, metricsOn, payloadBytes, watchMailboxes } from "../metrics/metrics.ts";
import { SupervisionError } from "../supervision/supervision.ts";
import { splitKey, Supervisor } from "../supervision/supervisor.ts";
import { receiveLog } from "../output/worker-output.ts";

export type { CallGroup, PortHandler };

/** Called when a peer process can no longer be reached. */
export type PeerLostHandler = (addr: string, error: Error) => void;

const CURRENT = Symbol.for("fray.runtime.proc");
const g = globalThis as unknown as Record<symbol, Proc | undefined>;

export class Proc implements PortOwner {
  readonly actors = new Map<string, ActorCell>();
  /** Handles requests to start procs, in a worker that serves remote clients. */
  hostAgent: ((request: Extract<Header, { k: "procs" }>) => void) | null = null;
  readonly supervisor: Supervisor = new Supervisor(this);
  /** Pieces of collectives, waiting for the local rank that takes them. */
  readonly collectives = new CollectiveInbox();
  /** The RemoteBuffers this process owns. */
  readonly buffers = new BufferStore();
  /** Second connections to TCP peers, for RemoteBuffer chunks. */
  readonly bulkLinks: BulkLinks;
  #inbox = new PortInbox();
  #nextId = 0;
  #peerLost = new Set<PeerLostHandler>();
  #outbox = new PortOutbox((addr, header, payload) => this.send(addr, header, payload));
  #socketDir: string | null = null;
  readonly #connections: Connections;
  /** Where the procs this process started listen, for peers that ask before dialing. */
  readonly #directory = new ProcDirectory();
  readonly #idPrefix = `${process.pid.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  readonly #calls: CallSender;
  readonly #callInbox: CallInbox;
  /** How this proc ends when told to exit: its OS process does, or (a virtual proc) only itself. */
  #end: () => void = () => process.exit(0);
  /** Virtual procs alive in this OS process; while there are none, `current()` never looks at the message context. */
  static #virtual = 0;

  private constructor(readonly addr: string, private readonly serving: boolean) {
    this.#connections = new Connections(addr, serving, {
      frame: (header, frame, peer, bulk) => this.#dispatch(header, frame, peer, bulk),
      lost: (peer, error, isFailure) => this.peerLost(peer, error, isFailure),
      listensOn: (peer, port) => {
        if (workerOf(peer) === this.addr) this.#directory.report(peer, port); // one of ours
      },
      locate: (worker, addr, deadline) => locate(this, worker, addr, deadline),
    });
    this.#calls = new CallSender({
      addr,
      connected: (peer) => this.#connections.connected(peer),
      deadProc: (peer) => this.supervisor.deadProc(peer),
      sendEncoded: (peer, kind, header, payload, repeatable) => this.#sendEncoded(peer, kind, header, payload, repeatable),
    });
    this.#callInbox = new CallInbox(this, this.#calls);
    this.bulkLinks = new BulkLinks(addr, (worker, at, deadline) => locate(this, worker, at, deadline), (header, frame, peer) => this.#dispatch(header, frame, peer));
  }

  /** Connections refused because the peer could not prove it knows the token. */
  get authFailures(): number {
    return this.#connections.authFailures;
  }

  /** This process's Proc, created on first use. In a client it holds no event-loop reference. */
  static current(): Proc {
    if (Proc.#virtual > 0) {
      const inActor = messageContext.getStore()?.actor.proc; // code run by an actor of a virtual proc
      if (inActor) return inActor;
    }
    if (!g[CURRENT]) {
      const dir = privateSocketDir();
      const [proc, listening] = Proc.#listen(`unix:${join(dir, "client.sock")}`, false);
      listening.catch((err) => {
        throw err; // a client that cannot listen cannot work (as before: the process ends)
      });
      proc.#socketDir = dir; // children's sockets go beside ours
      g[CURRENT] = proc;
    }
    return g[CURRENT];
  }

  /**
   * Starts this process's Proc at `addr` and resolves once it listens (a
   * worker process serves until told to exit); rejects naming the address
   * when it cannot be bound.
   */
  static async serve(addr: string): Promise<Proc> {
    if (g[CURRENT]) throw new Error("this process already has a Proc");
    const [proc, listening] = Proc.#listen(addr, true);
    await listening;
    return (g[CURRENT] = proc);
  }

  /**
   * Starts one more Proc in this OS process at `addr` (a virtual proc, see
   * virtual-proc.ts): its own listener, connections, ports and actors. Told to
   * exit, or `end()`ed, it closes all of them and calls `ended`; the OS
   * process goes on.
   */
  static async serveVirtual(addr: string, ended: () => void): Promise<Proc> {
    const [proc, listening] = Proc.#listen(addr, true);
    await listening.catch((err) => {
      proc.#connections.close();
      throw err;
    });
    Proc.#virtual++;
    proc.#end = () => {
      proc.#end = () => {};
      Proc.#virtual--;
      proc.#connections.close();
      ended();
    };
    return proc;
  }

  /** Ends a virtual proc at once, as if its process were killed: no actor is stopped. */
  end(): void {
    if (this === g[CURRENT]) throw new Error("end() is for virtual procs; this is the process's own Proc");
    this.#end();
  }

  static #listen(addr: string, serving: boolean): [Proc, Promise<void>] {
    const { advertise, listen: at } = parseAddress(addr);
    const proc = new Proc(advertise, serving);
    return [proc, proc.#connections.listen(addr, at)];
  }

  /** The live procs this process started, or hosts meshes on: whose metrics it collects. */
  spawnedProcs(): string[] {
    const addrs = new Set([...this.#connections.children, ...this.supervisor.meshProcs()]);
    return [...addrs].filter((a) => a !== this.addr && !this.supervisor.deadProc(a));
  }

  /** A fresh address for a child process of this one. */
  childAddr(): string {
    this.#socketDir ??= privateSocketDir();
    return `unix:${join(this.#socketDir, `${this.nextId()}.sock`)}`;
  }

  /** A process-unique id, also unique across processes. */
  nextId(): string {
    return `${this.#idPrefix}${(this.#nextId++).toString(36)}`;
  }

  /** Sends a header and optional payload to the proc at `addr`, in order with everything else sent there. */
  send(addr: string, header: Header, payload?: Encoded): void {
    if (header.k === "stop" || header.k === "exit") {
      // After the calls sent before it, which may be on their way through relays.
      const after = this.#calls.numberedCalls(addr);
      if (after !== undefined) header = { ...header, after };
    }
    this.#sendEncoded(addr, header.k, encodePlain(header), payload, false);
  }

  /**
   * Sends a call to the processes of `groups` (in rank order), straight or
   * cast down a tree of relays when they are more than FRAY_CAST_FANOUT; calls
   * from here to each run in the order they were sent (call-sender.ts).
   */
  sendCall(fields: CallFields, groups: readonly CallGroup[], payload: Encoded): void {
    this.#calls.send(fields, groups, payload);
  }

  /** Sends an encoded header (`repeatable`: the same bytes each time, which cross each link once); false if `addr` is gone. */
  #sendEncoded(addr: string, kind: Header["k"], header: Uint8Array, payload: Encoded | undefined, repeatable: boolean): boolean {
    if (this.supervisor.deadProc(addr)) return false; // nobody to receive it
    if (metricsOn) countFrameOut(kind, header.length + encodedBytes(payload));
    this.#connections.link(addr).send(header, payload, repeatable);
    return true;
  }

  /** Tells the owner at `addr` that actor `${meshId}.${member}` failed. */
  sendFault(addr: string, meshId: string, member: number, cause: Error): void {
    let payload: Encoded;
    try {
      payload = encode(cause, "failure cause");
    } catch {
      payload = encode(new Error(cause.message));
    }
    this.send(addr, { k: "fault", mesh: meshId, member }, payload);
  }

  /** A local actor died or stopped: later messages to it are answered with `error`. */
  actorGone(cell: ActorCell, error: Error): void {
    this.actors.delete(cell.key);
    const [meshId, member] = splitKey(cell.key);
    this.supervisor.actorGone(meshId, member, error);
  }

  reportFault(cell: ActorCell, cause: Error): void {
    this.supervisor.reportFault(cell, cause);
  }

  stopMeshesOwnedBy(key: string): Promise<void> {
    return this.supervisor.stopMeshesOwnedBy(key);
  }

  /** `addr` is a child process: its loss is reported by `childExited`, with the exit status, not by its socket closing. */
  adoptChild(addr: string): void {
    this.#connections.adoptChild(addr);
  }

  childExited(addr: string, cause: Error, isFailure: boolean): void {
    this.#connections.childExited(addr);
    this.peerLost(addr, cause, isFailure);
  }

  /**
   * Sends a value or error to a port. A value that cannot be sent throws when
   * `strict` (a user's `port.send`); otherwise the receiver gets the
   * SerializationError instead (an endpoint's return value).
   */
  sendToPort(ref: PortRef, rank: number, value: unknown, isError: boolean, strict = false): void {
    this.#outbox.send(ref, rank, value, isError, strict);
  }

  openPort(handler: PortHandler): number {
    return this.#inbox.open(handler);
  }

  closePort(id: number): void {
    this.#inbox.close(id);
  }

  onPeerLost(handler: PeerLostHandler): () => void {
    this.#peerLost.add(handler);
    return () => this.#peerLost.delete(handler);
  }

  /** Declares that `addr` (a child being started) will dial us; frames to it wait for that. */
  expectPeer(addr: string): Promise<void> {
    return this.#connections.expectPeer(addr);
  }

  /** Opens the link to `addr` now (a child dials its parent at start). */
  connect(addr: string): void {
    this.#connections.link(addr);
  }

  /** Uses `transport` (already connected, e.g. a worker thread's MessagePort) as the link to `addr`. */
  connectVia(addr: string, transport: Transport): void {
    this.#connections.connectVia(addr, transport);
  }

  /** Serves a connection that did not come through the listening socket; its first frame says who it is. */
  acceptTransport(transport: Transport): void {
    this.#connections.accept(transport);
  }

  /**
   * Declares that `addr` is gone: queued frames are dropped, calls waiting on
   * it fail, and members of meshes owned here fail (unless `isFailure` is false:
   * a process stopped on purpose).
   */
  peerLost(addr: string, error: Error, isFailure = true): void {
    this.#directory.forget(addr, error);
    if (!this.#connections.drop(addr)) return;
    this.supervisor.procLost(addr, error, isFailure);
    this.#callInbox.forget(addr);
    this.#calls.lost(addr, error.message);
    const reported = isFailure ? error : new SupervisionError(error.message, { cause: error });
    for (const handler of [...this.#peerLost]) handler(addr, reported);
  }

  /** The proc at `addr` was asked to exit: its connection closing is not a failure. */
  expectExit(addr: string): void {
    this.#connections.expectExit(addr);
  }

  /** A worker told to exit stops its actors (running their cleanups), sends what it owes, and exits. */
  async #exit(): Promise<void> {
    await Promise.all([...this.actors.values()].map((cell) => cell.stop()));
    this.#outbox.flush();
    setImmediate(() => this.#end()); // after the transports' next-tick flush
  }

  /** Handles a frame from the proc at `peer`. */
  #dispatch(header: Header, frame: Frame, peer: string, bulk?: Transport): void {
    if (bulk && !header.k.startsWith("buf.")) return; // a bulk connection carries RemoteBuffer chunks only, never calls
    if (metricsOn) countFrameIn(header.k, frame.header.length + payloadBytes(frame));
    switch (header.k) {
      case "msg":
        this.#callInbox.call(header, frame, peer);
        return;
      case "cast":
        this.#callInbox.cast(header, frame);
        return;
      case "cast-ack":
        this.#calls.acknowledged(peer, header.q);
        return;
      case "cast-lost":
        this.peerLost(header.addr, new ConnectionError(`${header.addr} cannot be reached from ${peer}, which relays calls to it: ${header.why}`));
        return;
      case "fault": {
        let cause: Error;
        try {
          cause = decode(frame.payload, frame.attachments) as Error;
        } catch (err) {
          cause = err as Error;
        }
        this.supervisor.fault(header.mesh, header.member, cause);
        return;
      }
      case "stop":
        this.#callInbox.stop(header, peer);
        return;
      case "ping":
        this.sendToPort(header.reply, 0, null, false);
        return;
      case "metrics":
        void answerMetrics(this, header);
        return;
      case "where":
        this.#directory.lookup(header.addr, config.connectTimeoutMs).then(
          (port) => this.sendToPort(header.reply, 0, port, false),
          (err: Error) => this.sendToPort(header.reply, 0, err, true),
        );
        return;
      case "procs":
        if (this.hostAgent) this.hostAgent(header);
        else header.addrs.forEach((_, i) => this.sendToPort(header.reply, i, new Error(`${this.addr} is not a worker that starts procs (run 'fray worker')`), true));
        return;
      case "port":
        this.#inbox.deliver(header.id, peer, header.rank, !header.err, frame);
        return;
      case "ports":
        this.#inbox.deliverMany(header.id, peer, header.ranks, header.errs, frame);
        return;
      case "spawn": {
        const cell = ActorCell.spawn(this, header, frame);
        this.actors.set(header.actor, cell);
        for (const [call, rank, f] of this.#callInbox.parked.take(header.actor)) cell.deliver(call, rank, f);
        return;
      }
      case "coll":
        this.collectives.deliver(header.tag, frame);
        return;
      case "coll-addrs": {
        const addrs = this.supervisor.addrsOf(header.mesh);
        this.sendToPort(header.reply, 0, addrs ?? new Error(`${this.addr} does not own mesh ${header.mesh} (stopped?)`), !addrs);
        return;
      }
      case "buf.read":
      case "buf.write":
      case "buf.drop":
        this.buffers.serve(header, frame, bulk ? replyOn(bulk) : (ref, value, isError) => this.sendToPort(ref, 0, value, isError));
        return;
      case "exit":
        if (this.serving) this.#callInbox.whenRan(peer, header.after ?? 0, () => void this.#exit());
        return;
      case "log":
        receiveLog(header, peer);
        return;
      case "hello":
        return;
    }
  }
}

// Ports revived from the wire send through this process's Proc.
setWirePortSender(() => Proc.current());
// The mailbox-depth gauge reads this process's actors when scraped.
watchMailboxes(function* () {
  for (const cell of g[CURRENT]?.actors.values() ?? []) yield [cell.identity.className, cell.mailboxDepth];
});
