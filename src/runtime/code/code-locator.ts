// runtime/code: finding and loading user code: where a class or function is exported
// (this file), error classes revived by module (error-classes.ts), require(esm) for
// fray's own modules (esm-require.ts), built-ins loaded on first use. Uses only runtime's base.
//
// Finds where an actor class or task function is exported from, so any process
// can import it by URL: no registration step. V8's inspector tells which script
// defined the function; the module's namespace tells under which name it is
// exported. Results are cached per function.
import type { Session } from "node:inspector";
import { pathToFileURL } from "node:url";
import { NotExportedError } from "../base/errors.ts";
import { requireEsm } from "./esm-require.ts";
import { nodeInspector } from "./lazy-builtins.ts";

export interface CodeLocation {
  /** URL of the ES module (or CommonJS file) that exports it. */
  readonly url: string;
  /** The export's name (`default` for a default export). */
  readonly exportName: string;
}

let session: Session | null = null;
const scriptUrls = new Map<string, string>();
const scripts = new WeakMap<Function, string>();
const locations = new WeakMap<Function, Promise<CodeLocation>>();

function inspector(): Session {
  if (!session) {
    session = new (nodeInspector().Session)();
    session.connect();
    session.on("Debugger.scriptParsed", (m) => scriptUrls.set(m.params.scriptId, m.params.url));
  }
  return session;
}

/**
 * `fn`'s internal properties as V8's inspector shows them ([[FunctionLocation]],
 * [[Scopes]]); `scopes`: also the descriptions of its scopes ("Closure (make)",
 * "Module", "Global"). Synchronous: the in-thread inspector answers at once.
 */
function inspect(fn: Function, scopes = false): { scriptId?: string; scopes: string[] } {
  const s = inspector();
  const slot = Symbol.for("fray.locate");
  const g = globalThis as Record<symbol, unknown>;
  g[slot] = fn;
  const found: { scriptId?: string; scopes: string[] } = { scopes: [] };
  try {
    s.post("Runtime.evaluate", { expression: 'globalThis[Symbol.for("fray.locate")]' }, (err, res) => {
      if (err || !res.result.objectId) return;
      s.post("Runtime.getProperties", { objectId: res.result.objectId, ownProperties: true }, (err2, props) => {
        const loc = props?.internalProperties?.find((p) => p.name === "[[FunctionLocation]]");
        found.scriptId = (loc?.value?.value as { scriptId?: string } | undefined)?.scriptId;
        const chain = props?.internalProperties?.find((p) => p.name === "[[Scopes]]")?.value?.objectId;
        if (scopes && chain) {
          s.post("Runtime.getProperties", { objectId: chain, ownProperties: true }, (err3, list) => {
            for (const p of list?.result ?? []) if (p.value?.description) found.scopes.push(p.value.description);
          });
        }
      });
      s.post("Runtime.releaseObject", { objectId: res.result.objectId });
    });
  } finally {
    delete g[slot];
  }
  return found;
}

/** The URL of the script that defined `fn`. */
export function scriptOf(fn: Function): string {
  const known = scripts.get(fn);
  if (known !== undefined) return known;
  const { scriptId } = inspect(fn);
  if (scriptId === undefined) {
    throw new NotExportedError(
      `${describe(fn)} has no source location (is it a built-in or bound function?); pass a class or function exported from one of your modules`,
    );
  }
  if (!scriptUrls.has(scriptId)) {
    // The profiler's coverage names the scripts that have functions, ~5 ms; enabling the debugger (~30 ms: it hashes every
    // loaded script's source as it replays scriptParsed for each) only for a script the coverage left out.
    const s = inspector();
    s.post("Profiler.enable");
    s.post("Profiler.getBestEffortCoverage", (err, res) => {
      for (const script of res?.result ?? []) scriptUrls.set(script.scriptId, script.url);
    });
    s.post("Profiler.disable");
  }
  if (!scriptUrls.has(scriptId)) {
    const s = inspector();
    s.post("Debugger.enable", () => {});
    s.post("Debugger.disable", () => {});
  }
  const url = scriptUrls.get(scriptId) ?? "";
  scripts.set(fn, url);
  return url;
}

/**
 * Where `fn` is exported from. Rejects with NotExportedError naming the fix
 * when it is a closure, an unexported class, or lives in the entry script.
 */
export function locate(fn: Function): Promise<CodeLocation> {
  let found = locations.get(fn);
  if (!found) {
    found = findExport(fn, scriptOf(fn));
    locations.set(fn, found);
  }
  return found;
}

async function findExport(fn: Function, url: string): Promise<CodeLocation> {
  const what = describe(fn);
  if (!url.startsWith("file:") && !url.startsWith("/")) {
    throw new NotExportedError(
      `${what} was defined in ${url || "an eval or REPL"}, which other processes cannot import; move it to a module file and export it`,
    );
  }
  const href = url.startsWith("/") ? pathToFileURL(url).href : url;
  if (process.argv[1] && pathToFileURL(process.argv[1]).href === href) {
    throw new NotExportedError(
      `${what} is defined in the entry script ${href}; importing it in a worker process would run the script again. Move it to a module of ` +
        `its own, export it, and import it from there`,
    );
  }
  const namespace = (await import(href)) as Record<string, unknown>;
  for (const [name, value] of Object.entries(namespace)) {
    if (value === fn) return { url: href, exportName: name };
  }
  const cjs = namespace.default as Record<string, unknown> | undefined;
  if (cjs && typeof cjs === "object") {
    for (const [name, value] of Object.entries(cjs)) if (value === fn) return { url: href, exportName: `default.${name}` };
  }
  // A closure (it captured a variable of the function that made it): V8 names that function's scope "Closure (maker)".
  const closure = inspect(fn, true).scopes.find((d) => d.startsWith("Closure"));
  if (closure) {
    const maker = /^Closure \((.+)\)$/.exec(closure)?.[1];
    throw new NotExportedError(
      `${what} is a closure made by ${maker ? `${maker}()` : "a function"} in ${href}: worker processes load code by its export, and what it ` +
        `captured from ${maker ?? "that function"} cannot go with it. Define it at the top level of the module, export it, and pass the captured ` +
        `values as arguments`,
    );
  }
  throw new NotExportedError(
    `${what} is not exported from ${href}: add 'export' (at the top level of the module) so worker processes can load it; one made inside a ` +
      `function cannot be: define it at the top level and pass what it uses as arguments`,
  );
}

/** Loads what `locate` found, in any process: through require() where that gives the same module (esm-require.ts), else import(). */
export async function load(location: CodeLocation): Promise<unknown> {
  const namespace = (requireEsm(location.url) ??
    (await import(location.url).catch((err: NodeJS.ErrnoException) => {
      if (err?.code !== "ERR_UNKNOWN_FILE_EXTENSION") throw err;
      throw new Error(
        `cannot load ${location.url} in process ${process.pid}: it runs no TypeScript loader (${err.message}). Start the client with ` +
          `'node --import tsx' (the procs it starts load TypeScript too; a 'fray worker' needs tsx installed where it runs), or compile to JavaScript`,
        { cause: err },
      );
    }))) as Record<string, unknown>;
  let value: unknown = namespace;
  for (const part of location.exportName.split(".")) value = (value as Record<string, unknown> | undefined)?.[part];
  if (value === undefined) {
    throw new NotExportedError(`${location.url} has no export named ${location.exportName}; the module may differ between processes`);
  }
  return value;
}

function describe(fn: Function): string {
  const kind = /^class[\s{]/.test(Function.prototype.toString.call(fn)) ? "class" : "function";
  return fn.name ? `${kind} ${fn.name}` : `an anonymous ${kind}`;
}
