// Replacing a worker: one killed to stop a task cancelled with `force` that would not end (CPU-bound code never
// yields to see its signal; an await that ignores it) — its process and process group are killed (a worker thread
// terminated) — and one that died by itself. Once its loss is reported it is started again with a fresh Executor.
// Meanwhile the worker counts as restarting, so tasks that only it could run wait instead of failing. A cancel
// without force never kills a worker.
import { config } from "../base/settings.ts";
import { timerFired } from "../../runtime/face/faults.ts";
import type { WorkerPool } from "./worker-pool.ts";

/** How the head kills a worker's process, and starts it (and its Executor) again. */
export interface WorkerReplacer {
  /** Kills worker `worker` to stop cancelled task `task`: what fails with it names the task. */
  kill(worker: number, task: string): void;
  respawn(worker: number): Promise<void>;
}

/** Why what shared a replaced worker failed: the words of every such error. */
export function forcedCancel(task: string): string {
  return `cancelled task ${task} (ctx.cancel with force: true)`;
}

export class WorkerReplacement {
  /** Workers being replaced, and the cancelled task each is replaced for. */
  readonly #replacing = new Map<number, string>();

  constructor(
    private readonly pool: WorkerPool,
    private readonly replacer: WorkerReplacer,
    /** Worker `index` runs again (`error` null), or could not be started again. */
    private readonly done: (index: number, error: Error | null) => void,
  ) {}

  #ended = false;

  /** The job is ending: a restart cut short by it is no news. */
  end(): void {
    this.#ended = true;
  }

  /** Calls `replace` FRAY_CANCEL_GRACE_MS from now: the time a force-cancelled task has to end on its own. */
  afterGrace(replace: () => void): void {
    setTimeout(timerFired("cancel-grace", replace), config.cancelGraceMs).unref(); // a test may hold its time still (docs/faults.md)
  }

  /** Kills worker `index`, whose force-cancelled task `name` did not end. */
  replace(index: number, name: string): void {
    if (this.#replacing.has(index) || !this.pool.alive(index)) return;
    this.#replacing.set(index, name);
    this.replacer.kill(index, name);
  }

  /** The cancelled task worker `index` is being replaced for, if it is. */
  replacedFor(index: number): string | undefined {
    return this.#replacing.get(index);
  }

  /**
   * Worker `index` is reported dead (`cause`): it starts again — one killed by `replace`, and one that died by itself
   * (a crash, a kill, `process.exit` in a task), so that the pool keeps its size in a long-lived job.
   */
  respawn(index: number, cause: Error): void {
    const forced = this.#replacing.get(index);
    const what = forced === undefined ? `died (${cause.message})` : `was killed to stop ${forcedCancel(forced)}`;
    // After every watcher of the lost process has heard of it: respawn replaces failed ranks only.
    setImmediate(() => {
      this.replacer.respawn(index).then(
        () => {
          this.#replacing.delete(index);
          this.pool.revive(index);
          this.done(index, null);
        },
        (err: Error) => {
          this.#replacing.delete(index);
          this.pool.markDead(index); // for good now
          if (!this.#ended) console.error(`fray: worker ${index} ${what}, and could not be started again: ${err.message}`);
          this.done(index, err);
        },
      );
    });
  }
}
