// ActorHandle<T>: `handle.method.remote(...args)` calls an actor method and
// returns an ObjectRef for the result. Typed from the class. A handle can be
// sent anywhere (actor-ref.ts says how it crosses the wire and who runs its calls there).
import type { MeshMemberName } from "../../mesh/actor-mesh.ts";
import type { NotEndpointName } from "../../runtime/face/actors.ts";
import { streamWindow, type StreamOptions } from "../base/options.ts";
import type { ObjectRef, Refs } from "../objects/object-ref.ts";
import type { ObjectRefStream } from "../objects/object-ref-stream.ts";

/** A class whose instances can be actors. */
export type ActorClass = new (...args: never[]) => object;

/** @inline */
type Method = (...args: never[]) => unknown;

export interface RemoteMethod<F extends Method> {
  remote(...args: Refs<Parameters<F>>): ObjectRef<Awaited<ReturnType<F>>>;
  /**
   * For a method that is an async generator: calls it as a stream, one ref per
   * value it yields, in order, while it runs (as `ctx.runStreaming`). The call
   * holds one of the actor's call slots (maxConcurrency) until the generator ends.
   */
  remoteStreaming: ReturnType<F> extends AsyncIterable<infer T> ? (...args: Refs<Parameters<F>>) => ObjectRefStream<T> : never;
  /** The method called as a stream with options: `window`, how many items it may yield ahead of its reader (StreamOptions). */
  options(options: StreamOptions): Pick<RemoteMethod<F>, "remoteStreaming">;
}

/** A handle's methods: the endpoints the actor would have on a mesh (createActor refuses names of mesh members). */
export type ActorHandle<T> = {
  readonly [K in keyof T as K extends NotEndpointName | MeshMemberName ? never : T[K] extends Method ? K : never]: T[K] extends Method
    ? RemoteMethod<T[K]>
    : never;
};

/**
 * Builds a handle whose `name.remote(...args)` calls `invoke(name, args)`, and
 * `name.remoteStreaming(...args)` calls `stream(name, args, window)` (the
 * window of `name.options(…)`, checked, or the setting's); `extra` holds its
 * own members (an ActorRef, for one that can be sent).
 */
export function actorHandle<T>(
  invoke: (method: string, args: unknown[]) => ObjectRef,
  extra: object,
  stream: (method: string, args: unknown[], window: number) => ObjectRefStream<unknown>,
): ActorHandle<T> {
  const methods = new Map<string, RemoteMethod<Method>>();
  return new Proxy(extra, {
    get(target, prop) {
      if (typeof prop === "symbol" || prop in target) return Reflect.get(target, prop);
      if (prop === "then" || prop === "toJSON") return undefined;
      let m = methods.get(prop);
      if (!m) {
        const streaming = (options: StreamOptions) => {
          const window = streamWindow(options, `method ${prop}`);
          return (...args: unknown[]) => stream(prop, args, window);
        };
        m = {
          remote: (...args: unknown[]) => invoke(prop, args),
          remoteStreaming: (...args: unknown[]) => streaming({})(...args),
          options: (options: StreamOptions) => ({ remoteStreaming: streaming(options) }),
        } as unknown as RemoteMethod<Method>;
        methods.set(prop, m);
      }
      return m;
    },
  }) as ActorHandle<T>;
}
