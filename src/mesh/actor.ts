// The Actor base class and the `@endpoint` decorator. Every public method of an
// Actor subclass is an endpoint; `@endpoint(options)` only adds options.
import { ENDPOINT_OPTIONS, type EndpointOptions } from "../runtime/endpoint-options.ts";
import type { MeshFailure } from "./errors.ts";

export type { EndpointOptions };

export abstract class Actor {
  /**
   * Called with each failure of a mesh this actor spawned. Return true when
   * handled; otherwise the failure goes to this actor's own owner.
   */
  supervise?(failure: MeshFailure): boolean | Promise<boolean>;

  /** Called once when the actor stops; `error` is set when it stops because of a failure. */
  cleanup?(error?: Error): void | Promise<void>;
}

/** A standard (TC39) method decorator adding endpoint options. */
export function endpoint(options: EndpointOptions) {
  return function <M extends (...args: never[]) => unknown>(method: M, context: ClassMethodDecoratorContext): M {
    if (context.kind !== "method") throw new TypeError("@endpoint applies to methods");
    Object.defineProperty(method, ENDPOINT_OPTIONS, { value: Object.freeze({ ...options }) });
    return method;
  };
}
