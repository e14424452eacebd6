// What the local cluster schedules on: this machine's cores (the CPUs this
// process may run on), memory and GPUs, or what the cluster spec says instead
// (`local?cpu=8&ram=16g&gpu=2`). Logical cores map onto the real ones
// round-robin, so cpu=8 on 2 real cores is a deliberate oversubscription.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism, totalmem } from "node:os";
import type { ClusterSpec } from "../cluster-spec.ts";

export interface Capacity {
  /** The real CPU of each logical core: `taskset -c` takes these. */
  readonly cores: readonly number[];
  readonly ramBytes: number;
  /** GPU indices 0..gpus-1, as CUDA_VISIBLE_DEVICES names them. */
  readonly gpus: number;
  /** Where each figure came from, for messages: "the machine" or the spec. */
  readonly source: { readonly cpu: string; readonly ram: string; readonly gpu: string };
}

export function localCapacity(overrides: ClusterSpec["capacity"] = {}): Capacity {
  const real = allowedCpus();
  const cpu = overrides.cpu ?? real.length;
  const fromSpec = (given: unknown, what: string) => (given === undefined ? `this machine (${what})` : "the cluster spec");
  return {
    cores: Array.from({ length: cpu }, (_, i) => real[i % real.length]),
    ramBytes: overrides.ramBytes ?? totalmem(),
    gpus: overrides.gpu ?? gpuCount(),
    source: {
      cpu: fromSpec(overrides.cpu, "the CPUs this process may run on"),
      ram: fromSpec(overrides.ramBytes, "its total memory"),
      gpu: fromSpec(overrides.gpu, "nvidia-smi -L"),
    },
  };
}

/** The CPUs this process may run on (its affinity), else 0..availableParallelism-1. */
function allowedCpus(): number[] {
  try {
    const line = /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    const cpus = line ? parseCpuList(line) : [];
    if (cpus.length > 0 && cpus.every(Number.isInteger)) return cpus;
  } catch {
    // no /proc: not Linux
  }
  return Array.from({ length: availableParallelism() }, (_, i) => i);
}

/** A Linux CPU list ("0-2,5" → [0, 1, 2, 5]), as /proc/PID/status and taskset write them. */
export function parseCpuList(text: string): number[] {
  return text
    .trim()
    .split(",")
    .flatMap((range) => {
      const [a, b = a] = range.split("-").map(Number);
      return Array.from({ length: b - a + 1 }, (_, i) => a + i);
    });
}

/** GPUs nvidia-smi lists; 0 without it. */
function gpuCount(): number {
  const listed = spawnSync("nvidia-smi", ["-L"], { encoding: "utf8" });
  if (listed.status !== 0) return 0;
  return listed.stdout.split("\n").filter((l) => l.startsWith("GPU ")).length;
}
