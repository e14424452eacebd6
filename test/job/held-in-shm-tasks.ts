// Tasks for held-in-shm.test.ts: a large patterned result that says where it was made, a reader that checks it byte
// for byte, and a probe of what a worker keeps in its heap and in /dev/shm.
import { readdirSync, readlinkSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { getJobContext, type ObjectRef } from "../../src/job.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Byte i of patterned(n, seed): a sequence that does not repeat at any power-of-two stride. */
const byteAt = (i: number, seed: number) => (i * 131 + Math.floor(i / 251) + seed) & 255;

/** `n` bytes, byte i = byteAt(i, seed), with the id of the process that made them. */
export function patterned(n: number, seed: number): { pid: number; bytes: Uint8Array } {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = byteAt(i, seed);
  return { pid: process.pid, bytes };
}

/** The first byte of `value` out of place (-1: none; its length if it is short or long). */
export function firstWrong(value: { bytes: Uint8Array }, n: number, seed: number): number {
  const { bytes } = value;
  if (bytes.byteLength !== n) return Math.min(n, bytes.byteLength);
  for (let i = 0; i < n; i++) if (bytes[i] !== byteAt(i, seed)) return i;
  return -1;
}

/** Reads `wrapped.ref` (patterned(n, seed)) with ctx.get: where it ran, where the value was made, its first byte out of place. */
export async function readPatterned(wrapped: { ref: ObjectRef<{ pid: number; bytes: Uint8Array }> }, n: number, seed: number) {
  const value = await getJobContext().get(wrapped.ref);
  return { pid: process.pid, holder: value.pid, wrong: firstWrong(value, n, seed) };
}

/** This worker, after a garbage collection: its bytes of ArrayBuffers, and the /dev/shm files of held values it has open. */
export async function probe(): Promise<{ pid: number; arrayBuffers: number; shmFiles: number }> {
  gc();
  await new Promise(setImmediate); // V8 frees the collected ArrayBuffers' memory off the main thread: collect again after a turn
  gc();
  return { pid: process.pid, arrayBuffers: process.memoryUsage().arrayBuffers, shmFiles: heldShmFiles() };
}

/** How many /dev/shm files of held values this process has open. */
export function heldShmFiles(): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith("/dev/shm/fray-held-");
    } catch {
      return false; // closed meanwhile
    }
  }).length;
}
