// A task lane: batches of tasks with plain arguments, and their plain values,
// straight between the head and an Executor in a worker thread of the head's
// own process, over a BroadcastChannel of their own (structured clone, no
// codec, frame, routing or mailbox on either side). It saves a tiny task most
// of its cost per message; everything else (other arguments, thrown errors,
// values that are not plain, cancels, start reports) goes the actor way as before.
//
// An Executor offers a lane by announcing its channel on the job's lobby
// channel; it can only be heard in the same process, so an Executor anywhere
// else is simply never offered one. Worker i's lane is used once none of
// worker i's tasks went the other way and is still out (so tasks reach a worker
// in the order they were sent), and closed when the worker dies.
import { randomUUID } from "node:crypto";
import type { BroadcastChannel } from "node:worker_threads"; // the value is node's global (no load of node:worker_threads at start)

/** A batch on a lane: the fields of TaskBatch. */
export type LaneBatch = [fns: string[], tasks: unknown[]];

/** The head's side: the lobby Executors announce their lanes on, and the lane of each worker. */
export class HeadLanes {
  /** The lobby's name, given to each Executor. */
  readonly lobby = `fray-task-lanes:${randomUUID()}`;
  readonly #lobby = new globalThis.BroadcastChannel(this.lobby);
  /** Announced lanes, by worker index; `live` once tasks take them. */
  readonly #lanes: Array<{ channel: BroadcastChannel; live: boolean } | undefined> = [];

  /** `results`: numbers and values of tasks, flat (number, value, number, value, …), as a lane sent them. */
  constructor(private readonly results: (flat: unknown[]) => void) {
    this.#lobby.onmessage = (event) => {
      const [worker, name] = (event as { data: [number, string] }).data;
      this.#open(worker, name);
    };
    this.#lobby.unref();
  }

  #open(worker: number, name: string): void {
    this.#lanes[worker]?.channel.close();
    const channel = new globalThis.BroadcastChannel(name);
    channel.onmessage = (event) => this.results((event as { data: unknown[] }).data);
    channel.onmessageerror = (event) => console.error(`fray: a task lane from worker ${worker} carried a message that could not be read:`, event);
    channel.unref();
    this.#lanes[worker] = { channel, live: false };
  }

  /**
   * Sends a batch to worker `worker` by its lane, if it has one and, the first
   * time, no task of it that went the actor way is still out (`alone`): false when it did not.
   */
  send(worker: number, batch: LaneBatch, alone: boolean): boolean {
    const lane = this.#lanes[worker];
    if (!lane || !(lane.live ||= alone)) return false;
    lane.channel.postMessage(batch);
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

  constructor(lobby: string, worker: number, run: (batch: LaneBatch) => void) {
    const name = `${lobby}:${worker}:${randomUUID()}`;
    this.#channel = new globalThis.BroadcastChannel(name);
    this.#channel.onmessage = (event) => {
      this.#running = true;
      try {
        run((event as { data: LaneBatch }).data);
      } finally {
        this.#running = false;
        if (this.#results.length !== 0) this.#flush();
      }
    };
    this.#channel.onmessageerror = (event) => console.error(`fray: a task lane to worker ${worker} carried a message that could not be read:`, event);
    this.#channel.unref();
    const announce = new globalThis.BroadcastChannel(lobby);
    announce.postMessage([worker, name]);
    announce.close();
  }

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
    if (!this.#closed) this.#channel.postMessage(results); // else the actor stopped: the job ended, or its worker is gone
  }

  close(): void {
    this.#closed = true;
    this.#channel.close();
  }
}
