// Actors and tasks for test/job/killed-worker-errors.test.ts. Exported, so workers can load them.
import { getJobContext, type ActorHandle } from "../../src/job.ts";
import type { Board } from "../fixtures/cancel-tasks.ts";

/** A serving replica: streams tokens until its process dies; reports its pid, so a test can kill that process. */
export class ModelReplica {
  pid(): number {
    return process.pid;
  }

  /** Yields a token per timer tick, without end. */
  async *generate(prompt: string): AsyncGenerator<string> {
    for (let i = 0; ; i++) {
      yield `${prompt}:${i}`;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Answers only once its process is gone: never. */
  async complete(prompt: string): Promise<string> {
    await new Promise(() => {});
    return prompt;
  }
}

/** A task that marks its worker's pid on the board as `embed`, then computes without end (until its process is killed). */
export async function embed(board: ActorHandle<Board>): Promise<number> {
  await getJobContext().get(board.mark.remote("embed", process.pid));
  for (;;) await new Promise((resolve) => setTimeout(resolve, 5));
}
