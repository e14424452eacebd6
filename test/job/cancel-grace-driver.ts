// The driver of cancel-grace.test.ts, run with FRAY_FAULT_POINTS="timer-fired/cancel-grace=pause:FILE" and a short
// FRAY_CANCEL_GRACE_MS: it force-cancels a task that awaits what ignores its signal, beside an actor on its one worker; once the grace
// timer has fired and is held (FILE.held names this process), it calls the actor, then releases the timer itself.
// Prints one JSON line: what the actor answered while time stood still, and how its pending call failed after.
//   node --import tsx cancel-grace-driver.ts FILE
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createJobContext, TaskCancelledError } from "../../src/job.ts";
import { Board } from "../fixtures/cancel-tasks.ts";
import { awaitTimer } from "./cancel-neighbours-tasks.ts";

const release = process.argv[2]!;
const ctx = createJobContext("processes", { maxWorkers: 1 });
try {
  const board = await ctx.createActor(Board, [], { maxConcurrency: 64 }); // on the one worker, beside the task
  const stuck = ctx.run(awaitTimer, board, "deaf", 600_000);
  await ctx.get(board.waitFor.remote("deaf:started"));
  const pending = ctx.get(board.waitFor.remote("never")).then(
    () => "answered",
    (err: Error) => err.message,
  );
  await ctx.cancel(stuck, { force: true });
  const cancelled = await ctx.get(stuck).then(
    () => "ran to its end",
    (err: unknown) => (err instanceof TaskCancelledError ? "TaskCancelledError" : String(err)),
  );
  // The timer fired: without the hold its worker would be being replaced from that moment.
  while (!existsSync(`${release}.held`)) await new Promise((r) => setTimeout(r, 10));
  const held = readFileSync(`${release}.held`, "utf8").trim();
  const whileHeld = await ctx.get(board.keys.remote());
  writeFileSync(release, "");
  console.log(JSON.stringify({ cancelled, held, heldBy: process.pid, whileHeld, afterRelease: await pending }));
} finally {
  await ctx.shutdown();
}
