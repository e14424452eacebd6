// The runtime's face for metrics: the counters the layers above bump, and what a process reports of
// itself (its snapshot, its report file for the dashboard).
export { countRestart, countSent, endpointStats, metricsAll, metricsOn, objectStats, taskStats, type EndpointStats } from "../base/counters.ts";
export { addReportPart, type ProcessReport } from "../metrics/process-report.ts";
export type { LocalActor, RuntimeSnapshot } from "../metrics/runtime-snapshot.ts";
export { collectMetrics, runtimeSnapshot } from "../runtime.ts";
