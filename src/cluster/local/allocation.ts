// Which cores, GPUs and how much memory a job gets, out of what the jobs
// already running hold. A core is 1000 millicores: a replica asking 2.5 cpu
// gets two whole free cores and half of a third, shared with other fractions.
import { bytes } from "../size.ts";
import type { Capacity } from "./capacity.ts";

/** What a job asks for, per replica. */
export interface Need {
  readonly replicas: number;
  readonly cpu: number;
  readonly ramBytes: number;
  readonly gpus: number;
}

export interface ReplicaGrant {
  /** Logical cores (indices into Capacity.cores) and the millicores taken of each. */
  readonly cores: readonly { readonly core: number; readonly millis: number }[];
  readonly gpus: readonly number[];
}

export interface Grant {
  readonly replicas: readonly ReplicaGrant[];
  readonly ramBytes: number;
}

/** The first resource that does not fit: what was asked, what is free, what there is. */
export interface Shortage {
  readonly resource: "cpu" | "ram" | "gpu";
  readonly asked: string;
  readonly free: string;
  readonly total: string;
}

const MILLIS = 1000;

export function allocate(need: Need, capacity: Capacity, held: readonly Grant[]): Grant | Shortage {
  const used = capacity.cores.map(() => 0);
  const gpusUsed = new Set<number>();
  let ramUsed = 0;
  for (const grant of held) {
    ramUsed += grant.ramBytes;
    for (const r of grant.replicas) {
      for (const { core, millis } of r.cores) if (core < used.length) used[core] += millis;
      for (const g of r.gpus) gpusUsed.add(g);
    }
  }
  const times = need.replicas > 1 ? `${need.replicas} × ` : "";
  const freeMillis = used.reduce((n, u) => n + Math.max(0, MILLIS - u), 0);
  const cpuShort: Shortage = { resource: "cpu", asked: `${times}${need.cpu} cpu`, free: `${round(freeMillis / MILLIS)}`, total: `${capacity.cores.length}` };
  const ramTotal = need.replicas * need.ramBytes;
  if (ramTotal > capacity.ramBytes - ramUsed)
    return {
      resource: "ram",
      asked: `${times}${bytes(need.ramBytes)} ram`,
      free: bytes(Math.max(0, capacity.ramBytes - ramUsed)),
      total: bytes(capacity.ramBytes),
    };
  const replicas: ReplicaGrant[] = [];
  const freeGpus = Array.from({ length: capacity.gpus }, (_, i) => i).filter((g) => !gpusUsed.has(g));
  if (need.replicas * need.gpus > freeGpus.length)
    return { resource: "gpu", asked: `${times}${need.gpus} gpu`, free: `${freeGpus.length}`, total: `${capacity.gpus}` };
  const whole = Math.floor(need.cpu);
  const fraction = Math.round((need.cpu - whole) * MILLIS);
  for (let i = 0; i < need.replicas; i++) {
    const cores: { core: number; millis: number }[] = [];
    for (let c = 0; c < used.length && cores.length < whole; c++) if (used[c] === 0) cores.push({ core: c, millis: MILLIS });
    if (cores.length < whole) return cpuShort;
    for (const { core } of cores) used[core] = MILLIS;
    if (fraction > 0) {
      // The fullest core that still has room: fractions pack together and whole cores stay free.
      let best = -1;
      for (let c = 0; c < used.length; c++) if (used[c] + fraction <= MILLIS && (best < 0 || used[c] > used[best])) best = c;
      if (best < 0) return cpuShort;
      used[best] += fraction;
      cores.push({ core: best, millis: fraction });
    }
    replicas.push({ cores, gpus: freeGpus.splice(0, need.gpus) });
  }
  return { replicas, ramBytes: ramTotal };
}

export function isShortage(x: Grant | Shortage): x is Shortage {
  return "resource" in x;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Throws, at launch, for a job no capacity could ever hold: it would wait forever. */
export function checkFits(jobName: string, need: Need, capacity: Capacity): void {
  const shortage = allocate(need, capacity, []);
  if (!isShortage(shortage)) return;
  const { resource } = shortage;
  const source = capacity.source[resource];
  const spec = resource === "ram" ? "ram=SIZE" : `${resource}=N`;
  const oversubscribe = resource === "cpu" ? ", which oversubscribes the real cores" : "";
  throw new RangeError(
    `job ${jobName} asks for ${shortage.asked} but the local cluster has ${shortage.total} ${resource === "ram" ? "of ram" : resource} (from ` +
      `${source}), so it could never start; ask for less, or set the capacity in the cluster spec ("local?${spec}"${oversubscribe})`,
  );
}
