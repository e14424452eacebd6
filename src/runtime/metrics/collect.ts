// Metrics of a tree of processes: this one, every proc it started, and
// (through them) the procs those started. Each is asked with a "metrics"
// message and answers with its own metrics JSON and its children's; the asker
// merges them with prom-client's AggregatorRegistry (counters and histogram
// buckets add up; so do gauges: mailbox depths, pending tasks).
import { config, settingName } from "../base/config.ts";
import type { MetricsRequest } from "../base/messages.ts";
import type { MetricsJson } from "./registry.ts";
import type { ProcMessaging } from "../proc/messaging.ts";
import type { Router } from "../proc/routes.ts";

/** What collecting needs of a process: its messaging, and which procs it started or hosts meshes on. */
export interface MetricsHost extends ProcMessaging {
  spawnedProcs(): string[];
}

/** Answers other processes' "metrics" requests with `host`'s metrics and its procs'. */
export function serveMetrics(router: Router, host: MetricsHost): void {
  router.route("metrics", (request) => void answerMetrics(host, request));
}

/** The registry, loaded when metrics are first read (prom-client is slow to load; see base/counters.ts). */
const registry = () => import("./registry.ts");

/** What a process answers: the metrics of each process it reached, and the procs that did not answer. */
export interface GatheredMetrics {
  readonly procs: ReadonlyArray<{ readonly addr: string; readonly json: MetricsJson }>;
  /** Procs that did not answer in time or were lost, each with why. */
  readonly missing: readonly string[];
}

/** The metrics of this process and every proc it started, merged. */
export interface CollectedMetrics {
  /** Prometheus text exposition of the merged metrics. */
  readonly text: string;
  /** The merged metrics as prom-client JSON. */
  readonly json: MetricsJson;
  /** The processes that answered (their proc addresses), this one first. */
  readonly processes: readonly string[];
  /** Procs left out, each with why (no answer within FRAY_METRICS_TIMEOUT_MS, or lost). */
  readonly missing: readonly string[];
}

/** Collects, merges and returns the metrics of `proc`'s process and every proc it started (recursively). */
export async function collectFrom(proc: MetricsHost): Promise<CollectedMetrics> {
  const gathered = await gather(proc, [], config.metricsTimeoutMs);
  const seen = new Set<string>();
  const unique = gathered.procs.filter((p) => !seen.has(p.addr) && seen.add(p.addr));
  const merged = (await registry()).mergeMetrics(unique.map((p) => p.json));
  return {
    text: await merged.metrics(),
    json: (await merged.getMetricsAsJSON()) as MetricsJson,
    processes: unique.map((p) => p.addr),
    missing: gathered.missing,
  };
}

/** Answers a "metrics" request from another process. */
export async function answerMetrics(proc: MetricsHost, request: MetricsRequest): Promise<void> {
  try {
    proc.sendToPort(request.reply, 0, await gather(proc, request.via, request.timeoutMs / 2), false);
  } catch (err) {
    proc.sendToPort(request.reply, 0, err, true);
  }
}

/** This process's metrics and its procs', not asking those in `via`; each proc gets `ms` (and half of it for its own). */
async function gather(proc: MetricsHost, via: readonly string[], ms: number): Promise<GatheredMetrics> {
  const own = { addr: proc.addr, json: await (await registry()).metricsJson() };
  const targets = proc.spawnedProcs().filter((a) => !via.includes(a));
  const asked = [...via, proc.addr, ...targets]; // nobody below asks these again
  const answers = await Promise.all(targets.map((addr) => ask(proc, addr, asked, ms)));
  return {
    procs: [own, ...answers.flatMap((a) => (typeof a === "string" ? [] : a.procs))],
    missing: answers.flatMap((a) => (typeof a === "string" ? [a] : a.missing)),
  };
}

/** Asks the proc at `addr`; a string says why it did not answer. */
function ask(proc: MetricsHost, addr: string, via: readonly string[], ms: number): Promise<GatheredMetrics | string> {
  return new Promise((resolve) => {
    const finish = (answer: GatheredMetrics | string) => {
      clearTimeout(timer);
      proc.closePort(port);
      unwatch();
      resolve(answer);
    };
    const port = proc.openPort((_rank, ok, value) => finish(ok ? (value as GatheredMetrics) : `${addr}: ${(value as Error).message}`));
    const unwatch = proc.onPeerLost((lost, error) => {
      if (lost === addr) finish(`${addr}: ${error.message}`);
    });
    const timer = setTimeout(() => finish(`${addr}: no answer within ${Math.round(ms)} ms (${settingName("metricsTimeoutMs")})`), ms);
    proc.send(addr, { kind: "metrics", via, timeoutMs: ms, reply: { addr: proc.addr, id: port } });
  });
}
