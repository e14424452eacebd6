// ActorHandle<T>: `handle.method.remote(...args)` calls an actor method and
// returns an ObjectRef for the result. Typed from the class.
import { registerHandleType } from "../wire/codec.ts";
import type { ActorMesh } from "../mesh/actor-mesh.ts";
import type { MeshMemberName } from "../mesh/actor-mesh.ts";
import type { NotEndpointName } from "../runtime/endpoint-options.ts";
import { ambient, type Refs } from "./job-context.ts";
import type { ObjectRef } from "./object-ref.ts";

type Method = (...args: never[]) => unknown;

export interface RemoteMethod<F extends Method> {
  remote(...args: Refs<Parameters<F>>): ObjectRef<Awaited<ReturnType<F>>>;
}

/** A handle's methods: the endpoints the actor would have on a mesh (createActor refuses names of mesh members). */
export type ActorHandle<T> = {
  readonly [K in keyof T as K extends NotEndpointName | MeshMemberName ? never : T[K] extends Method ? K : never]: T[K] extends Method ? RemoteMethod<T[K]> : never;
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

/** The 1-rank mesh behind a handle, under a symbol so no method name can meet it. */
export const kActorMesh = Symbol("fray.actorMesh");

/** What a handle of a mesh-backed actor carries: its 1-rank mesh. Handles cross the wire as this. */
export class ActorRef {
  readonly [kActorMesh]: ActorMesh<object>;
  constructor(mesh: ActorMesh<object>) {
    this[kActorMesh] = mesh;
  }
}

/** How a mesh-backed context makes a handle for an actor's mesh: under a symbol, so it is not part of the JobContext API. */
export const kHandleFor = Symbol("fray.handleFor");

interface HandleFactory {
  [kHandleFor]<T>(mesh: ActorMesh<object>): ActorHandle<T>;
}

/** A handle received in a task or actor: calls go through the context running it. */
function revived(mesh: ActorMesh<object>): ActorHandle<object> {
  return actorHandle((method, args) => {
    const ctx = (ambient.als.getStore() ?? ambient.processDefault) as unknown as Partial<HandleFactory> | null;
    if (!ctx?.[kHandleFor]) throw new Error("an actor handle received here can only be called inside a task or actor of its job");
    const m = (ctx[kHandleFor](mesh) as unknown as Record<string, RemoteMethod<Method>>)[method];
    return m.remote(...(args as never[]));
  }, new ActorRef(mesh));
}

registerHandleType<ActorRef>({
  type: "actorRef",
  Class: ActorRef,
  toWire: (ref) => ref[kActorMesh],
  fromWire: (mesh) => revived(mesh as ActorMesh<object>) as unknown as ActorRef,
});
