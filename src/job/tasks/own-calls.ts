// A task that cannot go in a batch goes to its worker with a call of its own (Executor.runTask): one whose function
// was not located yet (its module's URL is looked up once per function), one with refs among its arguments (resolved
// here first, a result held by a worker handed on for the task to read), a streaming one (its items go to its
// stream's port), one with several returns (numReturns: its worker splits its value). Its value comes back the one
// way every task's does, to the head's results port as its number (task-scheduler.ts); the call's reply only says
// that it arrived and ran, and its failure (an argument that cannot be sent, its worker's death) fails the task.
import { locate, type CodeLocation } from "../../runtime/face/code.ts";
import type { Endpoint } from "../../mesh/endpoint.ts";
import { TASK_RESOURCES } from "../base/options.ts";
import { hasRef } from "../objects/task-args.ts";
import type { RefReader } from "../objects/ref-reader.ts";
import { SlotUse } from "../routes/task-batch.ts";
import type { Executor } from "../worker/executor.ts";
import type { RunningTasks } from "./running-tasks.ts";
import type { Running } from "./task-records.ts";

/** What a call of its own needs of the scheduler. */
export interface OwnCallHost {
  readonly refs: RefReader;
  readonly running: RunningTasks;
  /** The runTask endpoint of worker `index`'s Executor, alone. */
  runTask(index: number): Endpoint<Parameters<Executor["runTask"]>, unknown>;
  failed(running: Running, err: unknown, args: readonly unknown[]): void;
  /** Tasks may have room now. */
  dispatch(): void;
}

export class OwnCalls {
  readonly #located = new WeakMap<Function, CodeLocation>();

  constructor(private readonly host: OwnCallHost) {}

  /** Where `fn` was found, if it was looked up before. */
  located(fn: Function): CodeLocation | undefined {
    return this.#located.get(fn);
  }

  /** Runs `running` with a call of its own, once its code is located and its refs resolved. */
  async send(running: Running): Promise<void> {
    const { task, worker } = running;
    let args = task.args;
    try {
      running.preparing = true;
      running.ownCall = true;
      // Fast path: a function located before and no refs among the arguments need no awaiting.
      const location = typeof task.fn !== "function" ? task.fn : (this.#located.get(task.fn) ?? (await this.#locate(task.fn)));
      if (hasRef(args)) args = await this.host.refs.forTask(args); // a result held by a worker is read by the task, from there
      running.preparing = false;
      if (!this.host.running.has(running)) return; // cancelled meanwhile
      await this.host
        .runTask(worker.index)
        .callOne(task.id, running.number, location.url, location.exportName, args as unknown[], task.env ?? null, slotUse(running), task.stream, task.returns);
    } catch (err) {
      if (!this.host.running.has(running)) return;
      this.host.failed(running, err, args);
      this.host.dispatch();
    }
  }

  async #locate(fn: Function): Promise<CodeLocation> {
    const location = await locate(fn);
    this.#located.set(fn, location);
    return location;
  }
}

/** A task with the default request waits for one of its worker's slots; one sent ahead reports when it gets it. */
export function slotUse(running: Running): SlotUse {
  return running.task.resources !== TASK_RESOURCES ? SlotUse.none : running.state === "prefetched" ? SlotUse.takeAndReport : SlotUse.take;
}
