// What a worker's entry (bootstrap.ts) loads at start, as one module: one file for node to resolve
// and read (in dist/, a stub of the runtime bundle; each file costs a worker ~1 ms of CPU at start).
import "./actor-mesh.ts"; // registers mesh handles before any message is decoded
export { config, settingName } from "../runtime/base/config.ts";
export { captureOutput } from "../runtime/output/output-capture.ts";
export { serveProc } from "../runtime/runtime.ts";
