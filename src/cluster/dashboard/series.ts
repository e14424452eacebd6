// The dashboard's charts: figures sampled over the last minutes (at most one
// sample per SAMPLE_MS, taken while pages or APIs ask: a dashboard nobody
// looks at samples nothing) and turned into rates between samples: tasks
// finished, endpoint messages, frame bytes, RemoteBuffer and collective bytes
// per second and endpoint latency p50/p99 of the calls that ended, each over
// the last RATE_WINDOW_MS, and each process's CPU use and resident memory.
import { allEndpointBuckets, metricTotal, quantile, type MetricFamily } from "./metrics.ts";
import type { Series, SeriesPoint } from "./rows.ts";

/** What one sample reads. */
export interface SampleInput {
  /** Merged metrics of every process shown (empty with metrics off). */
  readonly metrics: readonly MetricFamily[];
  /** Tasks finished (done or failed) so far, if known. */
  readonly tasksEnded?: number;
  /** When the metrics and task counts were taken (reports are written every few seconds); default: now. */
  readonly dataTime?: number;
  /** Each with when its figures were taken (default: now). */
  readonly processes: readonly {
    readonly key: string;
    readonly label: string;
    readonly cpuSeconds: number;
    readonly rssBytes: number;
    readonly time?: number;
  }[];
}

/** At most one sample per this many ms, kept for KEEP_MS. */
const SAMPLE_MS = 1_000;
/** Processes a point keeps: the busiest by CPU and the largest by memory, this many of each (the page draws fewer). */
const PROCESSES_KEPT = 8;
const KEEP_MS = 5 * 60_000;
/**
 * Rates are taken over at least this long: the figures of a cluster's jobs come from reports each process
 * writes every FRAY_REPORT_INTERVAL_MS, at its own moment, so between two close samples some have moved and
 * some not yet (a rate over one sample would see-saw between 0 and twice the truth).
 */
const RATE_WINDOW_MS = 3_000;

interface Raw {
  readonly time: number;
  readonly dataTime: number;
  readonly counters: Readonly<Record<string, number | undefined>>;
  readonly buckets: readonly [number, number][];
  readonly cpu: Map<string, { readonly seconds: number; readonly time: number }>;
}

export class SeriesRecorder {
  readonly #points: SeriesPoint[] = [];
  readonly #labels = new Map<string, string>();
  #last: Raw | null = null;
  /** The raw readings of the last RATE_WINDOW_MS and a little more, oldest first. */
  #raws: Raw[] = [];
  #metricsOn = false;

  /** Takes a sample from `read()` unless the last one is recent; returns the series. */
  async sample(read: () => Promise<SampleInput>): Promise<Series> {
    const now = Date.now();
    if (!this.#last || now - this.#last.time >= SAMPLE_MS) this.#add(now, await read());
    const shown = new Set(this.#points.flatMap((p) => [...Object.keys(p.cpuPercent), ...Object.keys(p.rssBytes)]));
    const processes = Object.fromEntries([...this.#labels].filter(([key]) => shown.has(key)));
    return { points: [...this.#points], processes, metricsOn: this.#metricsOn };
  }

  #add(time: number, input: SampleInput): void {
    const json = input.metrics;
    this.#metricsOn ||= json.length > 0;
    const raw: Raw = {
      time,
      dataTime: input.dataTime ?? time,
      counters: {
        tasks: input.tasksEnded,
        messages: metricTotal(json, "fray_messages_received_total"),
        bytes: metricTotal(json, "fray_frame_bytes_sent_total"),
        buffer: metricTotal(json, "fray_buffer_transfer_bytes_total"),
        collective: metricTotal(json, "fray_frame_bytes_sent_total", { kind: "coll" }),
      },
      buckets: allEndpointBuckets(json),
      cpu: new Map(input.processes.map((p) => [p.key, { seconds: p.cpuSeconds, time: p.time ?? time }])),
    };
    for (const p of input.processes) this.#labels.set(p.key, p.label);
    const last = this.#last;
    this.#last = raw;
    // Rates over the time between the figures (not between samples), over RATE_WINDOW_MS or the longest known.
    const base = [...this.#raws].reverse().find((r) => r.dataTime <= raw.dataTime - RATE_WINDOW_MS) ?? this.#raws[0];
    this.#raws.push(raw);
    while (this.#raws.length > 2 && this.#raws[1].dataTime <= raw.dataTime - RATE_WINDOW_MS) this.#raws.shift();
    const seconds = base ? (raw.dataTime - base.dataTime) / 1000 : 0;
    const rate = (k: string) => {
      const [now, then] = [raw.counters[k], base?.counters[k]];
      return now === undefined || then === undefined || seconds <= 0 ? undefined : Math.max(0, now - then) / seconds;
    };
    const cpuPercent: Record<string, number> = {};
    for (const [key, cpu] of raw.cpu) {
      const before = last?.cpu.get(key);
      const over = before ? (cpu.time - before.time) / 1000 : 0;
      if (before && over > 0) cpuPercent[key] = (Math.max(0, cpu.seconds - before.seconds) / over) * 100;
      else if (before) raw.cpu.set(key, before); // no news: keep the older figure to measure the next one from
    }
    this.#points.push({
      time,
      tasksPerSec: rate("tasks"),
      messagesPerSec: rate("messages"),
      bytesPerSec: rate("bytes"),
      bufferBytesPerSec: rate("buffer"),
      collectiveBytesPerSec: rate("collective"),
      ...(base && seconds > 0 ? latencySince(base.buckets, raw.buckets) : {}),
      ...keptProcesses(cpuPercent, input.processes),
    });
    while (this.#points.length > 0 && this.#points[0].time < time - KEEP_MS) this.#points.shift();
  }
}

/** The figures of the PROCESSES_KEPT busiest and the PROCESSES_KEPT largest processes: a job of a thousand stays a small page. */
function keptProcesses(cpuPercent: Record<string, number>, processes: SampleInput["processes"]): Pick<SeriesPoint, "cpuPercent" | "rssBytes"> {
  const top = (entries: [string, number][]) =>
    entries
      .sort((a, b) => b[1] - a[1])
      .slice(0, PROCESSES_KEPT)
      .map(([k]) => k);
  const rss = new Map(processes.map((p) => [p.key, p.rssBytes]));
  const kept = new Set([...top(Object.entries(cpuPercent)), ...top([...rss])]);
  return {
    cpuPercent: Object.fromEntries(Object.entries(cpuPercent).filter(([k]) => kept.has(k))),
    rssBytes: Object.fromEntries([...rss].filter(([k]) => kept.has(k))),
  };
}

/** p50 and p99 of the calls that ended between two readings of the buckets; none if none ended. */
function latencySince(before: readonly [number, number][], now: readonly [number, number][]): { p50Ms?: number; p99Ms?: number } {
  const earlier = new Map(before);
  const delta: [number, number][] = now.map(([le, n]) => [le, Math.max(0, n - (earlier.get(le) ?? 0))]);
  const count = delta.length ? delta[delta.length - 1][1] : 0;
  if (count === 0) return {};
  return { p50Ms: quantile(delta, count, 0.5) * 1000, p99Ms: quantile(delta, count, 0.99) * 1000 };
}
