// The Executor runs tasks in a worker process (or thread). It also makes the
// worker's tasks and actors see a JobContext that talks to the job's head, so
// nested tasks and actors work from anywhere.
import { messageContext } from "../runtime/context.ts";
import { load } from "../runtime/code-locator.ts";
import { Actor, endpoint } from "../mesh/actor.ts";
import type { ActorMesh } from "../mesh/actor-mesh.ts";
import { ambient, withJobContext, type JobKind } from "./job-context.ts";
import type { HeadActor } from "./head-actor.ts";
import { RemoteJobContext, type TaskSlot } from "./remote-context.ts";
import { Slots } from "./slots.ts";
import { TASK_FIELDS } from "./task-batch.ts";
import { withTaskEnv } from "./task-env.ts";
import { TaskReports } from "./task-reports.ts";

export class Executor extends Actor {
  /** Only the job's own code holds the head's mesh: it is never where user code could read it. */
  readonly #head: ActorMesh<HeadActor>;
  readonly #kind: JobKind;
  readonly #functions = new Map<string, Function>();
  readonly #slots: Slots;
  readonly #reports: TaskReports;

  constructor(head: ActorMesh<HeadActor>, slots: number, kind: JobKind) {
    super();
    this.#head = head;
    this.#kind = kind;
    this.#slots = new Slots(slots);
    const worker = messageContext.getStore()?.rank ?? 0; // rank i runs on worker i
    this.#reports = new TaskReports({
      oneWay: (started, done) => head.remoteReports.broadcast(worker, started, done),
      acked: (started, done) => head.remoteReports.callOne(worker, started, done),
    });
    ambient.processDefault = new RemoteJobContext(head, kind); // for actors created in this worker
  }

  /**
   * Runs a batch of tasks (task-batch.ts); each reports its start and its
   * result to the head as it happens. Resolves once all have finished, so a
   * death of this worker fails exactly the tasks still running.
   */
  @endpoint({ concurrent: true })
  async runBatch(fns: string[], tasks: unknown[]): Promise<void> {
    const runs: Promise<void>[] = [];
    for (let i = 0; i < tasks.length; i += TASK_FIELDS) {
      const id = tasks[i] as string;
      const fn = (tasks[i + 1] as number) * 2;
      const run = this.#task(id, fns[fn], fns[fn + 1], tasks[i + 2] as unknown[], tasks[i + 3] as Record<string, string> | null, tasks[i + 4] as boolean);
      runs.push(run.then((value) => this.#reports.done(id, true, value), (err: unknown) => this.#reports.done(id, false, err)));
    }
    await Promise.all(runs);
  }

  /** Runs one task and answers with its value (for tasks that did not go in a batch: refs to resolve, say). */
  @endpoint({ concurrent: true })
  runTask(taskId: string, url: string, exportName: string, args: unknown[], env: Record<string, string> | null, counted = false): Promise<unknown> {
    return this.#task(taskId, url, exportName, args, env, counted);
  }

  /** A `counted` task waits for a slot first and reports when it starts. */
  async #task(taskId: string, url: string, exportName: string, args: unknown[], env: Record<string, string> | null, counted: boolean): Promise<unknown> {
    if (!counted) return this.#run(taskId, url, exportName, args, env, null);
    const wait = this.#slots.acquire();
    if (wait) await wait;
    this.#reports.started(taskId);
    const slot = new HeldSlot(this.#slots, this.#reports);
    try {
      return await this.#run(taskId, url, exportName, args, env, slot);
    } finally {
      slot.end();
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
    const f = fn;
    return await withTaskEnv(env, () => withJobContext(new RemoteJobContext(this.#head, this.#kind, taskId, slot), () => f(...args)));
  }
}

/** A running task's slot, lent out while it waits in get()/wait(). */
class HeldSlot implements TaskSlot {
  #held = true;

  constructor(private readonly slots: Slots, private readonly reports: TaskReports) {}

  block(): void {
    this.reports.flush(); // the head learns that the task started before that it blocked
    if (this.#held) (this.slots.release(), (this.#held = false));
  }

  unblock(): void {
    if (!this.#held) (this.slots.reclaim(), (this.#held = true));
  }

  end(): void {
    if (this.#held) this.slots.release();
  }
}
