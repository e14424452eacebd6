// An ActorCell is one actor instance with its mailbox. It handles one message
// at a time — async endpoints included — unless the endpoint is `concurrent`.
// Messages that arrive while the actor is still being constructed wait.
import { decode } from "../wire/codec.ts";
import type { Frame } from "../wire/frame.ts";
import { load } from "./code-locator.ts";
import { messageContext, type ActorIdentity, type MessageContext } from "./context.ts";
import { endpointNames, endpointOptions, type EndpointOptions } from "./endpoint-options.ts";
import type { Call, Spawn } from "./messages.ts";
import { Port } from "./port.ts";
import type { Proc } from "./proc.ts";

type State = "constructing" | "ready" | "failed";

interface Delivery {
  readonly call: Call;
  /** This actor's rank within the call's extent. */
  readonly rank: number;
  readonly frame: Frame;
}

export class ActorCell {
  #state: State = "constructing";
  #error: Error | null = null;
  #Class: Function | null = null;
  #instance: Record<string, unknown> | null = null;
  #queue: Delivery[] = [];
  #head = 0;
  #busy = false;

  private constructor(private readonly proc: Proc, readonly identity: ActorIdentity, readonly owner: string) {}

  static spawn(proc: Proc, spawn: Spawn, frame: Frame): ActorCell {
    const identity: ActorIdentity = {
      actorId: spawn.actor,
      meshName: spawn.name,
      className: spawn.exp.split(".").pop()!,
      rank: spawn.rank,
      extent: spawn.ext,
    };
    const cell = new ActorCell(proc, identity, spawn.owner);
    cell.#construct(spawn, frame);
    return cell;
  }

  get instance(): unknown {
    return this.#instance;
  }

  async #construct(spawn: Spawn, frame: Frame): Promise<void> {
    try {
      const Class = (await load({ url: spawn.url, exportName: spawn.exp })) as new (...args: unknown[]) => Record<string, unknown>;
      if (typeof Class !== "function") throw new TypeError(`${spawn.exp} exported from ${spawn.url} is not a class`);
      const args = decode(frame.payload, frame.attachments) as unknown[];
      const context: MessageContext = { actor: this.identity, rank: spawn.rank, extent: spawn.ext };
      this.#instance = messageContext.run(context, () => new Class(...args));
      this.#Class = Class;
      this.#state = "ready";
      this.proc.sendToPort(spawn.reply, spawn.rank, null, false);
    } catch (err) {
      this.#state = "failed";
      this.#error = err as Error;
      this.proc.sendToPort(spawn.reply, spawn.rank, err, true);
    }
    this.#pump();
  }

  deliver(call: Call, rank: number, frame: Frame): void {
    this.#queue.push({ call, rank, frame });
    if (!this.#busy && this.#state !== "constructing") this.#pump();
  }

  #pump(): void {
    while (this.#head < this.#queue.length) {
      const delivery = this.#queue[this.#head];
      this.#queue[this.#head++] = undefined as unknown as Delivery;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      const pending = this.#invoke(delivery);
      if (pending) {
        this.#busy = true;
        pending.then(() => {
          this.#busy = false;
          this.#pump();
        });
        return;
      }
    }
  }

  /** Runs one message; returns a promise when the mailbox must wait for it. */
  #invoke({ call, rank, frame }: Delivery): Promise<void> | undefined {
    if (this.#state === "failed") {
      const e = this.#error!;
      this.#reject(call, rank, new Error(`actor ${this.identity.actorId} failed to start: ${e.message}`, { cause: e }));
      return undefined;
    }
    const Class = this.#Class!;
    const options = endpointOptions(Class, call.m);
    const method = this.#instance![call.m];
    if (!options || typeof method !== "function") {
      this.#reject(call, rank, new TypeError(`${this.identity.className} has no endpoint '${call.m}'; endpoints are: ${endpointNames(Class).join(", ")}`));
      return undefined;
    }
    let args: unknown[];
    try {
      args = decode(frame.payload, frame.attachments) as unknown[];
    } catch (err) {
      this.#reject(call, rank, err);
      return undefined;
    }
    if (options.explicitResponsePort) args.unshift(new Port(call.reply ?? null, rank));
    const context: MessageContext = { actor: this.identity, rank, extent: call.ext };
    let result: unknown;
    try {
      result = messageContext.run(context, () => (method as Function).apply(this.#instance, args));
    } catch (err) {
      this.#reject(call, rank, err);
      return undefined;
    }
    if (result instanceof Promise) {
      const done = result.then(
        (value) => this.#resolve(call, rank, value, options),
        (err) => this.#reject(call, rank, err),
      );
      return options.concurrent ? undefined : done;
    }
    this.#resolve(call, rank, result, options);
    return undefined;
  }

  #resolve(call: Call, rank: number, value: unknown, options: EndpointOptions): void {
    if (call.reply && !options.explicitResponsePort) this.proc.sendToPort(call.reply, rank, value, false);
  }

  #reject(call: Call, rank: number, error: unknown): void {
    if (call.reply) {
      this.proc.sendToPort(call.reply, rank, error, true);
      return;
    }
    // Nobody is waiting for this reply: the failure belongs to the actor's owner.
    // (Supervision delivers it as a MeshFailure; until then, report it here.)
    console.error(`fray: actor ${this.identity.actorId} (${this.identity.className}) failed in '${call.m}' with no caller to report to:`, error);
  }
}
