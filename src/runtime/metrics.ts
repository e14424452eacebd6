// This process's metrics: one prom-client Registry, every metric declared here.
// Hot paths (a frame sent, a call run, a task finished) add to plain numbers
// in records kept below, and the registry reads those when it is scraped
// (prom-client's collect(), or for the latency histogram its get()), so
// counting costs a few additions per message (prom-client's own observe()
// hashes the labels each time: a quarter of a one-way message's cost). With
// FRAY_METRICS=0 every hot path checks `metricsOn` and does nothing more.
// Off by default: benchmark O1 measured them costing more than the 5% of a
// one-way message (P3) allowed for being on (reading the clock twice per call
// for the latency histogram is most of it); a round trip (P2) hardly notices.
// Labels stay bounded: actor class and endpoint name, message kind, actor
// class for failures and restarts; never per-call, per-actor or mesh ids.
import { Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValueWithName } from "prom-client";
import { config, settingName } from "./config.ts";

function readSwitch(): boolean {
  const value = config.metrics;
  if (value === "1") return true;
  if (value === "0") return false;
  throw new RangeError(`${settingName("metrics")}=${JSON.stringify(value)} is neither 1 (metrics on) nor 0 (off); give ${settingName("metrics")}=1 or ${settingName("metrics")}=0`);
}

/** Whether this process counts (FRAY_METRICS, read once when the runtime loads). */
export const metricsOn: boolean = readSwitch();

/** This process's registry. */
export const registry = new Registry();

type EndpointLabels = { class: string; endpoint: string };

/** What one actor class's endpoint did in this process. */
export interface EndpointStats {
  readonly labels: EndpointLabels;
  /** Messages this process sent to the endpoint (one per receiving actor), and their argument bytes (once per frame). */
  sent: number;
  sentBytes: number;
  /** Messages actors here received for it, and the argument bytes of their frames (once per frame). */
  received: number;
  receivedBytes: number;
  /** Calls that actors here started, and those that threw or rejected. */
  calls: number;
  errors: number;
  /** Calls that ended, by duration (from decoding their arguments to sending their result): `buckets[i]` counts those ≤ BOUNDS[i] (and > BOUNDS[i-1]); the last, longer ones. */
  readonly buckets: number[];
  /** Their total duration in seconds. */
  seconds: number;
}

/** Upper bounds of the endpoint-duration buckets, in seconds. */
const BOUNDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** When a call starts (its arguments not yet decoded), for callEnd. */
export function callStart(): number {
  return performance.now();
}

/** Counts a call that started at `start` (callStart) and ended now, its result sent. */
export function callEnd(stats: EndpointStats, start: number, failed: boolean): void {
  const seconds = (performance.now() - start) / 1000;
  let i = 0;
  while (i < BOUNDS.length && seconds > BOUNDS[i]) i++;
  stats.buckets[i]++;
  stats.seconds += seconds;
  if (failed) stats.errors++;
}

const endpoints = new Map<string, EndpointStats>();

type HistogramLabel = "class" | "endpoint" | "le";
type HistogramValues = MetricObjectWithValues<MetricValueWithName<HistogramLabel>>;

const DURATION = {
  name: "fray_endpoint_duration_seconds",
  help: "How long an actor in this process took to handle a call, from decoding its arguments to sending its result (async endpoints included)",
};

/** A prom-client Histogram whose values are read from the records (filled by observeCall) when scraped. */
class RecordedHistogram extends Histogram<HistogramLabel> {
  override async get(): Promise<HistogramValues> {
    const values: MetricValueWithName<HistogramLabel>[] = [];
    for (const s of endpoints.values()) {
      const count = s.buckets.reduce((a, b) => a + b, 0);
      if (count === 0) continue;
      let below = 0;
      BOUNDS.forEach((le, i) => values.push({ metricName: `${DURATION.name}_bucket`, labels: { ...s.labels, le }, value: (below += s.buckets[i]) }));
      values.push({ metricName: `${DURATION.name}_bucket`, labels: { ...s.labels, le: "+Inf" }, value: count });
      values.push({ metricName: `${DURATION.name}_sum`, labels: s.labels, value: s.seconds });
      values.push({ metricName: `${DURATION.name}_count`, labels: s.labels, value: count });
    }
    // As prom-client's Histogram reports itself (its typings declare the type as an enum it does not export).
    return { ...DURATION, type: "histogram", values, aggregator: "sum" } as unknown as HistogramValues;
  }

  /** What the registry's text format reads (prom-client's Histogram has its own; ours has the labels already merged). */
  getForPromString(): Promise<HistogramValues> {
    return this.get();
  }
}

new RecordedHistogram({
  ...DURATION,
  labelNames: ["class", "endpoint"],
  buckets: BOUNDS,
  registers: [registry],
});

/** The record for `className.endpoint`; callers keep it, so the hot path does no lookup. */
export function endpointStats(className: string, endpoint: string): EndpointStats {
  const key = `${className}\0${endpoint}`;
  let stats = endpoints.get(key);
  if (!stats) {
    const labels = { class: className, endpoint };
    stats = { labels, sent: 0, sentBytes: 0, received: 0, receivedBytes: 0, calls: 0, errors: 0, buckets: new Array<number>(BOUNDS.length + 1).fill(0), seconds: 0 };
    endpoints.set(key, stats);
  }
  return stats;
}

/** The bytes of an encoded value, attachments included. */
export function encodedBytes(e: { readonly body: Uint8Array; readonly attachments: readonly Uint8Array[] } | undefined): number {
  if (!e) return 0;
  let n = e.body.length;
  for (const a of e.attachments) n += a.byteLength;
  return n;
}

/** The bytes of a received frame's payload, attachments included. */
export function payloadBytes(frame: { readonly payload: Uint8Array; readonly attachments: readonly Uint8Array[] }): number {
  let n = frame.payload.length;
  for (const a of frame.attachments) n += a.byteLength;
  return n;
}

/** Frames and their bytes by message kind ("msg", "port", "buf.read", …: a fixed set). */
type FrameCounts = { n: number; bytes: number };
const framesOut = new Map<string, FrameCounts>();
const framesIn = new Map<string, FrameCounts>();

function countFrame(frames: Map<string, FrameCounts>, kind: string, bytes: number): void {
  let c = frames.get(kind);
  if (!c) frames.set(kind, (c = { n: 0, bytes: 0 }));
  c.n++;
  c.bytes += bytes;
}

export function countFrameOut(kind: string, bytes: number): void {
  countFrame(framesOut, kind, bytes);
}

export function countFrameIn(kind: string, bytes: number): void {
  countFrame(framesIn, kind, bytes);
}

/** The job layer's tasks, as counts; pending and running are derived from them. A retried task is requeued, not failed. */
export const taskStats = { submitted: 0, dispatched: 0, requeued: 0, done: 0, failedRunning: 0, failedQueued: 0 };

/** The job layer's object stores: entries, and the bytes of typed-array values (an estimate: other values count 0). */
export const objectStats = { entries: 0, bytes: 0 };

/** Mesh members that failed (a fault reported to their owner here), and actors started again, by actor class (mesh names can carry ids). */
const failures = new Map<string, number>();
const restarts = new Map<string, number>();

export function countFailure(className: string): void {
  if (metricsOn) failures.set(className, (failures.get(className) ?? 0) + 1);
}

export function countRestart(className: string): void {
  if (metricsOn) restarts.set(className, (restarts.get(className) ?? 0) + 1);
}

/** RemoteBuffer bytes moved between processes, by direction. */
export const transferStats = { read: 0, write: 0 };

/** Mailbox depths of this process's actors, as (class, depth) pairs; set by the Proc. */
let mailboxes: () => Iterable<[className: string, depth: number]> = () => [];

export function watchMailboxes(source: () => Iterable<[className: string, depth: number]>): void {
  mailboxes = source;
}

function counter<L extends string>(name: string, help: string, labelNames: readonly L[], fill: (c: Counter<L>) => void): void {
  new Counter<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      fill(this);
    },
  });
}

function gauge<L extends string>(name: string, help: string, labelNames: readonly L[], fill: (g: Gauge<L>) => void): void {
  new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      fill(this);
    },
  });
}

type EndpointField = "sent" | "sentBytes" | "received" | "receivedBytes" | "calls" | "errors";
const perEndpoint = (field: EndpointField) => (c: Counter<"class" | "endpoint">) => {
  for (const s of endpoints.values()) if (s[field] > 0) c.inc(s.labels, s[field]);
};
const perKind = (frames: Map<string, FrameCounts>, field: "n" | "bytes") => (c: Counter<"kind">) => {
  for (const [kind, f] of frames) if (f[field] > 0) c.inc({ kind }, f[field]);
};
const perClass = (map: Map<string, number>) => (c: Counter<"class">) => {
  for (const [cls, n] of map) c.inc({ class: cls }, n);
};

counter("fray_messages_sent_total", "Endpoint messages this process sent, one per receiving actor", ["class", "endpoint"], perEndpoint("sent"));
counter("fray_message_bytes_sent_total", "Argument bytes of the endpoint messages this process sent (once per frame, however many actors it reaches)", ["class", "endpoint"], perEndpoint("sentBytes"));
counter("fray_messages_received_total", "Endpoint messages delivered to actors in this process", ["class", "endpoint"], perEndpoint("received"));
counter("fray_message_bytes_received_total", "Argument bytes of the endpoint messages this process received (once per frame)", ["class", "endpoint"], perEndpoint("receivedBytes"));
counter("fray_endpoint_calls_total", "Calls that actors in this process started", ["class", "endpoint"], perEndpoint("calls"));
counter("fray_endpoint_errors_total", "Calls of actors in this process that threw or rejected", ["class", "endpoint"], perEndpoint("errors"));
counter("fray_frames_sent_total", "Frames this process sent, by message kind (calls, replies, heartbeats, buffer chunks, …)", ["kind"], perKind(framesOut, "n"));
counter("fray_frame_bytes_sent_total", "Bytes of the frames this process sent (header, payload and attachments), by message kind", ["kind"], perKind(framesOut, "bytes"));
counter("fray_frames_received_total", "Frames this process received, by message kind", ["kind"], perKind(framesIn, "n"));
counter("fray_frame_bytes_received_total", "Bytes of the frames this process received, by message kind", ["kind"], perKind(framesIn, "bytes"));
gauge("fray_mailbox_depth", "Messages waiting in the mailboxes of this process's actors, by actor class", ["class"], (g) => {
  const byClass = new Map<string, number>();
  for (const [cls, depth] of mailboxes()) byClass.set(cls, (byClass.get(cls) ?? 0) + depth);
  for (const [cls, depth] of byClass) g.set({ class: cls }, depth);
});
gauge("fray_tasks_pending", "Tasks submitted by this process and waiting for a worker", [], (g) => g.set(taskStats.submitted + taskStats.requeued - taskStats.dispatched - taskStats.failedQueued));
gauge("fray_tasks_running", "Tasks this process sent to a worker that have not finished (running, or queued at the worker)", [], (g) => g.set(taskStats.dispatched - taskStats.done - taskStats.failedRunning - taskStats.requeued));
counter("fray_tasks_done_total", "Tasks submitted by this process that returned a value", [], (c) => taskStats.done && c.inc(taskStats.done));
counter("fray_tasks_failed_total", "Tasks submitted by this process that failed (after their retries)", [], (c) => {
  const failed = taskStats.failedRunning + taskStats.failedQueued;
  if (failed) c.inc(failed);
});
counter("fray_tasks_retried_total", "Tasks submitted by this process that ran again because their worker died", [], (c) => taskStats.requeued && c.inc(taskStats.requeued));
gauge("fray_object_store_entries", "Entries (task results and put() values) in this process's object stores", [], (g) => g.set(objectStats.entries));
gauge("fray_object_store_bytes", "Bytes of typed-array and ArrayBuffer values in this process's object stores (an estimate: other values count 0)", [], (g) => g.set(objectStats.bytes));
counter("fray_actor_failures_total", "Members of meshes owned by this process that failed, by actor class", ["class"], perClass(failures));
counter("fray_actor_restarts_total", "Actors (and mesh ranks) this process started again after they died, by actor class", ["class"], perClass(restarts));
counter("fray_buffer_transfer_bytes_total", "RemoteBuffer bytes this process moved to or from another process, by direction", ["op"], (c) => {
  for (const op of ["read", "write"] as const) if (transferStats[op] > 0) c.inc({ op }, transferStats[op]);
});

/** This process's metrics in Prometheus text exposition format. */
export function metricsText(): Promise<string> {
  return registry.metrics();
}

/** This process's metrics as prom-client JSON (`getMetricsAsJSON()`), what `AggregatorRegistry.aggregate` merges. */
export function metricsJson(): Promise<MetricsJson> {
  return registry.getMetricsAsJSON() as Promise<MetricsJson>;
}

/** One process's metrics as JSON: prom-client's metric objects. */
export type MetricsJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;
