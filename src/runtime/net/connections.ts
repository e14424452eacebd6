// runtime/net: links between processes. Listens (listener.ts), dials (dialer.ts, address.ts),
// authenticates both ends (credentials.ts, wire/auth.ts) and keeps one Link per peer (link.ts)
// over wire's framed transports. Knows frames and peers, not what a message means: proc/ routes.
//
// This process's connections: one Link to every peer it talks to, whichever
// way it came (we dialed the peer, it dialed us, or we were handed a
// transport, such as a worker thread's MessagePort). The first connection
// between two procs becomes the link both ways. Each connection starts with a
// hello frame: who we are, and the TCP port we listen on (which a worker's
// procs tell their worker, see proc-directory.ts). A TCP connection that drops
// while both processes live on is made again (resume.ts, session.ts).
import type { ListenOptions } from "node:net";
import type { Frame } from "../../wire/frame.ts";
import { FrameError } from "../../wire/errors.ts";
import { HeaderDecoder } from "../../wire/header-table.ts";
import { decodeHeader, withReplyId } from "../base/header-codec.ts";
import { inProcessPair } from "../../wire/in-process-transport.ts";
import type { Transport } from "../../wire/transport.ts";
import { config } from "../base/config.ts";
import { connectionFault } from "../base/fault-points.ts";
import { dial } from "./dialer.ts";
import { ConnectionError } from "../base/errors.ts";
import { Link } from "./link.ts";
import { listen } from "./listener.ts";
import type { Header, Hello } from "../base/messages.ts";
import { ackSoon, awaitDialAgain, helloFrame, resumeRefusal } from "./resume.ts";

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
    const self = new Link(addr);
    this.#serve(incoming, self);
    self.attach(outgoing, false);
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
    const link = this.#waitingLink(addr);
    transport.send(this.#hello(link));
    this.#serve(transport, link);
    link.attach(transport, false);
  }

  /** Serves an incoming connection: its first frame says who it is. */
  accept(transport: Transport): void {
    if (!this.#opened(transport)) return;
    transport.setKeepAlive(this.serving);
    let link: Link | null = null;
    let bulk: { peer: string; headers: HeaderDecoder<Header> } | null = null;
    let first = true;
    transport.listen({
      frame: (frame) => {
        if (link) return this.#received(transport, link, frame);
        if (bulk) return this.events.frame(bulk.headers.decode(frame.header), frame, bulk.peer, transport);
        if (!first) return;
        first = false;
        const headers = new HeaderDecoder(decodeHeader, withReplyId);
        const hello = headers.decode(frame.header);
        if (hello.kind !== "hello") return void transport.close();
        if (hello.bulk)
          bulk = { peer: hello.addr, headers }; // RemoteBuffer chunks only: not the link, and its closing is no loss
        else link = this.#greeted(transport, hello);
      },
      close: (error) => {
        this.#open.delete(transport);
        if (link) this.#lost(link, transport, error);
      },
    });
  }

  /** The link a connection whose first frame was `hello` serves, or null (it is closed): it failed to resume one. */
  #greeted(transport: Transport, hello: Hello): Link | null {
    const peer = hello.addr;
    if (hello.port !== undefined) this.events.listensOn(peer, hello.port);
    let link = this.#links.get(peer);
    if (hello.resume) {
      const refusal = resumeRefusal(link, hello);
      if (refusal !== null || !link) {
        transport.send(this.#hello(link, { resumed: false }));
        transport.close();
        return null;
      }
      // The connection it replaces is dead to the peer: whatever still comes on it must not be counted.
      const old = link.transport;
      if (old && !(link.dialed && !old.closed)) {
        link.detach();
        old.close();
      }
      if (link.giveUp) clearTimeout(link.giveUp);
      link.giveUp = null;
      transport.send(this.#hello(link, { resumed: true }));
      // A link on a connection we dialed stays on it (or on our own dial again): the side that dials a link's connection is the one that notices it drop.
      if (link.connected || link.dialed) link.session.acked(hello.received ?? 0);
      else link.resume(transport, hello.received ?? 0, false);
      return link;
    }
    if (!link) this.#links.set(peer, (link = new Link(peer)));
    if (link.reconnecting && hello.session !== link.session.peer) {
      // A new link from a peer we waited to resume the old one: it took us for lost, or is a new process.
      transport.close();
      this.#gaveUp(link, new ConnectionError(`${peer} dialed again without resuming the connection that dropped: it took this process for lost, or restarted`));
      return null;
    }
    if (hello.session !== link.session.peer) {
      link.session.peer = hello.session;
      link.session.received = 0;
    }
    link.peerPid = hello.pid;
    if (transport.overNetwork) transport.send(this.#hello(link)); // our end's name, which a resume checks: before any frame of the link
    if (!link.connected && !link.reconnecting) link.attach(transport, false);
    return link;
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

  /** Dials the peer of `link`; `again`: its connection dropped, and the new one resumes it. */
  #dial(link: Link, again = false): void {
    const wanted = () => this.#links.get(link.addr) === link;
    const deadline = Date.now() + (again ? config.reconnectMs : config.connectTimeoutMs);
    dial(link.addr, deadline, {
      again,
      wanted,
      locate: (worker, addr, by) => this.events.locate(worker, addr, by),
      connected: (transport) => {
        // Unwanted, or the peer's own dial became the link meanwhile: one connection carries the link both ways.
        if (!wanted() || (!again && link.connected)) return void transport.close();
        transport.send(this.#hello(link, again ? { resume: true } : {}));
        this.#serve(transport, link);
        if (again) link.resuming = transport;
        else link.attach(transport, true);
      },
      failed: (error) => (again ? this.#gaveUp(link, error) : this.events.lost(link.addr, error, true)),
      retrying: (error) => (link.dialError = error),
    });
  }

  /** A hello on a connection of `link` (none: refusing one we do not know). */
  #hello(link: Link | undefined, more: Partial<Hello> = {}): Frame {
    return helloFrame(this.addr, this.#port, link, more);
  }

  /** Serves a connection to `link`'s peer that we dialed or were handed. */
  #serve(transport: Transport, link: Link): void {
    if (!this.#opened(transport)) return;
    transport.setKeepAlive(this.serving);
    transport.listen({
      frame: (frame) => this.#received(transport, link, frame),
      close: (error) => {
        this.#open.delete(transport);
        this.#lost(link, transport, error);
      },
    });
  }

  /** A frame from `link`'s peer on `transport`: counted and handed on, unless it is the connection's own (hello, ack). */
  #received(transport: Transport, link: Link, frame: Frame): void {
    if (transport.closed) return; // the rest of a read whose connection was dropped (or superseded) part-way: sent again
    const header = link.incoming.decode(frame.header);
    if (header.kind === "ack") return void link.session.acked(header.received);
    if (header.kind === "hello") return this.#answered(transport, link, header);
    if (connectionFault("frame-received", header.kind)) return void transport.abort(); // a testing hook (fault-points.ts)
    link.session.received++;
    if (transport.overNetwork && !link.ackDue) ackSoon(link);
    this.events.frame(header, frame, link.addr);
  }

  /** The peer's hello on a connection we dialed: its end's name, or the answer to our resume. */
  #answered(transport: Transport, link: Link, hello: Hello): void {
    link.peerPid = hello.pid;
    link.session.peer ??= hello.session;
    if (link.resuming !== transport) return;
    if (hello.resumed && hello.session === link.session.peer && link.resume(transport, hello.received ?? 0, true)) return;
    transport.close();
    this.#gaveUp(link, new ConnectionError(`${link.addr} no longer knows this process: it took it for lost, or restarted`));
  }

  /** A connection of `link` closed (`error`: it failed): its peer is lost, unless a dropped connection can be made again. */
  #lost(link: Link, transport: Transport, error?: Error): void {
    const peer = link.addr;
    if (link.resuming === transport) {
      link.resuming = null;
      const why = `connection to ${peer} dropped again as it was made again${error ? `: ${error.message}` : ""}`;
      if (this.#links.get(peer) === link) this.#gaveUp(link, new ConnectionError(why));
      return;
    }
    if (this.#links.get(peer) !== link || link.transport !== transport) return;
    const stopping = this.#stopping.has(peer);
    if (transport.overNetwork && error && !(error instanceof FrameError) && !stopping) {
      link.detach();
      if (link.dialed) this.#dial(link, true);
      else if (!this.#children.has(peer)) link.giveUp = awaitDialAgain(link, (why) => this.#gaveUp(link, why));
      return;
    }
    if (this.#children.has(peer)) return;
    const stopped = this.#stopping.delete(peer);
    this.events.lost(peer, new ConnectionError(stopped ? `${peer} was stopped` : `connection to ${peer} closed${error ? `: ${error.message}` : ""}`), !stopped);
  }

  /** The connection of `link` that dropped could not be made again: its peer is lost. */
  #gaveUp(link: Link, error: ConnectionError): void {
    if (this.#links.get(link.addr) !== link) return;
    if (link.giveUp) clearTimeout(link.giveUp);
    link.giveUp = null;
    if (this.#children.has(link.addr)) return; // its exit (or its silence, the heartbeat) reports it
    this.events.lost(link.addr, error, !this.#stopping.delete(link.addr));
  }
}
