// The parts of fray/cluster that read text: sizes people write, Slurm's
// `scontrol show job -o` records, Slurm states → JobStatus (including states
// a test cluster cannot produce on demand: NODE_FAIL, TIMEOUT, OUT_OF_MEMORY),
// and the replica loop's exit records.
import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { failureMessage } from "../src/cluster/failure-message.ts";
import { errorLine, parseExitRecord } from "../src/cluster/replica-script.ts";
import { parseSize } from "../src/cluster/size.ts";
import { expandIndices, parseScontrol, taskFromExitRecord, taskFromSlurm } from "../src/cluster/slurm-state.ts";

/** A replica log that does not exist (the replica never wrote one). */
const NO_LOG = "/nonexistent/fray-replica.log";

it("sizes: number + unit is that many bytes; anything else names the accepted forms", () => {
  const units = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 } as const;
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom(...(Object.keys(units) as (keyof typeof units)[])), fc.constantFrom("", "b", "ib", "B", "iB"), fc.boolean(), (n, unit, suffix, upper) => {
      const text = `${n}${upper ? unit.toUpperCase() : unit}${unit ? suffix : ""}`;
      assert.equal(parseSize(text, "ram"), n * units[unit]);
    }),
  );
  assert.equal(parseSize("1.5g", "ram"), 1.5 * 1024 ** 3);
  assert.equal(parseSize(4096, "ram"), 4096);
  for (const bad of ["4x", "", "-1g", "g", "1 2g", "1e3"]) assert.throws(() => parseSize(bad, "resources.ram"), /resources\.ram must be a size such as "512m"/);
  assert.throws(() => parseSize(-5, "resources.disk"), /resources\.disk must be a size/);
});

it("scontrol records: array elements, a pending array range, a plain job", () => {
  const text = [
    "JobId=7 ArrayJobId=7 ArrayTaskId=2-4%2 JobName=a JobState=PENDING Reason=Resources Dependency=(null) ExitCode=0:0",
    "JobId=9 ArrayJobId=7 ArrayTaskId=1 JobName=a JobState=RUNNING Reason=None ExitCode=0:0",
    "JobId=8 ArrayJobId=7 ArrayTaskId=0 JobName=a JobState=FAILED Reason=NonZeroExitCode ExitCode=3:0",
    "JobId=12 JobName=b JobState=COMPLETED Reason=None ExitCode=0:0",
    "",
  ].join("\n");
  assert.deepEqual(parseScontrol(text), [
    { jobId: "7", indices: [2, 3, 4], state: "PENDING", reason: "Resources", exitCode: "0:0" },
    { jobId: "7", indices: [1], state: "RUNNING", reason: "None", exitCode: "0:0" },
    { jobId: "7", indices: [0], state: "FAILED", reason: "NonZeroExitCode", exitCode: "3:0" },
    { jobId: "12", indices: [0], state: "COMPLETED", reason: "None", exitCode: "0:0" },
  ]);
  assert.deepEqual(expandIndices("0,3-5,9"), [0, 3, 4, 5, 9]);
  assert.deepEqual(parseScontrol("No jobs in the system\n"), []);
});

it("Slurm states map to JobStatus, with the reason in errorMessage for abnormal ends", () => {
  const element = (state: string, reason = "None") => ({ jobId: "1", indices: [0], state, reason, exitCode: "0:0" });
  const none = parseExitRecord("");
  assert.deepEqual(taskFromSlurm(element("PENDING", "Resources"), none, NO_LOG), { status: "pending", errorMessage: "waiting: Resources" });
  assert.deepEqual(taskFromSlurm(element("PENDING"), none, NO_LOG), { status: "pending" });
  assert.deepEqual(taskFromSlurm(element("COMPLETING"), none, NO_LOG), { status: "running" });
  assert.deepEqual(taskFromSlurm(element("COMPLETED"), none, NO_LOG), { status: "succeeded" });
  assert.deepEqual(taskFromSlurm(element("CANCELLED"), none, NO_LOG), { status: "stopped", errorMessage: "was cancelled (scancel)" });
  assert.deepEqual(taskFromSlurm(element("NODE_FAIL", "NodeDown"), none, NO_LOG), { status: "failed", errorMessage: "NODE_FAIL: lost its node (Reason=NodeDown)" });
  assert.deepEqual(taskFromSlurm(element("TIMEOUT", "TimeLimit"), none, NO_LOG), { status: "failed", errorMessage: "TIMEOUT: hit its time limit (Reason=TimeLimit)" });
  assert.deepEqual(taskFromSlurm(element("OUT_OF_MEMORY", "OutOfMemory"), none, NO_LOG), { status: "failed", errorMessage: "OUT_OF_MEMORY: ran out of memory (Reason=OutOfMemory)" });
  assert.deepEqual(taskFromSlurm(element("FAILED"), parseExitRecord("exit 0 137\nfinal 137\n"), NO_LOG), { status: "failed", errorMessage: "was killed by SIGKILL (exit code 137)" });
});

it("exit records: attempts, and what a forgotten job's record says", () => {
  const record = parseExitRecord("exit 0 1\nexit 1 1\nexit 2 0\nfinal 0\n");
  assert.deepEqual(record, { attempts: 3, failures: 2, preemptions: 0, lastCode: 0, finalCode: 0 });
  // Preemptions are counted apart from failures, a stop is neither, and a requeued run starts over after a final line.
  assert.deepEqual(parseExitRecord("exit 0 143\npreempt 1\nexit 1 1\nexit 2 143\nstop\nfinal 143\n"), { attempts: 3, failures: 1, preemptions: 1, lastCode: 143, finalCode: 143 });
  assert.deepEqual(parseExitRecord("exit 0 1\nfinal 1\nexit 0 0\n"), { attempts: 2, failures: 1, preemptions: 0, lastCode: 0, finalCode: undefined });
  assert.deepEqual(taskFromExitRecord(record, false, NO_LOG), { status: "succeeded" });
  assert.deepEqual(taskFromExitRecord(parseExitRecord("exit 0 2\nexit 1 2\nfinal 2\n"), false, NO_LOG), { status: "failed", errorMessage: "exited with code 2 after 2 attempts" });
  assert.deepEqual(taskFromExitRecord(parseExitRecord("exit 0 143\n"), true, NO_LOG), { status: "stopped", errorMessage: "was cancelled" });
  assert.match(taskFromExitRecord(parseExitRecord(""), false, NO_LOG).errorMessage ?? "", /no longer known to Slurm and left no exit record/);
});

it("a failure message carries the job function's error, else the last lines of the replica's output", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "fray-failure-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, "replica.log");
  writeFileSync(log, ["starting", "", ...Array.from({ length: 8 }, (_, i) => `line ${i}`), "[fray] exited with code 1; starting it again (retry 1 of 1)", `fatal: ${"x".repeat(500)}`, ""].join("\n"));
  const failed = parseExitRecord("exit 0 1\nexit 1 1\nfinal 1\n");
  assert.equal(failureMessage(1, failed, log), `exited with code 1 after 2 attempts: line 4 | line 5 | line 6 | line 7 | fatal: ${"x".repeat(192)}…`);
  // The error reported by the last attempt wins over the log; one from an earlier attempt does not.
  const thrown = parseExitRecord(`${errorLine("Old: first try")}exit 0 1\n${errorLine("QuotaError: quota exceeded\nfor shard 3")}exit 1 1\nfinal 1\n`);
  assert.equal(thrown.error, "QuotaError: quota exceeded\nfor shard 3");
  assert.equal(failureMessage(1, thrown, log), "exited with code 1 after 2 attempts: QuotaError: quota exceeded | for shard 3");
  assert.equal(parseExitRecord(`${errorLine("E: gone")}exit 0 1\nexit 1 1\n`).error, undefined);
  assert.equal(failureMessage(137, parseExitRecord("exit 0 137\nfinal 137\n"), NO_LOG), "was killed by SIGKILL (exit code 137)");
  assert.match(taskFromExitRecord(failed, false, log).errorMessage ?? "", /after 2 attempts: line 4 .* fatal: x+…$/);
});
