// runtime/actors: one actor instance and its mailbox (this file), the actors of a process
// (actor-table.ts), its endpoints (options, entries, arity, builtins) and the hooks of its class it
// calls (actor-hooks.ts). An actor reaches the rest of the runtime only through its ActorHost:
// replies, faults, the meshes it owns, and what it holds (buffers, distributed-array shards, bulk/).
// An ActorCell runs up to `maxConcurrency` messages at once (default 1) — async endpoints included, interleaving at
// their awaits — starting them in arrival order; a `concurrent` endpoint takes no slot. Messages that arrive while
// the actor is still being constructed wait. Supervision events and stop requests go through the same mailbox: they
// wait for the running messages (a stop at most FRAY_PROC_STOP_TIMEOUT_MS) and run alone, in order.
import { decode } from "../../wire/codec.ts";
import type { Frame } from "../../wire/frame.ts";
import { load } from "../code/code-locator.ts";
import { messageContext, messageContextOf, type ActorIdentity, type MessageContext } from "../proc/context.ts";
import { endpointNames, type EndpointOptions } from "./endpoint-options.ts";
import { endpointEntry, type EndpointEntry } from "./endpoint-entry.ts";
import { runCleanup, superviseFailure, type SupervisingActor } from "./actor-hooks.ts";
import type { Call, Spawn } from "../base/messages.ts";
import { callEnd, metricsAll, payloadBytes, timedCallStart } from "../base/counters.ts";
import { Port, type PortSender } from "../ports/port.ts";
import type { Proc } from "../proc/proc.ts";
import { hasShardRef, type ShardStore } from "../bulk/shard-store.ts";
import { SupervisionError } from "../base/errors.ts";
import { config } from "../base/config.ts";
import { faultPoint } from "../base/fault-points.ts";
import type { ActorState as State, MailboxItem as Item } from "./mailbox-item.ts";
import type { MeshFailure } from "../supervision/supervision.ts";

/** What an actor needs of the process it lives in. */
export interface ActorHost extends PortSender {
  /** The Proc the actor lives in, for its message context (one OS process may hold several). */
  readonly proc: Proc;
  /** This process's distributed-array shards, which calls' array arguments resolve to. */
  readonly shards: ShardStore;
  /** The actor died or stopped: later messages to it are answered with `error`. */
  gone(cell: ActorCell, error: Error): void;
  /** Reports the actor's death to the owner of its mesh, at `owner`. */
  reportFault(key: string, owner: string, cause: Error): void;
  /** Stops the meshes actor `key` spawned (meshes cannot outlive their owner). */
  stopMeshesOwnedBy(key: string): Promise<void>;
  /** Releases what actor `key` holds: its RemoteBuffers and shards; `endpointThrew`: what its endpoints threw (peers may wait for it). */
  releaseOwnedBy(key: string): void;
  endpointThrew(cell: ActorCell, context: MessageContext, error: unknown): void;
}

export class ActorCell {
  readonly identity: ActorIdentity;
  /** Address of the proc that owns this actor's mesh. */
  readonly owner: string;
  #state: State = "constructing";
  #error: Error | null = null;
  #Class: Function | null = null;
  #instance: Record<string, unknown> | null = null;
  #queue: Item[] = [];
  #head = 0;
  /** Messages that hold a slot: async calls still running, or a supervise/stop item. */
  #active = 0;
  /** A supervise or stop item is running: nothing else starts until it ends. */
  #exclusive = false;
  readonly #maxConcurrency: number;
  /** Calls whose endpoint is still running (async): a death answers them at once rather than when (if ever) they finish. */
  #running = new Set<{ readonly call: Call; readonly rank: number }>();
  #cleanedUp = false;
  /** What a call of each endpoint (valid ones only, so metric labels stay bounded) needs, by name: one lookup per call. */
  #endpoints = new Map<string, EndpointEntry>();
  /** Aborted when a stop is asked for or the actor dies (identity.stopping); made when first read: ~700 bytes most actors never use (P7). */
  #stopping: AbortController | null = null;
  /** Why it is stopping, once a stop is asked for or it died. */
  #stopReason: Error | null = null;

  private constructor(
    private readonly host: ActorHost,
    spawn: Spawn,
  ) {
    this.owner = spawn.owner;
    this.#maxConcurrency = spawn.maxConcurrency ?? 1;
    this.identity = {
      actorId: spawn.actor,
      meshName: spawn.name,
      className: spawn.exportName.split(".").pop()!,
      rank: spawn.rank,
      extent: spawn.extent,
      origin: spawn.origin,
      abort: (reason) => this.die(reason instanceof Error ? reason : new Error(`aborted: ${String(reason ?? "no reason given")}`)),
      proc: host.proc,
      ...(spawn.meta === undefined ? {} : { meta: spawn.meta }),
      stopping: () => this.#stoppingSignal(), // a function, not a getter: an accessor made every identity ~500 bytes larger (P7)
    };
  }

  #stoppingSignal(): AbortSignal {
    if (!this.#stopping) {
      this.#stopping = new AbortController();
      if (this.#stopReason) this.#stopping.abort(this.#stopReason);
    }
    return this.#stopping.signal;
  }

  #stopAsked(reason: Error): void {
    if (this.#stopReason) return;
    this.#stopReason = reason;
    this.#stopping?.abort(reason);
  }

  static spawn(host: ActorHost, spawn: Spawn, frame: Frame): ActorCell {
    const cell = new ActorCell(host, spawn);
    cell.#construct(spawn, frame);
    return cell;
  }

  get key(): string {
    return this.identity.actorId;
  }

  async #construct(spawn: Spawn, frame: Frame): Promise<void> {
    try {
      const Class = (await load({ url: spawn.url, exportName: spawn.exportName })) as new (...args: unknown[]) => Record<string, unknown>;
      if (typeof Class !== "function") throw new TypeError(`${spawn.exportName} exported from ${spawn.url} is not a class`);
      const held = faultPoint("actor-constructing", this.identity.className); // a testing hook (fault-points.ts)
      if (held) await held; // unarmed: not even a microtask's delay
      const args = decode(frame.payload, frame.attachments) as unknown[];
      const context: MessageContext = { actor: this.identity, rank: spawn.rank, extent: spawn.extent };
      this.#instance = messageContext.run(context, () => new Class(...args));
      // A constructor that hands back an object of another class (an instance a client hosts) serves that class's endpoints.
      const instance: object = this.#instance;
      this.#Class = instance instanceof Class ? Class : instance.constructor;
      if (this.#state === "constructing") this.#state = "ready";
      this.host.sendToPort(spawn.reply, spawn.rank, null, false);
    } catch (err) {
      this.#state = "failed";
      this.#error = err as Error;
      this.host.sendToPort(spawn.reply, spawn.rank, err, true);
    }
    this.#pump();
  }

  /** Queues a call; `first`: the first of the frame's receivers here, which counts its bytes. */
  deliver(call: Call, rank: number, frame: Frame, first = true): void {
    this.#enqueue({ t: "call", call, rank, frame, first });
  }

  /** Messages waiting in the mailbox, for the mailbox-depth gauge. */
  get mailboxDepth(): number {
    return this.#queue.length - this.#head;
  }

  /** Hands a failure of a mesh this actor owns to its `supervise()`, between messages. */
  supervise(failure: MeshFailure): void {
    this.#enqueue({ t: "supervise", failure });
  }

  /**
   * Stops after the messages already queued (owned meshes first, then `cleanup()`); calls still running
   * FRAY_PROC_STOP_TIMEOUT_MS later (waiting for what never comes) reject as stopped then, as a stopping proc exits.
   */
  stop(): Promise<void> {
    if (this.#state === "dead" || this.#state === "stopped") return Promise.resolve();
    // Now, not when the stop's turn comes: a running call that waits for the signal can then end, and let the stop run.
    this.#stopAsked(new Error(`actor ${this.key} (${this.identity.className}) is being stopped`));
    return new Promise((resolve) => {
      const done = () => (clearTimeout(late), resolve());
      const late = setTimeout(() => void this.#stop(done), config.procStopTimeoutMs).unref();
      this.#enqueue({ t: "stop", done });
    });
  }

  /** Kills the actor: queued calls are rejected, `cleanup(cause)` runs, meshes it owns are stopped, and its owner gets a MeshFailure. */
  die(cause: Error): void {
    if (this.#state === "dead" || this.#state === "stopped") return;
    this.#state = "dead";
    this.#error = cause;
    this.#stopAsked(cause);
    const gone = new SupervisionError(`actor ${this.key} (${this.identity.className}) failed: ${cause.message}`, { cause });
    this.host.gone(this, gone);
    for (const { call, rank } of this.#running) if (call.reply) this.host.sendToPort(call.reply, rank, gone, true);
    this.#running.clear();
    this.#rejectQueued(gone);
    void this.host.stopMeshesOwnedBy(this.key); // meshes cannot outlive their owner
    void this.#cleanup(cause);
    this.host.reportFault(this.key, this.owner, cause);
  }

  #enqueue(item: Item): void {
    this.#queue.push(item);
    if (this.#state !== "constructing") this.#pump();
  }

  /** Starts queued messages, in order, while slots are free. */
  #pump(): void {
    while (this.#head < this.#queue.length && !this.#exclusive) {
      const item = this.#queue[this.#head];
      if (item.t === "call" ? this.#active >= this.#maxConcurrency : this.#active > 0) return;
      this.#queue[this.#head++] = undefined as unknown as Item;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      const pending =
        item.t === "call"
          ? this.#invoke(item.call, item.rank, item.frame, item.first)
          : item.t === "supervise"
            ? this.#handleFailure(item.failure)
            : this.#stop(item.done);
      if (pending) {
        const exclusive = item.t !== "call";
        this.#active++;
        this.#exclusive = exclusive;
        pending.then(() => {
          this.#active--;
          if (exclusive) this.#exclusive = false;
          this.#pump();
        });
      }
    }
  }

  /** Runs one message; returns a promise when the mailbox must wait for it. */
  #invoke(call: Call, rank: number, frame: Frame, first: boolean): Promise<void> | undefined {
    if (this.#state !== "ready") {
      this.#reject(call, rank, this.#unavailable());
      return undefined;
    }
    const entry = this.#endpoints.get(call.endpoint) ?? this.#entryFor(call.endpoint);
    const method = entry?.builtin ?? this.#instance![call.endpoint];
    if (!entry || typeof method !== "function") {
      this.#reject(
        call,
        rank,
        new TypeError(`${this.identity.className} has no endpoint '${call.endpoint}'; endpoints are: ${endpointNames(this.#Class!).join(", ")}`),
      );
      return undefined;
    }
    const { options, builtin, stats } = entry;
    let start = -1; // not timed
    if (stats) {
      stats.received++;
      if (first && metricsAll) stats.receivedBytes += payloadBytes(frame);
      if (--stats.untilTimed <= 0) start = timedCallStart(stats); // the countdown here, not in a call: this runs per message
    }
    let args: unknown[];
    try {
      args = decode(frame.payload, frame.attachments) as unknown[];
    } catch (err) {
      this.#reject(call, rank, err);
      if (stats) callEnd(stats, start, true);
      return undefined;
    }
    if (options.explicitResponsePort) args.unshift(new Port(call.reply ?? null, rank, this.host));
    const context = messageContextOf(this.identity, rank, call);
    let result: unknown;
    try {
      // Distributed arrays given to an endpoint arrive as this rank's shards (builtins read shards themselves).
      if (builtin || !hasShardRef(args)) result = messageContext.run(context, () => (method as Function).apply(this.#instance, args));
      else
        result = this.host.shards
          .resolve(args, this.identity.rank)
          .then((shards) => messageContext.run(context, () => (method as Function).apply(this.#instance, shards)));
    } catch (err) {
      // An endpoint that killed its own actor (abort) and threw: its caller hears of the death, as a running call's would.
      this.host.endpointThrew(this, context, err);
      this.#reject(call, rank, (this.#state as State) === "dead" ? this.#unavailable() : err);
      if (stats) callEnd(stats, start, true);
      return undefined;
    }
    if (result instanceof Promise) {
      const running = { call, rank };
      this.#running.add(running);
      const done = result.then(
        (value) => {
          if (this.#running.delete(running)) this.#resolve(call, rank, value, options);
          if (stats) callEnd(stats, start, false);
        },
        (err) => {
          this.host.endpointThrew(this, context, err);
          if (this.#running.delete(running)) this.#reject(call, rank, err);
          if (stats) callEnd(stats, start, true);
        },
      );
      return options.concurrent ? undefined : done;
    }
    this.#resolve(call, rank, result, options);
    if (start >= 0) callEnd(stats!, start, false); // an untimed call that did not fail has nothing more to count
    return undefined;
  }

  /** The entry of endpoint `name`, kept for the next call; undefined when `name` is not one. */
  #entryFor(name: string): EndpointEntry | undefined {
    const entry = endpointEntry(this.#Class!, this.identity.className, name);
    if (entry) this.#endpoints.set(name, entry);
    return entry;
  }

  #resolve(call: Call, rank: number, value: unknown, options: EndpointOptions): void {
    if (!call.reply || options.explicitResponsePort) return;
    if (this.#state === "ready") this.host.sendToPort(call.reply, rank, value, false);
    else this.host.sendToPort(call.reply, rank, this.#unavailable(), true);
  }

  #reject(call: Call, rank: number, error: unknown): void {
    if (call.reply) {
      this.host.sendToPort(call.reply, rank, error, true);
      return;
    }
    // Nobody is waiting for this reply: the actor fails, and its owner hears of it.
    this.die(error instanceof Error ? error : new Error(`${this.identity.className}.${call.endpoint} threw ${String(error)}`));
  }

  async #handleFailure(failure: MeshFailure): Promise<void> {
    if (this.#state !== "ready") return;
    const death = await superviseFailure(this.#instance as SupervisingActor, this.identity, failure);
    if (death) this.die(death);
  }

  async #stop(done: () => void): Promise<void> {
    if (this.#state === "dead" || this.#state === "stopped") return done();
    const gone = new SupervisionError(`actor ${this.key} (${this.identity.className}) was stopped`);
    this.#state = "stopped";
    await this.host.stopMeshesOwnedBy(this.key);
    await this.#cleanup();
    this.host.gone(this, gone);
    for (const { call, rank } of this.#running) if (call.reply) this.host.sendToPort(call.reply, rank, gone, true);
    this.#running.clear();
    this.#rejectQueued(gone);
    done();
  }

  /** Releases what the actor holds and runs its `cleanup(error?)`, once (actor-hooks.ts). */
  async #cleanup(error?: Error): Promise<void> {
    this.host.releaseOwnedBy(this.key); // stopped or dead alike
    const instance = this.#instance as SupervisingActor | null;
    if (this.#cleanedUp || !instance || typeof instance.cleanup !== "function") return;
    this.#cleanedUp = true;
    await runCleanup(instance, this.identity, error);
  }

  #unavailable(): Error {
    const e = this.#error;
    if (this.#state === "failed") return new Error(`actor ${this.key} failed to start: ${e!.message}`, { cause: e });
    if (this.#state === "dead") return new SupervisionError(`actor ${this.key} (${this.identity.className}) failed: ${e!.message}`, { cause: e });
    return new SupervisionError(`actor ${this.key} (${this.identity.className}) was stopped`);
  }

  #rejectQueued(error: Error): void {
    const rest = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    for (const item of rest) {
      if (item.t === "call" && item.call.reply) this.host.sendToPort(item.call.reply, item.rank, error, true);
      else if (item.t === "stop") item.done();
    }
  }
}
