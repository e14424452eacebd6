// A timer held still by a fault point (FRAY_FAULT_POINTS timer-fired, docs/faults.md): a forced cancel's grace, held
// once it has run out, keeps the worker and the actor beside the cancelled task alive until the test lets time go
// on; then the worker is replaced and the actor's pending call names the cancelled task. The head runs in the driver,
// so the driver is a program of its own, armed from its start (cancel-grace-driver.ts).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { it } from "node:test";

const driver = fileURLToPath(new URL("./cancel-grace-driver.ts", import.meta.url));

it("a forced cancel's grace held still (timer-fired point): the actor beside the task answers until it is released, then fails naming the task", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fray-cancel-grace-"));
  try {
    const release = join(dir, "grace");
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", driver, release], {
      env: { ...process.env, FRAY_FAULT_POINTS: `timer-fired/cancel-grace=pause:${release}`, FRAY_CANCEL_GRACE_MS: "50" },
      timeout: 120_000,
      killSignal: "SIGKILL",
    });
    const got = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    assert.equal(got.cancelled, "TaskCancelledError");
    assert.equal(got.held, `${got.heldBy} timer-fired/cancel-grace`, "the driver's grace timer fired and was held");
    assert.deepEqual(got.whileHeld, ["deaf:started"], "the actor answered while the grace was held");
    assert.match(String(got.afterRelease), /Board\.waitFor.*replaced to stop cancelled task awaitTimer \(ctx\.cancel with force: true\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
