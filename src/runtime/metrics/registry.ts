// This process's prom-client registry: every metric family, declared once,
// reading the records base/counters.ts keeps when scraped. Loaded on first read
// (metricsText, metricsJson, or another process asking), not at start.
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValueWithName } from "prom-client";
import { BOUNDS, endpointRecords, failures, framesIn, framesOut, mailboxes, restarts, transferStats, type FrameCounts } from "../base/counters.ts";
import { eachDeclaredMetric, readDeclared } from "./declared-metrics.ts";

/** This process's registry. */
export const registry = new Registry();

type HistogramLabel = "class" | "endpoint" | "le";
type HistogramValues = MetricObjectWithValues<MetricValueWithName<HistogramLabel>>;

const DURATION = {
  name: "fray_endpoint_duration_seconds",
  help:
    "How long an actor in this process took to handle a call, from decoding its arguments to sending its result (async endpoints included); " +
    "one call in FRAY_METRICS_DURATION_SAMPLE per endpoint is timed",
};

/** A prom-client Histogram whose values are read from the records (filled by observeCall) when scraped. */
class RecordedHistogram extends Histogram<HistogramLabel> {
  override async get(): Promise<HistogramValues> {
    const values: MetricValueWithName<HistogramLabel>[] = [];
    for (const s of endpointRecords()) {
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

type EndpointField = "sent" | "sentBytes" | "received" | "receivedBytes" | "errors";
const perEndpoint = (field: EndpointField) => (c: Counter<"class" | "endpoint">) => {
  for (const s of endpointRecords()) if (s[field] > 0) c.inc(s.labels, s[field]);
};
const perKind = (frames: Map<string, FrameCounts>, field: "n" | "bytes") => (c: Counter<"kind">) => {
  for (const [kind, f] of frames) if (f[field] > 0) c.inc({ kind }, f[field]);
};
const perClass = (map: Map<string, number>) => (c: Counter<"class">) => {
  for (const [cls, n] of map) c.inc({ class: cls }, n);
};

// Counted with FRAY_METRICS=all only (counters.ts says why); their help says so, for a reader who finds them empty.
const ALL = " (counted with FRAY_METRICS=all)";
counter("fray_messages_sent_total", `Endpoint messages this process sent, one per receiving actor${ALL}`, ["class", "endpoint"], perEndpoint("sent"));
counter(
  "fray_message_bytes_sent_total",
  `Argument bytes of the endpoint messages this process sent (once per frame, however many actors it reaches)${ALL}`,
  ["class", "endpoint"],
  perEndpoint("sentBytes"),
);
counter("fray_messages_received_total", "Endpoint messages delivered to actors in this process", ["class", "endpoint"], perEndpoint("received"));
counter(
  "fray_message_bytes_received_total",
  `Argument bytes of the endpoint messages this process received (once per frame)${ALL}`,
  ["class", "endpoint"],
  perEndpoint("receivedBytes"),
);
// Every message delivered to an actor starts a call, so one count serves both.
counter("fray_endpoint_calls_total", "Calls that actors in this process started", ["class", "endpoint"], perEndpoint("received"));
counter("fray_endpoint_errors_total", "Calls of actors in this process that threw or rejected", ["class", "endpoint"], perEndpoint("errors"));
counter(
  "fray_frames_sent_total",
  "Frames this process sent, by message kind (calls, replies, heartbeats, buffer chunks, …)",
  ["kind"],
  perKind(framesOut, "n"),
);
counter(
  "fray_frame_bytes_sent_total",
  "Bytes of the frames this process sent (header, payload and attachments), by message kind",
  ["kind"],
  perKind(framesOut, "bytes"),
);
counter("fray_frames_received_total", `Frames this process received, by message kind${ALL}`, ["kind"], perKind(framesIn, "n"));
counter("fray_frame_bytes_received_total", `Bytes of the frames this process received, by message kind${ALL}`, ["kind"], perKind(framesIn, "bytes"));
gauge("fray_mailbox_depth", "Messages waiting in the mailboxes of this process's actors, by actor class", ["class"], (g) => {
  const byClass = new Map<string, number>();
  for (const [cls, depth] of mailboxes()) byClass.set(cls, (byClass.get(cls) ?? 0) + depth);
  for (const [cls, depth] of byClass) g.set({ class: cls }, depth);
});
counter("fray_actor_failures_total", "Members of meshes owned by this process that failed, by actor class", ["class"], perClass(failures));
counter("fray_actor_restarts_total", "Actors (and mesh ranks) this process started again after they died, by actor class", ["class"], perClass(restarts));
counter("fray_buffer_transfer_bytes_total", "RemoteBuffer bytes this process moved to or from another process, by direction", ["op"], (c) => {
  for (const op of ["read", "write"] as const) if (transferStats[op] > 0) c.inc({ op }, transferStats[op]);
});

// The layers above count their own (the job layer's tasks and object stores: src/job/base/metrics.ts).
eachDeclaredMetric(({ type, name, help, label }) => {
  /** Each value now with its labels (none, or the metric's one label). */
  const each = (set: (labels: Record<string, string>, n: number) => void) => {
    const value = readDeclared(name);
    if (typeof value === "number") return set({}, value);
    for (const [key, n] of Object.entries(value)) set({ [label!]: key }, n);
  };
  const labels = label ? [label] : [];
  if (type === "gauge") gauge(name, help, labels, (g) => each((l, n) => g.set(l, n)));
  else counter(name, help, labels, (c) => each((l, n) => n && c.inc(l, n)));
});

/** This process's metrics in Prometheus text exposition format. */
export function metricsText(): Promise<string> {
  return registry.metrics();
}

/** Merges the metrics JSON of several processes: counters, histogram buckets and gauges add up. */
export function mergeMetrics(jsons: readonly MetricsJson[]): Registry {
  return AggregatorRegistry.aggregate(jsons as MetricsJson[]);
}

/** This process's metrics as prom-client JSON (`getMetricsAsJSON()`), what `AggregatorRegistry.aggregate` merges. */
export function metricsJson(): Promise<MetricsJson> {
  return registry.getMetricsAsJSON() as Promise<MetricsJson>;
}

/** One process's metrics as JSON: prom-client's metric objects. */
export type MetricsJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;
