// The `fray` command line, run as a user would: the compiled bin in a subprocess.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { it } from "node:test";

const bin = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

it("fray demo estimates π over worker processes and passes a token around a ring", () => {
  const { status, stdout, stderr } = spawnSync(process.execPath, [bin, "demo", "--procs", "3", "--samples", "300000"], { encoding: "utf8", timeout: 150_000, killSignal: "SIGKILL" });
  assert.equal(status, 0, stderr);
  const pi = Number(/π ≈ ([\d.]+)/.exec(stdout)?.[1]);
  assert.ok(Math.abs(pi - Math.PI) < 0.02, `π estimate ${pi}`);
  assert.match(stdout, /started 3 worker processes/);
  assert.match(stdout, /a token made 750 actor-to-actor hops around a ring of 3 processes/);
  assert.match(stdout, /stopped every worker process/);
  assert.match(stderr, /^sampling: 30\/30 chunks \(pid \d+\)$/m, "progress as plain lines when stderr is not a terminal");
});

it("fray demo rejects a bad option with a clear error", () => {
  const { status, stderr } = spawnSync(process.execPath, [bin, "demo", "--procs", "zero"], { encoding: "utf8", timeout: 150_000, killSignal: "SIGKILL" });
  assert.notEqual(status, 0);
  assert.match(stderr, /--procs <n>.*expected a positive integer, got "zero"/);
});

it("fray queue serve refuses to start without a token, and says where to put it", () => {
  const env = { ...process.env };
  delete env.FRAY_TOKEN;
  const { status, stderr } = spawnSync(process.execPath, [bin, "queue", "serve"], { encoding: "utf8", env, timeout: 60_000, killSignal: "SIGKILL" });
  assert.notEqual(status, 0);
  assert.match(stderr, /fray queue serve needs a token: --token-file PATH or FRAY_TOKEN/);
});
