// Runs after tsc (npm run build): puts the modules every worker loads at start — a worker's runtime
// and `fray/mesh` with all they import, ~110 files, and msgpackr — into one script, dist/fray-runtime.body.js,
// so a worker's Node reads and compiles one file instead of ~110 (Node 20's ESM loader spends ~0.5 ms
// resolving each; benchmark P6, cold start), and starts from V8's code cache for it (Node 20 has no
// compile cache for modules): dist/fray-runtime.js runs it through src/runtime/code/bundle-script.ts and
// exports its parts. Each of those modules' own file in dist/ becomes a stub exporting its part under
// the names it had, so whatever imports it (a user's `import "fray/mesh"`, or a module left out of the
// bundle) gets the very same classes, symbols and registries: there is one copy of each module in a
// process, as before. The source map names the files in src/ (shipped); modules that the bundled ones
// import with import() stay files of their own, loaded when first used.
//   node --import tsx scripts/bundle-runtime.ts [dist]
import type * as Esbuild from "esbuild";
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

// esbuild comes with tsx (a devDependency): taken from there, it needs no install of its own.
const require = createRequire(import.meta.url);
const { build } = require(createRequire(require.resolve("tsx")).resolve("esbuild")) as typeof Esbuild;
type Plugin = Esbuild.Plugin;

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");
const dist = resolve(root, process.argv[2] ?? "dist");
const BUNDLE = "fray-runtime.js";
const BODY = "fray-runtime.body.js";
/** What import() becomes in the script: as long as "import", so that the source map still holds. */
const IMPORT = "__load";
/** What a worker loads at start: its entry's runtime, and `fray/mesh`, which every actor module imports. */
const WORKER_ENTRY = join(src, "mesh/worker/bootstrap.ts");
const ROOTS = [join(src, "mesh.ts"), WORKER_ENTRY];

/** `src/a/b.ts` → `a/b.js`, its path in dist/ (and its name inside the bundle). */
const distPath = (file: string) => relative(src, file).split(sep).join("/").replace(/\.ts$/, ".js");

/**
 * import() of one of fray's modules stays a load of that module's own file in dist/ (relative to the
 * bundle, at dist/'s top), so what is loaded on first use is not loaded at start. The worker entry's
 * import()s are the runtime it loads at start, so they are followed; its static imports stay files: they
 * run before it loads the runtime (turning on node's compile cache first, compile-cache.ts).
 */
const dynamicImportsStay: Plugin = {
  name: "dynamic-imports-stay",
  setup(b) {
    b.onResolve({ filter: /^\./, namespace: "file" }, (args) => {
      const own = "./" + distPath(resolve(dirname(args.importer), args.path));
      if (args.importer === WORKER_ENTRY) return args.kind === "dynamic-import" ? undefined : { path: own, external: true };
      return args.kind === "dynamic-import" ? { path: own, external: true } : undefined;
    });
  },
};

/** A module that finds files beside itself (`new URL("./x.js", import.meta.url)`) finds them beside its own file in dist/, not the bundle's. */
const ownUrl: Plugin = {
  name: "own-import-meta-url",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return undefined;
      const own = `new URL(${JSON.stringify("./" + distPath(args.path))}, import.meta.url).href`;
      return { contents: text.replace(/import\.meta\.url\b/g, own), loader: "ts" };
    });
  },
};

/**
 * Packages stay where they are installed, but msgpackr: every worker uses it at start, and in the bundle it starts from
 * V8's code cache (src/wire/msgpackr.ts keeps one instance of it per process, whichever copy of fray loads first).
 */
const packagesStayButMsgpackr: Plugin = {
  name: "packages-stay-but-msgpackr",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path === "msgpackr/pack" || args.path.startsWith("node:") ? undefined : { path: args.path, external: true },
    );
  },
};

// 1. The modules: what the roots import, statically (and what the worker entry import()s).
const graph = await build({
  entryPoints: ROOTS,
  bundle: true,
  write: false,
  metafile: true,
  format: "esm",
  platform: "node",
  packages: "external",
  outdir: dist,
  plugins: [dynamicImportsStay],
  logLevel: "error",
});
const modules = Object.keys(graph.metafile.inputs)
  .map((input) => resolve(root, input))
  .filter((file) => file.startsWith(src + sep) && file !== WORKER_ENTRY);

// The module that runs the bundle exports what each of these exported when it ran (bundle-script.ts): a binding assigned later
// would not follow.
for (const m of modules) {
  if (/^export (let|var)\b/m.test(readFileSync(m, "utf8"))) throw new Error(`bundle-runtime: ${m} exports a let or var; export a function that reads it`);
}

// 2. Their value exports, as tsc compiled them.
const compiled = await build({
  entryPoints: modules.map((m) => join(dist, distPath(m))),
  bundle: false,
  write: false,
  metafile: true,
  format: "esm",
  outdir: "/",
  logLevel: "error",
});
const exportsOf = new Map(Object.values(compiled.metafile.outputs).map((o) => [resolve(root, o.entryPoint!), o.exports]));

// 3. One module exporting each module's exports as "path:name" (e.g. "mesh/actor:Actor").
const key = (module: string, name: string) => JSON.stringify(`${distPath(module).replace(/\.js$/, "")}:${name}`);
const entry = modules
  .map((m) => {
    const names = exportsOf.get(join(dist, distPath(m))) ?? [];
    const path = JSON.stringify("./" + relative(root, m).split(sep).join("/"));
    return names.length ? `export { ${names.map((n) => `${n === "default" ? '"default"' : n} as ${key(m, n)}`).join(", ")} } from ${path};` : `import ${path};`;
  })
  .join("\n");
const built = await build({
  stdin: { contents: entry, resolveDir: root, sourcefile: "fray-runtime-entry.js", loader: "js" },
  bundle: true,
  write: false,
  outfile: join(dist, BODY),
  format: "cjs", // the body of a script that bundle-script.ts runs with V8's code cache (node:vm has it for scripts only)
  platform: "node",
  target: "node20",
  keepNames: true, // class and function names as written: messages, error revival and actor names use them
  sourcemap: "external",
  sourcesContent: false, // the map names src/, which the package ships
  plugins: [dynamicImportsStay, ownUrl, packagesStayButMsgpackr],
  define: { "import.meta.url": "__bundleUrl", "import.meta.resolve": "__bundleResolve" }, // the module's, which are beside the bundle
  logLevel: "error",
});
const output = (ext: string) => built.outputFiles.find((f) => f.path.endsWith(ext))!.text;
let body = output(".js");
const map = JSON.parse(output(".js.map")) as { sources: string[]; names: string[]; mappings: string };
for (const left of ["import.meta", "import_meta"]) {
  if (body.includes(left)) throw new Error(`bundle-runtime: ${left} is left in the bundle; give it to the script like import.meta.url (define)`);
}

// 4. keepNames wraps every function expression in __name(fn, "name"), which redefines `name` each time one is made:
// closures on hot paths paid ~7% of an actor round trip's CPU for it. Arrow functions (no prototype) keep the name
// V8 gives them; classes and functions still get theirs (a class esbuild made `_Extent` is still `Extent`).
// (esbuild names the helper's parameter target2 and so on when a bundled module has a `target` of its own.)
const helper = /^var __name = \((target\d*), value\) => __defProp\(\1, "name", \{ value, configurable: true \}\);$/m;
if (!helper.test(body)) throw new Error(`bundle-runtime: esbuild's __name helper is not the one expected in ${BODY}; update this script`);
body = body.replace(helper, 'var __name = ($1, value) => $1.prototype === undefined ? $1 : __defProp($1, "name", { value, configurable: true });');

// 5. esbuild's output is pure ASCII but for its comments (charset "ascii" escapes the rest), and a worker reads an ASCII
// file faster (bundle-script.ts reads it as latin1): comments get ASCII, one character each, so the source map still holds.
body = body.replace(/[\u0080-\uffff]/g, (c) => ({ "\u2014": "-", "\u2013": "-", "\u2026": ".", "\u2192": ">", "\u00d7": "x" })[c] ?? "?");
// The exports object as it is: esbuild's copy of it (for CommonJS's __esModule) cost a worker ~0.5 ms.
const exported = /^module\.exports = __toCommonJS\((\w+)\);$/m;
if (!exported.test(body)) throw new Error(`bundle-runtime: esbuild's module.exports line is not the one expected in ${BODY}; update this script`);
body = body.replace(exported, "module.exports = $1;");

// 6. A script has no import(): each becomes a call of the module's own (same length, so the source map still holds).
if (body.includes(IMPORT)) throw new Error(`bundle-runtime: ${IMPORT} is already a name in the bundle; pick another for import()`);
const parsed = ts.createSourceFile(BODY, body, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
const at: number[] = [];
const visit = (node: ts.Node): void => {
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) at.push(node.expression.getStart(parsed));
  ts.forEachChild(node, visit);
};
visit(parsed);
for (const i of at.reverse()) body = body.slice(0, i) + IMPORT + body.slice(i + "import".length);

// 7. The script: a function of what the CommonJS output uses and what stands for import() and import.meta, strict as the
// modules were. Its lines are named by fray-runtime.js's URL in stack traces, and that module's source map (this one,
// its lines moved down by the function's head) maps them to src/.
const head = [
  `(function (exports, require, module, __bundleUrl, ${IMPORT}, __bundleResolve) { "use strict";`,
  "// Generated by scripts/bundle-runtime.ts from the files in src/ that the source map fray-runtime.js.map names; read those.",
  "// Run as a script by src/runtime/code/bundle-script.ts for dist/fray-runtime.js, which exports its parts (a worker starts",
  "// from V8's code cache for it: Node 20 has no compile cache for modules). Stack traces name fray-runtime.js's lines here.",
];
const script = `${head.join("\n")}\n${body}})\n`;
if (/[\u0080-\uffff]/.test(script)) throw new Error(`bundle-runtime: ${BODY} is not all ASCII, which bundle-script.ts reads it as`);
writeFileSync(join(dist, BODY), script);
// The generated entry and the packages bundled (msgpackr, whose own files are not where an installed fray's map would say)
// are no source a reader could open: a frame in them is shown as the script's line.
map.mappings = ";".repeat(head.length) + withoutSources(map, (source) => source.endsWith("/fray-runtime-entry.js") || source.includes("node_modules/"));
writeFileSync(join(dist, BUNDLE + ".map"), JSON.stringify(map));

// 8. fray-runtime.js runs the script and exports its parts, as one object: each module's stub takes its own (a module
// with ~500 exports cost a worker ~1.5 ms of CPU to load). Its source map is the script's, so its own lines must map to
// nothing (the script's head and the CommonJS helpers after it): a frame in them is then shown as it is.
const packages = [...new Set([...body.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]).filter((id) => !id.startsWith("node:")))];
const shim = [
  `// Generated by scripts/bundle-runtime.ts: the parts of the runtime bundle ${BODY} (src/runtime/code/bundle-script.ts runs it).`,
  [...packages.map((id, i) => `import * as p${i} from ${JSON.stringify(id)};`), 'import { runBundle } from "./runtime/code/bundle-script.js";'].join(" "),
  `export const parts = runBundle({ url: import.meta.url, file: ${JSON.stringify("./" + BODY)}, hash: ${JSON.stringify(hashOf(body))}, ` +
    `packages: {${packages.map((id, i) => ` ${JSON.stringify(id)}: p${i}`).join(",")} }, ` +
    "importModule: (s) => import(s), resolve: (s) => import.meta.resolve(s) });",
  `//# sourceMappingURL=${BUNDLE}.map`,
];
const unmapped = map.mappings.split(";").findIndex((line) => line !== "");
if (unmapped < shim.length) throw new Error(`bundle-runtime: line ${unmapped + 1} of the script has mappings, but ${BUNDLE}'s own code is there`);
writeFileSync(join(dist, BUNDLE), shim.join("\n") + "\n");

// 9. Each bundled module's own file re-exports its part of the bundle.
for (const m of modules) {
  const own = join(dist, distPath(m));
  const names = exportsOf.get(own) ?? [];
  const bundle = JSON.stringify(
    relative(dirname(own), join(dist, BUNDLE))
      .split(sep)
      .join("/")
      .replace(/^(?!\.)/, "./"),
  );
  const body = names.length
    ? [
        `import { parts } from ${bundle};`,
        `const ${names.map((n, i) => `$${i} = parts[${key(m, n)}]`).join(", ")};`,
        `export { ${names.map((n, i) => `$${i} as ${n === "default" ? '"default"' : n}`).join(", ")} };`,
      ].join("\n")
    : `import ${bundle};`;
  writeFileSync(own, `// ${relative(src, m)} is bundled into ${BUNDLE} (scripts/bundle-runtime.ts).\n${body}\n`);
  rmSync(own + ".map", { force: true });
}
console.log(`bundle-runtime: ${modules.length} modules into dist/${BODY}, run by dist/${BUNDLE}`);

/**
 * The map's mappings without the segments of the sources `drop` names, and those out of its sources. Each segment's
 * fields are base64 VLQs, relative to the segment before (the column to the one before on its line).
 */
function withoutSources(map: { sources: string[]; mappings: string }, drop: (source: string) => boolean): string {
  const kept: string[] = [];
  const renumbered = map.sources.map((source) => (drop(source) ? -1 : kept.push(source) - 1)); // each one's index after; -1: dropped
  if (kept.length === map.sources.length) return map.mappings;
  map.sources = kept;
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const decode = (text: string): number[] => {
    const out: number[] = [];
    for (let i = 0, value = 0, shift = 0; i < text.length; i++) {
      const digit = B64.indexOf(text[i]);
      value += (digit & 31) << shift;
      if (digit & 32) {
        shift += 5;
        continue;
      }
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
    return out;
  };
  const encode = (values: number[]): string =>
    values
      .map((v) => {
        let rest = v < 0 ? (-v << 1) | 1 : v << 1;
        let text = "";
        do {
          const digit = rest & 31;
          rest >>>= 5;
          text += B64[rest ? digit | 32 : digit];
        } while (rest);
        return text;
      })
      .join("");
  const state = [0, 0, 0, 0]; // source, line, column, name: absolute, read from the input
  const written = [0, 0, 0, 0]; // the same, as last written
  return map.mappings
    .split(";")
    .map((line) => {
      let column = 0;
      let writtenColumn = 0;
      const kept: string[] = [];
      for (const segment of line ? line.split(",") : []) {
        const f = decode(segment);
        column += f[0];
        if (f.length === 1) {
          kept.push(encode([column - writtenColumn]));
          writtenColumn = column;
          continue;
        }
        for (let k = 1; k < f.length; k++) state[k - 1] += f[k];
        if (renumbered[state[0]] < 0) continue;
        const abs = [renumbered[state[0]], state[1], state[2], state[3]];
        const rel = [column - writtenColumn, ...abs.slice(0, f.length - 1).map((v, k) => v - written[k])];
        for (let k = 0; k < f.length - 1; k++) written[k] = abs[k];
        kept.push(encode(rel));
        writtenColumn = column;
      }
      return kept.join(",");
    })
    .join(";");
}

function hashOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
