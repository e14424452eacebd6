// The submits of a worker's nested tasks, sent to the head in one message per turn (a task that runs many tiny tasks
// pays one message for them, not one each): in the order they were made, so the head sees a task before a later one
// given its ref. A batch the codec cannot send (an argument it cannot encode) goes task by task, so only the task
// with that argument fails.
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import type { TaskOptions } from "../base/options.ts";
import type { HeadEndpoints } from "../head-endpoints.ts";
import type { OwnerAddress } from "../objects/object-ref.ts";

/** A submit's fields, in the order remoteSubmitBatch takes them (`id, url, exportName, args, options, parent`). */
const FIELDS = 6;

export class SubmitBatch {
  #flat: unknown[] = [];
  #fails: Array<(err: unknown) => void> = [];

  constructor(
    private readonly head: ActorMesh<HeadEndpoints>,
    private readonly owner: OwnerAddress,
  ) {}

  /** Task `id` goes to the head this turn; `fail`: what its refs get if it cannot be sent. */
  add(id: string, url: string, exportName: string, args: unknown[], options: TaskOptions, parent: string | null, fail: (err: unknown) => void): void {
    if (this.#fails.length === 0) queueMicrotask(() => this.#flush());
    this.#flat.push(id, url, exportName, args, options, parent);
    this.#fails.push(fail);
  }

  #flush(): void {
    const [flat, fails] = [this.#flat, this.#fails];
    [this.#flat, this.#fails] = [[], []];
    try {
      this.head.remoteSubmitBatch.broadcast(flat, this.owner);
      return;
    } catch {
      // one of them cannot be sent: each alone, below
    }
    for (let i = 0; i < fails.length; i++) {
      const [id, url, exportName, args, options, parent] = flat.slice(i * FIELDS, (i + 1) * FIELDS) as [
        string,
        string,
        string,
        unknown[],
        TaskOptions,
        string | null,
      ];
      try {
        this.head.remoteSubmit.broadcast(id, url, exportName, args, options, parent, this.owner);
      } catch (err) {
        fails[i](err);
      }
    }
  }
}
