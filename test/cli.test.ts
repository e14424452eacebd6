// The `fray` command line, run as a user would: the compiled bin in a subprocess.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { waitForExit } from "./helpers.ts";

const bin = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

/** Whether `pid` still runs (a zombie that its new parent has not reaped yet has ended). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

it("fray demo trains on worker processes, survives a SIGKILL of one by respawning it, and leaves no process behind", async () => {
  const { status, stdout, stderr } = spawnSync(process.execPath, [bin, "demo", "--procs", "3", "--rows", "60000", "--steps", "30", "--batch", "4096"], {
    encoding: "utf8",
    timeout: 150_000,
    killSignal: "SIGKILL",
  });
  const pids = [...stdout.matchAll(/pids ([\d, ]+)\)/g)].flatMap((m) => m[1].split(", ").map(Number));
  try {
    assert.equal(status, 0, `${stdout}\n${stderr}`);
    assert.match(stdout, /on 60,000 synthetic rows over 3 worker processes, 4,096 rows per process and step; rank 2 is killed at step 15/);
    const started = /started 3 worker processes \(pids (\d+), (\d+), (\d+)\)/.exec(stdout);
    const killed = Number(/step 15: killed worker process (\d+) \(rank 2\) with SIGKILL/.exec(stdout)?.[1]);
    assert.equal(killed, Number(started?.[3]), "the process killed is rank 2's");
    // Whichever rank's rejection comes first: rank 2's own, or a peer's allReduce losing it.
    assert.match(
      stdout,
      /step 15 failed: Trainer\.step on rank \d \{workers: \d\} of mesh trainers[^\n]*(worker process \d+ was killed by SIGKILL|rank 2 \{workers: 2\} of mesh trainers is gone)/,
    );
    assert.match(stdout, new RegExp(`the supervisor was told: [^\\n]*worker process ${killed} was killed by SIGKILL`));
    const respawned = Number(/respawned rank 2 as process (\d+) in \d+ ms; resuming at step 15 from the weights allreduced at step 14/.exec(stdout)?.[1]);
    assert.ok(respawned > 0 && respawned !== killed, `a new process for rank 2: ${stdout}`);
    const stopped = /stopped every worker process \(pids ([\d, ]+)\)/.exec(stdout)?.[1].split(", ").map(Number);
    assert.deepEqual(stopped?.sort(), [Number(started?.[1]), Number(started?.[2]), killed, respawned].sort());
    const accuracy = Number(/held-out accuracy ([\d.]+)% on 100,000 rows \(threshold 90%/.exec(stdout)?.[1]);
    assert.ok(accuracy >= 90, `accuracy ${accuracy}%`);
    assert.match(stdout, /loss per step[^\n]*\n\s+0\.69\d │•/, "the loss curve starts at log 2 on the top row");
    // The single-process run repeats the first steps exactly: the same loss, to rounding.
    const same = /loss at step 8 ([\d.]+) \(3 processes: ([\d.]+)\)/.exec(stdout);
    assert.ok(same && Math.abs(Number(same[1]) - Number(same[2])) < 1e-5, same?.[0]);
    assert.match(stdout, /3 processes: [\d,]+ samples\/s; 1 process: [\d,]+ samples\/s; speed-up [\d.]+× on 3 processes/);
    assert.match(stderr, /^training: 30\/30 steps \(step 30, loss [\d.]+, [\d,]+ samples\/s\)$/m, "progress as plain lines when stderr is not a terminal");
    await waitForExit(pids);
  } finally {
    const left = pids.filter(running);
    for (const pid of left) process.kill(pid, "SIGKILL");
    assert.deepEqual(left, [], "no worker process is left");
  }
});

it("fray demo rejects bad options with a clear error", () => {
  const demo = (...args: string[]) => spawnSync(process.execPath, [bin, "demo", ...args], { encoding: "utf8", timeout: 150_000, killSignal: "SIGKILL" });
  const bad = demo("--procs", "zero");
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--procs <n>.*expected a positive integer, got "zero"/);
  const big = demo("--procs", "4", "--rows", "1000", "--batch", "500");
  assert.notEqual(big.status, 0);
  assert.match(big.stderr, /fray demo: --batch 500 is more than the 250 rows a process holds \(--rows 1000 over --procs 4\): lower --batch or raise --rows/);
  const short = demo("--steps", "1");
  assert.notEqual(short.status, 0);
  assert.match(short.stderr, /fray demo: --steps 1 leaves no second half to resume after the kill: pass --steps 2 or more/);
});

it("fray queue serve refuses to start without a token, and says where to put it", () => {
  const env = { ...process.env };
  delete env.FRAY_TOKEN;
  const { status, stderr } = spawnSync(process.execPath, [bin, "queue", "serve"], { encoding: "utf8", env, timeout: 60_000, killSignal: "SIGKILL" });
  assert.notEqual(status, 0);
  assert.match(stderr, /fray queue serve needs a token: --token-file PATH or FRAY_TOKEN/);
});
