// Resolving refs: arguments given as ObjectRefs become their values before a
// call; `get` maps over arrays and passes plain values through.
import type { ObjectStore } from "./object-store.ts";
import { ObjectRef } from "./object-ref.ts";

export function resolveAll(store: ObjectStore, args: readonly unknown[]): Promise<unknown[]> {
  return Promise.all(args.map((a) => (a instanceof ObjectRef ? store.entry(a.id).promise : a)));
}

export function getValues(store: ObjectStore, value: unknown): Promise<unknown> {
  if (value instanceof ObjectRef) return store.entry(value.id).promise;
  if (Array.isArray(value)) return Promise.all(value.map((v) => getValues(store, v)));
  return Promise.resolve(value);
}

export function namedActorExists(name: string): Error {
  return new Error(`Actor ${name} already exists`);
}
