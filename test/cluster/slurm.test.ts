// A real Slurm on isolated hosts (scripts/slurm.sh: a submit host running
// slurmctld and nodes n1..n3, each its own network namespace on one bridge, the
// nodes with their own host name, /tmp and /dev/shm; a shared directory stands
// for NFS homes). Slurm's commands work only on the submit host, and jobs on the
// nodes reach services there (the namespace service) only at its bridge address,
// so this file starts the cluster and runs slurm-cases.ts on the submit host;
// each case is a subtest here that fails with the case's own message (the cases'
// own report goes to stderr).
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { after, before, it } from "node:test";
import type { CaseResult } from "./slurm-case-runner.ts";
import { SLURM_SCRIPT, slurmHosts } from "./slurm-hosts.ts";

const runner = fileURLToPath(new URL("./slurm-case-runner.ts", import.meta.url));

before(() => {
  // The submit host has no way out, and its environment case installs this package from npm's cache: put it there,
  // so a fresh machine (or this file run alone) does not depend on another test having installed it first.
  execFileSync("npm", ["cache", "add", "is-number@7.0.0"], { stdio: "pipe" });
  execFileSync("bash", [SLURM_SCRIPT, "up"], { env: { ...process.env, SLURM_NODES: "3" }, stdio: "pipe" });
});

after(() => {
  execFileSync("bash", [SLURM_SCRIPT, "down"], { stdio: "pipe" });
});

it("the Slurm cases, run on the submit host, all pass", async (t) => {
  const { submit, shared } = slurmHosts();
  const child = spawn("ip", ["netns", "exec", submit.netns, process.execPath, "--import", "tsx", runner], {
    env: {
      ...process.env,
      NODE_TEST_CONTEXT: undefined, // not this file's test context: the cases are a test run of their own
      FRAY_NAMESPACE_LISTEN: `tcp://${submit.ip}:0`, // where jobs on the nodes reach it
      FRAY_CLUSTER_DIR: join(shared, "fray-cluster"), // SlurmJob's job directories, on the shared file system
      npm_config_prefer_offline: "true", // the submit host has no way out: npm installs from its cache without asking the registry
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const results: CaseResult[] = [];
  createInterface({ input: child.stdout! }).on("line", (line) => results.push(JSON.parse(line) as CaseResult));
  const [code] = (await once(child, "close")) as [number | null];
  for (const r of results)
    await t.test(r.name, () => {
      if (!r.ok) throw new Error(r.message);
    });
  assert.ok(results.length > 0, `the cases reported nothing (exit code ${code})`);
  assert.equal(code, 0, `the cases' run exited with code ${code}`);
});
