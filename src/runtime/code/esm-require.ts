// Loading ES modules through require(), which Node 20.19 and later does synchronously: it costs less CPU
// than import(), and a worker process that never import()s does not start node's asynchronous module
// loader at all (~4 ms of its start; benchmark P6, cold start). Only where require() is Node's own — fray
// compiled (not under tsx), no --import, --require or --loader hooks, the main thread (a thread gets the
// hooks its parent registers) — so that it returns the very module instances import() returns. Hooks a
// module registers itself (module.register) are followed by import() only: a program that relies on them
// for its actors' modules registers them with --import, which its workers inherit (then they import()).
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const HOOK_FLAGS = /^(--import|--require|-r|--loader|--experimental-loader)(=|$)/;

/** Whether node's own require() loads ES modules in a process of this node with these flags: none that registers loader hooks. */
export function requireLoadsEsm(execArgv: readonly string[], nodeOptions = process.env.NODE_OPTIONS ?? ""): boolean {
  return (
    (process.features as { require_module?: boolean }).require_module === true &&
    ![...execArgv, ...nodeOptions.split(/\s+/)].some((flag) => HOOK_FLAGS.test(flag))
  );
}

/** Whether this runs on a process's main thread; a worker says (finding out loads node:worker_threads, ~2 ms of its start). */
let mainThread: boolean | undefined;

/** A worker tells this module whether it runs on its process's main thread (false: it is a worker thread). */
export function knowMainThread(isMain: boolean): void {
  mainThread = isMain;
}

let require: NodeJS.Require | null | undefined;

function nodeRequire(): NodeJS.Require | null {
  if (require !== undefined) return require;
  mainThread ??= process.getBuiltinModule("node:worker_threads").isMainThread;
  const usable = mainThread && !import.meta.url.endsWith(".ts") && requireLoadsEsm(process.execArgv);
  return (require = usable ? createRequire(import.meta.url) : null);
}

/**
 * The namespace of the ES module at the file URL `url`, loaded (and run) now;
 * null where it must be import()ed instead: require() is not Node's own here,
 * `url` is not a file, the module is CommonJS (its namespace is import()'s to
 * make), awaits at top level, or require() refuses it for another reason (an
 * error the module throws while it runs, import() then throws again).
 */
export function requireEsm(url: string): Record<string, unknown> | null {
  const req = nodeRequire();
  if (!req || !url.startsWith("file:")) return null;
  try {
    const loaded: unknown = req(fileURLToPath(url));
    return Object.prototype.toString.call(loaded) === "[object Module]" ? (loaded as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
