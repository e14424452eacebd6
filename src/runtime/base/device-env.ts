// The environment a proc of a mesh runs with, by torchrun's conventions, so a
// device program (a GPU library, a collective backend) finds its rank and its
// GPU: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, and CUDA_VISIBLE_DEVICES.

/** The variables that say where a process is in its mesh. */
export const RANK_VARS = ["RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"] as const;

/** Where a proc is in its ProcMesh, when it has a process (or thread) to itself. */
export interface ProcPlace {
  /** The proc's rank in the ProcMesh. */
  readonly rank: number;
  /** Procs in the ProcMesh. */
  readonly worldSize: number;
  /** Its index among the procs on its host. */
  readonly localRank: number;
  /** Procs per host. */
  readonly localWorldSize: number;
  /** Its `gpus` coordinate, when the mesh has a `gpus` dimension. */
  readonly gpu: number | null;
}

/**
 * The variables to set for a proc, computed on the host it runs on:
 * `undefined` removes one the parent had (a packed process holds several
 * ranks, so an inherited RANK would be wrong). `place` null: a process shared
 * by several procs gets none of them. A thread gets the rank variables in its
 * own `process.env`, but not CUDA_VISIBLE_DEVICES: native libraries read the
 * process's environment, which all threads share.
 */
export function deviceEnv(place: ProcPlace | null, thread: boolean, inherited = process.env.CUDA_VISIBLE_DEVICES): Record<string, string | undefined> {
  if (!place) return Object.fromEntries(RANK_VARS.map((v) => [v, undefined]));
  const env: Record<string, string | undefined> = {
    RANK: String(place.rank),
    WORLD_SIZE: String(place.worldSize),
    LOCAL_RANK: String(place.localRank),
    LOCAL_WORLD_SIZE: String(place.localWorldSize),
  };
  if (place.gpu !== null && !thread) env.CUDA_VISIBLE_DEVICES = visibleDevice(place.gpu, inherited);
  return env;
}

/**
 * The device a proc with `gpus` coordinate `gpu` sees. A host that already
 * restricts its devices (CUDA_VISIBLE_DEVICES=2,3, as Slurm sets it) gives its
 * `gpu`-th visible device, and one that hides them all (an empty value) gives
 * none; otherwise the device is `gpu` itself.
 */
function visibleDevice(gpu: number, inherited: string | undefined): string {
  if (inherited === undefined) return String(gpu);
  if (inherited.trim() === "") return "";
  const devices = inherited.split(",").map((d) => d.trim());
  if (gpu >= devices.length) {
    throw new RangeError(
      `the proc at gpus ${gpu} needs a GPU, but this host's CUDA_VISIBLE_DEVICES=${inherited} lists ${devices.length}; ` +
        `spawn at most ${devices.length} procs along 'gpus' per host, or widen CUDA_VISIBLE_DEVICES`,
    );
  }
  return devices[gpu];
}

/** `process.env` with `changes` applied (an `undefined` value removes the variable). */
export function envWith(changes: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env, ...changes };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env as Record<string, string>;
}
