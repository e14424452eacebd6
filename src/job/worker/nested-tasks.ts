// The lineage of the nested tasks a worker's owner keeps the refs of (docs/design/object-store.md, "Who owns what"):
// each task this process's tasks and actors submit goes to the head, which schedules it and sends its outcome to the
// owner (../head/owner-forwards.ts). The owner keeps what it needs to submit it again — its function's location, its
// arguments (their refs stay alive with it, as the head keeps a task's), its options and the retries it has left, as
// the head reported with its outcome — while it has retries left and any of its refs lives. A reader that finds the
// holder of its value gone asks the owner (remoteLost): the task is submitted again, one retry spent, and the readers
// wait for its new outcome; a task with several returns runs again once for all of those lost meanwhile.
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import { retriesOf, returnsOf, type TaskOptions } from "../base/options.ts";
import type { HeadEndpoints } from "../head-endpoints.ts";
import { HeldValue } from "../objects/held-value.ts";
import type { OwnerAddress } from "../objects/object-ref.ts";
import type { OwnedRefs } from "../objects/owned-refs.ts";
import { returnIds, taskOfReturn } from "../objects/task-returns.ts";
import { SubmitBatch } from "./submit-batch.ts";

interface NestedTask {
  readonly url: string;
  readonly exportName: string;
  readonly args: unknown[];
  readonly options: TaskOptions;
  retriesLeft: number;
  /** Its refs that live (one, or one per return). */
  live: number;
  /** Submitted again, its outcome not come yet: another loss of one of its returns waits for that run. */
  rerunning: boolean;
}

export class NestedTasks {
  readonly #tasks = new Map<string, NestedTask>();

  readonly #submits: SubmitBatch;

  constructor(
    private readonly head: ActorMesh<HeadEndpoints>,
    private readonly owner: OwnerAddress,
    private readonly entries: OwnedRefs,
  ) {
    entries.onFreed = (id) => this.#freed(id);
    this.#submits = new SubmitBatch(head, owner);
  }

  /**
   * Submits task `id` (`url`#`exportName` with `args`), whose refs this owner keeps; `parent`: the submitting task;
   * `fail`: what its refs get if it cannot be sent (an argument the codec cannot encode).
   */
  submit(id: string, url: string, exportName: string, args: unknown[], options: TaskOptions, parent: string | null, fail: (err: unknown) => void): void {
    const retriesLeft = retriesOf(options);
    const n = returnsOf(options);
    // Lineage is kept only while the task may run again: most tasks have no retries and cost nothing here.
    if (retriesLeft > 0) this.#tasks.set(id, { url, exportName, args, options, retriesLeft, live: Math.max(n, 1), rerunning: false });
    this.#submits.add(id, url, exportName, args, options, parent, fail);
  }

  /** Ref `id`'s outcome came; its task has `retriesLeft` (-1: no limit). */
  settled(id: string, retriesLeft: number): void {
    const taskId = this.#taskOf(id);
    const task = this.#tasks.get(taskId);
    if (!task) return;
    task.retriesLeft = retriesLeft === -1 ? Infinity : retriesLeft;
    const n = returnsOf(task.options);
    if (n === 0 || id === `${taskId}.${n - 1}`) task.rerunning = false; // a run's returns come in order
    if (task.retriesLeft <= 0 && !task.rerunning) this.#tasks.delete(taskId);
  }

  /**
   * A reader found the holder of ref `id`'s value (`held`), the process at `holder`, gone: whether its task runs again
   * (or already does), or its value was made anew elsewhere already; if so, the ref is pending again meanwhile.
   */
  lost(id: string, holder: string, held: unknown): boolean {
    if (this.entries.pending(id)) return true; // made anew already
    if (!(held instanceof HeldValue)) return false;
    if (held.buffer.owner !== holder) return true; // a reader of the value before it was made anew
    const taskId = this.#taskOf(id);
    const task = this.#tasks.get(taskId);
    if (!task || (!task.rerunning && task.retriesLeft <= 0)) return false;
    this.entries.reopen(id);
    if (task.rerunning) return true;
    // Its other returns held by the same process are lost with it: they wait for this run too (a return read after it
    // would find no retry left, and the run's value for it let go).
    for (const other of returnIds(taskId, returnsOf(task.options))) {
      const value = this.entries.heldValue(other);
      if (other !== id && value?.buffer.owner === holder) this.entries.reopen(other);
    }
    task.retriesLeft--;
    task.rerunning = true;
    // The returns that were not lost keep their values: the owner lets the new ones go (OwnedRefs.settle).
    const options = { ...task.options, maxRetries: task.retriesLeft === Infinity ? -1 : task.retriesLeft };
    // Naming the lost holder's worker: a run sent there before the head hears of its death spends no retry.
    this.head.remoteSubmit.broadcast(taskId, task.url, task.exportName, task.args, options, null, this.owner, held.worker);
    return true;
  }

  /** The task whose ref (or return) is `id`. */
  #taskOf(id: string): string {
    if (this.#tasks.has(id)) return id;
    return taskOfReturn(id) ?? id;
  }

  #freed(id: string): void {
    const taskId = this.#taskOf(id);
    const task = this.#tasks.get(taskId);
    if (task && --task.live <= 0) this.#tasks.delete(taskId);
  }

  /** For tests: how many tasks' lineage is kept. */
  get size(): number {
    return this.#tasks.size;
  }
}
