// Worker output reaches the client tagged with where it came from: a driver
// (test/runtime/worker-logs-client.ts) runs as a child process and the test reads its
// stdout and stderr. Lines are compared as sorted multisets: ranks write
// concurrently, so only what arrives is asserted, not in which order.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { createCluster, Entrypoint } from "../../src/cluster.ts";
import { freePort } from "../../src/runtime/net/address.ts";
import { workerExecArgv } from "../../src/runtime/hosts/host-agent.ts";
import { describeRanks, folded } from "../../src/runtime/output/log-aggregator.ts";

const client = fileURLToPath(new URL("./worker-logs-client.ts", import.meta.url));
const bin = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

interface Output {
  readonly stdout: string[];
  readonly stderr: string[];
}

/** Runs the driver in `mode` to its end; its output lines, sorted. */
async function runClient(args: string[], env: Record<string, string> = {}): Promise<Output> {
  const child = spawn(process.execPath, ["--import", "tsx", client, ...args], {
    env: { ...process.env, FRAY_LOG_AGGREGATE_MS: "", FRAY_LOG_STREAM: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const [code] = (await once(child, "close")) as [number | null];
    assert.equal(code, 0, `the driver failed:\n${stderr}`);
    const lines = (text: string) =>
      text
        .split("\n")
        .filter((l) => l !== "")
        .sort();
    return { stdout: lines(stdout), stderr: lines(stderr) };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

const each = (tags: string[], text: string) => tags.map((t) => `[${t}] ${text}`);

describe("worker output", () => {
  it("reaches the client's stdout and stderr tagged with each rank's coords and the mesh's name, partial writes joined into their line", async () => {
    const out = await runClient(["ranks"]);
    const tags = [0, 1, 2, 3].map((g) => `trainers gpus=${g}`);
    assert.deepEqual(out.stdout, [...each(tags, "out line"), ...each(tags, "partial"), ...each(tags, "unfinished")].sort());
    assert.deepEqual(out.stderr, each(tags, "err line").sort());
  });

  it("from worker threads is tagged the same way", async () => {
    const out = await runClient(["threads"]);
    const tags = [0, 1, 2, 3].map((g) => `gpus=${g}`);
    assert.deepEqual(out.stdout, [...each(tags, "out line"), ...each(tags, "partial"), ...each(tags, "unfinished")].sort());
    assert.deepEqual(out.stderr, each(tags, "err line").sort());
  });

  it("from 64 ranks packed in 4 processes arrives as 64 lines, each tagged with its rank", async () => {
    const out = await runClient(["many"]);
    assert.deepEqual(
      out.stdout,
      each(
        Array.from({ length: 64 }, (_, r) => `workers=${r}`),
        "epoch done",
      ).sort(),
    );
  });

  it("folds identical lines from 64 ranks into one with the count and the ranks when FRAY_LOG_AGGREGATE_MS is set", async () => {
    // A window longer than the run: every line is held, folded, and printed at the client's exit.
    const out = await runClient(["many"], { FRAY_LOG_AGGREGATE_MS: "600000" });
    assert.deepEqual(out.stdout, ["[64 ranks: workers=0..63] epoch done (×64)"]);
  });

  it("goes to the terminal untagged with FRAY_LOG_STREAM=0", async () => {
    const out = await runClient(["ranks"], { FRAY_LOG_STREAM: "0" });
    // Unfinished lines run into the others here: nothing holds them.
    const stdout = out.stdout.join("\n");
    for (const text of ["out line", "partial", "unfinished"]) assert.equal(stdout.split(text).length - 1, 4, `4 × ${text} in ${stdout}`);
    assert.doesNotMatch(stdout, /\[|trainers|gpus/);
    assert.deepEqual(out.stderr, Array(4).fill("err line"));
  });

  it("rejects a FRAY_LOG_STREAM that is not 0 or 1, naming the setting", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", client, "ranks"], {
      env: { ...process.env, FRAY_LOG_STREAM: "yes" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      let stderr = "";
      child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const [code] = (await once(child, "close")) as [number | null];
      assert.notEqual(code, 0);
      assert.match(stderr, /FRAY_LOG_STREAM="yes" is not 0 or 1/);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });

  it("of a proc on a remote worker reaches the client tagged, not the worker's terminal", async () => {
    const token = randomBytes(16).toString("hex");
    const port = await freePort();
    const worker: ChildProcess = spawn(process.execPath, ["--import", "tsx", bin, "worker", "--listen", `tcp://127.0.0.1:${port}`], {
      env: { ...process.env, FRAY_TOKEN: token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let workerOutput = "";
      worker.stderr!.setEncoding("utf8").on("data", (d: string) => (workerOutput += d));
      await new Promise<void>((resolve) => {
        worker.stdout!.setEncoding("utf8").on("data", (d: string) => {
          workerOutput += d;
          if (workerOutput.includes("listening")) resolve();
        });
      });
      const out = await runClient(["remote", `tcp://127.0.0.1:${port}`], { FRAY_TOKEN: token });
      const tags = [0, 1].map((g) => `hosts=0 gpus=${g}`);
      // A line left unfinished is written as the proc exits, and its worker forwards it as the client learns of that exit: either may come first.
      assert.deepEqual(
        out.stdout.filter((line) => !line.endsWith("unfinished")),
        [...each(tags, "out line"), ...each(tags, "partial")].sort(),
      );
      assert.deepEqual(out.stderr, each(tags, "err line").sort());
      assert.doesNotMatch(workerOutput, /out line|err line/);
    } finally {
      worker.kill("SIGKILL");
      if (worker.exitCode === null && worker.signalCode === null) await once(worker, "exit");
    }
  });
});

describe("a cluster job's worker output", () => {
  it("is in the job's log, tagged with the replica and the rank", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fray-worker-logs-"));
    const cluster = createCluster(`local?dir=${dir}`);
    try {
      const id = await cluster.launch({ name: "talkers", entrypoint: Entrypoint.fromBinary(process.execPath, ["--import", "tsx", client, "ranks"]) });
      await cluster.wait(id, { raiseOnFailure: true });
      const logs = await cluster.logs(id);
      for (const g of [0, 1, 2, 3]) {
        assert.ok(logs.includes(`[replica-0] [trainers gpus=${g}] out line`), `gpus=${g} in ${logs}`);
        assert.ok(logs.includes(`[replica-0] [trainers gpus=${g}] err line`), `gpus=${g} in ${logs}`);
      }
    } finally {
      for (const job of await cluster.listJobs()) if (job.status === "running" || job.status === "pending") await cluster.terminate(job.jobId);
      await cluster.stopNamespace();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("aggregated lines", () => {
  it("name their ranks as coordinate ranges when they are every combination, else list them", () => {
    assert.equal(describeRanks(["t host=0 gpus=0", "t host=0 gpus=1", "t host=1 gpus=0", "t host=1 gpus=1"]), "t host=0..1 gpus=0..1");
    assert.equal(describeRanks(["workers=0", "workers=1", "workers=2", "workers=5"]), "workers=0..2,5");
    assert.equal(describeRanks(["host=0 gpus=0", "host=1 gpus=1"]), "host=0 gpus=0, host=1 gpus=1");
  });

  it("from one rank keep its tag and say how many times the line came", () => {
    assert.equal(folded("tick", ["workers=3"], 2), "[workers=3] tick (×2)");
    assert.equal(folded("tick", ["workers=3"], 1), "[workers=3] tick");
  });
});

describe("worker stack traces", () => {
  it("are mapped to the user's sources when this process maps its own, even if it turned that on by API", () => {
    process.setSourceMapsEnabled(true);
    assert.ok(workerExecArgv().includes("--enable-source-maps"));
    assert.equal(workerExecArgv().filter((a) => a === "--enable-source-maps").length, 1);
  });
});
