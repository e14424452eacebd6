/// <reference types="node" preserve="true" />
/**
 * `fray/mesh`: Monarch-style actor meshes over hosts → processes → actors, with
 * named dimensions, slicing, broadcast and collect, ports, supervision,
 * collectives and RemoteBuffers. Every public method of an exported `Actor`
 * subclass is an endpoint, typed at the call site from the class. The launchers
 * that provision hosts (`ProcessJob`, `SlurmJob`, …) are in `fray/launchers`.
 *
 * @example
 * ```ts
 * import { thisHost } from "fray/mesh";
 * import { Counter } from "./tasks.js"; // export class Counter extends Actor { constructor(public value: number) … incr(by = 1) … get() … }
 * const procs = thisHost().spawnProcs({ gpus: 2 });   // two processes, extent {gpus: 2}
 * const counters = procs.spawn("counters", Counter, 3); // ActorMesh<Counter>
 * counters.incr.broadcast();
 * const values = (await counters.get.call()).values(); // [4, 4]
 * await procs.stop();
 * ```
 * @module fray/mesh
 */
export { Actor, endpoint, type ActorHooks, type EndpointOptions } from "./mesh/actor.ts";
export { Accumulator } from "./mesh/accumulator.ts";
export type { ActorMesh, Endpoints, EndpointOf, MeshMemberName, MeshMembers } from "./mesh/actor-mesh.ts";
export type { RespawnHost, RespawnOptions } from "./mesh/respawn/respawn-options.ts";
export { Channel, Port, PortReceiver } from "./mesh/channel.ts";
export {
  collective,
  type CollectivePath,
  type CollectivePathStats,
  type GroupOptions,
  type NumericArray,
  type ReduceOp,
  type ReduceOptions,
  type RootOptions,
} from "./mesh/collectives/collective.ts";
export { context, currentRank, currentSize, type ActorInstance, type Context } from "./mesh/context.ts";
export type { Endpoint } from "./mesh/endpoint.ts";
export { ActorError, SupervisionError, type MeshFailure } from "./mesh/errors.ts";
export { setUnhandledFaultHook, type UnhandledFaultHook } from "./runtime/face/supervision.ts";
export { Extent, Point } from "./mesh/shape/extent.ts";
export { HostMesh, thisHost, thisProc, type SpawnProcsOptions } from "./mesh/host-mesh.ts";
export { attachToWorkers, runWorker, type AttachOptions, type WorkerOptions } from "./mesh/workers.ts";
export type { TlsFiles } from "./runtime/face/network.ts";
export type { NotEndpointName } from "./runtime/face/actors.ts";
export { ProcMesh } from "./mesh/proc-mesh.ts";
export type { Range, SliceSpec } from "./mesh/shape/shape.ts";
export { RemoteBuffer, BufferBatch, type TransferOptions } from "./mesh/remote-buffer.ts";
export { ValueMesh } from "./mesh/shape/value-mesh.ts";
export { DecodingError, SerializationError } from "./wire/errors.ts";
export { NotExportedError } from "./runtime/face/code.ts";
