// How a Proc dials a peer: while the peer is not listening yet it retries,
// backing off up to 100 ms, until the deadline, unless the refusal says it
// never will (refusals.ts); over TCP it speaks TLS when this process has
// certificates; then both sides prove they know the session token (or, in a
// process that joined a cluster's namespace, the token the peer accepts). A proc
// behind a worker is dialed at the port its worker reports. A dial again, after
// a TCP connection dropped, retries what a network does while it recovers
// (timeouts, unreachable hosts) until its deadline, but not a refusal: the peer
// listened there, so one means its process has exited.
import { createConnection, type NetConnectOpts, type Socket } from "node:net";
import { AuthenticationError, authenticateServer } from "../../wire/auth.ts";
import { SocketTransport } from "../../wire/socket-transport.ts";
import { InPlaceReads } from "../../wire/in-place-reads.ts";
import type { Transport } from "../../wire/transport.ts";
import { connectOptions, tcpHostPort, workerOf } from "./address.ts";
import { config, settingName, settingNow } from "../base/config.ts";
import { tls, tokenAccepted, tokensFor } from "./credentials.ts";
import { ConnectionError } from "../base/errors.ts";
import { nodeTls } from "../code/lazy-builtins.ts";
import { finalRefusal } from "./refusals.ts";

export interface DialHandlers {
  /** Whether the connection is still wanted (its link was not dropped meanwhile); an unwanted dial stops quietly. */
  wanted(): boolean;
  /** The port of the proc at `addr`, asked of its worker at `worker`; rejects at `deadline`. */
  locate(worker: string, addr: string, deadline: number): Promise<number>;
  /** The peer proved it knows the token: the connection, ready to carry frames. */
  connected(transport: Transport): void;
  /** The peer cannot be reached (only called while wanted). */
  failed(error: ConnectionError): void;
  /** The peer is not listening (yet): why, each time before the dial tries again. */
  retrying?(error: ConnectionError): void;
  /** A dial again of a peer whose connection dropped (see above). */
  readonly again?: boolean;
  /** Received attachments that land in their destinations are read straight there (../../wire/in-place-reads.ts; not over TLS). */
  readonly inPlace?: boolean;
}

/** Errors of a dial again that a network recovering from a fault gives: tried again until the deadline. */
const TRANSIENT = new Set(["ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENETDOWN", "ECONNRESET", "ECONNABORTED", "EPIPE", "EAI_AGAIN"]);

/** Connects to the proc at `addr`, retrying until `deadline` (epoch ms) while it does not listen yet. */
export function dial(addr: string, deadline: number, handlers: DialHandlers): void {
  attempt(addr, deadline, handlers, 1);
}

/** Dial attempt number `n`. */
function attempt(addr: string, deadline: number, handlers: DialHandlers, n: number): void {
  const worker = workerOf(addr);
  if (!worker) {
    dialAt(addr, connectOptions(addr), deadline, handlers, n);
    return;
  }
  // A proc behind a worker: the worker says which port the OS gave it.
  handlers.locate(worker, addr, deadline).then(
    (port) => dialAt(addr, { host: tcpHostPort(worker).host, port }, deadline, handlers, n),
    (err: Error) => {
      if (handlers.wanted()) handlers.failed(new ConnectionError(`cannot connect to ${addr}: ${err.message}`, { cause: err }));
    },
  );
}

/** `tokenAt`: which of tokensFor(addr) to prove (a process that joined a cluster's namespace holds more than one). */
function dialAt(addr: string, options: NetConnectOpts, deadline: number, handlers: DialHandlers, n: number, tokenAt = 0): void {
  const material = "port" in options ? tls() : null;
  // With TLS the peer's identity is its certificate from the shared CA, not its host name.
  const reads = handlers.inPlace && !material ? new InPlaceReads() : null;
  const socket: Socket = material
    ? nodeTls().connect({ ...options, ...material, checkServerIdentity: () => undefined })
    : createConnection(reads ? { ...options, onread: reads.onread } : options);
  reads?.attach(socket);
  socket.unref();
  // A dial again gives up at its deadline even where the network swallows the attempt (no answer at all).
  const cutOff = handlers.again
    ? setTimeout(() => socket.destroy(Object.assign(new Error("no answer"), { code: "ETIMEDOUT" })), Math.max(0, deadline - Date.now())).unref()
    : null;
  const onError = (err: NodeJS.ErrnoException) => {
    if (cutOff) clearTimeout(cutOff);
    if (!handlers.wanted()) return;
    if (handlers.again) return void againAfter(addr, err, deadline, handlers, n);
    const retriable = err.code === "ENOENT" || err.code === "ECONNREFUSED";
    const final = retriable ? finalRefusal(addr, err, n) : null;
    const error = (why: string) => new ConnectionError(`cannot connect to ${addr}: ${err.message}${why}`, { cause: err });
    if (!retriable || final !== null) {
      handlers.failed(error(final === null ? "" : ` — ${final}`));
    } else if (Date.now() >= deadline) {
      handlers.failed(error(` (retried until ${settingNow("connectTimeoutMs")} ran out)`));
    } else {
      handlers.retrying?.(error(` (retrying until ${settingNow("connectTimeoutMs")} runs out)`));
      setTimeout(() => attempt(addr, deadline, handlers, n + 1), Math.min(2 ** (n - 1), 100)).unref();
    }
  };
  socket.once("error", onError);
  const tokens = tokensFor(addr);
  // The peer refused this token: try the next one on a new connection (it closes the one that proved a wrong token).
  const next = tokenAt + 1 < tokens.length ? () => dialAt(addr, options, deadline, handlers, n, tokenAt + 1) : null;
  socket.once(material ? "secureConnect" : "connect", () => {
    if (cutOff) clearTimeout(cutOff);
    authenticate(addr, socket, reads, onError, handlers, tokens[tokenAt], next);
  });
}

/** A dial again failed with `err`: tried again, backing off up to half a second, while the network may recover. */
function againAfter(addr: string, err: NodeJS.ErrnoException, deadline: number, handlers: DialHandlers, n: number): void {
  const error = (why: string) => new ConnectionError(`cannot connect to ${addr} again: ${err.message}${why}`, { cause: err });
  if (!TRANSIENT.has(err.code ?? "")) {
    const refused = err.code === "ECONNREFUSED" || err.code === "ENOENT";
    handlers.failed(error(refused ? " — it listened there and no longer does: its process has exited" : ""));
  } else if (Date.now() >= deadline) {
    handlers.failed(error(` (dialed again until ${settingNow("reconnectMs")} ran out)`));
  } else {
    handlers.retrying?.(error(` (dialing again until ${settingNow("reconnectMs")} runs out)`));
    setTimeout(() => attempt(addr, deadline, handlers, n + 1), Math.min(10 * 2 ** (n - 1), 500)).unref();
  }
}

/** Proves our token to the peer (and checks it knows it too), then the connection carries frames. */
function authenticate(
  addr: string,
  socket: Socket,
  reads: InPlaceReads | null,
  onError: (err: NodeJS.ErrnoException) => void,
  handlers: DialHandlers,
  token: string,
  next: (() => void) | null,
): void {
  authenticateServer(socket, token, config.authTimeoutMs).then(
    () => {
      socket.off("error", onError);
      tokenAccepted(addr, token);
      handlers.connected(new SocketTransport(socket, { bytes: config.maxFrameBytes, setting: settingName("maxFrameBytes") }, reads));
    },
    (err: Error) => {
      socket.destroy();
      if (next && err instanceof AuthenticationError && handlers.wanted()) next();
      else if (handlers.wanted()) {
        handlers.failed(
          new ConnectionError(`cannot connect to ${addr}: ${err.message} (is the token, ${settingName("token")} or a token option, the same on both sides?)`, {
            cause: err,
          }),
        );
      }
    },
  );
}
