// msgpackr, one instance per process. Its extension table belongs to an instance, and two copies of fray
// in a process (compiled and source: a `fray worker` from dist running a TypeScript actor) must read and
// write each other's handles: the first copy to load leaves its msgpackr on globalThis, and every copy
// uses that one. The compiled runtime carries msgpackr in its bundle (scripts/bundle-runtime.ts), so a
// worker starts it from V8's code cache instead of resolving and compiling its modules (benchmark P6).
import * as own from "msgpackr/pack";

const SHARED = Symbol.for("fray.wire.msgpackr");
const msgpackr = ((globalThis as unknown as Record<symbol, typeof own | undefined>)[SHARED] ??= own);

export const Packr = msgpackr.Packr;
export const addExtension = msgpackr.addExtension;
