// Code loading: an actor class exported from any module runs in worker
// processes with no registration — TypeScript through tsx or compiled
// JavaScript — and anything else fails with an error that says to export it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it, type TestContext } from "node:test";
import { Actor, NotExportedError, thisHost, type ProcMesh } from "../../src/mesh.ts";
import { makeGreeterClass, makeHiddenClass, unexportedClass } from "../fixtures/actors.ts";
import { isAlive, track, waitForExit } from "../helpers.ts";

export class DefinedInTestFile extends Actor {
  get(): number {
    return 1;
  }
}

const beside = (name: string) => fileURLToPath(new URL(`./code-loading-${name}`, import.meta.url));

/** Runs a client to its end; killed when the test ends, should it hang. */
async function runClient(t: TestContext, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  t.after(() => void child.kill("SIGKILL"));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const [code] = await once(child, "exit");
  return { code, stdout, stderr };
}

describe("classes that cannot be loaded elsewhere", () => {
  let procs: ProcMesh;
  before(() => {
    procs = track(thisHost().spawnProcs({ gpus: 1 }));
  });
  after(() => procs.stop());

  it("an unexported class: initialized and calls reject saying to export it", async () => {
    const mesh = procs.spawn("hidden", unexportedClass());
    const fix = /class Unexported is not exported from file:\/\/.*fixtures\/actors\.ts: add 'export'/;
    await assert.rejects(mesh.initialized, (e: Error) => e instanceof NotExportedError && fix.test(e.message));
    await assert.rejects(mesh.get.call(), fix);
  });

  it("a class made in a closure", async () => {
    const mesh = procs.spawn("closure", makeHiddenClass());
    await assert.rejects(mesh.get.callOne(), /class Hidden is not exported from .*: add 'export'/);
  });

  it("a class that captured a value of the factory that made it: calls reject saying to pass the value as an argument", async () => {
    const mesh = procs.spawn("captured", makeGreeterClass("hello"));
    await assert.rejects(
      mesh.get.callOne(),
      /class Greeter is a closure made by makeGreeterClass\(\) in .*actors\.ts: .*pass the captured values as arguments/,
    );
  });

  it("a class in the entry script", async () => {
    const mesh = procs.spawn("entry", DefinedInTestFile);
    await assert.rejects(mesh.initialized, /class DefinedInTestFile is defined in the entry script .*Move it to a module of its own/);
  });

  it("a built-in function", () => {
    assert.throws(() => procs.spawn("builtin", Map as unknown as typeof DefinedInTestFile), /has no source location/);
  });
});

describe("clients as users run them", () => {
  it("compiled JavaScript: a client calls a JS actor and exits by itself, and its workers with it", async (t) => {
    const { code, stdout, stderr } = await runClient(t, [beside("js-client.mjs")]);
    assert.equal(code, 0, stderr);
    const { replies, pids } = JSON.parse(stdout) as { replies: string[]; pids: number[] };
    assert.equal(replies.length, 2);
    assert.match(replies[0], /^hello, js from \d+$/);
    assert.notEqual(replies[0], replies[1]);
    await waitForExit(pids);
    assert.deepEqual(pids.filter(isAlive), []);
  });

  it("compiled JavaScript: endpoints named like mesh internals reach the actor; one named like a member is refused", async (t) => {
    const { code, stdout, stderr } = await runClient(t, [beside("js-endpoint-names.mjs")]);
    assert.equal(code, 0, stderr);
    const { replies, refused } = JSON.parse(stdout) as { replies: Record<string, string[]>; refused: string | null };
    assert.deepEqual(replies, Object.fromEntries(["id", "shape", "ref", "stopped"].map((n) => [n, [`${n} endpoint`, `${n} endpoint`]])));
    assert.match(refused ?? "", /^TypeError: Stopper\.stop cannot be an endpoint: 'stop' is a member of every actor mesh .*; rename Stopper\.stop$/);
  });

  it("TypeScript under tsx: killing the client with SIGKILL leaves no worker behind", async (t) => {
    // A killed client cannot remove its socket directory; give it a temp dir of ours.
    const tmp = mkdtempSync(join(tmpdir(), "fray-test-"));
    t.after(() => rmSync(tmp, { recursive: true, force: true }));
    const child = spawn(process.execPath, ["--import", "tsx", beside("ts-client.ts")], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, TMPDIR: tmp },
    });
    t.after(() => void child.kill("SIGKILL"));
    let out = "";
    for await (const chunk of child.stdout) {
      out += chunk;
      if (out.includes("\n")) break;
    }
    const { pids } = JSON.parse(out) as { pids: number[] };
    assert.equal(pids.length, 2);
    assert.ok(pids.every(isAlive));
    child.kill("SIGKILL");
    await once(child, "exit");
    await waitForExit(pids);
    assert.deepEqual(pids.filter(isAlive), []);
  });
});
