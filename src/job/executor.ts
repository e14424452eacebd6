// The Executor runs tasks in a worker process (or thread). It also makes the
// worker's tasks and actors see a JobContext that talks to the job's head, so
// nested tasks and actors work from anywhere.
import { load } from "../runtime/code-locator.ts";
import { Actor, endpoint } from "../mesh/actor.ts";
import type { ActorMesh } from "../mesh/actor-mesh.ts";
import { ambient, withJobContext, type JobKind } from "./job-context.ts";
import type { HeadActor } from "./head-actor.ts";
import { RemoteJobContext, type TaskSlot } from "./remote-context.ts";
import { Slots } from "./slots.ts";
import { withTaskEnv } from "./task-env.ts";

export class Executor extends Actor {
  /** Only the job's own code holds the head's mesh: it is never where user code could read it. */
  readonly #head: ActorMesh<HeadActor>;
  readonly #kind: JobKind;
  readonly #functions = new Map<string, Function>();
  readonly #slots: Slots;

  constructor(head: ActorMesh<HeadActor>, slots: number, kind: JobKind) {
    super();
    this.#head = head;
    this.#kind = kind;
    this.#slots = new Slots(slots);
    ambient.processDefault = new RemoteJobContext(head, kind); // for actors created in this worker
  }

  /** Runs a task; a `counted` one waits for a slot first and tells the head when it starts. */
  @endpoint({ concurrent: true })
  async runTask(taskId: string, url: string, exportName: string, args: unknown[], env: Record<string, string> | null, counted = false): Promise<unknown> {
    if (!counted) return this.#run(taskId, url, exportName, args, env, null);
    await this.#slots.acquire();
    this.#head.remoteStarted.broadcast(taskId);
    let held = true;
    const slot = {
      block: () => {
        if (held) (this.#slots.release(), (held = false));
      },
      unblock: () => {
        if (!held) (this.#slots.reclaim(), (held = true));
      },
    };
    try {
      return await this.#run(taskId, url, exportName, args, env, slot);
    } finally {
      if (held) this.#slots.release();
    }
  }

  async #run(taskId: string, url: string, exportName: string, args: unknown[], env: Record<string, string> | null, slot: TaskSlot | null): Promise<unknown> {
    const key = `${url}#${exportName}`;
    let fn = this.#functions.get(key);
    if (!fn) {
      fn = (await load({ url, exportName })) as Function;
      if (typeof fn !== "function") throw new TypeError(`${exportName} exported from ${url} is not a function`);
      this.#functions.set(key, fn);
    }
    return await withTaskEnv(env, () => withJobContext(new RemoteJobContext(this.#head, this.#kind, taskId, slot), () => fn!(...args)));
  }
}
