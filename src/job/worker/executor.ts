// The Executor is the actor of a job in each worker process (or thread): batches of tasks reach it by one of the
// routes of ../routes/ — its thread lane if it is a thread of the head's process, else its port lane, and always a
// call of runBatch — and single tasks by a call of runTask (their values all go back by the results port, or the thread
// lane); its TaskRunner (task-runner.ts) runs them. It also makes
// the worker's actors see a JobContext that talks to the job's head, so nested tasks and actors work from anywhere.
import { messageContext, type MessageContext } from "../../runtime/face/procs.ts";
import type { PortRef } from "../../runtime/face/actors.ts";
import { Actor, endpoint } from "../../mesh/actor.ts";
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import "../actors/stream-endpoint.ts"; // the actors of this worker can stream
import "../actors/actor-call-endpoint.ts"; // and read values held by workers that their calls are given, and keep large results
import { ambient } from "../base/ambient.ts";
import type { HeadEndpoints } from "../head-endpoints.ts";
import type { JobKind } from "../job-context.ts";
import { ExecutorPortLane } from "../routes/port-lane.ts";
import { SlotUse } from "../routes/task-batch.ts";
import { threadDoorbell } from "../routes/thread-lane/doorbell.ts";
import { ExecutorLane } from "../routes/thread-lane/thread-lane.ts";
import { KnownFunctions, type NamedFunctions, type Telling } from "../routes/told-functions.ts";
import { RemoteJobContext } from "./remote-context.ts";
import { StartReports } from "./start-reports.ts";
import { TaskRunner } from "./task-runner.ts";

export class Executor extends Actor {
  readonly #runner: TaskRunner;
  /** The task lane from the head, when this worker is a thread of the head's process (../routes/thread-lane/thread-lane.ts). */
  readonly #lane: ExecutorLane | null = null;
  /** Else the port small batches come to (../routes/port-lane.ts). */
  readonly #portLane: ExecutorPortLane | null = null;
  /** What the head's calls run in (this worker alone, as a slice): tasks that come by a lane run in it too, as those that come by a call do. */
  #callContext: MessageContext | undefined;
  /** The functions batches told this worker of: later ones name them by number (../routes/told-functions.ts). */
  readonly #known = new KnownFunctions();

  /** `lanes`: the lobby of the head's task lanes, if it offers them. */
  constructor(head: ActorMesh<HeadEndpoints>, slots: number, kind: JobKind, results: PortRef, lanes: string | null = null) {
    super();
    const context = messageContext.getStore();
    const worker = context?.rank ?? 0; // rank i runs on worker i
    const starts = new StartReports((started) => head.remoteStarted.broadcast(worker, started));
    const runner = (this.#runner = new TaskRunner(head, kind, slots, results, starts, worker, context));
    ambient.processDefault = new RemoteJobContext(head, kind, null, null, null, runner.puts); // for actors created in this worker
    // Tasks that come by the lane run as this actor's, as those that come by a call do (their output is tagged as its, say).
    if (lanes !== null && context) {
      this.#lane = new ExecutorLane(
        lanes,
        worker,
        ([fns, tasks]) => messageContext.run(this.#callContext ?? context, () => runner.runBatch(fns, tasks, true)),
        () => runner.idle,
        threadDoorbell(),
      );
      runner.useLane(this.#lane);
    }
    // A batch by the port lane runs as a runBatch call's: its values go back by the results port.
    else if (context)
      this.#portLane = new ExecutorPortLane(
        ([fns, tasks, telling]) => messageContext.run(this.#callContext ?? context, () => void this.runBatch(fns, tasks, telling)),
        (port) => head.remoteLane.broadcast(worker, port),
      );
  }

  cleanup(): void {
    this.#lane?.close();
    this.#portLane?.close();
  }

  /**
   * The head cancelled task `taskId`: one waiting here never starts, a running
   * one sees its signal abort (a CPU-bound one cannot: it runs on, unless
   * cancelled with force, when the head replaces this worker if it has not
   * ended within FRAY_CANCEL_GRACE_MS).
   */
  @endpoint({ concurrent: true })
  cancelTask(taskId: string, reason: Error): void {
    this.#runner.cancel(taskId, reason);
  }

  /**
   * Runs a batch of tasks (TaskRunner.runBatch) that came by a call or the port lane. `fns` may name functions told
   * before by number; `telling`: the numbers of those it names in full, to keep (../routes/told-functions.ts).
   */
  @endpoint({ concurrent: true })
  runBatch(fns: NamedFunctions, tasks: unknown[], telling: Telling): Promise<void> | undefined {
    this.#callContext ??= messageContext.getStore();
    this.#known.resolve(fns, telling);
    return this.#runner.runBatch(fns as string[], tasks, false);
  }

  /**
   * Runs one task that did not go in a batch (refs to resolve, say: TaskRunner.runTask): its value goes to the results
   * port as `number`, as a batched task's does; the reply, once it has ended, carries nothing. `returns`: how many
   * values it returns (numReturns; 0: one value, as it is).
   */
  @endpoint({ concurrent: true })
  runTask(
    taskId: string,
    number: number,
    url: string,
    exportName: string,
    args: unknown[],
    env: Record<string, string> | null,
    use: SlotUse = SlotUse.none,
    stream: PortRef | null = null,
    returns = 0,
  ): Promise<void> {
    this.#callContext ??= messageContext.getStore();
    return this.#runner.runTask(taskId, number, url, exportName, args, env, use, stream, returns);
  }
}
