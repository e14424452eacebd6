// Per-endpoint options. `@endpoint(options)` (mesh layer) marks the method with
// ENDPOINT_OPTIONS; plain JavaScript declares `static endpoints = { name: options }`.

export interface EndpointOptions {
  /** Run without waiting for the actor's previous message to finish. */
  readonly concurrent?: boolean;
  /** The endpoint takes a Port as first argument and answers through it. */
  readonly explicitResponsePort?: boolean;
}

export const ENDPOINT_OPTIONS = Symbol.for("fray.endpointOptions");

/** Methods that are never endpoints: the constructor and the actor hooks. */
export const NOT_ENDPOINT_NAMES = ["constructor", "supervise", "cleanup"] as const;
/** Names that are never endpoints, as a type: those above and `_private` ones. */
export type NotEndpointName = `_${string}` | (typeof NOT_ENDPOINT_NAMES)[number];

const NONE: EndpointOptions = Object.freeze({});
const NOT_ENDPOINTS: ReadonlySet<string> = new Set(NOT_ENDPOINT_NAMES);
const cache = new WeakMap<Function, Map<string, EndpointOptions | null>>();

/** The options of endpoint `name` of `Class`, or null when `name` is not an endpoint. */
export function endpointOptions(Class: Function, name: string): EndpointOptions | null {
  let perClass = cache.get(Class);
  if (!perClass) cache.set(Class, (perClass = new Map()));
  let found = perClass.get(name);
  if (found === undefined) {
    found = lookup(Class, name);
    perClass.set(name, found);
  }
  return found;
}

function lookup(Class: Function, name: string): EndpointOptions | null {
  if (NOT_ENDPOINTS.has(name) || name.startsWith("_") || name.startsWith("#")) return null;
  const method = (Class.prototype as Record<string, unknown>)[name];
  if (typeof method !== "function" || name in Object.prototype) return null;
  const marked = (method as unknown as Record<symbol, EndpointOptions | undefined>)[ENDPOINT_OPTIONS];
  const declared = (Class as unknown as { endpoints?: Record<string, EndpointOptions> }).endpoints?.[name];
  return marked ?? declared ?? NONE;
}

/** Names of every endpoint of `Class`, for error messages. */
export function endpointNames(Class: Function): string[] {
  const names = new Set<string>();
  for (let proto = Class.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) if (endpointOptions(Class, name)) names.add(name);
  }
  return [...names].sort();
}
