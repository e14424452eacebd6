// The thread lane, the first of the task routes (task-route.ts): batches of tasks
// with plain arguments, and their plain values, straight between the head and an
// Executor in a worker thread of the head's own process, over a BroadcastChannel
// of their own (structured clone, no codec, frame, routing or mailbox on either
// side). It saves a tiny task most of its cost per message; everything else
// (other arguments, thrown errors, values that are not plain, cancels, start
// reports) goes the actor way (call-route.ts, the results port).
//
// An Executor offers a lane by announcing its channel on the job's lobby
// channel; it can only be heard in the same process, so an Executor anywhere
// else is simply never offered one. Worker i's lane is used once none of
// worker i's tasks went the other way and is still out (so tasks reach a worker
// in the order they were sent), and closed when the worker dies.
//
// The head rings the thread's doorbell (doorbell.ts) after each batch; an
// Executor that has sent its values and has no task left running waits there
// for the next batch and takes it without its event loop, once the thread's
// promise callbacks have all run, for FRAY_THREAD_WAIT_MS in all per turn of
// that loop (doorbell.ts): its timers and sockets run no later than that.
import { randomUUID } from "node:crypto";
import { receiveMessageOnPort, type BroadcastChannel, type MessagePort } from "node:worker_threads"; // the channel is node's global
import { config } from "../../base/settings.ts";
import type { TaskBatch } from "../task-batch.ts";
import type { TaskRoute } from "../task-route.ts";
import { Doorbell } from "./doorbell.ts";

/** A batch on a lane: the fields of TaskBatch. */
export type LaneBatch = [fns: string[], tasks: unknown[]];

/** The head's side, a TaskRoute: the lobby Executors announce their lanes on, and the lane of each worker. */
export class HeadLanes<T> implements TaskRoute<T> {
  /** The lobby's name, given to each Executor. */
  readonly lobby = `fray-task-lanes:${randomUUID()}`;
  readonly #lobby = new globalThis.BroadcastChannel(this.lobby);
  /** Announced lanes, by worker index; `live` once tasks take them. */
  readonly #lanes: Array<{ channel: BroadcastChannel; live: boolean; doorbell: Doorbell | null } | undefined> = [];

  /** `results`: numbers and values of tasks, flat (number, value, number, value, …), as a lane sent them. */
  constructor(private readonly results: (flat: unknown[]) => void) {
    this.#lobby.onmessage = (event) => {
      const [worker, name, doorbell] = (event as { data: [number, string, SharedArrayBuffer | null] }).data;
      this.#open(worker, name, doorbell);
    };
    this.#lobby.unref();
  }

  #open(worker: number, name: string, doorbell: SharedArrayBuffer | null): void {
    this.#lanes[worker]?.channel.close();
    const channel = new globalThis.BroadcastChannel(name);
    channel.onmessage = (event) => this.results((event as { data: unknown[] }).data);
    channel.onmessageerror = (event) => console.error(`fray: a task lane from worker ${worker} carried a message that could not be read:`, event);
    channel.unref();
    this.#lanes[worker] = { channel, live: false, doorbell: doorbell && new Doorbell(doorbell) };
  }

  /**
   * Sends a batch to worker `worker` by its lane, if it has one, every argument is plain and, the first
   * time, no task of it that went the actor way is still out (`alone`): false when it did not.
   */
  send(worker: number, batch: TaskBatch<T>, alone: boolean): boolean {
    const lane = this.#lanes[worker];
    if (batch.acked || !lane || !(lane.live ||= alone)) return false;
    const message: LaneBatch = [batch.fns, batch.tasks];
    lane.channel.postMessage(message);
    lane.doorbell?.ring();
    return true;
  }

  /** Worker `worker` died: its lane is gone (a replacement announces its own). */
  lost(worker: number): void {
    this.#lanes[worker]?.channel.close();
    this.#lanes[worker] = undefined;
  }

  close(): void {
    this.#lobby.close();
    for (let i = 0; i < this.#lanes.length; i++) this.lost(i);
  }
}

/**
 * An Executor's side: batches arrive at `run`; the values of the tasks that
 * ended while their batch ran go back in one message when it has run, and
 * those of tasks that end later in one message per tick.
 */
export class ExecutorLane {
  readonly #channel: BroadcastChannel;
  #results: unknown[] = [];
  #closed = false;
  /** While a batch runs: its values are sent when it has run (a tick scheduled per batch cost a tiny task a few µs). */
  #running = false;
  /** How long to wait for the next batch after sending values (0: not at all, as where no parent rings). */
  readonly #waitMs: number;
  /** A wait is set (#afterMicrotasks): one at a time. */
  #waitSet = false;

  /**
   * `idle`: no task of this worker is running; `doorbell`: this thread's, if its parent rings it (doorbell.ts threadDoorbell).
   */
  constructor(
    lobby: string,
    worker: number,
    private readonly run: (batch: LaneBatch) => void,
    private readonly idle: () => boolean,
    private readonly doorbell: Doorbell | null,
  ) {
    this.#waitMs = doorbell ? config.threadWaitMs : 0;
    const name = `${lobby}:${worker}:${randomUUID()}`;
    this.#channel = new globalThis.BroadcastChannel(name);
    this.#channel.onmessage = (event) => {
      doorbell?.took();
      this.#take((event as { data: LaneBatch }).data);
    };
    this.#channel.onmessageerror = (event) => console.error(`fray: a task lane to worker ${worker} carried a message that could not be read:`, event);
    this.#channel.unref();
    const announce = new globalThis.BroadcastChannel(lobby);
    announce.postMessage([worker, name, doorbell?.shared ?? null]);
    announce.close();
  }

  /** Runs a batch, from the event loop or after a wait; the values of its tasks that ended go back when it has run. */
  #take(batch: LaneBatch): void {
    this.#running = true;
    try {
      this.run(batch);
    } finally {
      this.#running = false;
      if (this.#results.length !== 0) this.#flush();
    }
  }

  /**
   * Queued as a microtask after values went back: a tick queued from one runs once the microtask queue is empty, so
   * the promise callbacks queued by then, and those they queue, all run before the wait.
   */
  readonly #afterMicrotasks = () => process.nextTick(this.#awaitNext);

  /**
   * The next batch, if it comes within the wait, taken here. A wake-up by anything else the parent sent, or a wait
   * that ran out or was not begun (the turn's time spent, handles of the thread's own), leaves it to the event loop.
   */
  readonly #awaitNext = () => {
    this.#waitSet = false;
    if (this.#closed || !this.idle() || !this.doorbell!.wait(this.#waitMs)) return;
    const got = receiveMessageOnPort(this.#channel as unknown as MessagePort); // node takes a BroadcastChannel too
    if (got === undefined) return;
    this.doorbell!.took();
    this.#take(got.message as LaneBatch);
  };

  /** The value of batched task `number`, a plain one (task-batch.ts isPlain). */
  result(number: number, value: unknown): void {
    if (this.#results.length === 0 && !this.#running) process.nextTick(this.#flushNow);
    this.#results.push(number, value);
  }

  readonly #flushNow = () => {
    if (this.#results.length !== 0) this.#flush(); // else a batch that ran since sent them
  };

  #flush(): void {
    const results = this.#results;
    this.#results = [];
    if (this.#closed) return; // the actor stopped: the job ended, or its worker is gone
    this.#channel.postMessage(results);
    if (this.#waitMs > 0 && !this.#waitSet) {
      this.#waitSet = true;
      queueMicrotask(this.#afterMicrotasks);
    }
  }

  close(): void {
    this.#closed = true;
    this.#channel.close();
  }
}
