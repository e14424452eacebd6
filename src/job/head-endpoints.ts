// The face a job's head shows its workers: every endpoint its HeadActor (head/head-actor.ts) serves to the
// tasks, actors, refs and handles of the job, declared here so that the code running in a worker
// (worker/executor.ts, worker/remote-context.ts) names what it sends without importing the head.
import type { PortRef } from "../runtime/face/actors.ts";
import type { ActorTarget } from "./base/actor-target.ts";
import type { ActorOptions, TaskOptions } from "./base/options.ts";
import type { ObjectRef, OwnerAddress, RefHead } from "./objects/object-ref.ts";

export interface HeadEndpoints extends RefHead {
  /**
   * `parent`: the task that submits it, if any (a recursive cancel of it cancels this one too); `owner`: the worker's
   * owner that keeps its ref (worker/worker-owner.ts), sent its outcome (none: the head keeps it); `lostWith`: the
   * worker whose loss of its value the owner makes it anew for (tasks/task-records.ts `Task.lostWith`).
   */
  remoteSubmit(
    id: string,
    url: string,
    exportName: string,
    args: unknown[],
    options: TaskOptions,
    parent?: string | null,
    owner?: OwnerAddress | null,
    lostWith?: number | null,
  ): void;
  /** Nested tasks whose refs `owner` keeps, as remoteSubmit takes them: `flat` is `id, url, exportName, args, options, parent, …`. */
  remoteSubmitBatch(flat: unknown[], owner: OwnerAddress): void;
  /** Task `taskId` waits in its worker for values kept by an owner there (`blocked`), or no more: it lends its resources out meanwhile. */
  remoteBlocked(taskId: string, blocked: boolean): void;
  /** `window`: how many items the generator may yield ahead of its reader (Infinity: no limit). */
  remoteSubmitStream(id: string, url: string, exportName: string, args: unknown[], parent: string | null, window?: number, options?: TaskOptions): void;
  /** Worker `worker`'s tasks that got a slot (worker/start-reports.ts). */
  remoteStarted(worker: number, started: string[]): void;
  /** Worker `worker`'s Executor takes small batches of tasks at `port` (routes/port-lane.ts). */
  remoteLane(worker: number, port: PortRef): void;
  remoteFail(id: string, error: Error): void;
  remoteWait(refs: ObjectRef[], numReturns: number, timeoutMs: number | null, taskId: string | null): Promise<[string[], string[]]>;
  remoteCreateActor(url: string, exportName: string, args: unknown[], options: ActorOptions): Promise<ActorTarget>;
  remoteKillActor(name: string): Promise<void>;
}
