// TypeScript in the procs a host agent starts. A client running TypeScript
// ships actors and tasks by their .ts module URLs, so whatever imports them
// must load TypeScript too. Procs started on the client's own machine inherit
// its loader flags (host-agent.ts); a `fray worker` started without them (a
// plain `npx fray worker`) gives its procs tsx when it finds it — in fray's own
// dependencies or the worker's working directory — else refuses to start them,
// naming the fix, rather than let every import fail with "Unknown file extension".
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** A flag that loads TypeScript: tsx (`--import tsx`, the tsx CLI's own flags) or ts-node. */
const TS_LOADER = /tsx|ts-node/;

function nodeOptions(): string[] {
  return (process.env.NODE_OPTIONS ?? "").split(/\s+/).filter(Boolean);
}

/** Whether this process runs TypeScript: a TypeScript loader among its flags, or a .ts entry script. */
export function runsTypeScript(): boolean {
  return [...process.execArgv, ...nodeOptions()].some((f) => TS_LOADER.test(f)) || /\.[mc]?ts$/.test(process.argv[1] ?? "");
}

/**
 * The file URL of tsx's entry `specifier` (`tsx`: the loader for --import;
 * `tsx/esm/api`: register()), from fray's own dependencies or else the
 * working directory's project; null when tsx is in neither.
 */
export function resolveTsx(specifier: "tsx" | "tsx/esm/api"): string | null {
  try {
    return import.meta.resolve(specifier);
  } catch {
    try {
      return pathToFileURL(createRequire(join(process.cwd(), "noop.js")).resolve(specifier)).href;
    } catch {
      return null;
    }
  }
}

/**
 * Node flags for a child process that must load TypeScript, given the flags
 * it inherits: none when those load it already (or Node strips types itself
 * and tsx is not installed), else tsx's loader. Throws naming the fix when
 * there is no way.
 */
export function typeScriptFlags(inherited: readonly string[]): string[] {
  if ([...inherited, ...nodeOptions()].some((f) => TS_LOADER.test(f))) return [];
  const tsx = resolveTsx("tsx");
  if (tsx) return ["--import", tsx];
  if ((process.features as { typescript?: string | false }).typescript) return [];
  throw new Error(
    `the client runs TypeScript, but procs started here cannot load it: tsx is not installed in fray's dependencies nor in ${process.cwd()}; ` +
      `install it where this worker runs (npm install tsx), or start the worker with 'node --import tsx', or compile the client's modules to JavaScript`,
  );
}
