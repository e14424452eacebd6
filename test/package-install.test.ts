// The package as a user gets it: `npm pack`, installed into a scratch project
// (without the optional Kubernetes client), type-checked by the user's own
// `tsc --strict` (no skipLibCheck) over code importing every entry point, then
// run from there.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, it } from "node:test";

const repo = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const tsc = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
const typesNode = (JSON.parse(readFileSync(join(repo, "node_modules/@types/node/package.json"), "utf8")) as { version: string }).version;
const scratch = mkdtempSync(join(tmpdir(), "fray-install-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const run = (cmd: string, args: string[], cwd = scratch) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", timeout: 150_000, killSignal: "SIGKILL", stdio: ["ignore", "pipe", "pipe"] });

let tarball = "";
before(() => {
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", scratch], repo)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(scratch, packed[0].filename);
  const project = join(scratch, "project");
  cpSync(join(repo, "test/package-install-project"), project, { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, `@types/node@${typesNode}`], project);
});

it("the packed package installs without the optional Kubernetes client and ships the sources its maps name", () => {
  const project = join(scratch, "project");
  const installed = readdirSync(join(project, "node_modules"));
  assert.ok(installed.includes("fray"));
  assert.ok(!installed.includes("@kubernetes"), "the Kubernetes client is an optional peer dependency, not installed by default");
  const fray = join(project, "node_modules/fray");
  const maps = readdirSync(join(fray, "dist"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js.map"));
  assert.ok(maps.length > 50, `${maps.length} source maps`);
  for (const map of maps) {
    const { sources } = JSON.parse(readFileSync(join(fray, "dist", map), "utf8")) as { sources: string[] };
    for (const source of sources) assert.doesNotThrow(() => readFileSync(join(fray, "dist", dirname(map), source)), `${map} names ${source}, which is not shipped`);
  }
  const declarations = readdirSync(join(fray, "dist"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".d.ts"));
  for (const d of declarations) {
    assert.doesNotMatch(readFileSync(join(fray, "dist", d), "utf8"), /["']@kubernetes\/client-node["']/, `${d} refers to the optional Kubernetes client`);
  }
});

it("a user's tsc --strict (no skipLibCheck) accepts code importing every entry point, and the program runs", () => {
  const project = join(scratch, "project");
  run(process.execPath, [tsc, "-p", "tsconfig.json"], project);
  const out = JSON.parse(run(process.execPath, ["--enable-source-maps", "dist/main.js"], project)) as Record<string, unknown>;
  assert.deepEqual(out.squares, [1, 4, 9]);
  assert.deepEqual(out.counts, [4, 4]);
  assert.deepEqual(out.gathered, [[12, 12], [12, 12]]);
  assert.equal(out.added, 5);
  assert.equal(out.shard, 7);
  assert.equal(out.cluster, "function");
  assert.match(String(out.kubernetes), /KubernetesJob needs the optional package @kubernetes\/client-node.*npm install @kubernetes\/client-node/);
  const frames = out.frames as string[];
  assert.ok(frames.some((f) => f.includes("/node_modules/fray/src/job/create.ts")), `stack frames: ${frames.join(", ")}`);
  assert.deepEqual(out.missing, [], "stack frames name files that are not installed");
});

it("package-lock.json lists every platform's optional native packages, so `npm ci` works on linux, macOS and Windows", () => {
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as { packages: Record<string, { optionalDependencies?: Record<string, string> }> };
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
      // npm looks for a dependency beside the package, then in each enclosing node_modules.
      const candidates = [`${path ? `${path}/` : ""}node_modules/${dep}`, `node_modules/${dep}`];
      if (!candidates.some((c) => c in lock.packages)) missing.push(`${dep} (optional dependency of ${path || "the root"})`);
    }
  }
  assert.deepEqual(missing, []);
});
