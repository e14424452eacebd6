// What a worker's entry (bootstrap.ts, process-entry.cts) loads at start, as one module: one file for
// node to resolve and read (in dist/, a stub of the runtime bundle; each file costs a worker ~1 ms of
// CPU at start).
import "../actor-mesh.ts"; // registers mesh handles before any message is decoded
export { serveWorker } from "./serve-worker.ts";
