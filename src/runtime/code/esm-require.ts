// Loading ES modules through require(), which Node 20.19 and later does
// synchronously: for a graph of many small modules it costs ~15% less CPU than
// import(), and every worker loads the runtime at start (benchmark P6, cold
// start, in BENCHMARKS.md). Only where require() is Node's own — fray compiled
// (not under tsx), no --import, --require or --loader hooks, the main thread (a
// thread gets the hooks its parent registers) — so that it returns the very
// module instances import() returns. For fray's own modules, before any user
// code has run: a module could register hooks (module.register) that only
// import() would follow.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { isMainThread } from "node:worker_threads";

const HOOK_FLAGS = /^(--import|--require|-r|--loader|--experimental-loader)(=|$)/;

let require: NodeJS.Require | null | undefined;

function nodeRequire(): NodeJS.Require | null {
  if (require !== undefined) return require;
  const usable =
    isMainThread &&
    !import.meta.url.endsWith(".ts") &&
    (process.features as { require_module?: boolean }).require_module === true &&
    ![...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((flag) => HOOK_FLAGS.test(flag));
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
