// What the job layer counts for its metrics: its tasks and its object stores, as plain numbers its hot
// paths add to while `metricsOn` (FRAY_METRICS), declared through the runtime's registry, which reads
// them when scraped.
import { declareMetric } from "../../runtime/face/metrics.ts";

/** This process's tasks, as counts; pending and running are derived from them. A retried task is requeued, not failed. */
export const taskStats = { submitted: 0, dispatched: 0, requeued: 0, done: 0, failedRunning: 0, failedQueued: 0 };

/** This process's object stores: entries, and the bytes of typed-array values (an estimate: other values count 0). */
export const objectStats = { entries: 0, bytes: 0 };

/**
 * The large values this process holds for others to read (../objects/held-bytes.ts): in its heap, in /dev/shm and on
 * disk now, and bytes spilled and restored so far.
 */
export const heldStats = { memory: 0, shm: 0, spilled: 0, spilledTotal: 0, restoredTotal: 0 };

/** Where the held values this process read came from: its own memory, another process of its host by shared memory or socket, another host by TCP. */
export type TransferPath = "same-process" | "shm" | "socket" | "tcp";

/** Bytes of held values this process read, by the path they came by. */
export const heldTransfers: Record<TransferPath, number> = { "same-process": 0, shm: 0, socket: 0, tcp: 0 };

declareMetric({
  type: "gauge",
  name: "fray_tasks_pending",
  help: "Tasks submitted by this process and waiting for a worker",
  read: () => taskStats.submitted + taskStats.requeued - taskStats.dispatched - taskStats.failedQueued,
});
declareMetric({
  type: "gauge",
  name: "fray_tasks_running",
  help: "Tasks this process sent to a worker that have not finished (running, or queued at the worker)",
  read: () => taskStats.dispatched - taskStats.done - taskStats.failedRunning - taskStats.requeued,
});
declareMetric({ type: "counter", name: "fray_tasks_done_total", help: "Tasks submitted by this process that returned a value", read: () => taskStats.done });
declareMetric({
  type: "counter",
  name: "fray_tasks_failed_total",
  help: "Tasks submitted by this process that failed (after their retries)",
  read: () => taskStats.failedRunning + taskStats.failedQueued,
});
declareMetric({
  type: "counter",
  name: "fray_tasks_retried_total",
  help: "Tasks submitted by this process that ran again because their worker died",
  read: () => taskStats.requeued,
});
declareMetric({
  type: "gauge",
  name: "fray_object_store_entries",
  help: "Entries (task results and put() values) in this process's object stores",
  read: () => objectStats.entries,
});
declareMetric({
  type: "gauge",
  name: "fray_object_store_bytes",
  help: "Bytes of typed-array and ArrayBuffer values in this process's object stores (an estimate: other values count 0)",
  read: () => objectStats.bytes,
});
declareMetric({
  type: "gauge",
  name: "fray_object_held_bytes",
  help:
    "Bytes of the large values this process holds for others to read (task results above FRAY_OBJECT_INLINE_BYTES, encoded), in memory, " +
    "by tier: memory (its heap) or shm (/dev/shm, where values of 1 MiB and more are kept)",
  label: "tier",
  read: () => ({ memory: heldStats.memory, shm: heldStats.shm }),
});
declareMetric({
  type: "gauge",
  name: "fray_object_spilled_bytes",
  help: "Bytes of the values this process holds that are spilled to its directory now (past FRAY_OBJECT_STORE_BYTES)",
  read: () => heldStats.spilled,
});
declareMetric({
  type: "counter",
  name: "fray_object_spilled_bytes_total",
  help: "Bytes of held values this process wrote to its spill directory",
  read: () => heldStats.spilledTotal,
});
declareMetric({
  type: "counter",
  name: "fray_object_restored_bytes_total",
  help: "Bytes of spilled values this process read back from its spill directory",
  read: () => heldStats.restoredTotal,
});
declareMetric({
  type: "counter",
  name: "fray_object_transfer_bytes_total",
  help: "Bytes of held values this process read, by path: same-process (in place), shm (/dev/shm from a process of its host), socket, tcp (another host)",
  label: "path",
  read: () => heldTransfers,
});
