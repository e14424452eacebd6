// Two clients on two hosts that share a Slurm cluster's state directory submit one job name at once (run on the
// test Slurm's submit host by slurm.test.ts, as slurm-cases.ts is). The name's lock in the state directory cannot
// tell whether a holder on another host still runs, so it does not keep them apart: Slurm numbers jobs in submission
// order, and the launch whose sbatch came second finds the earlier job in Slurm, cancels its own and adopts it.
// The second host is the submit host under another host name (a UTS namespace: same network, files and Slurm).
// Each client's sbatch is wrapped to fix the order of the race: the second host's sbatch runs once the first's has
// been answered, and the first's answer reaches its client only once the second's job is recorded in the state
// directory, so the second looks for an earlier job before the first has recorded its own.
import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { clusterFixture } from "./cluster-suite.ts";

const program = fileURLToPath(new URL("./slurm-submit-program.ts", import.meta.url));
/** How long a wrapped sbatch waits for the other client's step of the race (1200 × 50 ms). */
const WAIT_STEPS = 1200;

/** Slurm's live jobs named `name` (pending or running), by id. */
function liveJobsNamed(name: string): string[] {
  const out = execFileSync("squeue", ["--noheader", "--me", `--name=${name}`, "--states=PENDING,CONFIGURING,RUNNING", "--Format=JobID"], { encoding: "utf8" });
  return out.split(/\s+/).filter(Boolean).sort();
}

describe("Client adoption on slurm, from two hosts sharing the state directory", () => {
  const fx = clusterFixture("slurm");

  it("two submits of one name that raced past the name's lock leave one job, and both clients get it", async (t) => {
    const name = `race-${process.pid}`;
    const root = join(fx.dir, "slurm");
    const sync = join(fx.dir, "race");
    const sbatch = execFileSync("sh", ["-c", "command -v sbatch"], { encoding: "utf8" }).trim();
    const wrap = (host: string, body: string) => {
      const bin = join(sync, host);
      mkdirSync(bin, { recursive: true });
      writeFileSync(join(bin, "sbatch"), `#!/bin/bash\nsync=${JSON.stringify(sync)}; root=${JSON.stringify(root)}\n${body}`);
      chmodSync(join(bin, "sbatch"), 0o755);
      return bin;
    };
    const firstBin = wrap(
      "first",
      `answer=$(${sbatch} "$@") || exit $?
id=\${answer%%;*}; echo "$id" > "$sync/first-id"
for _ in $(seq ${WAIT_STEPS}); do ls "$root" | grep -E '^[0-9]+\\.json$' | grep -qvx "$id.json" && break; sleep 0.05; done
echo "$answer"\n`,
    );
    const secondBin = wrap(
      "second",
      `for _ in $(seq ${WAIT_STEPS}); do [ -e "$sync/first-id" ] && break; sleep 0.05; done
answer=$(${sbatch} "$@") || exit $?
echo "\${answer%%;*}" > "$sync/second-id"; echo "$answer"\n`,
    );
    t.after(() => {
      // Whatever happened, no job of this race outlives it (the fixture stops those the state directory knows).
      execFileSync("scancel", ["--me", `--name=${name}`]);
    });
    await fx.cluster.namespace(); // running before the race, so neither client starts it

    const children: ChildProcess[] = [];
    t.after(() => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    const submit = (bin: string, command: string[]) => {
      const child = spawn(command[0], [...command.slice(1), process.execPath, "--import", "tsx", program, fx.spec, name], {
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, NODE_TEST_CONTEXT: undefined },
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      let out = "";
      let err = "";
      child.stdout!.on("data", (d: Buffer) => (out += d));
      child.stderr!.on("data", (d: Buffer) => (err += d));
      return once(child, "close").then(([code]) => {
        assert.equal(code, 0, `a client exited with code ${code}: ${err}`);
        return out.trim();
      });
    };
    // The second host: its own host name, so the first's lock holder there counts as a process it cannot check.
    const [first, second] = await Promise.all([
      submit(firstBin, ["env"]),
      submit(secondBin, ["unshare", "--uts", "sh", "-c", 'hostname fray-second-host && exec "$@"', "sh"]),
    ]);

    const [firstId, secondId] = ["first-id", "second-id"].map((f) => readFileSync(join(sync, f), "utf8").trim());
    assert.ok(Number(firstId) < Number(secondId), `the first host's sbatch came first (${firstId}, ${secondId})`);
    assert.equal(first, firstId, "the first client keeps the job its sbatch started");
    assert.equal(second, firstId, "the second client adopts the earlier job");
    assert.deepEqual(liveJobsNamed(name), [firstId], `the second job (${secondId}) was cancelled`);
    assert.equal(existsSync(join(root, `${secondId}.json`)), false, "the cancelled job is not in the state directory");
    const listed = (await fx.cluster.listJobs()).filter((j) => j.name === name);
    assert.deepEqual(
      listed.map((j) => j.jobId),
      [firstId],
    );
  });
});
