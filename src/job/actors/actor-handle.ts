// ActorHandle<T>: `handle.method.remote(...args)` calls an actor method and
// returns an ObjectRef for the result. Typed from the class.
import { registerHandleType } from "../../wire/codec.ts";
import type { ActorMesh } from "../../mesh/actor-mesh.ts";
import type { MeshMemberName } from "../../mesh/actor-mesh.ts";
import type { NotEndpointName } from "../../runtime/actors/endpoint-options.ts";
import { ambient, type Refs } from "../job-context.ts";
import type { ObjectRef } from "../object-ref.ts";

/** @inline */
type Method = (...args: never[]) => unknown;

export interface RemoteMethod<F extends Method> {
  remote(...args: Refs<Parameters<F>>): ObjectRef<Awaited<ReturnType<F>>>;
}

/** A handle's methods: the endpoints the actor would have on a mesh (createActor refuses names of mesh members). */
export type ActorHandle<T> = {
  readonly [K in keyof T as K extends NotEndpointName | MeshMemberName ? never : T[K] extends Method ? K : never]: T[K] extends Method
    ? RemoteMethod<T[K]>
    : never;
};

/** Builds a handle whose `name.remote(...args)` calls `invoke(name, args)`. */
export function actorHandle<T>(invoke: (method: string, args: unknown[]) => ObjectRef, extra: object = {}): ActorHandle<T> {
  const methods = new Map<string, RemoteMethod<Method>>();
  return new Proxy(extra, {
    get(target, prop) {
      if (typeof prop === "symbol" || prop in target) return Reflect.get(target, prop);
      if (prop === "then" || prop === "toJSON") return undefined;
      let m = methods.get(prop);
      if (!m) methods.set(prop, (m = { remote: (...args: unknown[]) => invoke(prop, args) } as RemoteMethod<Method>));
      return m;
    },
  }) as ActorHandle<T>;
}

/** For an actor a namespace hosts: where to ask for its next incarnation when this one dies. */
export interface HostedRef {
  /** The namespace service's address; null: the private namespace of the job that calls it. */
  readonly ns: string | null;
  readonly key: string;
  readonly incarnation: number;
  readonly maxTaskRetries: number;
}

/** Where a handle's calls go: the actor's 1-rank mesh, and whether a namespace hosts it. */
export interface ActorTarget {
  readonly mesh: ActorMesh<object>;
  readonly hosted?: HostedRef;
}

/** The target behind a handle, under a symbol so no method name can meet it. */
export const kActorTarget = Symbol("fray.actorTarget");

/** What a handle carries: its target. Handles cross the wire as this. */
export class ActorRef {
  readonly [kActorTarget]: ActorTarget;
  constructor(target: ActorTarget) {
    this[kActorTarget] = target;
  }
}

/** How a mesh-backed context makes a handle for a target: under a symbol, so it is not part of the JobContext API. */
export const kHandleFor = Symbol("fray.handleFor");

interface HandleFactory {
  [kHandleFor]<T>(target: ActorTarget): ActorHandle<T>;
}

/** A handle received in a task or actor: calls go through the context running it. */
function revived(target: ActorTarget): ActorHandle<object> {
  return actorHandle((method, args) => {
    const ctx = (ambient.als.getStore() ?? ambient.processDefault) as unknown as Partial<HandleFactory> | null;
    if (!ctx?.[kHandleFor]) throw new Error("an actor handle received here can only be called inside a task or actor of a job");
    const m = (ctx[kHandleFor](target) as unknown as Record<string, RemoteMethod<Method>>)[method];
    return m.remote(...(args as never[]));
  }, new ActorRef(target));
}

type WireTarget = [ActorMesh<object>] | [ActorMesh<object>, string | null, string, number, number];

registerHandleType<ActorRef>({
  type: "actorRef",
  Class: ActorRef,
  toWire: (ref): WireTarget => {
    const { mesh, hosted } = ref[kActorTarget];
    return hosted ? [mesh, hosted.ns, hosted.key, hosted.incarnation, hosted.maxTaskRetries] : [mesh];
  },
  fromWire: (data) => {
    const [mesh, ns, key, incarnation, maxTaskRetries] = data as WireTarget;
    const target: ActorTarget = key === undefined ? { mesh } : { mesh, hosted: { ns: ns!, key, incarnation: incarnation!, maxTaskRetries: maxTaskRetries! } };
    return revived(target) as unknown as ActorRef;
  },
});
