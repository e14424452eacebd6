// Bulk connections: a second authenticated connection to a peer over TCP (the
// same dial, TLS and token proof as the main one), used only by RemoteBuffer
// transfers, so their chunks never queue in front of control messages on the
// main link, nor behind them. The reader dials; its first frame is a hello
// with `bulk: true`; the owner answers each chunk request on the same
// connection. Losing the peer is still decided by the main link.
import { encode, type Encoded } from "../../wire/codec.ts";
import { frameOf, type Frame } from "../../wire/frame.ts";
import { HeaderDecoder } from "../../wire/header-table.ts";
import { decodeHeader, encodeHeader } from "../base/header-codec.ts";
import type { Transport } from "../../wire/transport.ts";
import { config } from "../base/config.ts";
import { dial } from "../net/dialer.ts";
import { ConnectionError } from "../base/errors.ts";
import type { Header, PortRef } from "../base/messages.ts";
import { SubsystemKey } from "../proc/subsystems.ts";

export interface BulkLink {
  send(header: Header, payload?: Encoded): void;
  /** Calls `handler` with why if the connection closes; returns the unsubscribe. */
  onClose(handler: (error: Error) => void): () => void;
  /**
   * Has a value of one out-of-band attachment replied to port `port` (a chunk) land where `at(its length)` says, copied
   * from the socket straight there, not into a frame buffer first; null from `at` keeps the usual path. Returns the undo.
   */
  land(port: number, at: (length: number) => Uint8Array | null): () => void;
}

type Locate = (worker: string, addr: string, deadline: number) => Promise<number>;
type OnFrame = (header: Header, frame: Frame, peer: string) => void;

export const BULK_LINKS = new SubsystemKey<BulkLinks>("bulk link set");

export class BulkLinks {
  #links = new Map<string, Promise<BulkLink>>();
  /** Why a bulk connection being dialed has not connected yet, while its dial retries. */
  #dialErrors = new Map<string, Error>();

  constructor(
    private readonly addr: string,
    private readonly locate: Locate,
    private readonly onFrame: OnFrame,
  ) {}

  /** The bulk connection to the proc at `addr`, dialed on first use. */
  get(addr: string): Promise<BulkLink> {
    let link = this.#links.get(addr);
    if (!link) {
      link = this.#dial(addr);
      this.#links.set(addr, link);
      link.catch(() => this.#links.delete(addr));
    }
    return link;
  }

  /** Why the bulk connection to `addr` has not connected yet, while its dial retries a peer that does not listen (yet). */
  dialError(addr: string): Error | undefined {
    return this.#dialErrors.get(addr);
  }

  #dial(addr: string): Promise<BulkLink> {
    return new Promise((resolve, reject) => {
      dial(addr, Date.now() + config.connectTimeoutMs, {
        wanted: () => true,
        inPlace: true,
        locate: this.locate,
        retrying: (error) => this.#dialErrors.set(addr, error),
        failed: (error) => {
          this.#dialErrors.delete(addr);
          reject(error);
        },
        connected: (transport) => {
          this.#dialErrors.delete(addr);
          transport.setKeepAlive(false); // a transfer in progress holds the process instead
          transport.send(frameOf(encodeHeader({ kind: "hello", addr: this.addr, pid: process.pid, bulk: true } satisfies Header)));
          const headers = new HeaderDecoder(decodeHeader);
          const watchers = new Set<(error: Error) => void>();
          const landings = new Map<number, (length: number) => Uint8Array | null>();
          let landed: Header | null = null; // the header of the frame a landing decoded (the decoder's table must see each header once)
          transport.landAttachments?.((header, _payload, lengths) => {
            const decoded = headers.decode(header);
            landed = decoded;
            const at = decoded.kind === "port" && !decoded.isError && lengths.length === 1 ? landings.get(decoded.id) : undefined;
            const dest = at?.(lengths[0]);
            return dest ? [dest] : null;
          });
          transport.listen({
            frame: (frame) => {
              const header = landed ?? headers.decode(frame.header);
              landed = null;
              this.onFrame(header, frame, addr);
            },
            close: (error) => {
              this.#links.delete(addr);
              const why = new ConnectionError(`bulk connection to ${addr} closed${error ? `: ${error.message}` : ""}`);
              for (const w of [...watchers]) w(why);
            },
          });
          resolve({
            send: (header, payload) => transport.send(frameOf(encodeHeader(header), payload)),
            onClose: (handler) => (watchers.add(handler), () => watchers.delete(handler)),
            land: (port, at) => (landings.set(port, at), () => landings.delete(port)),
          });
        },
      });
    });
  }
}

/** Answers a chunk request on the bulk connection it came by, as a port message; `sent` once the value's memory is written. */
export function replyOn(transport: Transport): (ref: PortRef, value: unknown, isError: boolean, sent?: () => void) => void {
  return (ref, value, isError, sent) => {
    const header: Header = isError ? { kind: "port", id: ref.id, rank: 0, isError: true } : { kind: "port", id: ref.id, rank: 0 };
    let payload: Encoded;
    try {
      payload = encode(value);
    } catch {
      payload = encode(new Error(String((value as Error)?.message ?? value)));
    }
    transport.send(frameOf(encodeHeader(header), payload), sent);
  };
}
