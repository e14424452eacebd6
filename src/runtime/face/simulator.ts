// The runtime's face for simulated hosts: virtual procs, many of them in one OS process. Loaded only by
// what starts a simulation.
export { startVirtualProc } from "../simulator/virtual-proc.ts";
