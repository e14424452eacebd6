// The compiled package's runtime bundle (scripts/bundle-runtime.ts, run by npm run build): the modules a
// worker loads at start are one module, dist/fray-runtime.js, and each one's own file in dist/ re-exports
// its part of it, so there is still one copy of each in a process; its map names src/; the files those
// modules find beside their own (the worker's entries) are where they look.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { it } from "node:test";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const bundle = readFileSync(join(dist, "fray-runtime.body.js"), "utf8");
const node = (args: string[]) => execFileSync(process.execPath, args, { encoding: "utf8", timeout: 60_000, killSignal: "SIGKILL" });

it("a module the worker loads at start is a stub of the bundle, and both paths to it give the same objects", async () => {
  const stub = readFileSync(join(dist, "mesh/actor.js"), "utf8");
  assert.match(stub, /^import \{ parts \} from "\.\.\/fray-runtime\.js";\nconst \$0 = parts\["mesh\/actor:Actor"\], .*;\nexport \{ \$0 as Actor, .*\};$/m);
  const facade = (await import(join(dist, "mesh.js"))) as typeof import("../src/mesh.ts");
  const own = (await import(join(dist, "mesh/actor.js"))) as typeof import("../src/mesh/actor.ts");
  assert.equal(facade.Actor, own.Actor);
});

it("the files bundled modules find beside their own file exist where they look", () => {
  const found = [...bundle.matchAll(/new URL\(`\.\/([\w/-]+)\$\{[^`]*`, new URL\("\.\/([\w/-]+\.js)", __bundleUrl\)\.href\)/g)];
  const names = found.map((m) => `${dirname(m[2])}/${m[1]}.js`);
  const cjs = [...bundle.matchAll(/new URL\("\.\/([\w/-]+\.cjs)", new URL\("\.\/([\w/-]+\.js)", __bundleUrl\)\.href\)/g)];
  names.push(...cjs.map((m) => `${dirname(m[2])}/${m[1]}`));
  // fray/mesh no longer re-exports the launchers, so their mains are not the bundle's to find.
  for (const name of ["mesh/worker/bootstrap.js", "mesh/worker/process-entry.cjs"]) {
    assert.ok(names.includes(name), `the bundle looks for ${name}: ${names.join(", ")}`);
  }
  for (const name of names) assert.ok(existsSync(join(dist, name)), `${name} is missing from dist/`);
});

it("a stack trace through the bundle names the file in src/", () => {
  const script = `import { Extent } from ${JSON.stringify(join(dist, "mesh.js"))}; try { Extent.of({ a: -1 }); } catch (e) { console.log(e.stack); }`;
  const stack = node(["--enable-source-maps", "--input-type=module", "-e", script]);
  assert.match(stack, /at new Extent \(.*\/src\/mesh\/shape\/extent\.ts:\d+:\d+\)/);
});

/** What runtime-bundle-client.mjs prints. */
interface ClientAnswers {
  answers: { rank: number; oneActorClass: boolean; pid: number; entry: string }[];
  awaited: string;
  thrown: string;
}

for (const [how, flags, entry] of [
  ["a plain node (its workers start from the CommonJS entry)", [], "process-entry.cjs"],
  ["a node with loader hooks (its workers start from the ES module entry, which they follow)", ["--import", "data:text/javascript,"], "bootstrap.js"],
] as const) {
  it(`an actor module on the compiled package runs in workers on the runtime they loaded, one Actor class in each: ${how}`, () => {
    const out = JSON.parse(node([...flags, fileURLToPath(new URL("./runtime-bundle-client.mjs", import.meta.url))])) as ClientAnswers;
    assert.deepEqual(
      out.answers.map((a) => [a.rank, a.oneActorClass, a.entry]),
      [
        [0, true, entry],
        [1, true, entry],
      ],
    );
    assert.notEqual(out.answers[0].pid, out.answers[1].pid);
    // A module that awaits at top level (require() refuses it) is import()ed; one that throws fails its actor's start.
    assert.equal(out.awaited, "awaited");
    assert.match(out.thrown, /failed to start: this module throws while it runs in a worker/);
  });
}

it("a worker's entries load no fray module before the caches are on, and nothing before the runtime imports a built-in", () => {
  // The ES module entry (threads, loader hooks): its own imports are the caches' modules.
  const esm = readFileSync(join(dist, "mesh/worker/bootstrap.js"), "utf8");
  const own = [...esm.matchAll(/^import .* from "(\.[^"]+)";$/gm)].map((m) => m[1]);
  assert.deepEqual(own, ["../../runtime/code/bundle-script.js", "../../runtime/code/compile-cache.js"]);
  // The CommonJS entry (other processes) requires the same, then the runtime.
  const cjs = readFileSync(join(dist, "mesh/worker/process-entry.cjs"), "utf8");
  const required = [...cjs.matchAll(/require\("(\.[^"]+)"\)/g)].map((m) => m[1]);
  assert.deepEqual(required, ["../../runtime/code/compile-cache.js", "../../runtime/code/bundle-script.js", "./worker-runtime.js"]);
  // An ES module's import of a built-in makes node build its namespace, loading its lazy parts (node:fs's promises,
  // readline, streams): the modules a worker loads before the runtime take built-ins with process.getBuiltinModule.
  for (const file of own) {
    const text = readFileSync(join(dist, "mesh/worker", file), "utf8");
    assert.doesNotMatch(text, /^import /m, `${file} imports a module`);
  }
  assert.doesNotMatch(readFileSync(join(dist, "fray-runtime.js"), "utf8"), /from "node:/, "fray-runtime.js imports a built-in");
});
