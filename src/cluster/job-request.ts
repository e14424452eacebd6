// Checks a JobRequest once, at launch, and fills in the defaults every backend uses.
import { Entrypoint } from "./entrypoint.ts";
import { parseSize } from "./size.ts";
import type { DeviceConfig, JobRequest } from "./types.ts";

export interface CheckedRequest {
  readonly name: string;
  readonly entrypoint: Entrypoint;
  readonly cpu: number;
  readonly ramBytes: number;
  readonly diskBytes: number;
  readonly device: DeviceConfig;
  readonly deviceCount: number;
  readonly replicas: number;
  readonly preemptible: boolean;
  readonly envVars: Readonly<Record<string, string>>;
  readonly workspace: string;
  readonly maxRetriesFailure: number;
  readonly maxRetriesPreemption: number;
}

const NAME = /^[A-Za-z0-9._-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function checkRequest(request: JobRequest): CheckedRequest {
  if (typeof request !== "object" || request === null) throw new TypeError("launch() takes a JobRequest: { name, entrypoint, resources?, environment? }");
  const { name, entrypoint } = request;
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new TypeError(`job name ${JSON.stringify(name)} is not allowed: use letters, digits, '.', '_' and '-' (no spaces), e.g. "train-run-1"`);
  }
  if (!(entrypoint instanceof Entrypoint)) {
    throw new TypeError("a job's entrypoint must be made with Entrypoint.fromBinary(cmd, args) or Entrypoint.fromCallable(fn, args)");
  }
  const r = request.resources ?? {};
  const cpu = r.cpu ?? 1;
  if (typeof cpu !== "number" || !Number.isFinite(cpu) || cpu < 0) throw new TypeError(`resources.cpu must be a number of cores ≥ 0, got ${cpu}`);
  const replicas = r.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1) throw new TypeError(`resources.replicas must be a whole number ≥ 1, got ${replicas}`);
  const device = r.device ?? { kind: "cpu" };
  if (!["cpu", "gpu", "tpu"].includes(device.kind)) throw new TypeError(`resources.device.kind must be "cpu", "gpu" or "tpu", got ${JSON.stringify(device.kind)}`);
  const deviceCount = device.kind === "cpu" ? 0 : (device.count ?? 1);
  if (!Number.isInteger(deviceCount) || deviceCount < 0) throw new TypeError(`resources.device.count must be a whole number ≥ 0, got ${deviceCount}`);
  const envVars = request.environment?.envVars ?? {};
  for (const [key, value] of Object.entries(envVars)) {
    if (!ENV_NAME.test(key)) throw new TypeError(`environment variable name ${JSON.stringify(key)} is not allowed: use letters, digits and '_', not starting with a digit`);
    if (typeof value !== "string") throw new TypeError(`environment variable ${key} must be a string, got ${typeof value} (convert it with String())`);
  }
  return {
    name,
    entrypoint,
    cpu,
    ramBytes: parseSize(r.ram ?? "128m", "resources.ram"),
    diskBytes: parseSize(r.disk ?? "1g", "resources.disk"),
    device,
    deviceCount,
    replicas,
    preemptible: r.preemptible ?? false,
    envVars,
    workspace: request.environment?.workspace ?? process.cwd(),
    maxRetriesFailure: retries(request.maxRetriesFailure ?? 0, "maxRetriesFailure"),
    maxRetriesPreemption: retries(request.maxRetriesPreemption ?? 100, "maxRetriesPreemption"),
  };
}

function retries(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 0) throw new TypeError(`${what} must be a whole number ≥ 0, got ${n}`);
  return n;
}
