// The dashboard's view of runtime metrics: from prom-client JSON (what the
// runtime's metrics collection gives, merged over a process's procs) it
// derives per-endpoint latency, task counts and per-class mailbox depth and
// message rate, and serves the text at /metrics. Metrics are labelled by actor
// class, never by actor, so an actor's row shows its class's figures.
import type { DashboardSources, LatencyRow, ObjectsSnapshot, TasksSnapshot } from "./rows.ts";

/** One metric as prom-client's `getMetricsAsJSON()` gives it. */
export interface MetricFamily {
  readonly name: string;
  readonly values: readonly { readonly labels: Readonly<Partial<Record<string, string | number>>>; readonly value: number; readonly metricName?: string }[];
}

/** What a metrics collection returns: Prometheus text and the same as JSON. */
export interface MetricsSnapshot {
  readonly text: string;
  readonly json: readonly MetricFamily[];
}

const DURATION = "fray_endpoint_duration_seconds";

/** Sources over `collect` (asked at most once per `reuseMs`, however many sources read it). */
export function metricsSources(collect: () => Promise<MetricsSnapshot>, reuseMs = 250): DashboardSources {
  let last: { at: number; snapshot: Promise<MetricsSnapshot> } | null = null;
  const snapshot = () => {
    const now = Date.now();
    if (!last || now - last.at > reuseMs) last = { at: now, snapshot: collect() };
    return last.snapshot;
  };
  const rate = new RateOf();
  return {
    metrics: async () => (await snapshot()).text,
    latency: async () => latencyRows((await snapshot()).json),
    tasks: async () => taskCounts((await snapshot()).json),
    objects: async () => objectFigures((await snapshot()).json),
    actorLoad: async () => {
      const json = (await snapshot()).json;
      const depth = byClass(json, "fray_mailbox_depth");
      const rates = rate.perSec(byClass(json, "fray_messages_received_total"));
      return [...new Set([...depth.keys(), ...rates.keys()])].map((className) => ({
        actor: className,
        className,
        mailboxDepth: depth.get(className),
        messagesPerSec: rates.get(className),
      }));
    },
  };
}

/** Calls, mean and p50/p99 per `Class.endpoint`, from the duration histogram's buckets. */
export function latencyRows(json: readonly MetricFamily[]): LatencyRow[] {
  const family = json.find((m) => m.name === DURATION);
  const byEndpoint = new Map<string, { buckets: [number, number][]; count: number; sum: number }>();
  for (const v of family?.values ?? []) {
    const key = `${v.labels.class}.${v.labels.endpoint}`;
    let e = byEndpoint.get(key);
    if (!e) byEndpoint.set(key, (e = { buckets: [], count: 0, sum: 0 }));
    const name = v.metricName ?? "";
    if (name.endsWith("_bucket")) e.buckets.push([v.labels.le === "+Inf" ? Infinity : Number(v.labels.le), v.value]);
    else if (name.endsWith("_count")) e.count = v.value;
    else if (name.endsWith("_sum")) e.sum = v.value;
  }
  return [...byEndpoint]
    .filter(([, e]) => e.count > 0)
    .map(([endpoint, e]) => {
      const buckets = e.buckets.sort((a, b) => a[0] - b[0]);
      return {
        endpoint,
        count: e.count,
        meanMs: (e.sum / e.count) * 1000,
        p50Ms: quantile(buckets, e.count, 0.5) * 1000,
        p99Ms: quantile(buckets, e.count, 0.99) * 1000,
      };
    })
    .sort((a, b) => a.endpoint.localeCompare(b.endpoint));
}

/** The `q` quantile of cumulative buckets (upper bound, count ≤ it), interpolated within its bucket. */
export function quantile(buckets: readonly [number, number][], count: number, q: number): number {
  const rank = q * count;
  let lower = 0;
  let below = 0;
  for (const [le, cumulative] of buckets) {
    if (cumulative >= rank) {
      if (!Number.isFinite(le)) return lower; // past the last bound: the best we know
      return lower + (le - lower) * ((rank - below) / Math.max(cumulative - below, 1));
    }
    [lower, below] = [le, cumulative];
  }
  return lower;
}

function taskCounts(json: readonly MetricFamily[]): TasksSnapshot {
  const total = (name: string) => json.find((m) => m.name === name)?.values.reduce((n, v) => n + v.value, 0) ?? 0;
  return {
    counts: {
      pending: total("fray_tasks_pending"),
      running: total("fray_tasks_running"),
      done: total("fray_tasks_done_total"),
      failed: total("fray_tasks_failed_total"),
    },
  };
}

/** What the processes hold of large values, and how those values were read (0 where a metric is absent). */
export function objectFigures(json: readonly MetricFamily[]): ObjectsSnapshot {
  const total = (name: string) => metricTotal(json, name) ?? 0;
  const transferBytes: Record<string, number> = {};
  for (const v of json.find((m) => m.name === "fray_object_transfer_bytes_total")?.values ?? []) {
    const path = String(v.labels.path);
    transferBytes[path] = (transferBytes[path] ?? 0) + v.value;
  }
  return {
    heldBytes: total("fray_object_held_bytes"),
    spilledBytes: total("fray_object_spilled_bytes"),
    spilledBytesTotal: total("fray_object_spilled_bytes_total"),
    restoredBytesTotal: total("fray_object_restored_bytes_total"),
    transferBytes,
  };
}

/** Every endpoint's duration buckets added up: cumulative [upper bound in seconds, count], by bound. */
export function allEndpointBuckets(json: readonly MetricFamily[]): [number, number][] {
  const byLe = new Map<number, number>();
  for (const v of json.find((m) => m.name === DURATION)?.values ?? []) {
    if (!(v.metricName ?? "").endsWith("_bucket")) continue;
    const le = v.labels.le === "+Inf" ? Infinity : Number(v.labels.le);
    byLe.set(le, (byLe.get(le) ?? 0) + v.value);
  }
  return [...byLe].sort((a, b) => a[0] - b[0]);
}

/** The sum of a metric's values, those whose labels match `where` (all without it); undefined if there is no such metric. */
export function metricTotal(json: readonly MetricFamily[], name: string, where: Readonly<Record<string, string>> = {}): number | undefined {
  const family = json.find((m) => m.name === name);
  if (!family) return undefined;
  return family.values.filter((v) => Object.entries(where).every(([k, x]) => v.labels[k] === x)).reduce((n, v) => n + v.value, 0);
}

function byClass(json: readonly MetricFamily[], name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of json.find((m) => m.name === name)?.values ?? []) {
    const c = String(v.labels.class);
    out.set(c, (out.get(c) ?? 0) + v.value);
  }
  return out;
}

/** Rates of counters between one reading and the next. */
class RateOf {
  #previous: { at: number; values: Map<string, number> } | null = null;

  perSec(values: Map<string, number>): Map<string, number> {
    const now = Date.now();
    const rates = new Map<string, number>();
    const previous = this.#previous;
    if (previous && now > previous.at) {
      for (const [k, v] of values) rates.set(k, Math.max(0, v - (previous.values.get(k) ?? 0)) / ((now - previous.at) / 1000));
    }
    this.#previous = { at: now, values };
    return rates;
  }
}
