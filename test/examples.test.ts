// The examples run as users run them (npx tsx examples/NAME/main.ts …), at small
// sizes, and print what their READMEs say they print.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { createCluster } from "../src/cluster.ts";
import { mapFile, reducePartition, writeInput, type Totals } from "../examples/data-pipeline/stages.ts";

/** Runs examples/`name`/main.ts with `args`; its stdout, or fails with its stderr. */
function example(name: string, ...args: string[]): string {
  const main = fileURLToPath(new URL(`../examples/${name}/main.ts`, import.meta.url));
  const { status, stdout, stderr } = spawnSync(process.execPath, ["--import", "tsx", main, ...args], {
    encoding: "utf8",
    timeout: 150_000,
    killSignal: "SIGKILL",
  });
  assert.equal(status, 0, `${name} exited with ${status}:\n${stderr}\n${stdout}`);
  return stdout;
}

/** A local cluster in a directory of its own, gone (namespace service, jobs' state) after `fn`. */
async function withLocalCluster(fn: (spec: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fray-example-cluster-"));
  const spec = `local?dir=${dir}`;
  try {
    fn(spec);
  } finally {
    await createCluster(spec).stopNamespace();
    rmSync(dir, { recursive: true, force: true });
  }
}

it("word count (map/reduce) gives the same counts on sync, threads and processes", () => {
  const outputs = ["sync", "threads", "processes"].map((kind) => JSON.parse(example("word-count", kind, "8")) as { words: number; top: [string, number][] });
  assert.ok(outputs[0].words > 50_000, `counted ${outputs[0].words} words`);
  for (const o of outputs.slice(1)) assert.deepEqual({ words: o.words, top: o.top }, { words: outputs[0].words, top: outputs[0].top });
});

it("data-pipeline: map → shuffle → reduce gives, on sync, threads and processes, the totals one loop over the files gives", () => {
  const dir = mkdtempSync(join(tmpdir(), "fray-pipeline-check-"));
  let expected: Totals;
  try {
    const rates = { emea: 1, amer: 0.92, apac: 0.0061 };
    expected = reducePartition(...Array.from({ length: 5 }, (_, i) => mapFile(writeInput(dir, i, 3000), rates, 1)[0]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const euros = Math.round(Object.values(expected).reduce((a, b) => a + b, 0) * 100) / 100;
  for (const kind of ["sync", "threads", "processes"]) {
    const out = JSON.parse(example("data-pipeline", kind, "5", "3000")) as {
      kind: string;
      rows: number;
      products: number;
      euros: number;
      top: [string, number][];
    };
    const top = Object.entries(expected)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 3);
    assert.deepEqual(out, { kind, files: 5, rows: 15_000, products: Object.keys(expected).length, euros, top });
  }
});

it("rl-curriculum: a trainer and two rollout jobs share the curriculum; weights reach the rollouts each step; the policy learns the best arm", async () => {
  await withLocalCluster((spec) => {
    const out = example("rl-curriculum", "--iterations", "8", "--weights-mib", "4", "--cluster", spec);
    const lines = [...out.matchAll(/iteration (\d+): mean payout ([\d.]+), P\(best arm\) ([\d.]+), level (\d), (\d+) episodes/g)];
    assert.equal(lines.length, 8, out);
    const [first, last] = [lines[0], lines[7]];
    assert.ok(Number(last[2]) > Number(first[2]), `the mean payout rose: ${first[2]} → ${last[2]}`);
    assert.ok(Number(last[3]) > 0.5, `P(best arm) ended at ${last[3]}`);
    assert.match(out, /2 rollouts read 8 × 4 MiB of weights from the trainer/);
  });
});

it("launch-training: a job with resources, an npm package and a retry; the crashed replica resumes from its checkpoint; logs stream", async () => {
  await withLocalCluster((spec) => {
    const out = example("launch-training", "--epochs", "5", "--rows", "2000", "--cluster", spec);
    assert.match(out, /^launched train-/);
    assert.match(out, /\[replica-1\] Error: replica 1 lost its accelerator at epoch 3/);
    assert.match(out, /\[replica-1\] replica 1: resumed from its checkpoint at epoch 3/);
    for (const r of [0, 1]) {
      const losses = [...out.matchAll(new RegExp(`\\[replica-${r}\\] replica ${r}: epoch \\d/5 loss ([\\d.]+)`, "g"))].map((m) => Number(m[1]));
      assert.equal(losses.length, 5, out);
      assert.ok(losses[4] < losses[0] / 10, `replica ${r}'s loss fell: ${losses.join(", ")}`);
    }
    assert.match(out, /succeeded: 1 failure\(s\) retried/);
  });
});

/** Whether any process of process group `group` is alive. */
function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `examples/NAME/main.ts ARGS` as a user does (`node --import tsx`), in a process group of its own,
 * so everything it starts (worker processes, `fray worker`s) is killed if it fails or hangs. Resolves
 * with its stdout once it exited with status 0 and every process it started is gone.
 */
async function runExample(name: string, args: string[], timeoutMs = 150_000): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL(`../examples/${name}/main.ts`, import.meta.url)), ...args], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const group = child.pid!;
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timer = setTimeout(() => process.kill(-group, "SIGKILL"), timeoutMs);
  try {
    const [code, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null];
    assert.equal(code, 0, `${name} ${args.join(" ")} exited with ${signal ?? code}\n${stdout}\n${stderr}`);
    // Its worker processes exit with it (their stdin is a pipe from it): wait for the last of them.
    const deadline = Date.now() + 10_000;
    while (groupAlive(group) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(!groupAlive(group), `${name} left processes behind in its process group ${group}`);
    return stdout;
  } finally {
    clearTimeout(timer);
    if (groupAlive(group)) process.kill(-group, "SIGKILL");
  }
}

/** The line of `output` starting with `prefix`, or a failure showing the output. */
function line(output: string, prefix: string): string {
  const found = output.split("\n").find((l) => l.startsWith(prefix));
  assert.ok(found, `no line starting with ${JSON.stringify(prefix)} in:\n${output}`);
  return found;
}

it("mesh basics: call, broadcast, stream, choose, slices, ping-pong, a port, and a player killed with SIGKILL respawned by its owner", async () => {
  const out = await runExample("mesh-basics", ["2"]);
  assert.equal(line(out, "call:"), "call:      pong #1 from player 0 to the client; pong #1 from player 1 to the client");
  assert.equal(line(out, "broadcast:"), "broadcast: scores after one hit each: [2, 2]");
  assert.match(line(out, "stream:"), /^stream: {4}2 answers, in arrival order: (0, 1|1, 0)$/);
  assert.equal(line(out, "choose:"), 'choose:    4 calls went to ranks {"0":2,"1":2}');
  assert.equal(line(out, "slice:"), "slice:     {players: 1} is rank 1; {players: 0..1} has 2 ranks: [0, 1]");
  assert.equal(line(out, "ping-pong:"), "ping-pong: 10 volleys, the last answer: pong #12 from player 1 to player 0");
  assert.equal(line(out, "port:"), "port:      6 messages, the last from each player: player 0 lap 3, player 1 lap 3");
  assert.equal(line(out, "supervise: scores"), "supervise: scores after practice: [1, 1]");
  const killed = Number(/^supervise: killed player 0 \(pid (\d+)\) with SIGKILL$/.exec(line(out, "supervise: killed"))?.[1]);
  assert.ok(killed > 0, out);
  const coach = out.split("\n").filter((l) => l.startsWith("coach:"));
  assert.deepEqual(coach, [`coach:     rank 0 of team failed: worker process ${killed} was killed by SIGKILL`, "coach:     rank 0 of team respawned"]);
  // The respawned player answers from a new process, its constructor run again (its score starts over).
  const respawned = /^respawn: {3}player 0 answers from pid (\d+); scores after practice: \[1, 2\]$/.exec(line(out, "respawn:"));
  assert.ok(respawned, out);
  assert.notEqual(Number(respawned[1]), killed);
});

it("parameter server: workers pull weights and push gradients by RemoteBuffer; the loss goes down every step", async () => {
  const out = await runExample("parameter-server", ["--workers", "2", "--inputs", "32", "--outputs", "8", "--rows", "256", "--steps", "8"]);
  assert.equal(line(out, "256 weights"), "256 weights (1 KiB) on the server, 2 workers with 256 rows each");
  const losses = [...out.matchAll(/^step +(\d+) {2}loss (\d+\.\d+)$/gm)].map((m) => Number(m[2]));
  assert.equal(losses.length, 8, out);
  assert.ok(losses[0] > 0.5 && losses[0] < 2, `the first loss (weights at zero) is about 1: ${losses[0]}`);
  for (let i = 1; i < losses.length; i++) assert.ok(losses[i] < losses[i - 1], `the loss went up at step ${i + 1}: ${losses.join(", ")}`);
  assert.ok(losses[7] < losses[0] / 2, `the loss fell from ${losses[0]} to ${losses[7]} only`);
  assert.match(
    line(out, "loss "),
    new RegExp(`^loss ${losses[0].toFixed(4)} -> ${losses[7].toFixed(4)} in 8 steps, .* each step moved 4 KiB by RemoteBuffer$`),
  );
});

it("multi-host: two fray workers on loopback with a token file, ranks on both, collectives across them; the workers stopped", async () => {
  const out = await runExample("multi-host", ["--length", "1024"]);
  const started = /^started fray worker pid (\d+) on tcp:\/\/127\.0\.0\.1:\d+ and pid (\d+) on tcp:\/\/127\.0\.0\.1:\d+$/.exec(line(out, "started"));
  assert.ok(started, out);
  const [a, b] = [Number(started[1]), Number(started[2])];
  // Ranks 0 and 1 are procs of the first worker, 2 and 3 of the second.
  const ranks = [...out.matchAll(/^rank (\d) \{hosts: (\d), procs: (\d)\}: pid \d+ on .+, started by fray worker pid (\d+)$/gm)];
  assert.deepEqual(
    ranks.map((m) => [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])]),
    [
      [0, 0, 0, a],
      [1, 0, 1, a],
      [2, 1, 0, b],
      [3, 1, 1, b],
    ],
  );
  assert.match(line(out, "allReduce of"), /^allReduce of 1024 floats over 4 ranks on 2 hosts: every rank holds \[10, 10, 10, 10\] \(1 \+ … \+ 4\)/);
  assert.equal(line(out, "allReduce within"), 'allReduce within each host (dims ["procs"]): [3, 3, 7, 7]');
  assert.equal(line(out, "allGather"), "allGather: rank 0 holds [0, 1, 2, 3]; all 4 ranks agree: true");
  assert.equal(line(out, "broadcast"), "broadcast from rank 3: every rank holds [42, 42, 42, 42]");
  assert.equal(line(out, "stopped"), `stopped fray worker pid ${a} and pid ${b}`);
});

it("batch inference: the same labels on one process and on two, with the throughput of each", async () => {
  const out = await runExample("batch-inference", ["--records", "2000", "--procs", "2", "--batch", "250"]);
  assert.equal(line(out, "2000 reviews"), "2000 reviews (0.2 MB of text) in 8 batches of up to 250");
  assert.match(line(out, " 1 process"), /^ 1 process {2}: 2000 records in \d+\.\d\d s, \d+ records\/s$/);
  assert.match(line(out, " 2 processes"), /^ 2 processes: 2000 records in \d+\.\d\d s, \d+ records\/s$/);
  assert.match(line(out, "speed-up"), /^speed-up on 2 processes: \d+\.\d\dx one process$/);
  const labels = /^labels: negative (\d+), positive (\d+); accuracy (\d+\.\d)%$/.exec(line(out, "labels:"));
  assert.ok(labels, out);
  assert.equal(Number(labels[1]) + Number(labels[2]), 2000);
  assert.ok(Number(labels[3]) > 70, `accuracy ${labels[3]}%`);
  assert.equal(line(out, "same labels"), "same labels and confidences on 1 and 2 processes: true");
});

it("the examples type-check as a user's code: tsc --strict, importing fray through the package's exports", () => {
  const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
  const { status, stdout, stderr } = spawnSync(process.execPath, [tsc, "-p", fileURLToPath(new URL("../examples/tsconfig.json", import.meta.url))], {
    encoding: "utf8",
    timeout: 150_000,
    killSignal: "SIGKILL",
  });
  assert.equal(status, 0, stdout + stderr);
});
