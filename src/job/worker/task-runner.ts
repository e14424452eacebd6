// Running tasks in a worker: the Executor's (executor.ts) batches and single tasks, each in a RemoteJobContext of its
// own, holding one of the worker's slots if it uses one (slots.ts), reporting its start if it was sent ahead
// (start-reports.ts), seeing its signal abort if the head cancels it; and its value sent back, the one way a task's
// value goes: to the head's results port (or, a plain value of a task that came by the thread lane, by the lane). A
// value larger than FRAY_OBJECT_INLINE_BYTES, in a `processes` or `mesh` job, stays here: its HeldValue
// (../objects/held-value.ts) goes instead, and a task given one reads it from its holder before it runs.
import { load } from "../../runtime/face/code.ts";
import type { PortRef } from "../../runtime/face/actors.ts";
import { currentProc, type MessageContext } from "../../runtime/face/procs.ts";
import { encode } from "../../wire/codec.ts";
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import type { HeadEndpoints } from "../head-endpoints.ts";
import { withJobContext, type JobKind } from "../job-context.ts";
import { isPlain, SlotUse, TASK_FIELDS, TaskField } from "../routes/task-batch.ts";
import { unknownFunction } from "../routes/told-functions.ts";
import { asStream } from "../streams/stream-buffer.ts";
import { pump } from "../streams/stream-pump.ts";
import { HeldValue } from "../objects/held-value.ts";
import { ObjectRef } from "../objects/object-ref.ts";
import { keptReturns, keptValue } from "../objects/kept-values.ts";
import { HeldSlot, isThenable } from "./held-slot.ts";
import { readFromHolder, RemoteJobContext, type TaskControls, type TaskSlot } from "./remote-context.ts";
import { Slots } from "./slots.ts";
import { WorkerRefs } from "./worker-owner.ts";
import type { StartReports } from "./start-reports.ts";
import { withTaskEnv } from "./task-env.ts";

/** Where plain values of tasks that came by the thread lane go back (../routes/thread-lane/thread-lane.ts ExecutorLane). */
export interface LaneResults {
  result(number: number, value: unknown): void;
}

export class TaskRunner {
  /** Only the job's own code holds the head's mesh: it is never where user code could read it. */
  readonly #head: ActorMesh<HeadEndpoints>;
  readonly #kind: JobKind;
  readonly #functions = new Map<string, Function>();
  /** The function the last batch ran first, found without making its key: most batches run the one function. */
  #last: { url: string; exportName: string; fn: Function } | null = null;
  readonly #slots: Slots;
  readonly #starts: StartReports;
  /** Where results of batched tasks go: the head's port, each as the rank of its task's number. */
  readonly #results: PortRef;
  /** Tasks the head cancelled that have not ended here, and why (most workers never see one: checked by size first). */
  readonly #cancelled = new Map<string, Error>();
  /** The AbortControllers of tasks that read their signal. */
  readonly #controllers = new Map<string, AbortController>();
  readonly #controls: TaskControls = { signalFor: (taskId) => this.#signalFor(taskId) };
  /** The thread lane batches came by, if this worker has one: plain values go back by it. */
  #lane: LaneResults | null = null;
  /** Tasks started here that have not ended. */
  #running = 0;
  /** This worker's index in its job; -1: large values are not held here (their job's kind keeps them in the driver). */
  readonly #holder: number;

  /** The owner of the refs this worker's tasks and actors make: their puts and nested tasks (worker-owner.ts). */
  readonly puts: WorkerRefs;

  /** `worker`: this worker's index; `owner`: the Executor's context, which owns what the worker owner spawns. */
  constructor(
    head: ActorMesh<HeadEndpoints>,
    kind: JobKind,
    slots: number,
    results: PortRef,
    starts: StartReports,
    worker = 0,
    owner: MessageContext | undefined = undefined,
  ) {
    this.#head = head;
    this.#kind = kind;
    this.#holder = kind === "processes" || kind === "mesh" ? worker : -1;
    this.puts = new WorkerRefs(head, worker, this.#holder, owner);
    this.#slots = new Slots(slots);
    this.#results = results;
    this.#starts = starts;
  }

  /** Plain values of tasks that came by the thread lane go back by `lane`. */
  useLane(lane: LaneResults): void {
    this.#lane = lane;
  }

  /** No task started here is running. */
  get idle(): boolean {
    return this.#running === 0;
  }

  /** The head cancelled task `taskId`: one waiting here never starts, a running one sees its signal abort. */
  cancel(taskId: string, reason: Error): void {
    this.#cancelled.set(taskId, reason);
    this.#controllers.get(taskId)?.abort(reason);
  }

  #signalFor(taskId: string): AbortSignal {
    let controller = this.#controllers.get(taskId);
    if (!controller) {
      this.#controllers.set(taskId, (controller = new AbortController()));
      const reason = this.#cancelled.get(taskId);
      if (reason) controller.abort(reason);
    }
    return controller.signal;
  }

  /** Why task `taskId` was cancelled, if it was (most workers never see a cancel: checked by size first). */
  #cancelReason(taskId: string): Error | undefined {
    return this.#cancelled.size === 0 ? undefined : this.#cancelled.get(taskId);
  }

  /** What a task that ended leaves here: nothing, unless it was cancelled or read its signal. */
  #ended(taskId: string): void {
    this.#running--;
    if (this.#cancelled.size !== 0) this.#cancelled.delete(taskId);
    if (this.#controllers.size !== 0) this.#controllers.delete(taskId);
  }

  /**
   * Runs a batch of tasks (../routes/task-batch.ts), its functions named in full. Each reports its start, and sends
   * its value (or what it threw) to the results port when it ends. Resolves once all have ended, so a call of it
   * fails exactly the tasks still running. `lane`: the batch came by the thread lane, where plain values go back too.
   */
  runBatch(fns: string[], tasks: unknown[], lane: boolean): Promise<void> | undefined {
    let pending: Promise<void>[] | null = null;
    // Most batches run one function: its lookup is kept in `first`, an array only for the others.
    let first: Function | undefined;
    let loaded: Array<Function | undefined> | null = null;
    for (let i = 0; i < tasks.length; i += TASK_FIELDS) {
      const id = tasks[i + TaskField.id] as string;
      const number = tasks[i + TaskField.number] as number;
      const f = tasks[i + TaskField.fn] as number;
      const args = tasks[i + TaskField.args] as unknown[];
      const env = tasks[i + TaskField.env] as Record<string, string> | null;
      const slot = tasks[i + TaskField.slot] as SlotUse;
      const fn = f === 0 ? (first ??= this.#loaded(fns[0], fns[1])) : ((loaded ??= [])[f] ??= this.#loaded(fns[2 * f], fns[2 * f + 1]));
      if (fns[2 * f] === null) {
        this.#sendResult(number, unknownFunction(), true);
        continue;
      }
      this.#running++;
      // A loaded function with a free slot runs now, and a synchronous one answers now: no promise per task.
      const run =
        fn && (slot === SlotUse.none || this.#slots.tryAcquire())
          ? this.#start(fn, fns[2 * f + 1], id, number, args, env, slot, lane)
          : this.#later(id, number, fns[2 * f], fns[2 * f + 1], args, env, slot, lane);
      if (run) (pending ??= []).push(run);
    }
    return pending ? Promise.all(pending).then(() => {}) : undefined;
  }

  #loaded(url: string, exportName: string): Function | undefined {
    const last = this.#last;
    if (last !== null && last.url === url && last.exportName === exportName) return last.fn;
    const fn = this.#functions.get(`${url}#${exportName}`);
    if (fn) this.#last = { url, exportName, fn };
    return fn;
  }

  /** Runs a task whose function is loaded and which holds its slot (if it uses one); a promise only if the task is asynchronous. */
  #start(
    fn: Function,
    name: string,
    taskId: string,
    number: number,
    args: unknown[],
    env: Record<string, string> | null,
    use: SlotUse,
    lane: boolean,
  ): Promise<void> | undefined {
    const cancelled = this.#cancelReason(taskId);
    if (cancelled) {
      if (use !== SlotUse.none) this.#slots.release(); // it never starts: the slot it took goes to the next task
      this.#ended(taskId);
      this.#sendResult(number, cancelled, true);
      return undefined;
    }
    let slot: HeldSlot | null = null;
    if (use !== SlotUse.none) {
      if (use === SlotUse.takeAndReport) this.#starts.started(taskId);
      slot = new HeldSlot(this.#slots, this.#starts);
    }
    let result: unknown;
    try {
      result = withTaskEnv(env, () => withJobContext(new RemoteJobContext(this.#head, this.#kind, taskId, slot, this.#controls, this.puts), () => fn(...args)));
    } catch (err) {
      slot?.end();
      this.#ended(taskId);
      this.#sendResult(number, err, true);
      return undefined;
    }
    if (!isThenable(result)) {
      slot?.end();
      this.#ended(taskId);
      this.#sendValue(number, taskId, name, result, 0, lane);
      return undefined;
    }
    return Promise.resolve(result).then(
      (value) => (slot?.end(), this.#ended(taskId), this.#sendValue(number, taskId, name, value, 0, lane)),
      (err: unknown) => (slot?.end(), this.#ended(taskId), this.#sendResult(number, err, true)),
    );
  }

  /** A task that waits for its function to load or for a slot (or streams, `stream`). */
  #later(
    taskId: string,
    number: number,
    url: string,
    exportName: string,
    args: unknown[],
    env: Record<string, string> | null,
    use: SlotUse,
    lane: boolean,
    stream: PortRef | null = null,
    returns = 0,
  ): Promise<void> {
    return this.#task(taskId, url, exportName, args, env, use, stream).then(
      (value) => (this.#ended(taskId), this.#sendValue(number, taskId, exportName, value, returns, lane)),
      (err: unknown) => (this.#ended(taskId), this.#sendResult(number, err, true)),
    );
  }

  /**
   * Sends task `taskId`'s value (or its `returns` values, numReturns), each large one kept here as a HeldValue; if this
   * worker's object store cannot take one (too large, no room: held-bytes.ts), or the returns are not an array of
   * `returns`, the task fails with why (and keeps none of them).
   */
  #sendValue(number: number, taskId: string, name: string, value: unknown, returns: number, lane: boolean): void {
    let sent: unknown;
    try {
      sent = returns === 0 ? keptValue(this.#holder, taskId, name, value) : keptReturns(this.#holder, taskId, name, value, returns);
    } catch (err) {
      return this.#sendResult(number, err, true);
    }
    this.#sendResult(number, sent, false, lane);
  }

  /**
   * A value the codec cannot send (or one too big for a frame) arrives as the
   * error that says why. A plain value of a task that came by the lane goes back by it.
   */
  #sendResult(number: number, value: unknown, thrown: boolean, lane = false): void {
    if (lane && !thrown && isPlain(value)) return this.#lane!.result(number, value);
    const proc = currentProc();
    if (!thrown) return proc.sendToPort(this.#results, number, value, false);
    try {
      encode(value, "error"); // only for failures: an error must be sendable before it is sent as one
    } catch (unsendable) {
      value = unsendable;
    }
    proc.sendToPort(this.#results, number, value, true);
  }

  /**
   * Runs one task that did not go in a batch (refs to resolve, say), as a batched one that waits for its function: its
   * value (or what it threw) goes to the results port as `number`; resolves once it has. With `stream`, the task is a
   * generator whose values go to that port as it yields them (../streams/stream-pump.ts); its value is their count.
   * With `returns` (numReturns), its value is split: an array of each return as #kept keeps it.
   */
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
    this.#running++;
    return this.#later(taskId, number, url, exportName, args, env, use, false, stream, returns);
  }

  /** A task that uses a slot waits for one first (and reports when it has it, if it was sent ahead). */
  async #task(
    taskId: string,
    url: string,
    exportName: string,
    args: unknown[],
    env: Record<string, string> | null,
    use: SlotUse,
    stream: PortRef | null,
  ): Promise<unknown> {
    if (use === SlotUse.none) return this.#run(taskId, url, exportName, args, env, null, stream);
    const wait = this.#slots.acquire();
    if (wait) await wait;
    const cancelled = this.#cancelReason(taskId);
    if (cancelled) {
      this.#slots.release();
      throw cancelled;
    }
    if (use === SlotUse.takeAndReport) this.#starts.started(taskId);
    const slot = new HeldSlot(this.#slots, this.#starts);
    try {
      return await this.#run(taskId, url, exportName, args, env, slot, stream);
    } finally {
      slot.end();
    }
  }

  async #run(
    taskId: string,
    url: string,
    exportName: string,
    args: unknown[],
    env: Record<string, string> | null,
    slot: TaskSlot | null,
    stream: PortRef | null,
  ): Promise<unknown> {
    const key = `${url}#${exportName}`;
    let fn = this.#functions.get(key);
    if (!fn) {
      fn = (await load({ url, exportName })) as Function;
      if (typeof fn !== "function") throw new TypeError(`${exportName} exported from ${url} is not a function`);
      this.#functions.set(key, fn);
    }
    let cancelled = this.#cancelReason(taskId);
    if (cancelled) throw cancelled;
    const ctx = new RemoteJobContext(this.#head, this.#kind, taskId, slot, this.#controls, this.puts);
    // Results held by workers, read from their holders; refs workers' owners keep, asked of their owners (which make
    // a nested task's value anew if its holder is lost).
    if (args.some((a) => a instanceof HeldValue || a instanceof ObjectRef)) {
      args = await Promise.all(
        args.map((a) => (a instanceof HeldValue ? readFromHolder(this.#head, a, taskId, slot) : a instanceof ObjectRef ? ctx.get(a) : a)),
      );
      if ((cancelled = this.#cancelReason(taskId))) throw cancelled;
    }
    const f = fn;
    if (stream === null) return await withTaskEnv(env, () => withJobContext(ctx, () => f(...args)));
    // The generator's body runs in the task's context across its awaits: it is created and pulled inside it.
    return await withTaskEnv(env, () =>
      withJobContext(ctx, () => pump(asStream(f(...args), exportName), stream, () => this.#cancelled.has(taskId), ctx.signal)),
    );
  }
}
