// A client's actor options, as Marin's Fray has them (name, resources,
// environment, actorConfig), turned into the job layer's ActorOptions — or
// refused, naming what cannot be honoured. Every client actor lives in the
// cluster's namespace service, in a process of its own on that service's host.
import { randomBytes } from "node:crypto";
import type { ActorOptions, Resources } from "../../job/base/options.ts";
import type { ResourceConfig } from "../resource-config.ts";
import { parseSize } from "../size.ts";
import type { EnvironmentConfig } from "../types.ts";

/** How the actor behaves: Marin's ActorConfig. */
export interface ActorConfig {
  /** How many of its calls may run at once (async methods interleave at their awaits). Default 1. */
  readonly maxConcurrency?: number;
  /** How often it is constructed again (same arguments, new process) after it dies or calls currentActor().fail(); -1: no limit. Default 0. */
  readonly maxRestarts?: number;
  /** With maxRestarts: how often a call in flight when it died is sent again to the restarted actor; -1: no limit. Default 0. */
  readonly maxTaskRetries?: number;
  /** "ephemeral" (default): it ends with this client (its process, or shutdown()); "detached": it outlives it, until killed. */
  readonly lifetime?: "ephemeral" | "detached";
}

export interface ClientActorOptions {
  /** The name jobs find it by (member i of a group: `${name}-${i}`). Default: the class's name and a random suffix. */
  readonly name?: string;
  /** What it holds for its life, checked against the namespace service's host: `cpu` (its cores) and `ram` (its memory). */
  readonly resources?: ResourceConfig;
  /** Refused for now: a client actor runs in a process of the namespace service's host, with that service's environment. */
  readonly environment?: EnvironmentConfig;
  readonly actorConfig?: ActorConfig;
}

const OPTIONS = ["name", "resources", "environment", "actorConfig"];
const CONFIG = ["maxConcurrency", "maxRestarts", "maxTaskRetries", "lifetime"];

/** The job layer's options for a client actor of `Class`; `what` names the call in errors. */
export function actorOptions(Class: Function, options: ClientActorOptions, what: string): ActorOptions {
  unknownKeys(options, OPTIONS, what);
  const config = options.actorConfig ?? {};
  unknownKeys(config, CONFIG, `${what}'s actorConfig`);
  if (options.environment !== undefined && Object.keys(options.environment).length > 0) {
    throw new TypeError(
      `${what}: environment is not supported for a client's actors: they run in a process of the namespace service's host with its ` +
        "environment. Leave it out, or submit a job with that environment whose entrypoint hosts the actor (currentClient().hostActor)",
    );
  }
  const name = options.name ?? `${Class.name || "actor"}-${randomBytes(4).toString("hex")}`;
  const resources = options.resources === undefined ? undefined : actorResources(options.resources, what);
  return { ...config, name, ...(resources ? { resources } : {}) };
}

/** A ResourceConfig as what a namespace-hosted actor can hold: cpu and memory. */
function actorResources(rc: ResourceConfig, what: string): Resources {
  const { cpu, ram, device, ...rest } = rc;
  const refused = Object.entries(rest).filter(([k, v]) => v !== undefined && !(k === "preemptible" && v === false));
  if (device !== undefined && device.kind !== "cpu") refused.unshift(["device", device.kind]);
  if (refused.length > 0) {
    throw new TypeError(
      `${what}: resources ${refused.map(([k]) => k).join(", ")} cannot be given to a client's actor, which runs in a process of the ` +
        "namespace service's host (never preempted, one process, no devices): give only cpu and ram, or submit a job with those resources " +
        "whose entrypoint hosts the actor (currentClient().hostActor)",
    );
  }
  return { ...(cpu === undefined ? {} : { cpu }), ...(ram === undefined ? {} : { memory: parseSize(ram, `${what}'s resources.ram`) }) };
}

function unknownKeys(options: object, known: readonly string[], what: string): void {
  if (typeof options !== "object" || options === null) throw new TypeError(`${what}: options must be an object, got ${String(options)}`);
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new TypeError(`${what}: unknown option ${unknown.join(", ")}; the options are ${known.join(", ")}`);
}
