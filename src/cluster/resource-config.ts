// Builders for ResourceConfig, as Marin's Fray has them (`ResourceConfig.with_gpu("H100", 8)`):
// `ResourceConfig.withGpu("H100", 8, { cpu: 16 })`. The interface is the type, this object the
// value, so one imported name gives both.
import type { ResourceConfig as Resources } from "./types.ts";

type Rest = Omit<Resources, "device">;

/** What each replica needs (see types.ts); the builders below make one. */
export type ResourceConfig = Resources;

export const ResourceConfig = {
  /** CPU only: `withCpu({ cpu: 4, ram: "8g" })`. */
  withCpu(rest: Rest = {}): Resources {
    return { ...rest, device: { kind: "cpu" } };
  },
  /** `count` GPUs of `variant` ("H100"; "auto": any) per replica. */
  withGpu(variant: string, count = 1, rest: Rest = {}): Resources {
    if (typeof variant !== "string" || variant === "") throw new TypeError(`withGpu needs a GPU variant such as "H100" (or "auto"), got ${JSON.stringify(variant)}`);
    return { ...rest, device: variant === "auto" ? { kind: "gpu", count } : { kind: "gpu", variant, count } };
  },
  /** A TPU slice of `variant` ("v5p-8"), `count` chips per replica. */
  withTpu(variant: string, count?: number, rest: Rest = {}): Resources {
    if (typeof variant !== "string" || variant === "") throw new TypeError(`withTpu needs a TPU variant such as "v5p-8", got ${JSON.stringify(variant)}`);
    return { ...rest, device: count === undefined ? { kind: "tpu", variant } : { kind: "tpu", variant, count } };
  },
} as const;
