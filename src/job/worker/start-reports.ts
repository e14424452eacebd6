// A worker tells the head which of its tasks got a slot (so the head counts
// their resources as taken) in batches: every start in one turn goes in one
// one-way message. A task about to wait in get()/wait() flushes first, so the
// head learns that it started before that it blocked. (Results go another way:
// to the head's results port, see Executor.)
import { afterMicrotasks } from "../routes/task-batch.ts";

export class StartReports {
  #started: string[] = [];
  #scheduled = false;

  constructor(private readonly send: (started: string[]) => void) {}

  started(taskId: string): void {
    this.#started.push(taskId);
    if (this.#scheduled) return;
    this.#scheduled = true;
    afterMicrotasks(() => this.flush());
  }

  /** Sends what is queued now. */
  flush(): void {
    this.#scheduled = false;
    if (this.#started.length === 0) return;
    const started = this.#started;
    this.#started = [];
    this.send(started);
  }
}
