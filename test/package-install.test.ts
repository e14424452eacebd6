// The package as a user gets it: `npm pack`, installed into a scratch project
// (without the optional Kubernetes client, without @types/node of its own) with
// TypeScript 7 (npm's latest) and TypeScript 5; each type-checks, with a default
// strict tsconfig (no `types`, no `lib`, no skipLibCheck), code importing every
// entry point and each entry point's doc example; the program then runs on every
// Node version the package supports, and the installed `fray demo` on those the
// suite does not run on.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, it } from "node:test";
import type * as TypeScript from "typescript";
import { NODE_MAJORS, SUITE_NODE, testNode } from "../scripts/test-setup.ts";
import { isAlive, waitForExit } from "./helpers.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const scratch = mkdtempSync(join(tmpdir(), "fray-install-"));
const project = join(scratch, "project");
after(() => rmSync(scratch, { recursive: true, force: true }));

const run = (cmd: string, args: string[], cwd = scratch) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", timeout: 150_000, killSignal: "SIGKILL", stdio: ["ignore", "pipe", "pipe"] });

/** The user's TypeScript compilers: npm's latest (7) under its own name, and 5 under an alias. */
const TYPESCRIPTS = { 7: "typescript", 5: "typescript5" } as const;

let tarball = "";
before(() => {
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", scratch], repo)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(scratch, packed[0].filename);
  cpSync(join(repo, "test/package-install-project"), project, { recursive: true });
  // The examples are user code too: they type-check in this project, against the installed package.
  cpSync(join(repo, "examples"), join(project, "examples"), { recursive: true, filter: (path) => !path.endsWith("tsconfig.json") });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
  // --prefer-offline: npm's cache makes a repeated run quick.
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, "typescript@7", "typescript5@npm:typescript@5"], project);
});

it("the packed package installs without the optional Kubernetes client, ships the sources its maps name and no @internal member in its types", () => {
  const installed = readdirSync(join(project, "node_modules"));
  assert.ok(installed.includes("fray"));
  assert.ok(!installed.includes("@kubernetes"), "the Kubernetes client is an optional peer dependency, not installed by default");
  const fray = join(project, "node_modules/fray");
  const maps = readdirSync(join(fray, "dist"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js.map"));
  assert.ok(maps.length > 50, `${maps.length} source maps`);
  for (const map of maps) {
    const { sources } = JSON.parse(readFileSync(join(fray, "dist", map), "utf8")) as { sources: string[] };
    for (const source of sources)
      assert.doesNotThrow(() => readFileSync(join(fray, "dist", dirname(map), source)), `${map} names ${source}, which is not shipped`);
  }
  const declarations = readdirSync(join(fray, "dist"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".d.ts"));
  assert.ok(declarations.length > 50, `${declarations.length} declaration files`);
  for (const d of declarations) {
    const text = readFileSync(join(fray, "dist", d), "utf8");
    assert.doesNotMatch(text, /["']@kubernetes\/client-node["']/, `${d} refers to the optional Kubernetes client`);
    assert.doesNotMatch(text, /@internal/, `${d} ships a member marked @internal (stripInternal in tsconfig.json removes them)`);
  }
});

/** The package's entry points as package.json's "exports" has them: "." (fray), "./mesh" (fray/mesh), … */
const exportsMap = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { exports: Record<string, { types: string } | string> }).exports;
const entryPoints = Object.entries(exportsMap).flatMap(([key, target]) =>
  typeof target === "object"
    ? [{ name: `fray${key.slice(1)}`, types: target.types, source: target.types.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts") }]
    : [],
);

it(
  "TypeScript 7 and 5, with a default strict tsconfig (nodenext, no types, no lib, no skipLibCheck), accept code importing every entry " +
    "point, each entry point's @example, and the examples",
  () => {
    // Each entry file (shipped in src/) opens with a module comment carrying one example; it must compile against the package.
    assert.equal(entryPoints.length, 7);
    for (const { name, source, types } of entryPoints) {
      const text = readFileSync(join(project, "node_modules/fray", source), "utf8");
      const example = /^ \* @example\n \* ```ts\n([\s\S]*?)\n \* ```$/m.exec(text);
      assert.ok(example, `${source} (${name}) has no @example in its module comment`);
      writeFileSync(join(project, `example-${name.replace("/", "-")}.ts`), example[1].replace(/^ \* ?/gm, "") + "\n");
      // TypeScript 6 and later include no @types package unless asked: each entry's declarations bring node's types along.
      assert.match(readFileSync(join(project, "node_modules/fray", types), "utf8"), /^\/\/\/ <reference types="node"/m, `${types} (${name})`);
    }
    const tsconfig = JSON.parse(readFileSync(join(project, "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown> };
    for (const option of ["types", "lib", "skipLibCheck"]) assert.ok(!(option in tsconfig.compilerOptions), `the user's tsconfig sets no ${option}`);
    for (const [major, name] of Object.entries(TYPESCRIPTS)) {
      const dir = join(project, "node_modules", name);
      assert.match((JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version, new RegExp(`^${major}\\.`));
      // TypeScript 5 only checks; TypeScript 7, npm's latest, also emits the program the tests below run.
      try {
        run(process.execPath, [join(dir, "bin", "tsc"), "-p", "tsconfig.json", ...(major === "5" ? ["--noEmit"] : [])], project);
      } catch (err) {
        assert.fail(`TypeScript ${major} rejects the user's project:\n${(err as { stdout?: string }).stdout || (err as Error).message}`);
      }
    }
  },
);

for (const major of NODE_MAJORS) {
  it(`on Node ${major}, the user's program runs, and prints no warning`, async () => {
    const node = await testNode(major);
    assert.ok(existsSync(join(project, "dist/main.js")), "the TypeScript test above emits the program");
    const program = spawnSync(node, ["--enable-source-maps", "dist/main.js"], { cwd: project, encoding: "utf8", timeout: 150_000, killSignal: "SIGKILL" });
    assert.equal(program.status, 0, program.stderr);
    assert.equal(program.stderr, "", "the program prints no warning");
    checkProgramOutput(JSON.parse(program.stdout) as Record<string, unknown>);
  });
}

// The suite itself runs on SUITE_NODE, where test/cli.test.ts runs the demo.
for (const major of NODE_MAJORS.filter((m) => m !== SUITE_NODE)) {
  it(`on Node ${major}, the installed fray demo trains, survives a killed worker, leaves no process behind and prints no warning`, async () => {
    const node = await testNode(major);
    const bin = join(project, "node_modules/fray/dist/cli/main.js");
    const demo = spawnSync(node, [bin, "demo", "--procs", "3", "--rows", "60000", "--steps", "30", "--batch", "4096"], {
      cwd: project,
      encoding: "utf8",
      timeout: 150_000,
      killSignal: "SIGKILL",
    });
    const pids = [...demo.stdout.matchAll(/pids ([\d, ]+)\)/g)].flatMap((m) => m[1].split(", ").map(Number));
    try {
      assert.equal(demo.status, 0, `${demo.stdout}\n${demo.stderr}`);
      assert.match(demo.stdout, /respawned rank 2 as process \d+ in \d+ ms; resuming at step 15/);
      assert.ok(Number(/held-out accuracy ([\d.]+)%/.exec(demo.stdout)?.[1]) >= 90, demo.stdout);
      assert.deepEqual(
        demo.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("training: ")),
        [],
        "stderr holds the progress lines only",
      );
      await waitForExit(pids);
    } finally {
      const left = pids.filter(isAlive);
      for (const pid of left) process.kill(pid, "SIGKILL");
      assert.deepEqual(left, [], "no worker process is left");
    }
  });
}

/** What the user's program (test/package-install-project/main.ts) printed. */
function checkProgramOutput(out: Record<string, unknown>): void {
  assert.deepEqual(out.squares, [1, 4, 9]);
  assert.deepEqual(out.counts, [4, 4]);
  assert.deepEqual(out.gathered, [
    [12, 12],
    [12, 12],
  ]);
  assert.equal(out.added, 5);
  assert.equal(out.shard, 7);
  assert.equal(out.cluster, "function");
  assert.match(String(out.kubernetes), /KubernetesJob needs the optional package @kubernetes\/client-node.*npm install @kubernetes\/client-node/);
  assert.equal(out.launched, 9, "a ProcessJob's host ran the user's actor");
  assert.deepEqual(out.dashboard, { refused: 401, ownPid: true });
  assert.deepEqual(out.oldPaths, [false, false], "fray/mesh and fray/cluster export no launcher and no dashboard");
  const frames = out.frames as string[];
  assert.ok(
    frames.some((f) => f.includes("/node_modules/fray/src/job/contexts/create.ts")),
    `stack frames: ${frames.join(", ")}`,
  );
  assert.deepEqual(out.missing, [], "stack frames name files that are not installed");
}

it("one name per concept: a name two entry points export is the same declaration in both, and none is an alias of a name that moved", () => {
  const ts = require("typescript") as typeof TypeScript;
  const options: TypeScript.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
  };
  // Every entry point's exports, as the checker lists them for the installed package.
  const listing = join(project, "listing.ts");
  writeFileSync(listing, entryPoints.map(({ name }, i) => `import * as m${i} from "${name}";\n`).join(""));
  const program = ts.createProgram([listing], options);
  const checker = program.getTypeChecker();
  const declarationOf = (s: TypeScript.Symbol) => {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
    const d = target.declarations?.[0];
    return d ? `${d.getSourceFile().fileName}:${d.pos}` : target.name;
  };
  const seen = new Map<string, { entry: string; declaration: string }>();
  const namesOf = new Map<string, string[]>();
  const clashes: string[] = [];
  program
    .getSourceFile(listing)!
    .statements.filter(ts.isImportDeclaration)
    .forEach((d, i) => {
      const { name: entry } = entryPoints[i];
      const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(d.moduleSpecifier)!);
      namesOf.set(
        entry,
        exported.map((s) => s.name),
      );
      for (const s of exported) {
        const first = seen.get(s.name);
        const declaration = declarationOf(s);
        if (!first) seen.set(s.name, { entry, declaration });
        else if (first.declaration !== declaration) clashes.push(`${s.name}: ${first.entry} and ${entry} export different things`);
      }
    });
  assert.ok(seen.size > 100, `${seen.size} exported names`);
  assert.deepEqual(clashes, [], "rename one of each pair");
  assert.ok(!namesOf.get("fray/mesh")!.includes("ActorMeshImpl"), "fray/mesh exports ActorMeshImpl, which ActorMesh's members (MeshMembers) describe");
  // The launchers and the dashboard are imported from their own entry points only (they once had aliases in these).
  for (const [old, now] of [
    ["fray/mesh", "fray/launchers"],
    ["fray/cluster", "fray/dashboard"],
  ]) {
    const moved = namesOf.get(now)!;
    assert.ok(moved.length > 5, `${now} exports ${moved.join(", ")}`);
    assert.deepEqual(
      namesOf.get(old)!.filter((name) => moved.includes(name)),
      [],
      `${old} exports names of ${now}`,
    );
  }
});

it("package-lock.json lists every platform's optional native packages, so `npm ci` works on linux, macOS and Windows", () => {
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as {
    packages: Record<string, { optionalDependencies?: Record<string, string> }>;
  };
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
