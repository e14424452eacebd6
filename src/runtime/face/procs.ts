// The runtime's face for a process: this process's Proc and the message it is handling, what keeps
// its event loop alive, and how its output is tagged.
export { currentProc, hasProc, serveProc, serveVirtualProc } from "../runtime.ts";
export type { Proc } from "../proc/proc.ts";
export { messageContext, type ActorIdentity, type MessageContext } from "../proc/context.ts";
export { hold, release } from "../base/keep-alive.ts";
export { originTag } from "../output/log-origin.ts";
export { logStreaming } from "../output/output-sink.ts";
