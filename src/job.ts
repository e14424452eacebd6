// `fray`: the job API — tasks, objects and named actors on interchangeable backends.
export { createJobContext, getJobContext, type JobContextOptions } from "./job/create.ts";
export { withJobContext, type JobContext, type JobKind, type Refs, type WaitOptions } from "./job/job-context.ts";
export type { ActorGroup, GroupCall, WaitReadyOptions } from "./job/actors/actor-group.ts";
export type { ActorHandle, RemoteMethod } from "./job/actors/actor-handle.ts";
export { ObjectRef } from "./job/object-ref.ts";
export type { ActorOptions, Resources, TaskOptions } from "./job/options.ts";
