// What a call of an actor's endpoint needs, looked up once per endpoint of a class: its options, the
// builtin that runs it (if one does), and its metrics record. Only valid endpoints get one, so metric
// labels stay bounded.
import { endpointStats, metricsOn, type EndpointStats } from "../base/counters.ts";
import { BUILTIN_PREFIX, builtinEndpoint, type BuiltinEndpoint } from "./builtin-endpoints.ts";
import { endpointOptions, type EndpointOptions } from "./endpoint-options.ts";

/** An endpoint of an actor's class as its calls use it: its options, the builtin that runs it (if one does), its metrics record (metrics on). */
export interface EndpointEntry {
  readonly options: EndpointOptions;
  readonly builtin: BuiltinEndpoint | undefined;
  readonly stats: EndpointStats | undefined;
}

/** The entry of endpoint `name` of `Class` (whose actors are labelled `className`); undefined when `name` is not one. */
export function endpointEntry(Class: Function, className: string, name: string): EndpointEntry | undefined {
  const found = name.startsWith(BUILTIN_PREFIX) ? builtinEndpoint(name) : undefined;
  const options = found ? found.options : endpointOptions(Class, name);
  if (!options) return undefined;
  return { options, builtin: found?.fn, stats: metricsOn ? endpointStats(className, name) : undefined };
}
