// Two clients on two hosts that share a Slurm cluster's state directory submit one job name at once (run on the
// test Slurm's submit host by slurm.test.ts, as slurm-cases.ts is). The name's lock in the state directory cannot
// tell whether a holder on another host still runs, so it does not keep them apart: Slurm numbers jobs in submission
// order, and the launch whose sbatch came second finds the earlier job in Slurm, cancels its own and adopts it.
// The second host is the submit host under another host name (a UTS namespace: same network, files and Slurm).
// Each client's sbatch is wrapped to fix the order of the race: the second host's sbatch runs once the first's has
// been answered, and the first's answer reaches its client only once the second's job is recorded in the state
// directory, so the second looks for an earlier job before the first has recorded its own.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, type TestContext } from "node:test";
import { clusterFixture } from "./cluster-suite.ts";

const program = fileURLToPath(new URL("./slurm-submit-program.ts", import.meta.url));
/** How long a wrapped sbatch waits for the other client's step of the race (1200 × 50 ms). */
const WAIT_STEPS = 1200;

/** Slurm's live jobs named `name` (pending or running), by id. */
function liveJobsNamed(name: string): string[] {
  const out = execFileSync("squeue", ["--noheader", "--me", `--name=${name}`, "--states=PENDING,CONFIGURING,RUNNING", "--Format=JobID"], { encoding: "utf8" });
  return out.split(/\s+/).filter(Boolean).sort();
}

/** What a client program did: its exit code, the job id it printed, its stderr. */
interface ClientRun {
  readonly code: number | null;
  readonly jobId: string;
  readonly stderr: string;
}

/** Runs slurm-submit-program.ts for job `name` of cluster `spec`, under `prefix` (a host of its own), with `env` added. */
async function runClient(t: TestContext, spec: string, name: string, env: NodeJS.ProcessEnv, prefix: readonly string[] = []): Promise<ClientRun> {
  const command = [...prefix, process.execPath, "--import", "tsx", program, spec, name];
  const child = spawn(command[0], command.slice(1), { env: { ...process.env, ...env, NODE_TEST_CONTEXT: undefined }, stdio: ["ignore", "pipe", "pipe"] });
  t.after(() => void child.kill("SIGKILL")); // should the test end first
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, jobId: stdout.trim(), stderr };
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

    // The second host: its own host name, so the first's lock holder there counts as a process it cannot check.
    const [first, second] = await Promise.all([
      runClient(t, fx.spec, name, { PATH: `${firstBin}:${process.env.PATH}` }),
      runClient(t, fx.spec, name, { PATH: `${secondBin}:${process.env.PATH}` }, [
        "unshare",
        "--uts",
        "sh",
        "-c",
        'hostname fray-second-host && exec "$@"',
        "sh",
      ]),
    ]);
    for (const run of [first, second]) assert.equal(run.code, 0, `a client exited with code ${run.code}: ${run.stderr}`);

    const [firstId, secondId] = ["first-id", "second-id"].map((f) => readFileSync(join(sync, f), "utf8").trim());
    assert.ok(Number(firstId) < Number(secondId), `the first host's sbatch came first (${firstId}, ${secondId})`);
    assert.equal(first.jobId, firstId, "the first client keeps the job its sbatch started");
    assert.equal(second.jobId, firstId, "the second client adopts the earlier job");
    assert.deepEqual(liveJobsNamed(name), [firstId], `the second job (${secondId}) was cancelled`);
    assert.equal(existsSync(join(root, `${secondId}.json`)), false, "the cancelled job is not in the state directory");
    const listed = (await fx.cluster.listJobs()).filter((j) => j.name === name);
    assert.deepEqual(
      listed.map((j) => j.jobId),
      [firstId],
    );
  });

  it("an earlier job of the name that no launch records: the launch gives up at its bound, cancels its own job, names the earlier one", async (t) => {
    const name = `orphan-${process.pid}`;
    const root = join(fx.dir, "slurm");
    mkdirSync(root, { recursive: true });
    t.after(() => void execFileSync("scancel", ["--me", `--name=${name}`]));
    // As a launch that died between its sbatch and its record leaves it: a job of the cluster's, unknown to its state directory.
    const orphan = execFileSync("sbatch", ["--parsable", `--job-name=${name}`, `--output=${join(root, "%j.batch.out")}`], {
      input: "#!/bin/sh\nsleep 600\n",
      encoding: "utf8",
    }).trim();
    const run = await runClient(t, fx.spec, name, { FRAY_SLURM_RIVAL_RECORD_TIMEOUT_MS: "1000" });
    assert.notEqual(run.code, 0, "the launch failed");
    assert.match(
      run.stderr,
      new RegExp(`gave up waiting for the launch that submitted Slurm job ${orphan} \\(also named ${name}, before this launch's job \\d+\\)`),
    );
    assert.match(run.stderr, /FRAY_SLURM_RIVAL_RECORD_TIMEOUT_MS=1000/);
    assert.match(run.stderr, new RegExp(`this launch's job is cancelled; .* 'scancel ${orphan}' and submit again`));
    assert.deepEqual(liveJobsNamed(name), [orphan], "its own job was cancelled");
    assert.deepEqual(
      (await fx.cluster.listJobs()).filter((j) => j.name === name),
      [],
    );
  });
});
