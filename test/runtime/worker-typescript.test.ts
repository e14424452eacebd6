// `fray worker` started as a user starts it — plain `node …/fray worker`, no
// TypeScript loader — serves a client that runs TypeScript: its procs load tsx
// when the worker finds it (in fray's dependencies, or the project it runs in);
// a worker that cannot find it refuses to start them, naming the fix.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { freePort } from "../../src/runtime/net/address.ts";
import { attachToWorkers } from "../../src/mesh.ts";
import { Counter } from "../fixtures/actors.ts";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const token = randomBytes(32).toString("hex");

/**
 * fray as a project installs it without tsx: its package.json and dist, and
 * its dependencies (links to this checkout's copies) — nothing else.
 */
function installWithoutTsx(dir: string): string {
  const fray = join(dir, "fray");
  cpSync(join(repo, "dist"), join(fray, "dist"), { recursive: true });
  cpSync(join(repo, "package.json"), join(fray, "package.json"));
  const { dependencies } = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  mkdirSync(join(fray, "node_modules"));
  for (const name of Object.keys(dependencies)) {
    mkdirSync(dirname(join(fray, "node_modules", name)), { recursive: true }); // a scoped name (@types/node) sits in its scope's folder
    symlinkSync(join(repo, "node_modules", name), join(fray, "node_modules", name));
  }
  return join(fray, "dist", "cli", "main.js");
}

describe("fray worker without a TypeScript loader, for a client that runs TypeScript", () => {
  const dir = mkdtempSync(join(tmpdir(), "fray-worker-ts-"));
  const workers: ChildProcess[] = [];

  /** Starts `node BIN worker` in `cwd` with no loader flags; resolves with its address once it listens. */
  async function startWorker(bin: string, cwd: string): Promise<string> {
    const addr = `tcp://127.0.0.1:${await freePort()}`;
    const child = spawn(process.execPath, [bin, "worker", "--listen", addr], {
      cwd,
      env: { ...process.env, FRAY_TOKEN: token },
      stdio: ["ignore", "pipe", "inherit"],
    });
    workers.push(child);
    for await (const line of child.stdout!) if (String(line).includes("listening")) break;
    return addr;
  }

  let withFrayDeps: string;
  let withoutTsx: string;
  let inProjectWithTsx: string;
  before(async () => {
    const bin = installWithoutTsx(dir);
    [withFrayDeps, withoutTsx, inProjectWithTsx] = await Promise.all([
      startWorker(join(repo, "dist", "cli", "main.js"), dir), // tsx among fray's own (dev) dependencies
      startWorker(bin, dir), // tsx nowhere
      startWorker(bin, repo), // tsx in the project it runs in
    ]);
  });
  after(async () => {
    for (const w of workers) {
      w.kill("SIGKILL");
      if (w.exitCode === null && w.signalCode === null) await once(w, "exit");
    }
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [where, addr] of [
    ["fray's own dependencies", () => withFrayDeps],
    ["the project it runs in", () => inProjectWithTsx],
  ] as const) {
    it(`runs TypeScript actors with tsx from ${where}`, async () => {
      await using procs = attachToWorkers([addr()], { token }).spawnProcs({ gpus: 2 });
      const counters = procs.spawn("ts-counters", Counter, 5); // parameter properties and a decorator: TypeScript that only a loader runs
      counters.slice({ gpus: 1 }).incr.broadcast(2);
      assert.deepEqual((await counters.get.call()).values(), [5, 7]);
    });
  }

  // Node 22.18+ and 24 strip types themselves: there a worker without tsx starts procs that run erasable TypeScript.
  const stripsTypes = Boolean((process.features as { typescript?: string | false }).typescript);
  it(`${stripsTypes ? "starts procs with node's own type stripping" : "refuses to start procs, naming the fix,"} where tsx is not installed`, async () => {
    await using procs = attachToWorkers([withoutTsx], { token }).spawnProcs({ gpus: 1 });
    if (stripsTypes) {
      await procs.initialized;
      return;
    }
    await assert.rejects(
      procs.initialized,
      (e: Error) =>
        e.message.includes(`worker ${withoutTsx} could not start a proc`) &&
        /the client runs TypeScript, but procs started here cannot load it: tsx is not installed .* \(npm install tsx\), or start the worker with 'node --import tsx'/.test(
          e.message,
        ),
    );
  });
});
