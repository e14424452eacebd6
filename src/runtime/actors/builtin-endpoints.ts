// Endpoints every actor has besides its class's: the operations of
// distributed arrays (mesh/array/array-ops.ts), which run in the actor's mailbox, in
// order with its other messages, as `this` the actor. Their names start with
// "fray:", which no method name of a class can be called through a mesh.
export type BuiltinEndpoint = (this: object, ...args: unknown[]) => unknown;

const builtins = new Map<string, BuiltinEndpoint>();

export const BUILTIN_PREFIX = "fray:";

export function registerBuiltinEndpoint(name: string, fn: BuiltinEndpoint): void {
  if (!name.startsWith(BUILTIN_PREFIX)) throw new Error(`builtin endpoint names start with ${BUILTIN_PREFIX}: ${name}`);
  builtins.set(name, fn);
}

export function builtinEndpoint(name: string): BuiltinEndpoint | undefined {
  return builtins.get(name);
}
