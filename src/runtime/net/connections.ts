// runtime/net: links between processes. Listens (listener.ts), dials (dialer.ts, address.ts),
// authenticates both ends (credentials.ts, wire/auth.ts) and keeps one Link per peer (link.ts)
// over wire's framed transports. Knows frames and peers, not what a message means: proc/ routes.
//
// This process's connections: one Link to every peer it talks to, whichever
// way it came (we dialed the peer, it dialed us, or we were handed a
// transport, such as a worker thread's MessagePort). The first connection
// between two procs becomes the link both ways. Each connection starts with a
// hello frame: who we are, and the TCP port we listen on (which a worker's
// procs tell their worker, see proc-directory.ts).
import type { ListenOptions } from "node:net";
import { frameOf, type Frame } from "../../wire/frame.ts";
import { HeaderDecoder } from "../../wire/header-table.ts";
import { decodeHeader, encodeHeader, withReplyId } from "../base/header-codec.ts";
import { inProcessPair } from "../../wire/in-process-transport.ts";
import type { Transport } from "../../wire/transport.ts";
import { config } from "../base/config.ts";
import { connectionFault } from "../base/fault-points.ts";
import { dial } from "./dialer.ts";
import { ConnectionError } from "../base/errors.ts";
import { Link } from "./link.ts";
import { listen } from "./listener.ts";
import type { Header } from "../base/messages.ts";

/** What the Proc does with what its connections bring. */
export interface ConnectionEvents {
  /** A frame from the proc at `peer`, its header decoded; `bulk`: it came by that bulk connection (bulk-links.ts). */
  frame(header: Header, frame: Frame, peer: string, bulk?: Transport): void;
  /** `peer` cannot be reached (it could not be dialed, or its connection closed); `isFailure` false: it was asked to exit. */
  lost(peer: string, error: ConnectionError, isFailure: boolean): void;
  /** `peer` said in its hello that it listens on TCP `port`. */
  listensOn(peer: string, port: number): void;
  /** The port of the proc at `addr`, asked of its worker at `worker`; rejects at `deadline`. */
  locate(worker: string, addr: string, deadline: number): Promise<number>;
}

export class Connections {
  /** Connections refused because the peer could not prove it knows the token. */
  authFailures = 0;
  #links = new Map<string, Link>();
  /** Child processes: their loss is reported with their exit status, not by their connection closing. */
  #children = new Set<string>();
  /** Procs asked to exit: their connection closing is not a failure. */
  #stopping = new Set<string>();
  /** The TCP port we listen on (the OS's choice when the address asked for port 0). */
  #port: number | undefined;
  /** Every connection being served, and the listener: what `close()` ends. */
  #open = new Set<Transport>();
  #listening = new AbortController();
  #closed = false;

  /** `serving`: the connections keep the process alive (a worker's), else not (a client's). */
  constructor(
    readonly addr: string,
    private readonly serving: boolean,
    private readonly events: ConnectionEvents,
  ) {
    // Frames to ourselves go through an in-process pair, in order like any other.
    const [outgoing, incoming] = inProcessPair();
    this.#serve(incoming, addr);
    const self = new Link(addr);
    self.attach(outgoing);
    this.#links.set(addr, self);
  }

  /** Listens on `at` (what `addr` binds) for peers; resolves once listening, rejects naming `addr` when it cannot. */
  async listen(addr: string, at: ListenOptions): Promise<void> {
    this.#port = await listen(addr, { ...at, signal: this.#listening.signal }, this.serving, {
      accepted: (transport) => this.accept(transport),
      refused: () => this.authFailures++,
    });
  }

  /** The TCP port we listen on, once we do; undefined on a Unix socket. */
  get port(): number | undefined {
    return this.#port;
  }

  /** The link to `addr`, dialing it if there is none yet (frames sent before it connects wait in it). */
  link(addr: string): Link {
    if (this.#closed) return new Link(addr); // a closed proc's frames go nowhere
    let link = this.#links.get(addr);
    if (!link) {
      link = new Link(addr);
      this.#links.set(addr, link);
      this.#dial(link);
    }
    return link;
  }

  /** Writes the frames queued for `addr` now, not at the end of the tick (if there is a link to it). */
  flush(addr: string): void {
    this.#links.get(addr)?.flush();
  }

  /** The peers with a connection now (whichever way it came), this proc itself aside. */
  connectedPeers(): string[] {
    return [...this.#links.values()].filter((l) => l.connected && l.addr !== this.addr).map((l) => l.addr);
  }

  /** Whether the link to `addr` exists and is connected. */
  connected(addr: string): boolean {
    return this.#links.get(addr)?.connected ?? false;
  }

  /** Why the link to `addr` is not connected yet, while its dial retries a peer that does not listen (yet). */
  dialError(addr: string): Error | undefined {
    return this.#links.get(addr)?.dialError ?? undefined;
  }

  /** Declares that `addr` (a child being started) will dial us; frames to it wait for that. */
  expectPeer(addr: string): Promise<void> {
    return this.#waitingLink(addr).attached;
  }

  /** Uses `transport` (already connected) as the link to `addr`. */
  connectVia(addr: string, transport: Transport): void {
    transport.send(this.#hello());
    this.#serve(transport, addr);
    this.#waitingLink(addr).attach(transport);
  }

  /** Serves an incoming connection: its first frame says who it is. */
  accept(transport: Transport): void {
    if (!this.#opened(transport)) return;
    transport.setKeepAlive(this.serving);
    let peer: string | null = null;
    let bulk: Transport | undefined;
    const headers = new HeaderDecoder(decodeHeader, withReplyId);
    transport.listen({
      frame: (frame) => {
        if (peer === null) {
          const hello = headers.decode(frame.header);
          if (hello.kind !== "hello") {
            transport.close();
            return;
          }
          peer = hello.addr;
          if (hello.bulk) {
            bulk = transport; // RemoteBuffer chunks only: not the link, and its closing is no loss
            return;
          }
          if (hello.port !== undefined) this.events.listensOn(peer, hello.port);
          const link = this.#links.get(peer);
          if (!link) this.#links.set(peer, attached(new Link(peer), transport));
          else if (!link.connected) link.attach(transport);
          return;
        }
        const header = headers.decode(frame.header);
        if (connectionFault("frame-received", header.kind)) return void transport.close(); // a testing hook (fault-points.ts)
        this.events.frame(header, frame, peer, bulk);
      },
      close: (error) => {
        this.#open.delete(transport);
        if (peer !== null && !bulk) this.#lost(peer, transport, error);
      },
    });
  }

  /** `addr` is a child process: its loss is reported by its exit, not by its connection closing. */
  adoptChild(addr: string): void {
    this.#children.add(addr);
  }

  /** The child processes that have not exited. */
  get children(): ReadonlySet<string> {
    return this.#children;
  }

  childExited(addr: string): void {
    this.#children.delete(addr);
  }

  /** The proc at `addr` was asked to exit: its connection closing is not a failure. */
  expectExit(addr: string): void {
    this.#stopping.add(addr);
  }

  /** Forgets the link to `addr`, dropping its queued frames and closing it; false if there was none. */
  drop(addr: string): boolean {
    const link = this.#links.get(addr);
    if (!link) return false;
    this.#links.delete(addr);
    link.drop();
    link.transport?.close();
    return true;
  }

  /**
   * Stops listening and closes every connection without reporting any peer
   * lost: the end of a virtual proc (virtual-proc.ts), which its peers see as
   * a process's death.
   */
  close(): void {
    this.#closed = true;
    this.#listening.abort();
    const links = [...this.#links.values()];
    this.#links.clear();
    for (const link of links) link.drop();
    for (const transport of [...this.#open, ...links.map((l) => l.transport)]) transport?.close();
    this.#open.clear();
  }

  /** Tracks a connection for `close()`; false (and closes it) when closed already. */
  #opened(transport: Transport): boolean {
    if (this.#closed) transport.close();
    else this.#open.add(transport);
    return !this.#closed;
  }

  #waitingLink(addr: string): Link {
    let link = this.#links.get(addr);
    if (!link) this.#links.set(addr, (link = new Link(addr)));
    return link;
  }

  #dial(link: Link): void {
    const wanted = () => this.#links.get(link.addr) === link;
    dial(link.addr, Date.now() + config.connectTimeoutMs, {
      wanted,
      locate: (worker, addr, deadline) => this.events.locate(worker, addr, deadline),
      connected: (transport) => {
        transport.send(this.#hello());
        this.#serve(transport, link.addr);
        if (wanted()) link.attach(transport);
        else transport.close();
      },
      failed: (error) => this.events.lost(link.addr, error, true),
      retrying: (error) => (link.dialError = error),
    });
  }

  /** Our first frame on a connection: who we are, and where we listen (our parent tells peers). */
  #hello(): Frame {
    const hello: Header =
      this.#port === undefined ? { kind: "hello", addr: this.addr, pid: process.pid } : { kind: "hello", addr: this.addr, pid: process.pid, port: this.#port };
    return frameOf(encodeHeader(hello));
  }

  /** Serves a connection whose peer we know. */
  #serve(transport: Transport, peer: string): void {
    if (!this.#opened(transport)) return;
    transport.setKeepAlive(this.serving);
    const headers = new HeaderDecoder(decodeHeader, withReplyId);
    transport.listen({
      frame: (frame) => {
        const header = headers.decode(frame.header);
        if (connectionFault("frame-received", header.kind)) return void transport.close(); // a testing hook (fault-points.ts)
        this.events.frame(header, frame, peer);
      },
      close: (error) => {
        this.#open.delete(transport);
        this.#lost(peer, transport, error);
      },
    });
  }

  #lost(peer: string, transport: Transport, error?: Error): void {
    if (this.#links.get(peer)?.transport !== transport || this.#children.has(peer)) return;
    const stopped = this.#stopping.delete(peer);
    this.events.lost(peer, new ConnectionError(stopped ? `${peer} was stopped` : `connection to ${peer} closed${error ? `: ${error.message}` : ""}`), !stopped);
  }
}

function attached(link: Link, transport: Transport): Link {
  link.attach(transport);
  return link;
}
