// Resuming a link whose TCP connection dropped while both processes live on
// (a reset, a NAT's timeout): the side that dialed it dials again (dialer.ts,
// within FRAY_RECONNECT_MS), both ends authenticate as on a first dial, and its
// hello asks the peer to resume the link by the names both ends gave it
// (session.ts); each end then sends again what the other did not receive. The
// side that was dialed waits as long for that dial, and no longer once it knows
// the peer's process has exited (a peer on this host: its pid is gone).
import { frameOf, type Frame } from "../../wire/frame.ts";
import { config, settingNow } from "../base/config.ts";
import { ConnectionError } from "../base/errors.ts";
import { encodeHeader } from "../base/header-codec.ts";
import type { Header, Hello } from "../base/messages.ts";
import { hostOf } from "./address.ts";
import type { Link } from "./link.ts";
import { isRunning } from "./listener.ts";
import { isThisHost } from "./reach.ts";

/** How long a receiver gathers what it received before acking it: one ack frame per link per interval, not one per message. */
const ACK_DELAY_MS = 20;

/** How often a dialed side that waits for a dial again checks that the peer's process (on this host) still runs. */
const PID_CHECK_MS = 100;

/** A hello from the proc at `addr` (listening on TCP `port`, if any) on a connection of `link`: who it is, where it listens, how far the link got. */
export function helloFrame(addr: string, port: number | undefined, link: Link | undefined, more: Partial<Hello>): Frame {
  const hello: Header = {
    kind: "hello",
    addr,
    pid: process.pid,
    ...(port === undefined ? {} : { port }),
    ...(link ? { session: link.session.id, peerSession: link.session.peer, received: link.session.received } : {}),
    ...more,
  };
  return frameOf(encodeHeader(hello));
}

/** Acks what `link` received from its peer, after a moment: one ack frame for every frame received meanwhile. */
export function ackSoon(link: Link): void {
  link.ackDue = true;
  setTimeout(() => {
    link.ackDue = false;
    const transport = link.transport;
    if (!transport || transport.closed || link.session.ackedToPeer === link.session.received) return;
    link.session.ackedToPeer = link.session.received;
    transport.send(frameOf(encodeHeader({ kind: "ack", received: link.session.received })));
  }, ACK_DELAY_MS).unref();
}

/** Why the resume `hello` asks for cannot be granted on `link` (our link to its sender, if any), or null when it can. */
export function resumeRefusal(link: Link | undefined, hello: Hello): string | null {
  if (!link || !link.keeping) return "no link to resume";
  if (hello.session === undefined || hello.session !== link.session.peer) return "another link";
  if (hello.peerSession !== undefined && hello.peerSession !== link.session.id) return "another link of ours";
  const received = hello.received ?? 0;
  return Number.isInteger(received) && received <= link.session.sent ? null : "more received than was sent";
}

/**
 * Waits for `link`'s peer to dial again: `giveUp` is called with why once FRAY_RECONNECT_MS has passed, or as soon
 * as the peer, on this host, is seen to have exited. Returns the timer, which the resume (or the link's end) clears.
 */
export function awaitDialAgain(link: Link, giveUp: (error: ConnectionError) => void): NodeJS.Timeout {
  const started = Date.now();
  const local = link.peerPid !== undefined && isThisHost(hostOf(link.addr).replace(/^\[|\]$/g, ""));
  const check = (): void => {
    if (local && !isRunning(link.peerPid!)) {
      return giveUp(new ConnectionError(`connection to ${link.addr} dropped, and its process (pid ${link.peerPid}) has exited`));
    }
    if (Date.now() - started >= config.reconnectMs) {
      return giveUp(new ConnectionError(`connection to ${link.addr} dropped, and it did not dial again within ${settingNow("reconnectMs")}`));
    }
    link.giveUp = setTimeout(check, local ? PID_CHECK_MS : Math.max(0, config.reconnectMs - (Date.now() - started))).unref();
  };
  return setTimeout(check, local ? 0 : config.reconnectMs).unref();
}
