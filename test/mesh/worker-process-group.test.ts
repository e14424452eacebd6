// A worker process leads a process group of its own, so the subprocesses its actors and tasks start end with it:
// when it is stopped, when it is killed (a forced cancel's replacement: test/job/cancel-neighbours.test.ts), and
// when its parent dies.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { it } from "node:test";
import { fileURLToPath } from "node:url";
import { thisHost } from "../../src/mesh.ts";
import { SubprocessStarter } from "./worker-process-group-actors.ts";
import { isAlive, track } from "../helpers.ts";

/** Resolves once every one of `pids` is gone, or after `ms` (the caller asserts which): nothing reports a grandchild's end. */
async function goneWithin(pids: readonly number[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

it("stopping a worker process ends the subprocess its actor started", async () => {
  const procs = track(thisHost().spawnProcs({ workers: 1 }));
  let pids: number[] = [];
  try {
    pids = (await procs.spawn("starter", SubprocessStarter).start.call()).values()[0];
    assert.ok(pids.every(isAlive));
    await procs.stop();
    await goneWithin(pids, 5000);
    assert.deepEqual(pids.filter(isAlive), [], "the worker's subprocess outlived it");
  } finally {
    await procs.stop();
    for (const pid of pids.filter(isAlive)) process.kill(pid, "SIGKILL");
  }
});

it("when its parent is killed, a worker process ends, and so does the subprocess its actor started", async () => {
  const driver = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./worker-process-group-driver.ts", import.meta.url))], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let pids: number[] = [];
  try {
    const [line] = (await once(createInterface({ input: driver.stdout }), "line")) as [string];
    pids = JSON.parse(line) as number[];
    assert.ok(pids.every(isAlive));
    driver.kill("SIGKILL");
    await goneWithin(pids, 10_000);
    assert.deepEqual(pids.filter(isAlive), [], "the worker, or its subprocess, outlived the killed parent");
  } finally {
    driver.kill("SIGKILL");
    for (const pid of pids.filter(isAlive)) process.kill(pid, "SIGKILL");
  }
});
