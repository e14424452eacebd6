// `fray/mesh`: Monarch-style actor meshes over hosts → processes → actors.
export { Actor, endpoint, type ActorHooks, type EndpointOptions } from "./mesh/actor.ts";
export { Accumulator } from "./mesh/accumulator.ts";
export type { ActorMesh, Endpoints, EndpointOf } from "./mesh/actor-mesh.ts";
export { Channel, Port, PortReceiver } from "./mesh/channel.ts";
export { context, currentRank, currentSize, type ActorInstance, type Context } from "./mesh/context.ts";
export type { Endpoint } from "./mesh/endpoint.ts";
export { ActorError, SupervisionError, type MeshFailure } from "./mesh/errors.ts";
export { setUnhandledFaultHook, type UnhandledFaultHook } from "./runtime/supervision.ts";
export { Extent, Point } from "./mesh/extent.ts";
export { HostMesh, thisHost, thisProc, type SpawnProcsOptions } from "./mesh/host-mesh.ts";
export { attachToWorkers, runWorker, type AttachOptions, type WorkerOptions } from "./mesh/workers.ts";
export { ProcMesh } from "./mesh/proc-mesh.ts";
export type { Range, SliceSpec } from "./mesh/shape.ts";
export { ValueMesh } from "./mesh/value-mesh.ts";
export { SerializationError } from "./wire/errors.ts";
export { NotExportedError } from "./runtime/errors.ts";
export { ProcessJob, type ProcessJobOptions } from "./launchers/process-job.ts";
export { SlurmJob, type SlurmJobOptions } from "./launchers/slurm-job.ts";
