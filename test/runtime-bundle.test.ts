// The compiled package's runtime bundle (scripts/bundle-runtime.ts, run by npm run build): the modules a
// worker loads at start are one module, dist/fray-runtime.js, and each one's own file in dist/ re-exports
// its part of it, so there is still one copy of each in a process; its map names src/; the files those
// modules find beside their own (the worker entry, launchers' mains) are where they look.
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
  assert.match(readFileSync(join(dist, "mesh/actor.js"), "utf8"), /^export \{ "mesh\/actor:Actor" as Actor, .*\} from "\.\.\/fray-runtime\.js";$/m);
  const facade = (await import(join(dist, "mesh.js"))) as typeof import("../src/mesh.ts");
  const own = (await import(join(dist, "mesh/actor.js"))) as typeof import("../src/mesh/actor.ts");
  assert.equal(facade.Actor, own.Actor);
});

it("the worker entry's own imports load no fray module, so node's compile cache is on before the runtime loads", () => {
  const entry = readFileSync(join(dist, "mesh/bootstrap.js"), "utf8");
  const own = [...entry.matchAll(/^import .* from "(\.[^"]+)";$/gm)].map((m) => m[1]);
  assert.deepEqual(own, ["../runtime/code/bundle-script.js", "../runtime/code/compile-cache.js", "../runtime/code/esm-require.js"]);
  for (const file of own) assert.doesNotMatch(readFileSync(join(dist, "mesh", file), "utf8"), /from "\./, `${file} imports a fray module`);
});

it("the files bundled modules find beside their own file exist where they look", () => {
  const found = [...bundle.matchAll(/new URL\(`\.\/([\w-]+)\$\{[^`]*`, new URL\("\.\/([\w/-]+\.js)", __bundleUrl\)\.href\)/g)];
  const names = found.map((m) => `${dirname(m[2])}/${m[1]}.js`);
  for (const name of ["mesh/bootstrap.js", "launchers/worker-main.js", "launchers/simulated-worker-main.js", "launchers/slurm-worker-main.js"]) {
    assert.ok(names.includes(name), `the bundle looks for ${name}: ${names.join(", ")}`);
  }
  for (const name of names) assert.ok(existsSync(join(dist, name)), `${name} is missing from dist/`);
});

it("a stack trace through the bundle names the file in src/", () => {
  const script = `import { Extent } from ${JSON.stringify(join(dist, "mesh.js"))}; try { Extent.of({ a: -1 }); } catch (e) { console.log(e.stack); }`;
  const stack = node(["--enable-source-maps", "--input-type=module", "-e", script]);
  assert.match(stack, /at new Extent \(.*\/src\/mesh\/extent\.ts:\d+:\d+\)/);
});

it("an actor module on the compiled package runs in workers on the runtime they loaded, one Actor class in each", () => {
  const answers = JSON.parse(node([fileURLToPath(new URL("./runtime-bundle-client.mjs", import.meta.url))])) as {
    rank: number;
    oneActorClass: boolean;
    pid: number;
  }[];
  assert.deepEqual(
    answers.map((a) => [a.rank, a.oneActorClass]),
    [
      [0, true],
      [1, true],
    ],
  );
  assert.notEqual(answers[0].pid, answers[1].pid);
});
