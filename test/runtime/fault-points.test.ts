// Fault points (FRAY_FAULT_POINTS), the testing hook of docs/faults.md: how a spec is read, the error a malformed
// one gets, and what each action does at a point, in worker processes that inherit the variable.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { parseFaultPoints } from "../../src/runtime/face/faults.ts";
import { setUnhandledFaultHook, thisHost, type ProcMesh, type UnhandledFaultHook } from "../../src/mesh.ts";
import { Echo } from "../fixtures/actors.ts";
import { Counter } from "../fixtures/counter.ts";
import { isAlive, track, waitForExit } from "../helpers.ts";

const VARIABLE = "FRAY_FAULT_POINTS";

describe("FRAY_FAULT_POINTS: what a spec arms", () => {
  it("points with or without a subject, each with its action; empty entries are ignored", () => {
    const armed = parseFaultPoints(" actor-constructing/Executor=pause:/tmp/go ; actor-constructing=throw;; frame-received/msg=drop;");
    assert.deepEqual(Object.fromEntries(armed), {
      "actor-constructing/Executor": { kind: "pause", file: "/tmp/go" },
      "actor-constructing": { kind: "throw" },
      "frame-received/msg": { kind: "drop" },
    });
    assert.deepEqual(parseFaultPoints("actor-constructing=pause:250").get("actor-constructing"), { kind: "pause", ms: 250 });
    assert.deepEqual(parseFaultPoints("actor-constructing=exit").get("actor-constructing"), { kind: "exit", code: 1 });
    assert.deepEqual(parseFaultPoints("actor-constructing=exit:3").get("actor-constructing"), { kind: "exit", code: 3 });
    assert.deepEqual(parseFaultPoints("actor-constructing=kill").get("actor-constructing"), { kind: "kill" });
    assert.deepEqual(parseFaultPoints("timer-fired/cancel-grace=pause:/tmp/go").get("timer-fired/cancel-grace"), { kind: "pause", file: "/tmp/go" });
    assert.deepEqual(parseFaultPoints("frame-received=drop:2").get("frame-received"), { kind: "drop", times: 2 });
    assert.equal(parseFaultPoints(undefined).size, 0);
    assert.equal(parseFaultPoints("").size, 0);
  });

  it("a malformed spec is refused with an error naming the entry and the problem", () => {
    const refused: Array<[string, RegExp]> = [
      ["actor-constructing", /"actor-constructing" has no '=ACTION'/],
      ["actor-starting=kill", /unknown fault point "actor-starting"; the points are: actor-constructing, timer-fired, frame-received/],
      ["actor-constructing=stall", /unknown action "stall"/],
      ["actor-constructing=pause", /pause needs a number of milliseconds or an absolute file path/],
      ["actor-constructing=pause:soon", /"soon" is neither a non-negative number of milliseconds nor an absolute path/],
      ["actor-constructing=pause:relative/file", /is neither a non-negative number of milliseconds nor an absolute path/],
      ["actor-constructing=exit:300", /exit code "300" is not a whole number from 0 to 255/],
      ["actor-constructing=kill:9", /kill takes no argument/],
      ["actor-constructing=drop", /actor-constructing has no connection to drop/],
      ["frame-received=drop:0", /drop's count "0" is not a whole number of times from 1/],
      ["frame-received=drop:twice", /drop's count "twice" is not a whole number/],
      ["frame-received/msg=pause:10", /frame-received cannot pause/],
      ["timer-fired=throw", /timer-fired cannot throw; it can pause, exit, kill/],
      ["timer-fired=drop", /timer-fired has no connection to drop/],
      ["actor-constructing/=throw", /the subject after '\/' is empty/],
      ["actor-constructing=throw;actor-constructing=kill", /"actor-constructing" is armed twice/],
    ];
    for (const [spec, message] of refused) {
      assert.throws(
        () => parseFaultPoints(spec),
        (e: Error) => e instanceof RangeError && e.message.startsWith(`${VARIABLE}: `) && message.test(e.message),
        spec,
      );
    }
  });

  it("a process started with a malformed spec fails at its start, naming the problem", () => {
    const face = fileURLToPath(new URL("../../src/runtime/face/faults.ts", import.meta.url));
    const run = spawnSync(process.execPath, ["--import", "tsx", "-e", `await import(${JSON.stringify(face)})`], {
      env: { ...process.env, [VARIABLE]: "actor-constructing=explode" },
      encoding: "utf8",
    });
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /FRAY_FAULT_POINTS: "actor-constructing=explode": unknown action "explode"/);
  });
});

describe("FRAY_FAULT_POINTS: what an armed point does in a worker process", () => {
  let dir: string;
  let previousHook: UnhandledFaultHook;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "fray-fault-points-"));
    previousHook = setUnhandledFaultHook(() => {}); // the owner (this test) expects the deaths it arms
  });
  after(() => {
    setUnhandledFaultHook(previousHook);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Procs of one worker process armed with `spec` (the test's own process stays unarmed: it read the variable at its start). */
  function armedProcs(t: TestContext, spec: string): ProcMesh {
    process.env[VARIABLE] = spec;
    try {
      const procs = track(thisHost().spawnProcs({ workers: 1 }));
      t.after(() => procs.stop());
      return procs;
    } finally {
      delete process.env[VARIABLE];
    }
  }

  it("throw: the constructor's start fails with a FaultPointError naming the point; another class is untouched", async (t) => {
    const procs = armedProcs(t, "actor-constructing/Counter=throw");
    const counters = procs.spawn("counters", Counter, 1);
    await assert.rejects(counters.initialized, /fault point actor-constructing\/Counter threw, as FRAY_FAULT_POINTS asked/);
    await assert.rejects(procs.spawn("more", Counter, 1).initialized, /fault point/, "every Counter, whatever its mesh");
    assert.equal(await procs.spawn("echoes", Echo).echo.callOne("untouched"), "untouched");
  });

  it("pause until a file: the actor is held, its calls wait, the file releases it", async (t) => {
    const release = join(dir, "release");
    const procs = armedProcs(t, `actor-constructing/Counter=pause:${release}`);
    const counters = procs.spawn("counters", Counter, 5);
    counters.incr.broadcast(2);
    const answer = counters.get.callOne();
    let held = "";
    while (!held) held = await readHeld(`${release}.held`);
    const [pid, label] = held.trim().split(" ");
    assert.deepEqual([Number(pid), label], [procs.pids[0], "actor-constructing/Counter"]);
    writeFileSync(release, "");
    assert.equal(await answer, 7);
  });

  it("kill: the process dies by SIGKILL as it reaches the point, as the chaos run kills one", async (t) => {
    const procs = armedProcs(t, "actor-constructing/Counter=kill");
    const [pid] = procs.pids;
    await assert.rejects(procs.spawn("counters", Counter, 1).initialized, /killed by SIGKILL/);
    await waitForExit([pid!]);
    assert.ok(!isAlive(pid!));
  });

  it("frame-received drop: a worker drops its connection as a call arrives; taken for hung at the heartbeat timeout, the call rejects", async (t) => {
    // Neither end acts on the closed connection to a child process (its exit reports its loss): the heartbeat does.
    process.env.FRAY_HEARTBEAT_TIMEOUT_MS = "2000";
    t.after(() => delete process.env.FRAY_HEARTBEAT_TIMEOUT_MS);
    const procs = armedProcs(t, "frame-received/msg=drop");
    const counters = procs.spawn("counters", Counter, 1);
    await counters.initialized;
    await assert.rejects(counters.get.callOne(), (e: Error) => e.name === "SupervisionError" && /no heartbeat for/.test(e.message));
  });
});

async function readHeld(file: string): Promise<string> {
  await new Promise((r) => setTimeout(r, 10));
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
