// The runtime's face for starting procs: worker processes and threads on this host, remote hosts'
// agents that start them there, and the devices a proc is placed on.
export { startProc, workerExecArgv, type ProcHandle, type WorkerEntry } from "../hosts/host-agent.ts";
export { serveHostAgent, startRemoteProcs } from "../hosts/remote-agent.ts";
export { deviceEnv, type ProcPlace } from "../base/device-env.ts";
