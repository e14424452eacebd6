// Builders for ResourceConfig, as Marin's Fray has them (`ResourceConfig.with_gpu("H100", 8)`):
// `ResourceConfig.withGpu("H100", 8, { cpu: 16 })`. The interface is the type, this object the
// value, so one imported name gives both.

/** The accelerator each replica needs. */
export type DeviceConfig =
  | { readonly kind: "cpu" }
  | { readonly kind: "gpu"; readonly variant?: string; readonly count?: number }
  | { readonly kind: "tpu"; readonly variant: string; readonly count?: number; readonly topology?: string };

/** What each replica needs. Sizes are strings such as "512m", "4g", "1.5t" (or a number of bytes). */
export interface ResourceConfig {
  /** CPU cores per replica (default: none reserved — on `local` the job is not pinned and shares every core; Slurm gives each replica its least, 1). */
  readonly cpu?: number;
  /** Memory per replica (default "128m"). */
  readonly ram?: string | number;
  /** Scratch disk per replica (default "1g"); Slurm places by it (--tmp), neither backend limits it (JobInfo.notEnforced says so). */
  readonly disk?: string | number;
  readonly device?: DeviceConfig;
  /** Copies of the entrypoint, each with its own FRAY_REPLICA_ID (default 1); `JobRequest.replicas` wins. */
  readonly replicas?: number;
  /** May the scheduler preempt it (Slurm: --requeue)? Default false. */
  readonly preemptible?: boolean;
  /** Cloud regions to run in: refused by `local` and `slurm`, which have none. */
  readonly regions?: readonly string[];
  /** A cloud zone: refused by `local` and `slurm`, which have none. */
  readonly zone?: string;
  /** A container image: refused by `local` and `slurm`, which run on the host as it is. */
  readonly image?: string;
}

/** The fields besides `device`, which each builder sets. @inline */
type Rest = Omit<ResourceConfig, "device">;

export const ResourceConfig = {
  /** CPU only: `withCpu({ cpu: 4, ram: "8g" })`. */
  withCpu(rest: Rest = {}): ResourceConfig {
    return { ...rest, device: { kind: "cpu" } };
  },
  /** `count` GPUs of `variant` ("H100"; "auto": any) per replica. */
  withGpu(variant: string, count = 1, rest: Rest = {}): ResourceConfig {
    if (typeof variant !== "string" || variant === "")
      throw new TypeError(`withGpu needs a GPU variant such as "H100" (or "auto"), got ${JSON.stringify(variant)}`);
    return { ...rest, device: variant === "auto" ? { kind: "gpu", count } : { kind: "gpu", variant, count } };
  },
  /** A TPU slice of `variant` ("v5p-8"), `count` chips per replica. */
  withTpu(variant: string, count?: number, rest: Rest = {}): ResourceConfig {
    if (typeof variant !== "string" || variant === "") throw new TypeError(`withTpu needs a TPU variant such as "v5p-8", got ${JSON.stringify(variant)}`);
    return { ...rest, device: count === undefined ? { kind: "tpu", variant } : { kind: "tpu", variant, count } };
  },
} as const;
