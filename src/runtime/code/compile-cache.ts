// V8's compile cache (Node 22.1 and later): the runtime's modules, compiled by
// the first worker on a machine, are read back by every worker after it rather
// than compiled again — most of what a cold start spends beyond bare node
// (benchmark P6). Node 20 has none. A user's NODE_COMPILE_CACHE directory wins
// (node enables it itself); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import nodeModule from "node:module";
import { isMainThread } from "node:worker_threads";

type Enable = (directory?: string) => unknown;

/** Turns the compile cache on for this process (where node has one), before the runtime is loaded. */
export function enableCompileCache(): void {
  const enable = (nodeModule as { enableCompileCache?: Enable }).enableCompileCache;
  // A thread shares its process's module loading; only the main thread may enable it.
  if (!enable || !isMainThread || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    enable();
  } catch {
    // A cache only saves time: a worker whose temp directory is read-only starts without one.
  }
}
