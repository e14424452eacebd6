// Checks a JobRequest once, at launch, and fills in the defaults every backend uses.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { Entrypoint } from "./entrypoint.ts";
import { bytes, parseSize } from "./size.ts";
import type { DeviceConfig } from "./resource-config.ts";
import type { JobRequest } from "./types.ts";

export interface CheckedRequest {
  readonly name: string;
  readonly entrypoint: Entrypoint;
  /** Cores per replica; 0 when the request names none (local: no cores reserved, none pinned; Slurm: its least, 1). */
  readonly cpu: number;
  readonly ramBytes: number;
  /** Whether the request named `ram` (the default is scheduled by, not enforced). */
  readonly ramGiven: boolean;
  readonly diskBytes: number;
  /** Whether the request named `disk`. */
  readonly diskGiven: boolean;
  readonly device: DeviceConfig;
  readonly deviceCount: number;
  readonly replicas: number;
  readonly processesPerTask: number;
  readonly preemptible: boolean;
  readonly envVars: Readonly<Record<string, string>>;
  /** The directory given as `environment.workspace`, or undefined: run in the launcher's cwd. */
  readonly workspace: string | undefined;
  readonly npmPackages: readonly string[];
  readonly setupScripts: readonly string[];
  readonly maxRetriesFailure: number;
  readonly maxRetriesPreemption: number;
  readonly maxTaskFailures: number;
  readonly priority: number;
  /** What each replica asked for, as JobInfo.request says it. */
  readonly request: string;
}

/** Which backend checks the request: each refuses what it has no notion of. */
export type BackendKind = "local" | "slurm";

const NAME = /^[A-Za-z0-9._-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** npm's own package-name rule, with an optional @scope and @version/range/tag. */
const NPM_SPEC = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@[^\s]+)?$/i;

export function checkRequest(request: JobRequest, backend: BackendKind): CheckedRequest {
  if (typeof request !== "object" || request === null) throw new TypeError("launch() takes a JobRequest: { name, entrypoint, resources?, environment? }");
  const { name, entrypoint } = request;
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new TypeError(`job name ${JSON.stringify(name)} is not allowed: use letters, digits, '.', '_' and '-' (no spaces), e.g. "train-run-1"`);
  }
  if (!(entrypoint instanceof Entrypoint)) {
    throw new TypeError("a job's entrypoint must be made with Entrypoint.fromBinary(cmd, args) or Entrypoint.fromCallable(fn, args)");
  }
  const r = request.resources ?? {};
  const env = request.environment ?? {};
  const cluster = `the ${backend} cluster`;
  if (r.regions !== undefined) throw new TypeError(`job ${name}: ${cluster} has no regions; remove resources.regions (regions apply to cloud clusters)`);
  if (r.zone !== undefined) throw new TypeError(`job ${name}: ${cluster} has no zones; remove resources.zone (zones apply to cloud clusters)`);
  for (const [field, image] of [
    ["resources.image", r.image],
    ["environment.image", env.image],
  ] as const) {
    if (image !== undefined)
      throw new TypeError(
        `job ${name}: ${cluster} cannot run container image ${JSON.stringify(image)}: it runs jobs on the host as it is; remove ${field} and ` +
          `use environment.npmPackages / setupScripts instead`,
      );
  }
  const cpu = r.cpu ?? 0;
  if (typeof cpu !== "number" || !Number.isFinite(cpu) || cpu < 0) throw new TypeError(`resources.cpu must be a number of cores ≥ 0, got ${cpu}`);
  const replicas = request.replicas ?? r.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1)
    throw new TypeError(`${request.replicas !== undefined ? "replicas" : "resources.replicas"} must be a whole number ≥ 1, got ${replicas}`);
  const processesPerTask = request.processesPerTask ?? 1;
  if (!Number.isInteger(processesPerTask) || processesPerTask < 1) throw new TypeError(`processesPerTask must be a whole number ≥ 1, got ${processesPerTask}`);
  const device = r.device ?? { kind: "cpu" };
  if (!["cpu", "gpu", "tpu"].includes(device.kind))
    throw new TypeError(`resources.device.kind must be "cpu", "gpu" or "tpu", got ${JSON.stringify(device.kind)}`);
  const deviceCount = device.kind === "cpu" ? 0 : (device.count ?? 1);
  if (!Number.isInteger(deviceCount) || deviceCount < 0) throw new TypeError(`resources.device.count must be a whole number ≥ 0, got ${deviceCount}`);
  if (processesPerTask > 1 && deviceCount > 0 && deviceCount % processesPerTask !== 0) {
    throw new TypeError(
      `processesPerTask ${processesPerTask} does not divide the replica's ${deviceCount} ${device.kind}s: each process gets an equal share; ask for a multiple`,
    );
  }
  const envVars = env.envVars ?? {};
  for (const [key, value] of Object.entries(envVars)) {
    if (!ENV_NAME.test(key))
      throw new TypeError(`environment variable name ${JSON.stringify(key)} is not allowed: use letters, digits and '_', not starting with a digit`);
    if (typeof value !== "string") throw new TypeError(`environment variable ${key} must be a string, got ${typeof value} (convert it with String())`);
  }
  const npmPackages = stringList(env.npmPackages, "environment.npmPackages");
  for (const spec of npmPackages) {
    if (!NPM_SPEC.test(spec))
      throw new TypeError(`environment.npmPackages: ${JSON.stringify(spec)} is not an npm package spec; write "name", "name@1.2.3" or "@scope/name@^2"`);
  }
  const priority = request.priority ?? 0;
  if (!Number.isInteger(priority)) throw new TypeError(`priority must be a whole number (higher starts first), got ${priority}`);
  const ramBytes = parseSize(r.ram ?? "128m", "resources.ram");
  const diskBytes = parseSize(r.disk ?? "1g", "resources.disk");
  const asked = [
    cpu > 0 && `${cpu} cpu`,
    r.ram !== undefined && `${bytes(ramBytes)} ram`,
    deviceCount > 0 && `${deviceCount}${"variant" in device && device.variant ? ` ${device.variant}` : ""} ${device.kind}`,
    r.disk !== undefined && `${bytes(diskBytes)} disk`,
  ].filter((part) => part !== false);
  return {
    name,
    entrypoint,
    cpu,
    ramBytes,
    ramGiven: r.ram !== undefined,
    diskBytes,
    diskGiven: r.disk !== undefined,
    device,
    deviceCount,
    replicas,
    processesPerTask,
    preemptible: r.preemptible ?? false,
    envVars,
    workspace: env.workspace === undefined ? undefined : directory(env.workspace, name),
    npmPackages,
    setupScripts: stringList(env.setupScripts, "environment.setupScripts"),
    maxRetriesFailure: count(request.maxRetriesFailure ?? 0, "maxRetriesFailure"),
    maxRetriesPreemption: count(request.maxRetriesPreemption ?? 100, "maxRetriesPreemption"),
    maxTaskFailures: count(request.maxTaskFailures ?? 0, "maxTaskFailures"),
    priority,
    request: asked.join(", ") || "none",
  };
}

function count(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 0) throw new TypeError(`${what} must be a whole number ≥ 0, got ${n}`);
  return n;
}

function stringList(list: readonly string[] | undefined, what: string): readonly string[] {
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.some((s) => typeof s !== "string" || s.trim() === ""))
    throw new TypeError(`${what} must be an array of non-empty strings, got ${JSON.stringify(list)}`);
  return [...list];
}

function directory(path: string, job: string): string {
  const full = typeof path === "string" ? resolve(path) : "";
  if (!full || !statSync(full, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`job ${job}: workspace ${path} is not a directory; set environment.workspace to an existing one`);
  }
  return full;
}
