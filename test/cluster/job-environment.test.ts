// A job's EnvironmentConfig on the local cluster: npm packages installed from the
// registry into a shared cache (two versions side by side, require and import,
// no reinstall of a set already there), setup scripts before the entrypoint, and
// the workspace copied for the job; the packages found on every supported Node version.
import assert from "node:assert/strict";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Entrypoint } from "../../src/cluster.ts";
import { clusterFixture, nodeScript } from "./cluster-suite.ts";
import { reportPackage } from "./job-environment-jobs.ts";
import { NODE_MAJORS, testNode } from "../../scripts/test-setup.ts";

/** A temp directory holding `files` (path → text), removed when the file's tests end. */
function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "fray-workspace-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

// Print which is-number each module system resolves, and what calling it returns.
const VERSION_SCRIPTS = {
  "version.cjs": `console.log("cjs", require("is-number/package.json").version, require("is-number")(5));`,
  "version.mjs": `import isNumber from "is-number"; import { readFileSync } from "node:fs";
const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.resolve("is-number")), "utf8"));
console.log("esm", pkg.version, isNumber(5));`,
};

describe("job environments on the local cluster", () => {
  const fx = clusterFixture("local");
  const npmCache = join(fx.dir, "local", "npm");
  const sh = (script: string) => Entrypoint.fromBinary("sh", ["-c", script]);

  it(
    "npmPackages: two versions of a package side by side (require and import); the same set again is not reinstalled; the job's own " +
      "node_modules and the packages' CLIs",
    async () => {
      const ws = workspace(VERSION_SCRIPTS);
      const setA = ["is-number@6.0.0", "semver@7.6.3"];
      const [a, b] = await Promise.all([
        fx.cluster.launch({
          name: "npm-v6",
          entrypoint: Entrypoint.fromBinary(process.execPath, ["version.cjs"]),
          environment: { workspace: ws, npmPackages: setA },
        }),
        fx.cluster.launch({
          name: "npm-v7",
          entrypoint: Entrypoint.fromBinary(process.execPath, ["version.mjs"]),
          environment: { workspace: ws, npmPackages: ["is-number@7.0.0"] },
        }),
      ]);
      const infos = await fx.cluster.wait([a, b], { raiseOnFailure: false });
      assert.deepEqual(
        infos.map((i) => [i.status, i.errorMessage]),
        [
          ["succeeded", undefined],
          ["succeeded", undefined],
        ],
      );
      assert.deepEqual(await fx.cluster.logs(a), ["[replica-0] cjs 6.0.0 true"]);
      assert.deepEqual(await fx.cluster.logs(b), ["[replica-0] esm 7.0.0 true"]);

      const entries = () => readdirSync(npmCache).sort();
      assert.equal(entries().length, 2, `one cache entry per set, no install left over: ${entries()}`);
      const entryOf = (specs: string[]) =>
        entries().find((e) => JSON.parse(readFileSync(join(npmCache, e, "fray-env.json"), "utf8")).specs.join() === [...specs].sort().join());
      const entryA = entryOf(setA);
      assert.ok(entryA, "set A has an entry");
      const record = join(npmCache, entryA, "fray-env.json");
      const before = { ino: statSync(record).ino, text: readFileSync(record, "utf8") };

      // The same set in another order; a workspace with its own is-number, which wins over the environment's.
      const own = workspace({
        ...VERSION_SCRIPTS,
        "node_modules/is-number/package.json": JSON.stringify({ name: "is-number", version: "0.0.0-own", main: "index.js" }),
        "node_modules/is-number/index.js": `module.exports = () => "own";`,
      });
      const c = await fx.cluster.launch({
        name: "npm-again",
        entrypoint: sh(`semver 1.2.3 -i minor && node version.cjs && node version.mjs`),
        environment: { workspace: own, npmPackages: [...setA].reverse() },
      });
      assert.equal((await fx.cluster.wait(c)).status, "succeeded", (await fx.cluster.logs(c)).join("\n"));
      assert.deepEqual(await fx.cluster.logs(c), ["[replica-0] 1.3.0", "[replica-0] cjs 0.0.0-own own", "[replica-0] esm 0.0.0-own own"]);
      assert.ok(lstatSync(join(fx.dir, "local", c, "workspace", "node_modules")).isSymbolicLink(), "the copy links the workspace's node_modules");
      // A job function (its module outside any workspace) resolves them too, both ways.
      const out = join(fx.dir, "callable.json");
      const d = await fx.cluster.launch({
        name: "npm-callable",
        entrypoint: Entrypoint.fromCallable(reportPackage, [out, "is-number"]),
        environment: { npmPackages: ["is-number@7.0.0"] },
      });
      assert.equal((await fx.cluster.wait(d)).status, "succeeded", (await fx.cluster.logs(d)).join("\n"));
      assert.deepEqual(JSON.parse(readFileSync(out, "utf8")), { imported: "7.0.0", required: "7.0.0", result: true });
      assert.equal(entries().length, 2, "no new entry");
      assert.deepEqual({ ino: statSync(record).ino, text: readFileSync(record, "utf8") }, before, "set A's entry is the one installed first, untouched");
    },
  );

  it("npmPackages on Node 20, 22, 24 and 26: require and import find them, and node prints no warning into the job's output", async () => {
    // module.register() is deprecated on Node 26 (DEP0205, a warning on stderr); the environment uses module.registerHooks where it exists.
    const ws = workspace(VERSION_SCRIPTS);
    const nodes: string[] = [];
    for (const major of NODE_MAJORS) nodes.push(await testNode(major));
    const ids = await Promise.all(
      nodes.map((node, i) =>
        fx.cluster.launch({
          name: `npm-node-${NODE_MAJORS[i]}`,
          entrypoint: sh(`"${node}" version.cjs && "${node}" version.mjs`),
          environment: { workspace: ws, npmPackages: ["is-number@7.0.0"] },
        }),
      ),
    );
    for (const [i, id] of ids.entries()) {
      const { status } = await fx.cluster.wait(id, { raiseOnFailure: false });
      const logs = await fx.cluster.logs(id);
      assert.equal(status, "succeeded", `Node ${NODE_MAJORS[i]}: ${logs.join("\n")}`);
      assert.deepEqual(logs, ["[replica-0] cjs 7.0.0 true", "[replica-0] esm 7.0.0 true"], `Node ${NODE_MAJORS[i]}`);
    }
  });

  it(
    "a package npm cannot install, or an install past FRAY_NPM_INSTALL_TIMEOUT_MS, fails the launch with npm's output, and leaves no job and " +
      "no cache entry",
    async () => {
      const spec = "fray-no-such-package-4b8965d@1.0.0";
      const jobs = (await fx.cluster.listJobs()).length;
      const cached = readdirSync(npmCache).length;
      await assert.rejects(
        fx.cluster.launch({ name: "npm-bad", entrypoint: nodeScript(""), environment: { npmPackages: [spec] } }),
        (err: Error) =>
          err.message.startsWith(`job npm-bad: npm install ${spec} exited with code 1; check environment.npmPackages:\n`) && /404|not found/i.test(err.message),
      );
      process.env.FRAY_NPM_INSTALL_TIMEOUT_MS = "1";
      try {
        await assert.rejects(
          fx.cluster.launch({ name: "npm-slow", entrypoint: nodeScript(""), environment: { npmPackages: ["is-number@5.0.0"] } }),
          /^Error: job npm-slow: npm install is-number@5\.0\.0 was stopped after FRAY_NPM_INSTALL_TIMEOUT_MS=1; check environment\.npmPackages/,
        );
      } finally {
        delete process.env.FRAY_NPM_INSTALL_TIMEOUT_MS;
      }
      assert.equal((await fx.cluster.listJobs()).length, jobs);
      assert.equal(readdirSync(npmCache).length, cached, "no entry and no temporary install left");
    },
  );

  it("a failing setup script fails the job with its output in errorMessage; the entrypoint does not run", async () => {
    const ws = workspace({});
    const id = await fx.cluster.launch({
      name: "setup-fails",
      entrypoint: nodeScript("console.log('entrypoint ran')"),
      environment: { workspace: ws, setupScripts: ["echo preparing", "echo 'no such dataset' >&2; exit 3", "echo never"] },
    });
    const info = await fx.cluster.wait(id, { raiseOnFailure: false });
    assert.equal(info.status, "failed");
    assert.equal(info.errorMessage, "replica 0 exited with code 3: setup script failed (exit 3): preparing | no such dataset");
    assert.deepEqual(await fx.cluster.logs(id), ["[replica-0] preparing", "[replica-0] no such dataset"]);
  });

  it("setup scripts run in order before the entrypoint, in the job's working directory, from a 0600 file", async () => {
    const ws = workspace({ "input.txt": "raw\n" });
    const id = await fx.cluster.launch({
      name: "setup-ok",
      entrypoint: sh(`cat prepared.txt; pwd`),
      environment: { workspace: ws, setupScripts: ["tr a-z A-Z < input.txt > prepared.txt", 'echo "setup in $(pwd)"'] },
    });
    assert.equal((await fx.cluster.wait(id)).status, "succeeded", (await fx.cluster.logs(id)).join("\n"));
    const jobDir = join(fx.dir, "local", id);
    const cwd = join(jobDir, "workspace");
    assert.deepEqual(await fx.cluster.logs(id), [`[replica-0] setup in ${cwd}`, "[replica-0] RAW", `[replica-0] ${cwd}`]);
    assert.equal(statSync(join(jobDir, "setup.sh")).mode & 0o777, 0o600);
  });

  it("workspace: the job runs in a copy (without .git); its writes do not reach the original", async () => {
    const ws = workspace({ "data/input.txt": "hello\n", ".git/HEAD": "ref: refs/heads/main\n" });
    const id = await fx.cluster.launch({
      name: "workspace",
      entrypoint: sh(`cat data/input.txt; echo changed > data/input.txt; echo new > created.txt; ls -A`),
      environment: { workspace: ws },
    });
    assert.equal((await fx.cluster.wait(id)).status, "succeeded", (await fx.cluster.logs(id)).join("\n"));
    assert.deepEqual(await fx.cluster.logs(id), ["[replica-0] hello", "[replica-0] created.txt", "[replica-0] data"]);
    assert.equal(readFileSync(join(ws, "data/input.txt"), "utf8"), "hello\n");
    assert.deepEqual(readdirSync(ws).sort(), [".git", "data"]);
  });
});
