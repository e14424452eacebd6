// Stopping an actor is bounded: a call that waits for something that never comes (a message from a peer that is
// gone, a lesson whose trainer stopped) holds the stop at most FRAY_PROC_STOP_TIMEOUT_MS, then rejects as stopped —
// as a proc told to stop exits then. Without the bound, a program that stops such an actor never ends.
import assert from "node:assert/strict";
import { it } from "node:test";
import { SupervisionError, thisProc } from "../../src/mesh.ts";
import { Waiter } from "./actor-stop-actors.ts";

it("an actor whose call never ends stops within FRAY_PROC_STOP_TIMEOUT_MS, the call rejecting as stopped", async (t) => {
  const saved = process.env.FRAY_PROC_STOP_TIMEOUT_MS;
  process.env.FRAY_PROC_STOP_TIMEOUT_MS = "200";
  t.after(() => (saved === undefined ? delete process.env.FRAY_PROC_STOP_TIMEOUT_MS : (process.env.FRAY_PROC_STOP_TIMEOUT_MS = saved)));
  const waiter = thisProc().spawn("waiter", Waiter);
  const call = waiter.waitForever.callOne();
  await waiter.initialized;
  await waiter.stop();
  await assert.rejects(call, (err: unknown) => err instanceof SupervisionError && /was stopped/.test((err as Error).message));
});
