// The port lane, a task route (task-route.ts) to an Executor that has no
// thread lane (in another process, say): a small batch of tasks with
// plain arguments goes to a port the Executor opened (runtime/ports), as a
// value, not as a call of Executor.runBatch. A call costs both sides what a
// port value does not: the call's header and its routing, the actor's mailbox
// and endpoint lookup, the endpoint's reply bookkeeping on the head. Values come
// back by the results port, as for every batch.
//
// An Executor that is not in a thread of the head (thread-lane/thread-lane.ts) opens its
// port when it starts and tells the head (HeadActor.remoteLane). As with thread
// lanes, worker i's lane is used once none of worker i's tasks that went as calls
// is still out (alone): a lane batch then cannot overtake a call sent before it.
// A worker that dies takes its lane with it. A batch is encoded and handed to
// the link at once (not queued for the end of the tick as port values are): it
// goes in order with the calls sent around it, and one too big for a frame is
// refused here, to go as a call, which fails its tasks with the reason.
import { sendEncodedToPort, type PortRef } from "../../runtime/face/actors.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { encode } from "../../wire/codec.ts";
import { FrameError } from "../../wire/errors.ts";
import type { TaskBatch } from "./task-batch.ts";
import type { TaskRoute } from "./task-route.ts";
import type { NamedFunctions, Telling, ToldFunctions } from "./told-functions.ts";

/** A batch on a port lane: its functions as named to its worker, its tasks, and what it tells (told-functions.ts). */
export type PortLaneBatch = [fns: NamedFunctions, tasks: unknown[], telling: Telling];

/** Tasks in a batch beyond which it goes as a call (a burst's batches are large, and a call costs them little per task). */
const MOST_TASKS = 16;

/** The head's side, a TaskRoute: the port of each worker's Executor, once it told of it. */
export class HeadPortLanes<T> implements TaskRoute<T> {
  readonly #lanes: Array<{ port: PortRef; live: boolean } | undefined> = [];

  /** `told`: the functions each worker was told of, shared with the call route (a lane batch tells as a one-way call does). */
  constructor(private readonly told: ToldFunctions) {}

  /** Worker `worker`'s Executor listens at `port`. */
  open(worker: number, port: PortRef): void {
    this.#lanes[worker] = { port, live: false };
  }

  /**
   * Sends `batch` by worker `worker`'s lane, if it has one, every argument is plain, the batch is small and, the first
   * time, no task of it that went as a call is still out (`alone`); false when it did not, or the batch is too big for a frame.
   */
  send(worker: number, batch: TaskBatch<T>, alone: boolean): boolean {
    const lane = this.#lanes[worker];
    if (batch.acked || !lane || batch.size > MOST_TASKS || !(lane.live || alone)) return false;
    const { fns, telling } = this.told.name(worker, batch, true);
    const message: PortLaneBatch = [fns, batch.tasks, telling];
    try {
      sendEncodedToPort(currentProc(), lane.port, 0, encode(message, "a batch of tasks"));
    } catch (err) {
      if (err instanceof FrameError) return false;
      throw err;
    }
    lane.live = true;
    if (telling !== null) this.told.commit(worker, telling);
    return true;
  }

  /** Worker `worker` died: its lane is gone (a replacement tells of its own). */
  lost(worker: number): void {
    this.#lanes[worker] = undefined;
  }

  close(): void {
    this.#lanes.length = 0;
  }
}

/** The Executor's side: the port batches arrive at. */
export class ExecutorPortLane {
  readonly #port: number;

  /** `run` runs each batch that arrives; `announce` tells the head where the lane is. */
  constructor(run: (batch: PortLaneBatch) => void, announce: (port: PortRef) => void) {
    const proc = currentProc();
    this.#port = proc.openPort((_rank, ok, value) => {
      // A batch of plain values always decodes; should one not, say so rather than lose it in silence (its tasks' refs stay pending).
      if (!ok) return void console.error("fray: a batch of tasks sent to this worker by its lane could not be read:", value);
      run(value as PortLaneBatch);
    });
    announce({ addr: proc.addr, id: this.#port });
  }

  close(): void {
    currentProc().closePort(this.#port);
  }
}
