// The lock a cluster state directory's users share (src/cluster/state-lock.ts): one holder at a time, and a holder's
// release removes only its own lock — not one that a process on another host took after breaking it (a holder on
// another host cannot be checked, so it counts as stale there).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { withStateLock } from "../../src/cluster/state-lock.ts";

const dir = mkdtempSync(join(tmpdir(), "fray-state-lock-"));
after(() => rmSync(dir, { recursive: true, force: true }));

it("two holders of one lock run one after the other", async () => {
  const lock = join(dir, "serial.lock");
  const order: string[] = [];
  let release!: () => void;
  const firstHeld = new Promise<void>((resolve) => (release = resolve));
  const first = withStateLock(lock, "the test's lock", async () => {
    order.push("first in");
    await firstHeld;
    order.push("first out");
  });
  const second = withStateLock(lock, "the test's lock", () => void order.push("second in"));
  await new Promise((resolve) => setImmediate(resolve));
  release();
  await Promise.all([first, second]);
  assert.deepEqual(order, ["first in", "first out", "second in"]);
});

it("a holder whose lock another host broke and took leaves that host's lock in place when it releases", async () => {
  const lock = join(dir, "taken.lock");
  const theirs = { pid: 4242, startTime: "1", host: "another-host" };
  await withStateLock(lock, "the test's lock", () => {
    // What a launch on another host does while this one runs: it breaks the lock (a holder it cannot check) and takes it.
    renameSync(lock, `${lock}.broken`);
    mkdirSync(`${lock}.other`);
    writeFileSync(join(`${lock}.other`, "holder.json"), JSON.stringify(theirs));
    renameSync(`${lock}.other`, lock);
  });
  assert.deepEqual(JSON.parse(readFileSync(join(lock, "holder.json"), "utf8")), theirs);
});
