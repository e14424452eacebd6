// The shell loop every cluster replica runs in (src/cluster/replica/script.ts), run directly:
// processes per replica with their GPU shares, preemptions counted apart from
// failures, a stop that is neither, and a failing process ending its siblings.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, it } from "node:test";
import { parseExitRecord, REPLICA_LOOP } from "../../src/cluster/replica/script.ts";
import { isAlive, waitForExit } from "../helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "fray-replica-loop-"));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Loop {
  readonly lines: AsyncIterator<string>;
  readonly code: Promise<number | null>;
  readonly exitFile: string;
  readonly stopFile: string;
  readonly pid: number;
}

/** Runs the loop with `procs` copies of `command`; its stdout lines come one by one. */
function runLoop(name: string, opts: { retries?: number; preemptRetries?: number; procs?: number; env?: NodeJS.ProcessEnv }, command: string[]): Loop {
  const exitFile = join(dir, `${name}.exit`);
  const stopFile = join(dir, `${name}.stopped`);
  const child = spawn(
    "/bin/sh",
    ["-c", REPLICA_LOOP, "fray-replica", exitFile, String(opts.retries ?? 0), String(opts.preemptRetries ?? 0), stopFile, String(opts.procs ?? 1), ...command],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...opts.env },
    },
  );
  after(() => {
    if (isAlive(child.pid!)) child.kill("SIGKILL");
  });
  const code = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  return { lines: createInterface({ input: child.stdout })[Symbol.asyncIterator](), code, exitFile, stopFile, pid: child.pid! };
}

async function next(loop: Loop): Promise<string> {
  const { value, done } = await loop.lines.next();
  assert.ok(!done, "the loop's output ended early");
  return value;
}

/** A node command that prints "up PID" and waits until `file` exists, then exits `code`. */
function waiter(file: string, code = 0): string[] {
  return [
    process.execPath,
    "-e",
    `console.log("up", process.pid); const t = setInterval(() => { if (require("fs").existsSync(${JSON.stringify(file)})) { clearInterval(t); ` +
      `process.exit(${code}); } }, 20)`,
  ];
}

it("runs processesPerTask copies, each with FRAY_PROCESS_ID, FRAY_PROCESS_COUNT and an equal share of CUDA_VISIBLE_DEVICES", async () => {
  const loop = runLoop("procs", { procs: 2, env: { CUDA_VISIBLE_DEVICES: "0,1,4,5" } }, [
    "sh",
    "-c",
    'echo "$FRAY_PROCESS_ID/$FRAY_PROCESS_COUNT gpus=$CUDA_VISIBLE_DEVICES"',
  ]);
  const seen = [await next(loop), await next(loop)].sort();
  assert.deepEqual(seen, ["0/2 gpus=0,1", "1/2 gpus=4,5"]);
  assert.equal(await loop.code, 0);
  assert.deepEqual(parseExitRecord(readFileSync(loop.exitFile, "utf8")), { attempts: 1, failures: 0, preemptions: 0, lastCode: 0, finalCode: 0 });
});

it("a process that fails ends its replica's other processes, and the replica fails with its code", async () => {
  const up = join(dir, "sibling-up");
  // Process 1 fails once process 0 is up (it writes its pid); process 0 would wait forever.
  const script = `if [ "$FRAY_PROCESS_ID" = 1 ]; then until [ -s ${up} ]; do sleep 0.05; done; exit 3; fi; exec "$@"`;
  const loop = runLoop("sibling", { procs: 2 }, [
    "sh",
    "-c",
    script,
    "sh",
    process.execPath,
    "-e",
    `require("fs").writeFileSync(${JSON.stringify(up)}, String(process.pid)); setInterval(() => {}, 1000)`,
  ]);
  assert.equal(await loop.code, 3);
  await waitForExit([Number(readFileSync(up, "utf8"))]);
  assert.equal(parseExitRecord(readFileSync(loop.exitFile, "utf8")).finalCode, 3);
});

it("a SIGTERM from outside is a preemption: started again, counted apart from failures", async () => {
  const go = join(dir, "go");
  const loop = runLoop("preempt", { retries: 0, preemptRetries: 1 }, waiter(go));
  const first = Number((await next(loop)).split(" ")[1]);
  process.kill(first, "SIGTERM");
  const second = Number((await next(loop)).split(" ")[1]);
  assert.notEqual(second, first);
  writeFileSync(go, "");
  assert.equal(await loop.code, 0);
  assert.deepEqual(parseExitRecord(readFileSync(loop.exitFile, "utf8")), { attempts: 2, failures: 0, preemptions: 1, lastCode: 0, finalCode: 0 });
});

it("past maxRetriesPreemption the replica ends with the preempted attempt's code", async () => {
  const loop = runLoop("preempt-out", { retries: 5, preemptRetries: 0 }, waiter(join(dir, "never")));
  process.kill(Number((await next(loop)).split(" ")[1]), "SIGTERM");
  assert.equal(await loop.code, 143);
  assert.deepEqual(parseExitRecord(readFileSync(loop.exitFile, "utf8")), { attempts: 1, failures: 0, preemptions: 1, lastCode: 143, finalCode: 143 });
});

it("with the stop file present (terminate() writes it first) a SIGTERM stops the replica: neither a failure nor a preemption", async () => {
  const loop = runLoop("stop", { retries: 5, preemptRetries: 5 }, waiter(join(dir, "never")));
  const pid = Number((await next(loop)).split(" ")[1]);
  writeFileSync(loop.stopFile, "");
  process.kill(loop.pid, "SIGTERM"); // the loop too, as terminate() signals the whole group
  process.kill(pid, "SIGTERM");
  assert.equal(await loop.code, 143);
  assert.deepEqual(parseExitRecord(readFileSync(loop.exitFile, "utf8")), { attempts: 1, failures: 0, preemptions: 0, lastCode: 143, finalCode: 143 });
});

it("preemptRetries -1 (a scheduler that requeues): a preemption leaves without a final record", async () => {
  const loop = runLoop("requeue", { preemptRetries: -1 }, waiter(join(dir, "never")));
  process.kill(Number((await next(loop)).split(" ")[1]), "SIGTERM");
  assert.equal(await loop.code, 143);
  const record = parseExitRecord(readFileSync(loop.exitFile, "utf8"));
  assert.equal(record.finalCode, undefined);
  assert.equal(record.preemptions, 1);
  assert.equal(existsSync(loop.stopFile), false);
});
