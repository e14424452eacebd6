/// <reference types="node" preserve="true" />
/**
 * `fray/launchers`: Monarch-style jobs that provision hosts and hand them back as
 * HostMeshes — local worker processes (`ProcessJob`), Slurm nodes (`SlurmJob`),
 * Kubernetes pods (`KubernetesJob`), SkyPilot clusters (`SkyPilotJob`), and
 * simulated hosts for tests of large meshes (`SimulatedJob`). Each takes
 * `meshes` (name → number of hosts); `state()` provisions them once and
 * resolves to a HostMesh per name; `kill()` gives them back.
 *
 * @example
 * ```ts
 * import { ProcessJob } from "fray/launchers";
 * const job = new ProcessJob({ meshes: { trainers: 2 } });
 * const { trainers } = await job.state();                // HostMesh, extent {hosts: 2}
 * const procs = trainers.spawnProcs({ gpus: 2 });        // extent {hosts: 2, gpus: 2}
 * await procs.stop();
 * await job.kill();
 * ```
 * @module fray/launchers
 */
export type { Launcher, LauncherState } from "./launchers/launcher.ts";
export { ProcessJob, type ProcessJobOptions } from "./launchers/process-job.ts";
export { SimulatedJob, type SimulatedJobOptions } from "./launchers/simulated-job.ts";
export { SlurmJob, type SlurmJobOptions } from "./launchers/slurm-job.ts";
export { SkyPilotJob, type SkyPilotJobOptions } from "./launchers/skypilot-job.ts";
export { KubernetesJob, type KubernetesJobOptions, type KubeConfigLike } from "./launchers/kubernetes-job.ts";
export type { ContainerResources, WorkerJobManifest } from "./launchers/kubernetes-manifest.ts";
