// The parts of fray/cluster that read text: sizes people write, Slurm's
// `squeue --Format` records, Slurm states → JobStatus (including states
// a test cluster cannot produce on demand: NODE_FAIL, TIMEOUT, OUT_OF_MEMORY),
// and the replica loop's exit records.
import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { failureMessage, logError } from "../../src/cluster/replica/failure-message.ts";
import { errorLine, parseExitRecord } from "../../src/cluster/replica/script.ts";
import { parseSize } from "../../src/cluster/size.ts";
import { parseSqueue, replicaStatus, SQUEUE_FORMAT, type JobMarks, type SlurmJobState } from "../../src/cluster/slurm/state.ts";

/** A replica log that does not exist (the replica never wrote one). */
const NO_LOG = "/nonexistent/fray-replica.log";

it("sizes: number + unit is that many bytes; anything else names the accepted forms", () => {
  const units = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 } as const;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 100_000 }),
      fc.constantFrom(...(Object.keys(units) as (keyof typeof units)[])),
      fc.constantFrom("", "b", "ib", "B", "iB"),
      fc.boolean(),
      (n, unit, suffix, upper) => {
        const text = `${n}${upper ? unit.toUpperCase() : unit}${unit ? suffix : ""}`;
        assert.equal(parseSize(text, "ram"), n * units[unit]);
      },
    ),
  );
  assert.equal(parseSize("1.5g", "ram"), 1.5 * 1024 ** 3);
  assert.equal(parseSize(4096, "ram"), 4096);
  for (const bad of ["4x", "", "-1g", "g", "1 2g", "1e3"]) assert.throws(() => parseSize(bad, "resources.ram"), /resources\.ram must be a size such as "512m"/);
  assert.throws(() => parseSize(-5, "resources.disk"), /resources\.disk must be a size/);
});

it("squeue records: state, reason, exit code, restarts and tasks of each job, as Slurm 22.05 prints them", () => {
  assert.match(SQUEUE_FORMAT, /^JobID:\d+\|,State:\d+\|,RestartCnt:\d+\|,NumTasks:\d+\|,exit_code:\d+\|,Reason:\d+\|$/);
  const pad = (fields: string[], width = 32) => fields.map((f) => `${f.padEnd(width)}|`).join("");
  const text = [
    pad(["7", "PENDING", "2", "3", "0", "BeginTime"]),
    pad(["12", "FAILED", "0", "1", "768", "NonZeroExitCode"]),
    pad(["13", "PENDING", "0", "1", "0", "ReqNodeNotAvail, UnavailableNodes:n1"]),
    pad(["14", "CANCELLED", "0", "1", "15", "None"]),
    "",
  ].join("\n");
  assert.deepEqual(parseSqueue(text), [
    { jobId: "7", state: "PENDING", reason: "BeginTime", exitCode: "0:0", restarts: 2, tasks: 3 },
    { jobId: "12", state: "FAILED", reason: "NonZeroExitCode", exitCode: "3:0", restarts: 0, tasks: 1 },
    { jobId: "13", state: "PENDING", reason: "ReqNodeNotAvail, UnavailableNodes:n1", exitCode: "0:0", restarts: 0, tasks: 1 },
    { jobId: "14", state: "CANCELLED", reason: "None", exitCode: "0:15", restarts: 0, tasks: 1 },
  ]);
  assert.deepEqual(parseSqueue(""), []);
});

const slurmJob = (state: string, reason = "None"): SlurmJobState => ({ jobId: "1", state, reason, exitCode: "0:0", restarts: 0, tasks: 1 });
const NO_MARKS: JobMarks = { batchLogPath: NO_LOG };

it("Slurm states map to JobStatus, with the reason in errorMessage for abnormal ends", () => {
  const status = (state: string, reason?: string, exit = "") => replicaStatus(slurmJob(state, reason), exit, NO_LOG, NO_MARKS);
  assert.deepEqual(status("PENDING", "Resources"), { status: "pending", errorMessage: "waiting: Resources" });
  assert.deepEqual(status("PENDING"), { status: "pending" });
  assert.deepEqual(status("RUNNING"), { status: "running" });
  assert.deepEqual(status("COMPLETING"), { status: "running" });
  assert.deepEqual(status("COMPLETED", "None", "exit 0 0\nfinal 0\n"), { status: "succeeded" });
  assert.deepEqual(status("NODE_FAIL", "NodeDown"), { status: "failed", errorMessage: "NODE_FAIL: lost its node (Reason=NodeDown)" });
  assert.deepEqual(status("TIMEOUT", "TimeLimit"), { status: "failed", errorMessage: "TIMEOUT: hit its time limit (Reason=TimeLimit)" });
  assert.deepEqual(status("OUT_OF_MEMORY", "OutOfMemory"), { status: "failed", errorMessage: "OUT_OF_MEMORY: ran out of memory (Reason=OutOfMemory)" });
  assert.deepEqual(status("FAILED", "None", "exit 0 137\nfinal 137\n"), {
    status: "failed",
    errorMessage: "was killed by SIGKILL (exit code 137)",
    failures: 1,
  });
  // No batch output on this host: Slurm never started the script, or wrote its output where only the node sees it.
  assert.deepEqual(status("FAILED", "JobLaunchFailure"), {
    status: "failed",
    errorMessage:
      "ended without an exit record (Slurm FAILED, ExitCode=0:0, Reason=JobLaunchFailure): there is no /nonexistent/fray-replica.log: the job never " +
      "ran, or its node does not see /nonexistent (give the cluster a dir= every node sees)",
  });
  const batchLogPath = join(mkdtempSync(join(tmpdir(), "fray-batch-log-")), "1.batch.out");
  writeFileSync(batchLogPath, "");
  try {
    assert.deepEqual(replicaStatus(slurmJob("FAILED", "NonZeroExitCode"), "", NO_LOG, { batchLogPath }), {
      status: "failed",
      errorMessage: "ended without an exit record (Slurm FAILED, ExitCode=0:0, Reason=NonZeroExitCode)",
    });
  } finally {
    rmSync(dirname(batchLogPath), { recursive: true });
  }
  // A replica that ended while the others run (tolerated by maxTaskFailures) is failed already.
  assert.deepEqual(status("RUNNING", "None", "exit 0 2\nfinal 2\n"), { status: "failed", errorMessage: "exited with code 2", failures: 1 });
});

it("stopped replicas say why: terminate(), scancel from outside, or another replica's failure", () => {
  const stopped = "exit 0 143\nstop\nfinal 143\n";
  assert.deepEqual(replicaStatus(slurmJob("FAILED"), stopped, NO_LOG, { ...NO_MARKS, stop: "replica 1 failed\n" }), {
    status: "stopped",
    errorMessage: "was stopped because replica 1 failed",
  });
  assert.deepEqual(replicaStatus(slurmJob("CANCELLED"), stopped, NO_LOG, { ...NO_MARKS, stop: "terminate()\n" }), {
    status: "stopped",
    errorMessage: "was stopped by terminate()",
  });
  assert.deepEqual(replicaStatus(slurmJob("CANCELLED"), "", NO_LOG, { ...NO_MARKS, stop: "terminate()\n" }), {
    status: "stopped",
    errorMessage: "was stopped by terminate()",
  });
  // scancel SIGTERMs the loop, which records a preemption; the job ended, so it was none.
  assert.deepEqual(replicaStatus(slurmJob("CANCELLED"), "exit 0 143\npreempt 1\n", NO_LOG, NO_MARKS), {
    status: "stopped",
    errorMessage: "was cancelled (scancel)",
  });
});

it("requeues are preemptions, counted apart from failures; past maxRetriesPreemption the replica failed saying so", () => {
  const requeued = "exit 0 1\nexit 1 143\npreempt 2\nexit - 143\npreempt -\n";
  assert.deepEqual(replicaStatus(slurmJob("PENDING", "BeginTime"), requeued, NO_LOG, NO_MARKS), {
    status: "pending",
    errorMessage: "waiting: BeginTime",
    failures: 1,
    preemptions: 2,
  });
  assert.deepEqual(replicaStatus(slurmJob("COMPLETED"), `${requeued}exit 0 0\nfinal 0\n`, NO_LOG, NO_MARKS), {
    status: "succeeded",
    failures: 1,
    preemptions: 2,
  });
  const gaveUp = { ...NO_MARKS, preemptedOut: "was preempted 2 time(s) (maxRetriesPreemption 1)" };
  assert.deepEqual(replicaStatus(slurmJob("FAILED"), requeued, NO_LOG, gaveUp), {
    status: "failed",
    errorMessage: "was preempted 2 time(s) (maxRetriesPreemption 1)",
    failures: 1,
    preemptions: 2,
  });
});

it("exit records: attempts, and what a forgotten job's record says", () => {
  const record = parseExitRecord("exit 0 1\nexit 1 1\nexit 2 0\nfinal 0\n");
  assert.deepEqual(record, { attempts: 3, failures: 2, preemptions: 0, lastCode: 0, finalCode: 0 });
  // Preemptions are counted apart from failures, a stop is neither, and a requeued run starts over after a final line.
  assert.deepEqual(parseExitRecord("exit 0 143\npreempt 1\nexit 1 1\nexit 2 143\nstop\nfinal 143\n"), {
    attempts: 3,
    failures: 1,
    preemptions: 1,
    lastCode: 143,
    finalCode: 143,
  });
  assert.deepEqual(parseExitRecord("exit 0 1\nfinal 1\nexit 0 0\n"), { attempts: 2, failures: 1, preemptions: 0, lastCode: 0, finalCode: undefined });
  const forgotten = (exit: string, marks = NO_MARKS) => replicaStatus(undefined, exit, NO_LOG, marks);
  assert.deepEqual(forgotten("exit 0 1\nexit 1 1\nexit 2 0\nfinal 0\n"), { status: "succeeded", failures: 2 });
  assert.deepEqual(forgotten("exit 0 2\nexit 1 2\nfinal 2\n"), { status: "failed", errorMessage: "exited with code 2 after 2 attempts", failures: 2 });
  assert.deepEqual(forgotten("", { ...NO_MARKS, stop: "terminate()" }), { status: "stopped", errorMessage: "was stopped by terminate()" });
  assert.match(forgotten("").errorMessage ?? "", /no longer known to Slurm and left no exit record/);
});

it("a failure message carries the job function's error, else the last lines of the replica's output", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "fray-failure-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, "replica.log");
  writeFileSync(
    log,
    [
      "starting",
      "",
      ...Array.from({ length: 8 }, (_, i) => `line ${i}`),
      "[fray] exited with code 1; starting it again (retry 1 of 1)",
      `fatal: ${"x".repeat(500)}`,
      "",
    ].join("\n"),
  );
  const failed = parseExitRecord("exit 0 1\nexit 1 1\nfinal 1\n");
  // A line that looks like an error comes first, then the rest of the tail.
  assert.equal(failureMessage(1, failed, log), `exited with code 1 after 2 attempts: fatal: ${"x".repeat(192)}… | line 4 | line 5 | line 6 | line 7`);
  // The error reported by the last attempt wins over the log; one from an earlier attempt does not.
  const thrown = parseExitRecord(`${errorLine("Old: first try")}exit 0 1\n${errorLine("QuotaError: quota exceeded\nfor shard 3")}exit 1 1\nfinal 1\n`);
  assert.equal(thrown.error, "QuotaError: quota exceeded\nfor shard 3");
  assert.equal(failureMessage(1, thrown, log), "exited with code 1 after 2 attempts: QuotaError: quota exceeded | for shard 3");
  assert.equal(parseExitRecord(`${errorLine("E: gone")}exit 0 1\nexit 1 1\n`).error, undefined);
  assert.equal(failureMessage(137, parseExitRecord("exit 0 137\nfinal 137\n"), NO_LOG), "was killed by SIGKILL (exit code 137)");
  assert.match(
    replicaStatus(undefined, "exit 0 1\nexit 1 1\nfinal 1\n", log, NO_MARKS).errorMessage ?? "",
    /after 2 attempts: fatal: x+… \| line 4 .* line 7$/,
  );
});

it("a Node program's thrown error leads its failure message, though its stack trace pushed it out of the last lines", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "fray-failure-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, "replica.log");
  const ran = spawnSync(process.execPath, ["-e", "console.log('loading shards'); throw new Error('disk full on /data')"], { encoding: "utf8" });
  assert.equal(ran.status, 1);
  writeFileSync(log, ran.stdout + ran.stderr);
  const message = failureMessage(1, parseExitRecord("exit 0 1\nfinal 1\n"), log);
  assert.match(message, /^exited with code 1: Error: disk full on \/data \| /);
  assert.match(message, /Node\.js v\d+/); // then the tail, as before
  // A line merely mentioning an error is not taken for one.
  writeFileSync(log, "no errors so far\nstep 3 of 3\n");
  assert.equal(failureMessage(1, parseExitRecord("exit 0 1\nfinal 1\n"), log), "exited with code 1: no errors so far | step 3 of 3");
});

it("other programs' errors lead their failure messages too: a Python traceback, a Rust panic and compile error; a retried error is said once", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "fray-failure-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, "replica.log");
  const said = (text: string) => {
    writeFileSync(log, text);
    return failureMessage(1, parseExitRecord("exit 0 1\nfinal 1\n"), log);
  };
  // As python3 prints an uncaught exception.
  const python = [
    "epoch 1",
    "Traceback (most recent call last):",
    '  File "/work/train.py", line 9, in <module>',
    "    main()",
    '  File "/work/train.py", line 6, in main',
    "    load(7)",
    '  File "/work/train.py", line 3, in load',
    '    raise FileNotFoundError(f"shard {n} is missing")',
    "FileNotFoundError: shard 7 is missing",
  ];
  assert.equal(
    said(python.join("\n")),
    "exited with code 1: Traceback (most recent call last): | FileNotFoundError: shard 7 is missing | " +
      'File "/work/train.py", line 6, in main | load(7) | File "/work/train.py", line 3, in load | raise FileNotFoundError(f"shard {n} is missing")',
  );
  // As a Rust program panics (its message on the next line), and as rustc refuses one.
  const rust = [
    "thread 'main' panicked at src/main.rs:4:5:",
    "shard 7 is missing",
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
  ];
  assert.match(said(rust.join("\n")), /^exited with code 1: thread 'main' panicked at src\/main\.rs:4:5: \| shard 7 is missing \| note: /);
  assert.match(said("error[E0425]: cannot find value `shard` in this scope\n --> src/main.rs:2:5\n"), /^exited with code 1: error\[E0425\]: cannot find value/);
  // A Node program that printed, then logged an error of its own class, twice (a retry): said once, without the line before it.
  const thrown = ["loading", "DiskFull: /data is full", "    at write (/work/job.js:3:9)", "    at main (/work/job.js:7:3)"];
  assert.equal(
    said([...thrown, "[fray] exited with code 1; starting it again (retry 1 of 1)", ...thrown].join("\n")),
    "exited with code 1: DiskFull: /data is full | at main (/work/job.js:7:3) | loading | at write (/work/job.js:3:9) | at main (/work/job.js:7:3)",
  );
});

it("the dashboard's error of a failed replica: the last error its log shows, split into class and message, with the causes printed after it", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "fray-failure-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, "replica.log");
  const script = "console.log('loading shards'); throw new Error('disk full on /data', { cause: new RangeError('quota of 10 GB reached') })";
  const ran = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  writeFileSync(log, ran.stdout + ran.stderr);
  assert.deepEqual(logError(log), {
    errorClass: "Error",
    message: "disk full on /data",
    causes: ["Error: disk full on /data", "RangeError: quota of 10 GB reached"],
  });
  writeFileSync(
    log,
    ["epoch 1", "Traceback (most recent call last):", '  File "/work/train.py", line 3, in load', "FileNotFoundError: shard 7 is missing"].join("\n"),
  );
  assert.deepEqual(logError(log), { errorClass: "FileNotFoundError", message: "shard 7 is missing", causes: ["FileNotFoundError: shard 7 is missing"] });
  writeFileSync(log, "no errors so far\nstep 3 of 3\n");
  assert.equal(logError(log), null);
  assert.equal(logError(join(dir, "none.log")), null);
});
