// runtime/metrics: what a process counts (this file), its prom-client registry
// (registry.ts), collection across a mesh's processes (collect.ts), exposition as Prometheus
// text and JSON (exposition.ts) and the snapshot the dashboard reads (runtime-snapshot.ts).
//
// What this process counts for its metrics. Hot paths (a frame sent, a call
// run, a task finished) add to plain numbers in the records kept here; the
// prom-client registry (metrics/registry.ts, loaded only when metrics are read:
// prom-client takes ~50 ms to load, which every worker would pay at start)
// reads them when scraped. So counting costs a few additions per message
// (prom-client's own observe() hashes the labels each time: a quarter of a
// one-way message's cost). With FRAY_METRICS=0 every hot path checks
// `metricsOn` and does nothing more.
// On by default, so a first look at /metrics shows something: reading the
// clock (~0.2 µs on this VM) twice per call for the latency histogram cost a
// one-way message (P3) ~15% (benchmark O1), so the histogram times every call
// of an endpoint called less than about once a millisecond and one in up to
// FRAY_METRICS_DURATION_SAMPLE of a busier one (timedCallStart).
// Counts that repeat others are left to FRAY_METRICS=all (`metricsAll`): each
// endpoint's messages and bytes sent (the receiving processes count the
// messages), the bytes of the messages received, and frames received by kind
// (their senders count them by kind). With them a one-way message cost 4.3–5.2%
// more CPU than with metrics off, without them 1.0–2.2% (a time-paired probe like
// benchmark O1, two runs of ten rounds; O1 reads the default at 2.5–4.3%).
// Labels stay bounded: actor class and endpoint name, message kind, actor
// class for failures and restarts; never per-call, per-actor or mesh ids.
import type { Encoded } from "../../wire/codec.ts";
import { config, settingName } from "./config.ts";

type Level = "0" | "1" | "all";

function readLevel(): Level {
  const value = config.metrics;
  if (value === "0" || value === "1" || value === "all") return value;
  const name = settingName("metrics");
  throw new RangeError(
    `${name}=${JSON.stringify(value)} is not 0 (metrics off), 1 (on) or all (on, with the counts that repeat others); give ${name}=1, ${name}=all or ${name}=0`,
  );
}

const level = readLevel();

/** Whether this process counts (FRAY_METRICS 1 or all, read once when the runtime loads). */
export const metricsOn: boolean = level !== "0";

/**
 * Whether it also counts what other counts repeat (FRAY_METRICS=all): each endpoint's messages and bytes sent, the bytes of
 * the messages received, and frames received by kind. Each is counted per message, which a one-way message pays for (above).
 */
export const metricsAll: boolean = level === "all";

type EndpointLabels = { class: string; endpoint: string };

/** What one actor class's endpoint did in this process. */
export interface EndpointStats {
  readonly labels: EndpointLabels;
  /** Messages this process sent to the endpoint (one per receiving actor), and their argument bytes (once per frame): FRAY_METRICS=all. */
  sent: number;
  sentBytes: number;
  /** Messages actors here received for it, and (FRAY_METRICS=all) the argument bytes of their frames, once per frame. */
  received: number;
  receivedBytes: number;
  /** Calls of it that threw or rejected (every message received starts a call: fray_endpoint_calls_total is `received`). */
  errors: number;
  /** Calls that ended, by duration (from decoding their arguments to sending their result): `buckets[i]` counts those ≤ BOUNDS[i] (and >
   * BOUNDS[i-1]); the last, longer ones. */
  readonly buckets: number[];
  /** Their total duration in seconds. */
  seconds: number;
  /** Calls until the next one the histogram times (a countdown: no division per call), one in `every` (see timedCallStart). */
  untilTimed: number;
  every: number;
  /** When the last timed call started (performance.now()); -1 before the first. */
  lastTimed: number;
}

/** Upper bounds of the endpoint-duration buckets, in seconds. */
export const BOUNDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const durationSample = config.metricsDurationSample;
/** Timed calls of one endpoint are kept about this far apart (ms) when it is busy. */
const TIMED_SPACING_MS = 1;

/**
 * When a call counted in `stats.received` starts (its arguments not yet decoded), for callEnd; called when the call's
 * countdown `--stats.untilTimed` reaches 0, for the calls the duration histogram times (the rest start at -1). A clock read
 * costs ~0.2 µs on a VM (two per timed call), so an endpoint called more often than once a millisecond has one call in
 * `every` timed, `every` doubling (up to FRAY_METRICS_DURATION_SAMPLE) while timed calls come less than TIMED_SPACING_MS apart
 * and halving (down to 1: every call) while they come more than 4× that apart. Untimed calls read no clock.
 */
export function timedCallStart(stats: EndpointStats): number {
  const now = performance.now();
  if (stats.lastTimed >= 0) {
    const gap = now - stats.lastTimed;
    if (gap < TIMED_SPACING_MS) stats.every = Math.min(stats.every * 2, durationSample);
    else if (gap > 4 * TIMED_SPACING_MS) stats.every = Math.max(stats.every >> 1, 1);
  }
  stats.lastTimed = now;
  stats.untilTimed = stats.every;
  return now;
}

/** Counts a call that started at `start` (timedCallStart, or -1) and ended now, its result sent. */
export function callEnd(stats: EndpointStats, start: number, failed: boolean): void {
  if (failed) stats.errors++;
  if (start < 0) return;
  const seconds = (performance.now() - start) / 1000;
  let i = 0;
  while (i < BOUNDS.length && seconds > BOUNDS[i]) i++;
  stats.buckets[i]++;
  stats.seconds += seconds;
}

const endpoints = new Map<string, EndpointStats>();

/** Every endpoint's record so far. */
export function endpointRecords(): Iterable<EndpointStats> {
  return endpoints.values();
}

/** The record for `className.endpoint`; callers keep it, so the hot path does no lookup. */
export function endpointStats(className: string, endpoint: string): EndpointStats {
  const key = `${className}\0${endpoint}`;
  let stats = endpoints.get(key);
  if (!stats) {
    const labels = { class: className, endpoint };
    stats = {
      labels,
      sent: 0,
      sentBytes: 0,
      received: 0,
      receivedBytes: 0,
      errors: 0,
      buckets: new Array<number>(BOUNDS.length + 1).fill(0),
      seconds: 0,
      untilTimed: 1,
      every: 1,
      lastTimed: -1,
    };
    endpoints.set(key, stats);
  }
  return stats;
}

/** Counts a call sent to `groups` (the processes of its ranks): a message per rank, and its argument bytes once per frame. */
export function countSent(stats: EndpointStats, groups: readonly { readonly ranks: readonly number[] }[], payload: Encoded): void {
  const bytes = encodedBytes(payload);
  for (let i = 0; i < groups.length; i++) {
    // per message: no iterator
    stats.sent += groups[i].ranks.length;
    stats.sentBytes += bytes;
  }
}

/** The bytes of an encoded value, attachments included. */
export function encodedBytes(e: Encoded | undefined): number {
  if (!e) return 0;
  let n = e.body.length;
  const { attachments } = e;
  for (let i = 0; i < attachments.length; i++) n += attachments[i].byteLength; // on every frame: no iterator
  return n;
}

/** The bytes of a received frame's payload, attachments included. */
export function payloadBytes(frame: { readonly payload: Uint8Array; readonly attachments: readonly Uint8Array[] }): number {
  let n = frame.payload.length;
  const { attachments } = frame;
  for (let i = 0; i < attachments.length; i++) n += attachments[i].byteLength;
  return n;
}

/** Frames and their bytes by message kind ("msg", "port", "buf.read", …: a fixed set). */
export type FrameCounts = { n: number; bytes: number };
/** Frames sent and received, by message kind. */
export const framesOut = new Map<string, FrameCounts>();
export const framesIn = new Map<string, FrameCounts>();

/** Adds a frame of `bytes` to `c`. */
export function addFrame(c: FrameCounts, bytes: number): void {
  c.n++;
  c.bytes += bytes;
}

/** The bytes of a received frame: its header's and its payload's, attachments included. */
export function frameBytes(frame: { readonly header: Uint8Array; readonly payload: Uint8Array; readonly attachments: readonly Uint8Array[] }): number {
  return frame.header.length + payloadBytes(frame);
}

/** The record of `kind` in `frames`, made on first use; a Proc's routes keep the received one of each kind they serve. */
export function frameCounts(frames: Map<string, FrameCounts>, kind: string): FrameCounts {
  let c = frames.get(kind);
  if (!c) frames.set(kind, (c = { n: 0, bytes: 0 }));
  return c;
}

// Frames sent come in runs of one kind (a burst of calls), so the last kind's record is kept at hand: most frames cost a
// compare of two interned strings (kinds are literals where frames are sent) and two additions, not a Map lookup.
const lastOut = { kind: "", counts: { n: 0, bytes: 0 } as FrameCounts };

/** Counts a frame sent: its header's bytes and its payload's (attachments included), computed here so a send's own code stays small. */
export function countFrameOut(kind: string, headerBytes: number, payload: Encoded | undefined): void {
  let c = lastOut.counts;
  if (kind !== lastOut.kind) {
    c = lastOut.counts = frameCounts(framesOut, kind);
    lastOut.kind = kind;
  }
  addFrame(c, headerBytes + encodedBytes(payload));
}

/** Counts a frame received of a kind no route keeps the record of (routes.ts counts the rest); with FRAY_METRICS=all. */
export function countFrameIn(kind: string, bytes: number): void {
  addFrame(frameCounts(framesIn, kind), bytes);
}

/** Mesh members that failed (a fault reported to their owner here), and actors started again, by actor class (mesh names can carry ids). */
export const failures = new Map<string, number>();
export const restarts = new Map<string, number>();

export function countFailure(className: string): void {
  if (metricsOn) failures.set(className, (failures.get(className) ?? 0) + 1);
}

export function countRestart(className: string): void {
  if (metricsOn) restarts.set(className, (restarts.get(className) ?? 0) + 1);
}

/** RemoteBuffer bytes moved between processes, by direction. */
export const transferStats = { read: 0, write: 0 };

let mailboxSource: () => Iterable<[className: string, depth: number]> = () => [];

/** Mailbox depths of this process's actors, as (class, depth) pairs; from the Proc. */
export function mailboxes(): Iterable<[className: string, depth: number]> {
  return mailboxSource();
}

export function watchMailboxes(source: () => Iterable<[className: string, depth: number]>): void {
  mailboxSource = source;
}
