// Node built-ins that most processes never use, loaded (synchronously) on
// first use rather than at start, where every worker would pay for them:
// node:tls serves TCP with certificates only, node:inspector finds where an
// actor class is defined, on the side that spawns it; node:child_process,
// node:readline and node:util start processes (a worker rarely does);
// node:worker_threads starts threads (lower layers that may not import this
// file call process.getBuiltinModule for it themselves).
const load = (name: string): unknown => process.getBuiltinModule(name);

export const nodeTls = (): typeof import("node:tls") => load("node:tls") as typeof import("node:tls");
export const nodeInspector = (): typeof import("node:inspector") => load("node:inspector") as typeof import("node:inspector");
export const nodeChildProcess = (): typeof import("node:child_process") => load("node:child_process") as typeof import("node:child_process");
export const nodeWorkerThreads = (): typeof import("node:worker_threads") => load("node:worker_threads") as typeof import("node:worker_threads");
export const nodeReadline = (): typeof import("node:readline") => load("node:readline") as typeof import("node:readline");
const nodeUtil = (): typeof import("node:util") => load("node:util") as typeof import("node:util");

/** execFile as a promise of its output, as text (node:child_process and node:util load with the first command). */
export function execFileText(file: string, args: readonly string[], options: { maxBuffer?: number } = {}): Promise<{ stdout: string; stderr: string }> {
  return nodeUtil().promisify(nodeChildProcess().execFile)(file, args, { ...options, encoding: "utf8" });
}
