// ActorMesh<T>: one actor of class T per rank, typed from the class so an editor
// completes endpoints with their argument and return types. Meshes can be sent
// to other actors, which call them directly.
import { registerHandleType } from "../wire/codec.ts";
import type { RawExtent } from "../runtime/messages.ts";
import type { Port } from "../runtime/port.ts";
import { Proc } from "../runtime/proc.ts";
import { EndpointImpl, type Endpoint, type MeshTarget } from "./endpoint.ts";
import { SupervisionError } from "./errors.ts";
import { Extent } from "./extent.ts";
import { Shape, type SliceSpec } from "./shape.ts";

type NotEndpoint = `_${string}` | "supervise" | "cleanup" | "constructor";

/** The endpoint type of method `F`: an explicit-response-port method answers with its port's type. */
export type EndpointOf<F> = F extends (...args: infer All) => infer R
  ? All extends [Port<infer P>, ...infer A]
    ? Endpoint<A, P>
    : Endpoint<All, Awaited<R>>
  : never;

/** The endpoints of actor class instance `T`. */
export type Endpoints<T> = {
  readonly [K in keyof T as K extends NotEndpoint ? never : T[K] extends (...args: never[]) => unknown ? K : never]: EndpointOf<T[K]>;
};

/**
 * A mesh of actors of class `T`. Its own members (`slice`, `size`, `extent`, …)
 * take precedence over endpoints of the same name.
 */
export type ActorMesh<T> = ActorMeshImpl<T> & Omit<Endpoints<T>, keyof ActorMeshImpl<T>>;

/** The part of a mesh shared by all its slices. */
export interface MeshRef {
  readonly id: string;
  readonly name: string;
  readonly className: string;
  /** Proc address of each member (sparse in a received slice). */
  readonly addrs: readonly string[];
  readonly Class: Function | null;
  readonly inflight: Map<number, number>;
  readonly gate: SendGate;
  readonly initialized: Promise<void>;
  /** Set by `stop()`: later calls reject with it at once. */
  stopped?: Error;
}

/**
 * Holds sends until the spawner knows where the class is exported from (an
 * asynchronous check), then releases them in call order.
 */
/** A message that cannot be sent (too big for FRAY_MAX_FRAME_BYTES, say) fails its own call, not the caller's process. */
function trySend(send: () => void, fail: (e: Error) => void): void {
  try {
    send();
  } catch (err) {
    fail(err as Error);
  }
}

export class SendGate {
  #queue: Array<[() => void, (e: Error) => void]> | null = [];
  #error: Error | null = null;

  static open(): SendGate {
    const gate = new SendGate();
    gate.#queue = null;
    return gate;
  }

  run(send: () => void, fail: (e: Error) => void): void {
    if (this.#error) fail(this.#error);
    else if (this.#queue) this.#queue.push([send, fail]);
    else trySend(send, fail);
  }

  release(): void {
    const queue = this.#queue ?? [];
    this.#queue = null;
    for (const [send, fail] of queue) trySend(send, fail);
  }

  fail(error: Error): void {
    this.#error = error;
    for (const [, fail] of this.#queue ?? []) fail(error);
    this.#queue = null;
  }
}

export class ActorMeshImpl<T> implements MeshTarget {
  /** @internal */ readonly ref: MeshRef;
  /** @internal */ readonly shape: Shape;
  /** @internal */ readonly rawExtent: RawExtent;
  /** @internal */ readonly endpoints = new Map<string, EndpointImpl<unknown[], unknown>>();
  declare private readonly _instance: T;

  /** @internal */
  constructor(ref: MeshRef, shape: Shape) {
    this.ref = ref;
    this.shape = shape;
    this.rawExtent = [shape.extent.labels, shape.extent.sizes];
  }

  /** @internal */
  static create<T>(ref: MeshRef, shape: Shape): ActorMesh<T> {
    return new Proxy(new ActorMeshImpl<T>(ref, shape), ENDPOINT_ACCESS) as ActorMesh<T>;
  }

  /** Resolves when every actor is constructed; rejects with the first construction failure. */
  get initialized(): Promise<void> {
    return this.ref.initialized;
  }

  get extent(): Extent {
    return this.shape.extent;
  }

  get size(): number {
    return this.shape.extent.size;
  }

  get sizes(): Record<string, number> {
    return this.shape.extent.dims;
  }

  slice(spec: SliceSpec): ActorMesh<T> {
    return ActorMeshImpl.create<T>(this.ref, this.shape.slice(spec));
  }

  rename(mapping: Readonly<Record<string, string>>): ActorMesh<T> {
    return ActorMeshImpl.create<T>(this.ref, this.shape.rename(mapping));
  }

  flatten(label: string): ActorMesh<T> {
    return ActorMeshImpl.create<T>(this.ref, this.shape.flatten(label));
  }

  /**
   * Stops every actor of the mesh after the messages already sent to it:
   * meshes they own stop first, then each actor's `cleanup()` runs (at most
   * FRAY_CLEANUP_TIMEOUT_MS). Calls after that reject with SupervisionError.
   * A stop is not a failure: no owner hears of it.
   */
  async stop(): Promise<void> {
    if (this.ref.stopped) return;
    const stopped = new SupervisionError(`${this.ref.className} mesh '${this.ref.name}' was stopped`);
    // Sends already made go first (FIFO); the stop waits for the class check like any send.
    await new Promise<void>((resolve) => this.ref.gate.run(resolve, () => resolve()));
    this.ref.stopped = stopped;
    await Proc.current().supervisor.stopMesh(this.ref.id, this.ref.addrs);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  toString(): string {
    return `ActorMesh(${this.ref.name}: ${this.ref.className} over ${this.shape.extent})`;
  }

  // MeshTarget, for endpoints.
  /** @internal */ get id(): string { return this.ref.id; }
  /** @internal */ get className(): string { return this.ref.className; }
  /** @internal */ get addrs(): readonly string[] { return this.ref.addrs; }
  /** @internal */ get inflight(): Map<number, number> { return this.ref.inflight; }
  /** @internal */ get Class(): Function | null { return this.ref.Class; }
  /** @internal */ get stopped(): Error | undefined { return this.ref.stopped; }
  /** @internal */ whenSendable(send: () => void, fail: (e: Error) => void): void {
    this.ref.gate.run(send, fail);
  }

  /** @internal */
  endpoint(name: string): EndpointImpl<unknown[], unknown> {
    let e = this.endpoints.get(name);
    if (!e) this.endpoints.set(name, (e = new EndpointImpl(this, name)));
    return e;
  }
}

// Mesh members win; any other string property is an endpoint. `then` must stay
// undefined so a mesh can be returned from async functions and awaited.
const ENDPOINT_ACCESS: ProxyHandler<ActorMeshImpl<unknown>> = {
  get(target, prop) {
    if (typeof prop === "symbol" || prop in target) return Reflect.get(target, prop, target);
    if (prop === "then" || prop === "toJSON") return undefined;
    return target.endpoint(prop);
  },
};

registerHandleType<ActorMeshImpl<unknown>>({
  type: 0x40,
  Class: ActorMeshImpl,
  toWire: (m) => {
    const { members } = m.shape;
    return [m.ref.id, m.ref.name, m.ref.className, m.shape.extent.labels, m.shape.extent.sizes, members, members.map((i) => m.ref.addrs[i])];
  },
  fromWire: (data) => {
    const [id, name, className, labels, sizes, members, memberAddrs] = data as [string, string, string, string[], number[], number[], string[]];
    const addrs: string[] = [];
    members.forEach((member, i) => (addrs[member] = memberAddrs[i]));
    const ref: MeshRef = { id, name, className, addrs, Class: null, inflight: new Map(), gate: SendGate.open(), initialized: Promise.resolve() };
    // Revived as the proxy so endpoints are properties, as on the spawning side.
    return ActorMeshImpl.create(ref, new Shape(new Extent(labels, sizes), members)) as ActorMeshImpl<unknown>;
  },
});
