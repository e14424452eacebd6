// Actor groups (Marin Fray's create_actor_group): `count` instances of one
// class that start in the background; the caller waits until enough are ready
// and calls one member (`any`, round robin) or every ready member (`all`).
// Built only on the context's own createActor, so every backend has the same
// groups and each member is an ordinary actor (named `${name}-${i}`).
//
// A member of a group without maxRestarts is dead for good once its process or
// actor is: calls skip it from the moment this process knows, which costs a
// lookup per member and call, no watcher. With maxRestarts a member's
// namespace restarts it, and its own calls find the new incarnation.
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import { knownDeath } from "../../mesh/liveness.ts";
import { actorHandle, type ActorClass, type ActorHandle, type RemoteMethod } from "./actor-handle.ts";
import { ActorRef, kActorTarget } from "./actor-ref.ts";
import { checkActorOptions, checkResources, type ActorOptions } from "../base/options.ts";
import type { MemberOptions } from "./current-actor.ts";

/** `group.all.method.remote(...args)`: one ref per ready member, in member order. */
export type GroupCall<T> = {
  readonly [K in keyof ActorHandle<T>]: ActorHandle<T>[K] extends { remote(...args: infer A): infer R } ? { remote(...args: A): R[] } : never;
};

export interface WaitReadyOptions {
  /** Seconds to wait at most; then waitReady rejects with a TimeoutError saying how many are ready. Default: no limit. */
  readonly timeout?: number;
}

/** `mesh`: where a member that dies for good lives, null for one that may be restarted or has no mesh (sync). */
type Member<T> =
  | { state: "starting" }
  | { state: "ready"; handle: ActorHandle<T>; mesh: ActorMesh<object> | null }
  | { state: "failed"; error: unknown }
  | { state: "dead"; error: Error };

/** What to do about members that died, said by every error that counts them. */
const REPLACE =
  "a member that dies is not replaced: create the group with { maxRestarts: N } to have each member restarted after a death " +
  "(up to N times, in a process of its own), or create a new group";

export class ActorGroup<T> {
  /** Calls a method on one ready member, taking them in turn (round robin, member order). */
  readonly any: ActorHandle<T>;
  /** Calls a method on every ready member; the refs are in member order. */
  readonly all: GroupCall<T>;
  readonly #members: Member<T>[];
  /** Pending waitReady calls, re-checked whenever a member settles. */
  readonly #waiters = new Set<() => void>();
  /** Members already handed out by waitReady or discoverNew. */
  readonly #yielded = new Set<number>();
  /** The group's name, or its class's, for messages. */
  readonly #label: string;
  #turn = 0;

  /** @internal Use `ctx.createActorGroup(Class, args, count, options)`. */
  constructor(
    /** The group's `name` option, if it has one; member i is then named `${name}-${i}`. */
    readonly name: string | undefined,
    label: string,
    starts: readonly Promise<ActorHandle<T>>[],
    /** Whether members are restarted after a death (maxRestarts), so none is dead for good while it has restarts left. */
    restarts = false,
  ) {
    this.#label = label;
    this.#members = starts.map(() => ({ state: "starting" }));
    starts.forEach((start, i) => {
      start.then(
        (handle) => this.#settle(i, { state: "ready", handle, mesh: restarts ? null : meshOf(handle) }),
        (error: unknown) => this.#settle(i, { state: "failed", error }),
      );
    });
    this.any = actorHandle<T>(
      (method, args) => {
        const ready = this.#readyOrThrow(`any.${method}`);
        const handle = ready[this.#turn++ % ready.length] as unknown as Record<string, { remote(...a: unknown[]): never }>;
        return handle[method].remote(...args);
      },
      new ActorRef(null, null, "group.any picks a ready member at each call, in this process: send group.handles (the members' own handles) instead"),
      (method, args, window) => {
        const ready = this.#readyOrThrow(`any.${method}`);
        const handle = ready[this.#turn++ % ready.length] as unknown as Record<string, RemoteMethod<(...a: unknown[]) => AsyncIterable<unknown>>>;
        return handle[method].options({ window }).remoteStreaming(...args);
      },
    );
    this.all = groupCall<T>((method) => this.#readyOrThrow(`all.${method}`));
  }

  /** How many members the group has. */
  get count(): number {
    return this.#members.length;
  }

  /** Members whose constructor has finished and that are not known to be dead for good. */
  get readyCount(): number {
    return this.#live().length;
  }

  /** The ready members' handles (live ones), in member order. */
  get handles(): ActorHandle<T>[] {
    return this.#live().map((i) => this.#handle(i));
  }

  /**
   * Resolves, once `n` members (default: all) are ready, with the handles of
   * the first `n` ready ones in member order. Rejects as soon as so many
   * members failed that `n` can never be ready (the failures are the cause),
   * and at `timeout` with a TimeoutError saying how many of `n` are ready.
   */
  async waitReady(n: number = this.count, options: WaitReadyOptions = {}): Promise<ActorHandle<T>[]> {
    if (!Number.isInteger(n) || n < 1 || n > this.count) {
      throw new RangeError(`waitReady(${String(n)}) on actor group ${this.#label}: n must be an integer from 1 to the group's count (${this.count})`);
    }
    const { timeout } = options;
    if (timeout !== undefined && (typeof timeout !== "number" || !(timeout >= 0) || !Number.isFinite(timeout))) {
      throw new RangeError(`waitReady timeout must be a non-negative number of seconds, got ${String(timeout)}`);
    }
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        this.#waiters.delete(check);
        clearTimeout(timer);
      };
      const check = () => {
        const ready = this.#live();
        const ended = this.count - ready.length - this.#indices("starting").length;
        if (ready.length >= n) {
          done();
          resolve(this.#take(ready.slice(0, n)));
        } else if (this.count - ended < n) {
          done();
          reject(this.#unreachable(n, ready.length));
        }
      };
      if (timeout !== undefined) {
        timer = setTimeout(() => {
          done();
          reject(this.#timedOut(n, timeout));
        }, timeout * 1000);
      }
      this.#waiters.add(check);
      check();
    });
  }

  /** Handles of members that became ready and were not yet returned by waitReady or discoverNew, in member order. */
  discoverNew(): ActorHandle<T>[] {
    return this.#take(this.#live().filter((i) => !this.#yielded.has(i)));
  }

  #settle(i: number, member: Member<T>): void {
    this.#members[i] = member;
    for (const check of [...this.#waiters]) check();
  }

  #indices(state: Member<T>["state"]): number[] {
    return this.#members.flatMap((m, i) => (m.state === state ? [i] : []));
  }

  /** The ready members, in member order, once those this process knows died for good are marked dead. */
  #live(): number[] {
    const live: number[] = [];
    for (let i = 0; i < this.#members.length; i++) {
      const member = this.#members[i];
      if (member.state !== "ready") continue;
      const death = member.mesh && knownDeath(member.mesh);
      if (death) this.#members[i] = { state: "dead", error: death };
      else live.push(i);
    }
    return live;
  }

  #handle(i: number): ActorHandle<T> {
    return (this.#members[i] as { handle: ActorHandle<T> }).handle;
  }

  #take(indices: number[]): ActorHandle<T>[] {
    for (const i of indices) this.#yielded.add(i);
    return indices.map((i) => this.#handle(i));
  }

  #memberLabel(i: number): string {
    return this.name === undefined ? `member ${i}` : `member ${i} (${this.name}-${i})`;
  }

  /** Calls go to live ready members only: a call made before any is ready fails at once rather than waiting unseen. */
  #readyOrThrow(call: string): ActorHandle<T>[] {
    const ready = this.handles;
    if (ready.length > 0) return ready;
    if (this.#indices("starting").length === 0) throw this.#unreachable(1, 0);
    throw new Error(
      `group.${call}.remote(): no member of actor group ${this.#label} is ready yet; await group.waitReady(1) (or waitReady() for all) before calling`,
    );
  }

  /** Why `n` ready members can never be: those that failed to start, and those that died for good. */
  #unreachable(n: number, ready: number): Error {
    const failed = this.#indices("failed");
    const dead = this.#indices("dead");
    const ended = [...failed, ...dead].sort((a, b) => a - b);
    const errors = ended.map((i) => (this.#members[i] as { error: unknown }).error);
    const cause = new AggregateError(errors, `the failures of actor group ${this.#label}'s members, in member order`);
    const reasons = (indices: number[]) =>
      indices.map((i) => `${this.#memberLabel(i)}: ${describe((this.#members[i] as { error: unknown }).error)}`).join("; ");
    if (dead.length === this.count) return new Error(`every member of actor group ${this.#label} is dead for good (${reasons(dead)}); ${REPLACE}`, { cause });
    const counts = [
      ...(failed.length ? [`${failed.length} of ${this.count} failed to start (${reasons(failed)})`] : []),
      ...(dead.length ? [`${dead.length} of ${this.count} died for good (${reasons(dead)})`] : []),
    ];
    const fixes = [...(failed.length ? ["fix what the constructor failed on"] : []), ...(dead.length ? [REPLACE] : [])];
    return new Error(
      `actor group ${this.#label}: ${n} ready members can never be reached: ${counts.join(", ")}, ${ready} ready; ${fixes.join("; ")}, or wait for fewer`,
      {
        cause,
      },
    );
  }

  #timedOut(n: number, timeout: number): Error {
    const error = new Error(
      `actor group ${this.#label}: ${this.readyCount} of ${n} members ready after ${timeout} s (waitReady(${n}, { timeout: ${timeout} })), ` +
        `${this.#indices("starting").length} still starting; wait longer or for fewer`,
    );
    error.name = "TimeoutError";
    return error;
  }
}

/** What a group is built on: its context's createActor (JobContext's). */
export interface ActorMaker {
  createActor<C extends ActorClass>(Class: C, args?: ConstructorParameters<C>, options?: ActorOptions): Promise<ActorHandle<InstanceType<C>>>;
}

/** Starts `count` members of `Class` through `ctx.createActor`; returns at once. */
export function createActorGroup<C extends ActorClass>(
  ctx: ActorMaker,
  Class: C,
  args: ConstructorParameters<C>,
  count: number,
  options: ActorOptions = {},
): ActorGroup<InstanceType<C>> {
  if (!Array.isArray(args)) {
    throw new TypeError(`createActorGroup(Class, args, count, options): args must be an array of constructor arguments (e.g. [] or [5]), got ${typeof args}`);
  }
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1) {
    throw new RangeError(`an actor group needs a positive integer count of members, got ${String(count)}; pass e.g. createActorGroup(${Class.name}, args, 3)`);
  }
  const { name } = options;
  // Each member learns its place (currentActor().index, .groupName).
  const group = name ?? Class.name;
  const memberOptions = (i: number): MemberOptions => ({
    ...options,
    ...(name === undefined ? {} : { name: `${name}-${i}` }),
    groupMember: { group, index: i },
  });
  // Refused here, once, rather than by every member in the background.
  checkActorOptions(memberOptions(0));
  checkResources(options.resources ?? {}, `actor group ${name ?? Class.name}`);
  const starts = Array.from(
    { length: count },
    (_, i) => new Promise<ActorHandle<InstanceType<C>>>((resolve) => resolve(ctx.createActor(Class, args, memberOptions(i)))),
  );
  return new ActorGroup(name, name ?? Class.name, starts, (options.maxRestarts ?? 0) !== 0);
}

/** The mesh a member lives in, if it has one (not on sync). */
function meshOf(handle: ActorHandle<unknown>): ActorMesh<object> | null {
  return (handle as unknown as ActorRef)[kActorTarget]?.mesh ?? null;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The proxy behind `group.all`: `all.method.remote(...args)` calls `method` on every member `members(method)` gives. */
function groupCall<T>(members: (method: string) => ActorHandle<T>[]): GroupCall<T> {
  return new Proxy({} as GroupCall<T>, {
    get(_target, prop) {
      // Not thenable, not JSON: `await group.all` and logging it stay harmless.
      if (typeof prop === "symbol" || prop === "then" || prop === "toJSON") return undefined;
      return {
        remote: (...args: unknown[]) => members(prop).map((h) => (h as unknown as Record<string, { remote(...a: unknown[]): unknown }>)[prop].remote(...args)),
      };
    },
  });
}
