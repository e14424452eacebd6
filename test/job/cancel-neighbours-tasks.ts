// Tasks of cancel-neighbours.test.ts: ones that do not stop when their signal aborts (they await a timer, or a
// subprocess, that never hears of it), as users' tasks often are. They report to a Board on the same worker.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { getJobContext, type ActorHandle } from "../../src/job.ts";
import type { Board } from "../fixtures/cancel-tasks.ts";

type BoardHandle = ActorHandle<Board>;

/** Marks `${key}:started`, awaits a timer of `ms` and then the mark `${key}:release`, neither heeding its signal, and marks `${key}:ended`. */
export async function awaitTimer(board: BoardHandle, key: string, ms: number): Promise<string> {
  const ctx = getJobContext();
  await ctx.get(board.mark.remote(`${key}:started`));
  await new Promise((resolve) => setTimeout(resolve, ms));
  await ctx.get(board.waitFor.remote(`${key}:release`));
  await ctx.get(board.mark.remote(`${key}:ended`));
  return "ended";
}

/** Yields 0, marks `${key}:waiting`, waits `ms` (ignoring its signal), marks `${key}:resumed`, and yields 1. */
export async function* slowBetweenYields(board: BoardHandle, key: string, ms: number): AsyncGenerator<number> {
  yield 0;
  await getJobContext().get(board.mark.remote(`${key}:waiting`));
  await new Promise((resolve) => setTimeout(resolve, ms));
  await getJobContext().get(board.mark.remote(`${key}:resumed`));
  yield 1;
}

/** Starts `sleep 1000`, marks `${key}:pid` with its pid, and waits for it to exit (its signal aborting stops neither). */
export async function runSubprocess(board: BoardHandle, key: string): Promise<number | null> {
  const child = spawn("sleep", ["1000"], { stdio: "ignore" });
  await once(child, "spawn");
  await getJobContext().get(board.mark.remote(`${key}:pid`, child.pid));
  const [code] = (await once(child, "exit")) as [number | null];
  return code;
}
