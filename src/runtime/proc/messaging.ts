// What most subsystems need of their Proc: to send to peers and ports, to open
// ports for replies, and to hear of lost peers. They take this, not the Proc,
// so none of them can reach into another through it.
import type { Encoded } from "../../wire/codec.ts";
import type { Header, PortRef } from "../base/messages.ts";
import type { PortHandler } from "../ports/port-inbox.ts";

/** Called when a peer process can no longer be reached. */
export type PeerLostHandler = (addr: string, error: Error, isFailure: boolean) => void;

export interface ProcMessaging {
  readonly addr: string;
  send(addr: string, header: Header, payload?: Encoded): void;
  sendToPort(ref: PortRef, rank: number, value: unknown, isError: boolean, strict?: boolean): void;
  openPort(handler: PortHandler): number;
  closePort(id: number): void;
  /** Calls `handler` whenever a peer is lost (`isFailure` false: it was stopped on purpose); returns the unsubscribe. */
  onPeerLost(handler: PeerLostHandler): () => void;
  /** Why `addr` is gone, if it is known to be. */
  lostPeer(addr: string): Error | undefined;
}
