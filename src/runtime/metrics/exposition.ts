// What a dashboard or an HTTP endpoint serves: this process's metrics, and
// those of every proc it started, merged, in Prometheus text and as JSON.

export type { CollectedMetrics } from "./collect.ts";
export { metricsOn } from "../base/counters.ts";
export { metricsJson, metricsText, type MetricsJson } from "./registry.ts";

/** Prometheus's content type for `metricsText()` and `collectMetrics().text`. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
