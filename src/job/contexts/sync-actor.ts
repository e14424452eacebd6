// An actor of the `sync` backend: an instance in this process, with what
// currentActor() gives it — its handle, place, shutdown signal and fail(),
// which ends it as a failure and, within maxRestarts, constructs it again
// with the same arguments (as a mesh actor's death does).
import { SupervisionError } from "../../mesh/errors.ts";
import { withJobContext, type JobContext } from "../job-context.ts";
import type { ActorHandle } from "../actors/actor-handle.ts";
import { placeOf, syncActorScope, type ActorContext, type MemberOptions } from "../actors/current-actor.ts";

type Instance = Record<string, unknown>;

export class SyncActor {
  #instance: Instance | null = null;
  #restarts = 0;
  /** Why it is gone for good, once it is. */
  #dead: Error | null = null;
  #stopping = new AbortController();
  /** The failure of the current incarnation, set by fail(): the call that made it rejects with it. */
  #failed: Error | null = null;
  readonly context: ActorContext;

  constructor(
    private readonly Class: new (...a: never[]) => object,
    private readonly args: readonly unknown[],
    private readonly options: MemberOptions,
    private readonly ctx: JobContext,
    handle: () => ActorHandle<object>,
  ) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the context's members act on this actor
    const actor = this;
    this.context = {
      get handle() {
        return handle();
      },
      ...placeOf(options, Class.name),
      get shutdownSignal() {
        return actor.#stopping.signal;
      },
      fail(error: unknown): never {
        const cause = error instanceof Error ? error : new Error(`failed: ${String(error)}`);
        actor.#fail(cause);
        throw cause;
      },
    };
  }

  /** Runs the constructor (again, after a failure within maxRestarts). */
  construct(): void {
    this.#failed = null;
    this.#instance = this.#inScope(() => new this.Class(...(this.args as never[]))) as Instance;
  }

  /** Calls `method` with `values`; rejects as a mesh actor's call does when the actor failed or was stopped. */
  async call(method: string, values: readonly unknown[]): Promise<unknown> {
    if (this.#dead) throw this.#dead;
    const instance = this.#instance!;
    const fn = instance[method];
    if (typeof fn !== "function") throw new TypeError(`${this.Class.name} has no method '${method}'`);
    try {
      return await this.#inScope(() => (fn as Function).apply(instance, values));
    } catch (err) {
      if (this.#failed && err === this.#failed.cause) throw this.#failed; // it called fail(): its caller hears of the failure
      throw err;
    }
  }

  /** Killed or its job shut down: the signal aborts, later calls reject. */
  stop(why: string): void {
    if (this.#dead) return;
    this.#dead = new SupervisionError(`actor ${this.#label} (${this.Class.name}) was stopped: ${why}`);
    this.#stopping.abort(this.#dead);
  }

  #fail(cause: Error): void {
    if (this.#dead) return;
    this.#failed = new SupervisionError(`actor ${this.#label} (${this.Class.name}) failed: ${cause.message}`, { cause });
    this.#stopping.abort(cause);
    const max = this.options.maxRestarts ?? 0;
    if (max !== -1 && this.#restarts >= max) {
      const limit = max === 0 ? "it has maxRestarts 0" : `it was restarted ${this.#restarts} times (maxRestarts ${max})`;
      const label = `actor ${this.#label} (${this.Class.name})`;
      this.#dead = new SupervisionError(`${label} failed and is not started again: ${limit}; it failed with: ${cause.message}`, { cause });
      return;
    }
    this.#restarts++;
    this.#stopping = new AbortController();
    const failed = this.#failed;
    try {
      this.construct();
      this.#failed = failed; // the call that failed still rejects with its failure
    } catch (err) {
      this.#dead = new SupervisionError(`actor ${this.#label} (${this.Class.name}) could not be started again: ${(err as Error).message}`, { cause: err });
    }
  }

  get #label(): string {
    return this.options.name ?? this.context.groupName;
  }

  #inScope<T>(fn: () => T): T {
    return syncActorScope.run(this.context, () => withJobContext(this.ctx, fn));
  }
}
