// Actor methods that are async generators, called as streams
// (`handle.method.remoteStreaming(…)`): a builtin endpoint every actor has runs
// the method in the actor's mailbox — holding one of its call slots until the
// generator ends — and sends what it yields to the stream's port at the job's
// head (../streams/stream-pump.ts). The head stops it through the pump's control
// port: the mailbox may be busy with this very call.
import { registerBuiltinEndpoint } from "../../runtime/face/actors.ts";
import { asStream } from "../streams/stream-buffer.ts";
import { pump, type StreamTarget } from "../streams/stream-pump.ts";

export const STREAM_ENDPOINT = "fray:job.stream";

registerBuiltinEndpoint(STREAM_ENDPOINT, async function (this: object, method, args, port) {
  const name = `${this.constructor.name}.${method as string}`;
  const fn = (this as Record<string, unknown>)[method as string];
  if (typeof fn !== "function") throw new TypeError(`${this.constructor.name} has no method '${method as string}'`);
  return await pump(asStream(fn.apply(this, args as unknown[]), name), port as StreamTarget, (told) => told);
});
