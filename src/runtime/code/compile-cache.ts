// V8's compile cache (Node 22.1 and later): the runtime's modules, compiled by
// the first worker on a machine, are read back by every worker after it rather
// than compiled again — most of what a cold start spends beyond bare node
// (benchmark P6). Node 20 has none. A user's NODE_COMPILE_CACHE directory wins
// (node enables it itself); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
// node:module through process.getBuiltinModule: an ES module's import of a
// built-in makes node build its namespace, which loads its lazy parts too.

type Enable = (directory?: string) => unknown;

/** Turns the compile cache on for this process (where node has one), before the runtime is loaded; on a process's main thread only. */
export function enableCompileCache(): void {
  const enable = (process.getBuiltinModule("node:module") as { enableCompileCache?: Enable }).enableCompileCache;
  if (!enable || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    enable();
  } catch {
    // A cache only saves time: a worker whose temp directory is read-only starts without one.
  }
}
