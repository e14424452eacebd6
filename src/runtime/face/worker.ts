// The runtime's face for a worker thread or process as it starts serving: its output sent to its parent,
// its parent's doorbell, and which thread may load modules with require().
export { captureOutput } from "../output/output-capture.ts";
export { sendLogLines } from "../output/worker-output.ts";
export { adoptParentDoorbell } from "../proc/parent-doorbell.ts";
export { knowMainThread } from "../code/esm-require.ts";
