// Worker processes start with this process's node flags, less those for it alone (the test runner's, the
// inspector's): such a flag's value given as the next argument must go with it, or the worker takes the value for
// its script (`node --test --test-name-pattern NAME` gave every worker "Cannot find module NAME").
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { it } from "node:test";

const driver = fileURLToPath(new URL("./worker-flags-driver.ts", import.meta.url));

it("workers start when the driver was given test-runner flags with separate values", async () => {
  const flags = ["--test-name-pattern", "some test", "--test-reporter", "spec", "--test-concurrency", "1"];
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", ...flags, driver], { timeout: 60_000 });
  const { pid } = JSON.parse(stdout.trim().split("\n").pop()!) as { pid: number };
  assert.ok(Number.isInteger(pid) && pid !== process.pid);
});
