// A script that finishes its work exits by itself: one that runs tasks on getJobContext()'s `auto` default
// (threads) and never calls shutdown() ends with its program, status 0, its workers with it.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { it } from "node:test";
import { runProgram } from "../helpers.ts";

const program = fileURLToPath(new URL("../fixtures/program-exit-tasks.ts", import.meta.url));

it("a script that runs tasks on getJobContext() and never shuts it down exits by itself, status 0", { timeout: 60_000 }, async (t) => {
  const { code, signal, stdout, stderr } = await runProgram(t, program);
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, stderr);
  assert.match(stdout, /^square 49$/m);
  assert.match(stdout, /said in a task$/m);
});
