// Actor methods that are async generators, called as streams
// (`handle.method.remoteStreaming(…)`): a builtin endpoint every actor has runs
// the method in the actor's mailbox — holding one of its call slots until the
// generator ends — and sends what it yields to the stream's port at the job's
// head (../streams/stream-pump.ts). The head stops it through a port of the call's own,
// sent first: the mailbox may be busy with this very call.
import { registerBuiltinEndpoint, type PortRef } from "../../runtime/face/actors.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import { asStream } from "../streams/stream-buffer.ts";
import { pump, STREAM_CONTROL } from "../streams/stream-pump.ts";

export const STREAM_ENDPOINT = "fray:job.stream";

registerBuiltinEndpoint(STREAM_ENDPOINT, async function (this: object, method, args, port) {
  const name = `${this.constructor.name}.${method as string}`;
  const fn = (this as Record<string, unknown>)[method as string];
  if (typeof fn !== "function") throw new TypeError(`${this.constructor.name} has no method '${method as string}'`);
  const proc = currentProc();
  let stopped = false;
  const control = proc.openPort(() => (stopped = true));
  try {
    proc.sendToPort(port as PortRef, STREAM_CONTROL, { addr: proc.addr, id: control }, false);
    return await pump(asStream(fn.apply(this, args as unknown[]), name), port as PortRef, () => stopped);
  } finally {
    proc.closePort(control);
  }
});
