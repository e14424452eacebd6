// runtime/proc: one process's place in the runtime (a simulator's process holds several:
// simulator/virtual-proc.ts). A Proc has an address and an id space, keeps one Link to every peer
// (net/), knows which peers are lost, answers on ports (ports/), and routes each frame to whatever
// registered for its kind (routes.ts). It knows nothing of actors, calls, buffers or supervision:
// those subsystems attach themselves (subsystems.ts) and register their kinds; runtime/runtime.ts
// assembles them. proc-directory.ts says where a worker's procs listen.
import { join } from "node:path";
import type { Encoded } from "../../wire/codec.ts";
import { encodeHeader } from "../base/header-codec.ts";
import type { Frame } from "../../wire/frame.ts";
import type { Transport } from "../../wire/transport.ts";
import { config } from "../base/config.ts";
import { countFrameOut, metricsOn } from "../base/counters.ts";
import { ConnectionError, SupervisionError } from "../base/errors.ts";
import type { Header, PortRef } from "../base/messages.ts";
import { parseAddress, tcpHostPort, workerOf } from "../net/address.ts";
import { Connections } from "../net/connections.ts";
import { privateSocketDir } from "../net/listener.ts";
import { unlistenedPort } from "../net/tcp-ports.ts";
import { PortInbox, type PortHandler } from "../ports/port-inbox.ts";
import { PortOutbox } from "../ports/port-outbox.ts";
import type { PortOwner } from "../ports/port.ts";
import type { PeerLostHandler, ProcMessaging } from "./messaging.ts";
import { locate, ProcDirectory } from "./proc-directory.ts";
import { Routes, type Kind, type Route, type Router } from "./routes.ts";
import { Subsystems, type SubsystemKey } from "./subsystems.ts";

export type { PortHandler };
export type { Kind, Route };

export type { PeerLostHandler };

export class Proc implements PortOwner, ProcMessaging, Router {
  readonly #routes: Routes;
  readonly #subsystems: Subsystems;
  readonly #connections: Connections;
  readonly #inbox = new PortInbox();
  readonly #outbox = new PortOutbox(
    (addr, header, payload) => this.send(addr, header, payload),
    (addr) => this.#connections.flush(addr),
  );
  /** Where the procs this process started listen, for peers that ask before dialing. */
  readonly #directory = new ProcDirectory();
  /** Peers known to be gone, with why: frames to them are dropped, and whoever asks learns why. */
  readonly #lost = new Map<string, SupervisionError>();
  readonly #peerLost = new Set<PeerLostHandler>();
  readonly #idPrefix = `${process.pid.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  #nextId = 0;
  #socketDir: string | null;
  /** Where we listen on TCP, once we do: the host peers dial and the one we bound. */
  #tcp: { host: string; bindHost: string | undefined; port: number } | null = null;
  /** How this proc ends: its OS process does, or (a virtual proc) only itself. */
  #end: () => void;
  readonly #virtual: boolean;

  /**
   * A proc at `addr` (not yet listening: `listen()`). `serving`: a worker's, whose connections keep
   * the process alive, and which ends its OS process when told to exit unless `ended` is given (a
   * virtual proc: only it ends, and `ended` is called).
   */
  constructor(
    readonly addr: string,
    readonly serving: boolean,
    options: { socketDir?: string; ended?: () => void } = {},
  ) {
    this.#socketDir = options.socketDir ?? null;
    this.#routes = new Routes(addr, (error, reply) => this.sendToPort(reply, 0, error, true));
    this.#subsystems = new Subsystems(addr);
    const ended = options.ended;
    this.#virtual = ended !== undefined;
    this.#end = ended
      ? () => {
          this.#end = () => {};
          this.#connections.close();
          ended();
        }
      : () => process.exit(0);
    this.#connections = new Connections(addr, serving, {
      frame: (header, frame, peer, bulk) => this.receive(header, frame, peer, bulk),
      lost: (peer, error, isFailure) => this.peerLost(peer, error, isFailure),
      listensOn: (peer, port) => {
        const parent = workerOf(peer);
        if (parent === this.addr || parent === this.#tcpAddr()) this.#directory.report(peer, port); // one of ours
      },
      locate: (worker, at, deadline) => locate(this, worker, at, deadline),
    });
    this.route("port", (h, frame, peer) => this.#inbox.deliver(h.id, peer, h.rank, !h.isError, frame));
    this.route("ports", (h, frame, peer) => this.#inbox.deliverMany(h.id, peer, h.ranks, h.errors, frame));
    this.route("ping", (h) => this.sendToPort(h.reply, 0, null, false));
    this.route("hello", () => {});
    this.route("where", (h) => {
      const gone = this.#lost.get(h.addr); // one of ours that exited: no use waiting for it to report in
      if (gone) return this.sendToPort(h.reply, 0, new ConnectionError(`${h.addr} is gone, says its worker: ${gone.message}`, { cause: gone }), true);
      this.#directory.lookup(h.addr, config.connectTimeoutMs).then(
        (port) => this.sendToPort(h.reply, 0, port, false),
        (err: Error) => this.sendToPort(h.reply, 0, err, true),
      );
    });
  }

  /** Listens at `addr` (`advertise@bind` binds elsewhere); resolves once listening, rejects naming the address. */
  static create(addr: string, serving: boolean, options: { socketDir?: string; ended?: () => void } = {}): [Proc, Promise<void>] {
    const { advertise, listen: at } = parseAddress(addr);
    const proc = new Proc(advertise, serving, options);
    const listening = proc.#connections.listen(addr, at);
    const onTcp = (port: number) => (proc.#tcp = { host: tcpHostPort(advertise).host, bindHost: at.host, port });
    // A port given is ours from the start: children spawned before the listen completes are already put behind it (childAddr).
    if ("port" in at && at.port) onTcp(at.port);
    listening.then(
      () => {
        if ("port" in at && !at.port && proc.#connections.port !== undefined) onTcp(proc.#connections.port);
      },
      () => proc.#connections.close(),
    );
    return [proc, listening];
  }

  /**
   * A client's Proc: on a Unix socket in a private directory, beside which its
   * children's go; or, given `tcpHost` (net/reach.ts), on TCP there, at a port
   * nothing listens on now — its address must be known before it listens.
   */
  static createClient(tcpHost: string | null): [Proc, Promise<void>] {
    if (tcpHost !== null) {
      return Proc.create(`tcp://${bracketed(tcpHost)}:${unlistenedPort()}`, false);
    }
    const dir = privateSocketDir();
    return Proc.create(`unix:${join(dir, "client.sock")}`, false, { socketDir: dir });
  }

  /** Connections refused because the peer could not prove it knows the token. */
  get authFailures(): number {
    return this.#connections.authFailures;
  }

  /** Makes `handler` the one that frames of `kind` go to (replacing an earlier one: a default); see routes.ts. */
  route<K extends Kind>(kind: K, handler: Route<K>): void {
    this.#routes.add(kind, handler);
  }

  /** Attaches a subsystem under `key` (once), and returns it. */
  attach<T>(key: SubsystemKey<T>, subsystem: T): T {
    return this.#subsystems.attach(key, subsystem);
  }

  /** The subsystem attached under `key`; throws naming it when none is. */
  get<T>(key: SubsystemKey<T>): T {
    return this.#subsystems.get(key);
  }

  /** Handles a frame from the proc at `peer` (`bulk`: it came on a bulk connection, bulk/bulk-links.ts). */
  receive(header: Header, frame: Frame, peer: string, bulk?: Transport): void {
    if (bulk && !header.kind.startsWith("buf.")) return; // a bulk connection carries RemoteBuffer chunks only, never calls
    this.#routes.dispatch(header, frame, peer, bulk);
  }

  /**
   * A fresh address for a child process of this one, and what it binds: a Unix
   * socket beside ours; or, when we listen on TCP (so peers on other hosts may
   * be handed its address), a port the OS picks, which peers ask us for.
   */
  childAddr(): { addr: string; bind?: string } {
    const at = this.#tcpAddr();
    if (at) return { addr: `${at}/${this.nextId()}`, bind: `tcp://${bracketed(this.#tcp!.bindHost ?? this.#tcp!.host)}:0` };
    this.#socketDir ??= privateSocketDir();
    return { addr: `unix:${join(this.#socketDir, `${this.nextId()}.sock`)}` };
  }

  /** `tcp://host:port` where we listen on TCP (for a proc behind a worker, its own port), once we do. */
  #tcpAddr(): string | null {
    return this.#tcp && `tcp://${bracketed(this.#tcp.host)}:${this.#tcp.port}`;
  }

  /** A process-unique id, also unique across processes. */
  nextId(): string {
    return `${this.#idPrefix}${(this.#nextId++).toString(36)}`;
  }

  /** Sends a header and optional payload to the proc at `addr`, in order with everything else sent there. */
  send(addr: string, header: Header, payload?: Encoded): void {
    this.sendEncoded(addr, header.kind, encodeHeader(header), payload, false);
  }

  /**
   * Sends an encoded header (`repeatable`: the same bytes each time, which cross each link once, with `variable` — a call's
   * reply port id — beside them each time); false if `addr` is gone.
   */
  sendEncoded(addr: string, kind: Kind, header: Uint8Array, payload: Encoded | undefined, repeatable: boolean, variable?: number): boolean {
    if (this.#lost.has(addr)) return false; // nobody to receive it
    if (metricsOn) countFrameOut(kind, header.length, payload);
    this.#connections.link(addr).send(header, payload, repeatable, variable);
    return true;
  }

  /**
   * Sends a value or error to a port. A value that cannot be sent throws when
   * `strict` (a user's `port.send`); otherwise the receiver gets the
   * SerializationError instead (an endpoint's return value).
   */
  sendToPort(ref: PortRef, rank: number, value: unknown, isError: boolean, strict = false): void {
    this.#outbox.send(ref, rank, value, isError, strict);
  }

  /** Writes the port values queued so far now, not at the end of the tick: a generator computing between its yields keeps the tick from ending. */
  flushPorts(): void {
    this.#outbox.flush();
  }

  openPort(handler: PortHandler): number {
    return this.#inbox.open(handler);
  }

  closePort(id: number): void {
    this.#inbox.close(id);
  }

  /** Whether a link to `addr` is up now. */
  connected(addr: string): boolean {
    return this.#connections.connected(addr);
  }

  /** Why `addr` has not been reached yet, while a dial to it (or to the worker that says where it listens) retries. */
  dialError(addr: string): Error | undefined {
    const worker = workerOf(addr);
    return this.#connections.dialError(addr) ?? (worker === null ? undefined : this.#connections.dialError(worker));
  }

  /** Why `addr` is gone, if this process knows it is. */
  lostPeer(addr: string): SupervisionError | undefined {
    return this.#lost.get(addr);
  }

  /**
   * Forgets that `addr` was lost, so the next message to it dials it again: for a service started again at the same
   * address (a namespace service), which the caller knows is a new process. Nothing of the lost one carries over.
   */
  redial(addr: string): void {
    this.#lost.delete(addr);
  }

  onPeerLost(handler: PeerLostHandler): () => void {
    this.#peerLost.add(handler);
    return () => this.#peerLost.delete(handler);
  }

  /**
   * Declares that `addr` is gone: queued frames are dropped and every
   * subsystem that watches peers hears of it (`isFailure` false: a process
   * stopped on purpose, reported as a SupervisionError).
   */
  peerLost(addr: string, error: Error, isFailure = true): void {
    this.#directory.forget(addr, error);
    if (!this.#connections.drop(addr)) return;
    this.#lost.set(addr, error instanceof SupervisionError ? error : new SupervisionError(error.message, { cause: error }));
    const reported = isFailure ? error : new SupervisionError(error.message, { cause: error });
    for (const handler of [...this.#peerLost]) handler(addr, reported, isFailure);
  }

  /** The peers connected to this proc now, other than the child processes it started: its clients, say. */
  connectedPeers(): string[] {
    return this.#connections.connectedPeers().filter((a) => !this.#connections.children.has(a) && !this.#lost.has(a));
  }

  /** The live child processes this proc started (not yet lost). */
  children(): string[] {
    return [...this.#connections.children].filter((a) => a !== this.addr && !this.#lost.has(a));
  }

  /** `addr` is a child process: its loss is reported by `childExited`, with the exit status, not by its socket closing. */
  adoptChild(addr: string): void {
    this.#connections.adoptChild(addr);
  }

  childExited(addr: string, cause: Error, isFailure: boolean): void {
    this.#connections.childExited(addr);
    this.peerLost(addr, cause, isFailure);
  }

  /** Declares that `addr` (a child being started) will dial us; frames to it wait for that. */
  expectPeer(addr: string): Promise<void> {
    return this.#connections.expectPeer(addr);
  }

  /** The proc at `addr` was asked to exit: its connection closing is not a failure. */
  expectExit(addr: string): void {
    this.#connections.expectExit(addr);
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

  /** Ends this proc once what its ports owe is sent: its OS process exits, or a virtual proc closes its connections. */
  exit(): void {
    this.#outbox.flush();
    setImmediate(() => this.#end()); // after the transports' next-tick flush
  }

  /** Ends a virtual proc at once, as if its process were killed. */
  end(): void {
    if (!this.#virtual) throw new Error("end() is for virtual procs; this is the process's own Proc");
    this.#end();
  }
}

function bracketed(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
