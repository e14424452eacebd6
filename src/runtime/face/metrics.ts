// The runtime's face for metrics: the counters the layers above bump, how they declare metrics of their
// own (counted by them, read by the runtime's registry), and what a process reports of itself (its
// snapshot, its report file for the dashboard).
export { countRestart, countSent, endpointStats, metricsAll, metricsOn, type EndpointStats } from "../base/counters.ts";
export { declareMetric } from "../metrics/declared-metrics.ts";
export { addReportPart, type ProcessReport } from "../metrics/process-report.ts";
export { reporterRuns, reportOutlived } from "../metrics/report-files.ts";
export type { LocalActor, RuntimeSnapshot } from "../metrics/runtime-snapshot.ts";
export { collectMetrics, runtimeSnapshot } from "../runtime.ts";
