// The runtime's face for a worker thread or process as it starts serving: its output sent to its parent,
// what it tells of its transport to its parent, which thread may load modules with require(), and, in a thread,
// the subprocesses it starts (ended with it).
export { captureOutput } from "../output/output-capture.ts";
export { sendLogLines } from "../output/worker-output.ts";
export { adoptParentLink } from "../proc/parent-link.ts";
export { noteThreadChildren } from "../hosts/thread-children.ts";
export { knowMainThread } from "../code/esm-require.ts";
