// The runtime's face for supervision: the meshes a process owns, their failures and who hears of them.
export { askMeshAddrs, SUPERVISOR, splitKey, type MemberSnapshot, type MeshSnapshot } from "../supervision/supervisor.ts";
export { setUnhandledFaultHook, SupervisionError, type MeshFailure, type UnhandledFaultHook } from "../supervision/supervision.ts";
export { causeChain, type FailureRecord } from "../supervision/failure-history.ts";
export { describeProcessExit, processExitIn, type ProcessExit } from "../supervision/process-exit.ts";
