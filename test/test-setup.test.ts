// npm test's own setup (scripts/test-setup.ts): what it installs and when, decided from what this
// machine has (faked here, so nothing is uninstalled to test it), the message when it cannot, the lock
// that keeps two setups apart, and the Node versions it provides.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { NODE_MAJORS, SUITE_NODE, testNode } from "../scripts/test-setup.ts";
import { withLock } from "../scripts/test-setup/lock.ts";
import { installPlan, missingPackages, present, SYSTEM_PACKAGES, type Need } from "../scripts/test-setup/system-packages.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));

it("npm test runs the setup first and the suite on the current LTS; .ci/run is `npm ci` and `npm test`, nothing more", () => {
  const { scripts } = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { scripts: Record<string, string> };
  const steps = scripts.test.split(" && ");
  assert.equal(steps[0], "node --import tsx scripts/test-setup.ts");
  assert.match(steps.at(-1)!, new RegExp(`^node --import tsx scripts/with-node\\.ts ${SUITE_NODE} --import tsx --import \\./test/file-deadline\\.ts --test `));
  const commands = readFileSync(join(repo, ".ci/run"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"));
  assert.deepEqual(commands, ["set -euo pipefail", 'cd "$(dirname "$0")/.."', "node --version", "npm ci --no-audit --no-fund", "npm test"]);
});

describe("which Debian packages the setup installs", () => {
  const byName = (...names: string[]) => SYSTEM_PACKAGES.filter((p) => names.includes(p.name));
  /** A machine that has everything but what `lacking` names (commands or files). */
  const machineWithout =
    (...lacking: string[]) =>
    (need: Need) =>
      !lacking.includes("file" in need ? need.file : need.command);

  it("the tests' packages: chromium, iproute2, openssl, procps, and Slurm with munge", () => {
    assert.deepEqual(
      SYSTEM_PACKAGES.map((p) => p.name),
      ["chromium", "iproute2", "openssl", "procps", "slurm-wlm", "munge"],
    );
  });

  it("nothing missing: nothing to run", () => {
    assert.deepEqual(missingPackages(SYSTEM_PACKAGES, machineWithout()), []);
    assert.deepEqual(installPlan([], { root: false, aptGet: false }), { commands: [] });
  });

  it("as root with apt-get: installs exactly the packages whose commands or files are missing", () => {
    const missing = missingPackages(SYSTEM_PACKAGES, machineWithout("/usr/bin/chromium", "sbatch"));
    assert.deepEqual(missing, byName("chromium", "slurm-wlm"));
    assert.deepEqual(installPlan(missing, { root: true, aptGet: true }), {
      commands: [
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "chromium", "slurm-wlm"],
      ],
    });
  });

  it("not root: a message naming each package, what needs it, and the command to run", () => {
    const plan = installPlan(byName("chromium", "openssl"), { root: false, aptGet: true });
    assert.ok("cannot" in plan);
    assert.equal(
      plan.cannot,
      [
        "fray test setup: the tests need these Debian packages, which are not installed:",
        "  chromium: test/cluster/dashboard.test.ts drives it as a headless browser",
        "  openssl: fray certs and the TLS tests",
        "installing them takes root, and this is not root: run",
        "  sudo apt-get update && sudo apt-get install -y chromium openssl",
        "then the tests again",
      ].join("\n"),
    );
  });

  it("no apt-get: a message naming the packages and what to do", () => {
    const plan = installPlan(byName("procps"), { root: true, aptGet: false });
    assert.ok("cannot" in plan);
    assert.match(plan.cannot, /^ {2}procps: test\/wire\/security\.test\.ts reads process command lines$/m);
    assert.match(plan.cannot, /this machine has no apt-get: install them \(Debian's names: procps\) with its package manager, then run the tests again$/);
  });

  it("probes this machine without changing it: commands on PATH or in sbin, and files", () => {
    assert.equal(present({ command: "sh" }), true);
    assert.equal(present({ command: "fray-no-such-command" }), false);
    assert.equal(present({ file: process.execPath }), true);
    assert.equal(present({ file: "/nonexistent/fray" }), false);
  });
});

describe("the setup's lock", () => {
  const dir = mkdtempSync(join(tmpdir(), "fray-setup-lock-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const lockUrl = new URL("../scripts/test-setup/lock.ts", import.meta.url).href;

  it("a second setup waits until the first, in another process, lets go", async () => {
    const lock = join(dir, "held.lock");
    // The other process takes the lock, says so, and holds it until its stdin closes.
    const holder = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `const { withLock } = await import(${JSON.stringify(lockUrl)});
         await withLock(${JSON.stringify(lock)}, async () => { console.log("held"); for await (const _ of process.stdin); });`,
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    try {
      const [first] = (await once(holder.stdout!, "data")) as [Buffer];
      assert.equal(String(first).trim(), "held");
      const order: string[] = [];
      const mine = withLock(lock, () => order.push("second setup ran")); // tries at once, and finds the lock held
      order.push("first setup lets go");
      holder.stdin!.end();
      await mine;
      assert.deepEqual(order, ["first setup lets go", "second setup ran"]);
      assert.equal(existsSync(lock), false, "released");
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("a lock whose owner died is taken over", async () => {
    const lock = join(dir, "stale.lock");
    const dead = spawn("true");
    await once(dead, "exit");
    writeFileSync(lock, String(dead.pid));
    assert.equal(await withLock(lock, () => readFileSync(lock, "utf8")), String(process.pid));
    assert.equal(existsSync(lock), false);
  });
});

it("the test Node versions are installed from the npm registry, and scripts/with-node.ts runs a command on one, node on PATH included", async () => {
  for (const major of NODE_MAJORS) assert.match(execFileSync(await testNode(major), ["--version"], { encoding: "utf8" }), new RegExp(`^v${major}\\.`));
  const script = "console.log(process.version, require('node:child_process').execFileSync('node', ['--version'], { encoding: 'utf8' }).trim())";
  const out = execFileSync(process.execPath, ["--import", "tsx", join(repo, "scripts/with-node.ts"), "26", "-e", script], { encoding: "utf8" });
  assert.match(out, /^v26\.\S+ v26\.\S+\n$/);
});
