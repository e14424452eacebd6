/// <reference types="node" preserve="true" />
/**
 * `fray`: the job API — tasks, objects and named actors on interchangeable
 * backends: `sync` (inline, for tests), `threads`, `processes`, `mesh` (any
 * ProcMesh, local or remote) and `auto`. Tasks and actor classes are exported
 * from the user's own modules; workers load them with no registration step.
 *
 * @example
 * ```ts
 * import { createJobContext } from "fray";
 * import { square } from "./tasks.js"; // export function square(x: number) { return x * x; }
 * const ctx = createJobContext("processes", { maxWorkers: 2 });
 * const squares = await ctx.get([1, 2, 3].map((x) => ctx.run(square, x))); // [1, 4, 9]
 * await ctx.shutdown();
 * ```
 * @module fray
 */
export { createJobContext, getJobContext, type JobContextOptions } from "./job/contexts/create.ts";
export {
  withJobContext,
  type ActorClass,
  type JobContext,
  type JobKind,
  type Refs,
  type Resolved,
  type TaskFunction,
  type WaitOptions,
} from "./job/job-context.ts";
export type { ActorGroup, GroupCall, WaitReadyOptions } from "./job/actors/actor-group.ts";
export type { ActorHandle, RemoteMethod } from "./job/actors/actor-handle.ts";
export { ObjectRef } from "./job/objects/object-ref.ts";
export type { ObjectRefStream } from "./job/objects/object-ref-stream.ts";
export type { CancelOptions, ReturnRefs, StreamingFunction, Yielded } from "./job/job-context.ts";
export { ObjectFreedError, ObjectLostError, TaskCancelledError } from "./job/base/errors.ts";
export type { ActorOptions, MultipleReturnsOptions, Resources, StreamingTaskOptions, StreamOptions, TaskOptions } from "./job/base/options.ts";
export { currentActor, type ActorContext } from "./job/actors/current-actor.ts";
