// A process killed while it starts — found by the chaos run, made certain here by a fault point
// (FRAY_FAULT_POINTS, docs/faults.md): the point holds the worker's Executor, or the actor's constructor, until the
// test has killed the process and released the others. Each test failed on the code before its fix.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it, type TestContext } from "node:test";
import { createJobContext, type JobContext } from "../../src/job.ts";
import { SupervisionError } from "../../src/mesh.ts";
import { Restartable } from "../fixtures/namespace-actors.ts";
import { pid as workerPid, square } from "../fixtures/tasks.ts";
import { waitForExit } from "../helpers.ts";

const VARIABLE = "FRAY_FAULT_POINTS";

describe("a process killed while it starts (processes backend)", () => {
  let dir: string;
  let holds = 0;
  before(() => void (dir = mkdtempSync(join(tmpdir(), "fray-killed-starting-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Holds every process that constructs a `className` until the file this returns exists; workers started from now on inherit it. */
  function holdConstructing(t: TestContext, className: string): string {
    const release = join(dir, `${className}-${++holds}`);
    process.env[VARIABLE] = `actor-constructing/${className}=pause:${release}`;
    t.after(() => {
      delete process.env[VARIABLE];
      writeFileSync(release, ""); // nothing stays held, whatever the test's end
    });
    return release;
  }

  /** The pids of the first `count` processes held at the point `release` releases, as they announce themselves. */
  async function held(release: string, count: number): Promise<number[]> {
    const file = `${release}.held`;
    for (;;) {
      const pids = existsSync(file)
        ? readFileSync(file, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((line) => Number(line.split(" ")[0]))
        : [];
      if (pids.length >= count) return pids.slice(0, count);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async function killHeld(release: string): Promise<number> {
    const [pid] = await held(release, 1);
    process.kill(pid!, "SIGKILL");
    await waitForExit([pid!]);
    return pid!;
  }

  /** A job of `workers` workers, shut down as the test ends. */
  function start(t: TestContext, workers: number): JobContext {
    const job = createJobContext("processes", { maxWorkers: workers });
    t.after(() => job.shutdown());
    return job;
  }

  it("a worker killed while the job starts is started again: the job's first get answers", async (t) => {
    const release = holdConstructing(t, "Executor");
    const job = start(t, 2);
    const ref = job.run(square, 7);
    const killed = await killHeld(release);
    writeFileSync(release, "");
    assert.equal(await job.get(ref), 49);
    const pids = await job.get([0, 1, 2, 3].map(() => job.run(workerPid)));
    assert.ok(!pids.includes(killed), "the killed worker does not run tasks");
  });

  it("an actor with restarts left whose process is killed while it starts is started again", async (t) => {
    const release = holdConstructing(t, "Restartable");
    const job = start(t, 1);
    const creating = job.createActor(Restartable, [], { maxRestarts: 1 });
    const killed = await killHeld(release);
    writeFileSync(release, "");
    const actor = await creating;
    assert.equal(await job.get(actor.bump.remote()), 1, "its constructor ran in the new process");
    assert.notEqual(await job.get(actor.pid.remote()), killed);
  });

  it("an actor without restarts whose process is killed while it starts fails createActor with SupervisionError", async (t) => {
    const release = holdConstructing(t, "Restartable");
    const job = start(t, 1);
    const creating = job.createActor(Restartable, [], { maxRestarts: 0 });
    creating.catch(() => {});
    await killHeld(release);
    await assert.rejects(creating, SupervisionError);
  });

  it("a worker's restart cut short by the job's end is not reported as an error", async (t) => {
    const job = start(t, 1);
    const pid = await job.get(job.run(workerPid));
    const release = holdConstructing(t, "Executor"); // its replacement holds as it starts
    const errors: string[] = [];
    const error = console.error;
    t.mock.method(console, "error", (...args: unknown[]) => (errors.push(args.map(String).join(" ")), error(...args)));
    process.kill(pid, "SIGKILL");
    const [replacement] = await held(release, 1);
    await job.shutdown();
    await waitForExit([replacement!]);
    assert.deepEqual(
      errors.filter((line) => /could not be started again/.test(line)),
      [],
    );
  });
});
