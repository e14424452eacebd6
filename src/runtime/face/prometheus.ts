// The runtime's face for metrics in Prometheus' form: merging processes' metrics. It loads prom-client,
// so it is imported with import() where it is needed, never at a process's start.
export { mergeMetrics, type MetricsJson } from "../metrics/registry.ts";
