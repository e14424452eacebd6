// Endpoints every actor has besides its class's: the operations of
// distributed arrays (mesh/array/array-ops.ts), which start in the actor's mailbox, in
// order with its other messages, as `this` the actor. Their names start with
// "fray:", which no method name of a class can be called through a mesh.
import type { EndpointOptions } from "./endpoint-options.ts";

export type BuiltinEndpoint = (this: object, ...args: unknown[]) => unknown;

/** A builtin endpoint as registered: what runs it, and its options (as a class's endpoint has). */
export interface Builtin {
  readonly fn: BuiltinEndpoint;
  readonly options: EndpointOptions;
}

const builtins = new Map<string, Builtin>();

export const BUILTIN_PREFIX = "fray:";

/** `options.concurrent`: the mailbox goes on while it runs (a read that waits for what a later message makes, say). */
export function registerBuiltinEndpoint(name: string, fn: BuiltinEndpoint, options: EndpointOptions = {}): void {
  if (!name.startsWith(BUILTIN_PREFIX)) throw new Error(`builtin endpoint names start with ${BUILTIN_PREFIX}: ${name}`);
  builtins.set(name, { fn, options: Object.freeze({ ...options }) });
}

export function builtinEndpoint(name: string): Builtin | undefined {
  return builtins.get(name);
}
