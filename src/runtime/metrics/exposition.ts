// What a dashboard or an HTTP endpoint serves: this process's metrics, and
// those of every proc it started, merged, in Prometheus text and as JSON.
import { collectFrom, type CollectedMetrics } from "./collect.ts";
import { Proc } from "../proc/proc.ts";

export type { CollectedMetrics } from "./collect.ts";
export { metricsOn } from "./metrics.ts";
export { metricsJson, metricsText, type MetricsJson } from "./registry.ts";

/** The metrics of this process and every proc it started (and those procs started), merged: `/metrics` and `/api/metrics`. */
export function collectMetrics(): Promise<CollectedMetrics> {
  return collectFrom(Proc.current());
}

/** Prometheus's content type for `metricsText()` and `collectMetrics().text`. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
