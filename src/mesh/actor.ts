// The Actor base class and the `@endpoint` decorator. Every public method of an
// Actor subclass is an endpoint; `@endpoint(options)` only adds options.
import { ENDPOINT_OPTIONS, type EndpointOptions } from "../runtime/face/actors.ts";
import type { MeshFailure } from "./errors.ts";

export type { EndpointOptions };

/**
 * Base class of actors. Optional hooks a subclass may define (not declared
 * here, so subclasses need no `override`):
 * - `supervise(failure: MeshFailure): boolean | Promise<boolean>` — called with
 *   each failure of a mesh this actor spawned; return true when handled,
 *   otherwise this actor fails and its own owner hears of it.
 * - `cleanup(error?: Error): void | Promise<void>` — called once when the actor
 *   stops; `error` is set when it stops because of a failure.
 */
export abstract class Actor {}

/** The optional hooks of an actor, for implementers who want them typed. */
export interface ActorHooks {
  supervise?(failure: MeshFailure): boolean | Promise<boolean>;
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
