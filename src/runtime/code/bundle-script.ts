// Runs the worker runtime's bundle (dist/fray-runtime.body.js, made by scripts/bundle-runtime.ts) as a
// script with V8's code cache, for dist/fray-runtime.js, the module that exports its parts. Node 20 has
// no compile cache (module.enableCompileCache is Node 22.1+), so each worker compiled the ~350 KB bundle
// and then each function it ran at start (benchmark P6, cold start). A process that finds no cache for
// the bundle writes one when it exits, with the code of every function it ran; the next processes start
// from it. The cache lives where Node keeps its own (NODE_COMPILE_CACHE, default
// <tmpdir>/node-compile-cache), in a directory of this user's only, one file per bundle, Node version,
// set of flags and role (worker or not), written whole (rename); NODE_DISABLE_COMPILE_CACHE=1 turns it
// off, as it does Node's. A cache only saves time: one that cannot be read or written, or that V8 refuses
// (another V8, other flags), leaves the bundle compiled from its source, as without one.
// Built-ins through process.getBuiltinModule, not import: an ES module's import of a built-in makes node
// build its namespace, which loads its lazy parts too (node:fs's promises, with streams and readline:
// ~2 ms of a worker's start).
const { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } = process.getBuiltinModule("node:fs");
const { tmpdir } = process.getBuiltinModule("node:os");
const { dirname, join, resolve } = process.getBuiltinModule("node:path");
const { fileURLToPath } = process.getBuiltinModule("node:url");
const { Script } = process.getBuiltinModule("node:vm");
type Script = import("node:vm").Script;

/** What the module that exports the bundle's parts (generated) gives to run it. */
export interface BundleScript {
  /** That module's URL: the script's name in stack traces, mapped to src/ by that module's source map. */
  readonly url: string;
  /** The bundle's file, relative to `url`. */
  readonly file: string;
  /** A hash of the bundle's contents, from the build: with its size and mtime, the cache file's name. */
  readonly hash: string;
  /** The packages the bundle imports, as that module imported them (one copy of each in a process). */
  readonly packages: Readonly<Record<string, unknown>>;
  /** import() and import.meta.resolve as that module has them: relative to the same directory. */
  readonly importModule: (specifier: string) => Promise<unknown>;
  readonly resolve: (specifier: string) => string;
}

/** Whose cache this process writes: a worker's start runs other functions than its client's, so each has its own. */
let role: "main" | "worker" = "main";

/** This process is a worker (its entry says so, before it loads the runtime): it starts from, and writes, the workers' cache. */
export function cacheAsWorker(): void {
  role = "worker";
}

/** The script's function: what esbuild's CommonJS output needs, and what stands for import() and import.meta in it. */
type BundleFunction = (
  exports: object,
  require: (id: string) => unknown,
  module: { exports: object },
  bundleUrl: string,
  importModule: (specifier: string) => Promise<unknown>,
  resolve: (specifier: string) => string,
) => void;

/** Runs the bundle; returns its exports ("path:name" → value). */
export function runBundle(bundle: BundleScript): Record<string, unknown> {
  const path = fileURLToPath(new URL(bundle.file, bundle.url));
  const source = readFileSync(path, "latin1"); // it is ASCII (the build checks): read without decoding UTF-8, ~0.5 ms less
  const cacheFile = cacheFileFor(bundle, path);
  let cachedData: Buffer | undefined;
  if (cacheFile) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      // none yet: this process writes it
    }
  }
  const script = new Script(source, { filename: bundle.url, cachedData });
  if (cacheFile && (cachedData === undefined || script.cachedDataRejected)) process.once("exit", () => writeCache(script, cacheFile));
  const module = { exports: {} };
  const require = (id: string): unknown => {
    if (Object.hasOwn(bundle.packages, id)) return bundle.packages[id];
    if (id.startsWith("node:")) return process.getBuiltinModule(id);
    throw new Error(`fray's runtime bundle requires ${id}, which scripts/bundle-runtime.ts did not give it; rebuild fray (npm run build)`);
  };
  (script.runInThisContext() as BundleFunction)(module.exports, require, module, bundle.url, bundle.importModule, bundle.resolve);
  return module.exports as Record<string, unknown>;
}

/** Where this bundle's cache is for this Node and these flags (V8 refuses a cache made under other flags); null: caching is off. */
function cacheFileFor(bundle: BundleScript, path: string): string | null {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return null;
  let stamp: string;
  try {
    const { size, mtimeMs } = statSync(path);
    stamp = `${size}-${Math.trunc(mtimeMs)}`; // a bundle edited after the build has a cache of its own
  } catch {
    return null;
  }
  const flags = fnv1a([...flagsOf(process.execArgv), process.env.NODE_OPTIONS ?? ""].join("\0"));
  const dir = join(process.env.NODE_COMPILE_CACHE || join(tmpdir(), "node-compile-cache"), "fray-runtime");
  if (!ownDirectory(dir)) return null;
  return join(dir, `${bundle.hash}-${stamp}-${process.version}-${process.arch}-${flags}-${role}.v8cache`);
}

/**
 * Whether `dir` is this user's alone, or not there yet (then it is made so), and so is every directory above it: code
 * from a cache runs as this process, so a directory another user could write to (a shared tmpdir), or could replace
 * (one in a directory of theirs, or one others may write to without the sticky bit), is not used. Symlinks are
 * followed to where they lead, which is checked.
 */
function ownDirectory(dir: string): boolean {
  const me = process.getuid?.();
  try {
    let path = resolve(dir);
    while (!existsSync(path)) path = dirname(path); // the part still to be made is made private
    path = realpathSync(path);
    const leaf = path === resolve(dir) ? path : null;
    for (;;) {
      const { uid, mode } = statSync(path);
      if (path === leaf) {
        if ((me !== undefined && uid !== me) || (mode & 0o022) !== 0) return false;
      } else if ((me !== undefined && uid !== me && uid !== 0) || ((mode & 0o022) !== 0 && (mode & 0o1000) === 0)) return false;
      const up = dirname(path);
      if (up === path) return true;
      path = up;
    }
  } catch {
    return false; // a directory on the way this user cannot look into
  }
}

/** Writes the script's code cache, the functions run so far included, whole: another process reads either none or all of it. */
function writeCache(script: Script, file: string): void {
  const temp = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`; // threads of a process too
  try {
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
    if (!ownDirectory(join(file, ".."))) return; // made meanwhile by someone else
    writeFileSync(temp, script.createCachedData());
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true }); // a read-only or full cache directory: the next process compiles the bundle, as this one did
  }
}

/** The process's flags without code it was given to run (-e CODE): a program and the workers it starts share a cache. */
function flagsOf(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (/^(-e|-p|--eval|--print)$/.test(argv[i])) i++;
    else if (!/^(--eval=|--print=|--input-type=)/.test(argv[i])) out.push(argv[i]);
  }
  return out;
}

/** 32-bit FNV-1a of a short string, as hex: names a set of flags without loading node:crypto. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}
