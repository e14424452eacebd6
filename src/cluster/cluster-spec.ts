// Spec strings name a cluster: "local", "local?dir=/scratch/jobs&cpu=8",
// "slurm?partition=debug&account=lab". Jobs' state lives under `dir`
// (default FRAY_CLUSTER_DIR, else ~/.fray/cluster), so a later process finds them.
// A local cluster's cpu/ram/gpu replace what it detects of the machine.
import { resolve } from "node:path";
import { config } from "./settings.ts";
import { parseSize } from "./size.ts";

export interface ClusterSpec {
  readonly kind: "local" | "slurm";
  readonly dir: string;
  readonly partition?: string;
  readonly account?: string;
  /** local: the capacity to schedule on instead of the machine's (cpu: logical cores, ram: bytes, gpu: devices). */
  readonly capacity?: { readonly cpu?: number; readonly ramBytes?: number; readonly gpu?: number };
}

const OPTIONS: Record<ClusterSpec["kind"], readonly string[]> = { local: ["dir", "cpu", "ram", "gpu"], slurm: ["partition", "account", "dir"] };

export function parseClusterSpec(spec: string): ClusterSpec {
  if (typeof spec !== "string" || spec.trim() === "")
    throw new TypeError(`a cluster spec is a string such as "local" or "slurm?partition=debug", got ${JSON.stringify(spec)}`);
  const [kind, query = ""] = spec.trim().split(/\?(.*)/s, 2);
  if (kind !== "local" && kind !== "slurm") {
    throw new TypeError(`unknown cluster ${JSON.stringify(kind)} in spec ${JSON.stringify(spec)}: use "local" or "slurm?partition=NAME&account=NAME"`);
  }
  const params = new URLSearchParams(query);
  const values: Record<string, string> = {};
  for (const [key, value] of params) {
    if (!OPTIONS[kind].includes(key))
      throw new TypeError(`cluster spec ${JSON.stringify(spec)}: ${kind} has no option ${JSON.stringify(key)}; it takes ${OPTIONS[kind].join(", ")}`);
    if (value === "") throw new TypeError(`cluster spec ${JSON.stringify(spec)}: option ${key} needs a value (${key}=…)`);
    values[key] = value;
  }
  const dir = resolve(values.dir ?? config.clusterDir);
  const whole = (key: string, min: number) => {
    if (values[key] === undefined) return undefined;
    const n = Number(values[key]);
    if (!Number.isInteger(n) || n < min)
      throw new TypeError(`cluster spec ${JSON.stringify(spec)}: option ${key} must be a whole number ≥ ${min}, got ${JSON.stringify(values[key])}`);
    return n;
  };
  const capacity = {
    ...(values.cpu !== undefined && { cpu: whole("cpu", 1) }),
    ...(values.ram !== undefined && { ramBytes: parseSize(values.ram, `cluster spec ${JSON.stringify(spec)}: option ram`) }),
    ...(values.gpu !== undefined && { gpu: whole("gpu", 0) }),
  };
  return { kind, dir, partition: values.partition, account: values.account, ...(Object.keys(capacity).length > 0 && { capacity }) };
}
