// Failures and where they go. Whoever spawns a mesh owns it; a failed rank
// becomes one MeshFailure delivered to the owner's `supervise()`. Unhandled,
// it goes to the owner's owner, and at the root (a client, which has no
// `supervise`) to the unhandled-fault hook.

/** One failed rank of a mesh, as delivered to its owner's `supervise()`. */
export interface MeshFailure {
  /** The name the mesh was spawned with. */
  readonly meshName: string;
  /** The failed rank, in the mesh's spawned extent. */
  readonly rank: number;
  /** Why it failed: the endpoint's error, "process … was killed by SIGKILL", the abort reason, … */
  readonly cause: Error;
  /** A human-readable account, as the default hook logs it. */
  readonly report: string;
}

/** Errors of supervision: the actor or process a call needed failed or stopped. */
export { SupervisionError } from "../base/errors.ts";

export type UnhandledFaultHook = (failure: MeshFailure) => void;

/**
 * The default hook logs the failure and exits with status 1: an unhandled
 * failure means part of the program is gone, and carrying on silently would
 * compute wrong results. Install another with `setUnhandledFaultHook`, or
 * handle failures in the owning actor's `supervise()`.
 */
function logAndExit(failure: MeshFailure): void {
  console.error(
    `fray: unhandled failure, exiting with status 1:\n${failure.report}\n` +
      "Handle it in the owner's supervise(), or install a hook with setUnhandledFaultHook(fn).",
  );
  process.exit(1);
}

let hook: UnhandledFaultHook = logAndExit;

/** Sets what happens to failures nobody handled; returns the previous hook. */
export function setUnhandledFaultHook(fn: UnhandledFaultHook): UnhandledFaultHook {
  const previous = hook;
  hook = fn;
  return previous;
}

export function unhandledFault(failure: MeshFailure): void {
  hook(failure);
}

export function meshFailure(meshName: string, rank: number, cause: Error): MeshFailure {
  const chain: string[] = [];
  for (let e: unknown = cause; e instanceof Error && chain.length < 10; e = e.cause) chain.push(`${e.name}: ${e.message}`);
  return { meshName, rank, cause, report: `mesh '${meshName}' rank ${rank} failed: ${chain.join("\n  caused by ")}` };
}
