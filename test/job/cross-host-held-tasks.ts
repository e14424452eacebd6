// Tasks for cross-host-held.test.ts: an 8 MiB result, readers that check every element of it, and where each ran.
import { writeFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { getJobContext, type ObjectRef } from "../../src/job.ts";
import { heldShmFiles } from "./held-in-shm-tasks.ts";

/** 8 MiB of doubles: element i is i + fill, so a read that moves, drops or repeats bytes shows. */
export const LENGTH = 1 << 20;

/** The isolated host this process runs on: its address on the bridge (10.x.0.y). */
export function hostIp(): string {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === "IPv4" && a.address.startsWith("10.")) return a.address;
  return "none";
}

/** The large result; first writes `{ pid, host }` of the process that makes it to `tellFile` (on the hosts' shared disk). */
export function bigOn(fill: number, tellFile: string): Float64Array {
  writeFileSync(tellFile, JSON.stringify({ pid: process.pid, host: hostIp() }));
  const out = new Float64Array(LENGTH);
  for (let i = 0; i < LENGTH; i++) out[i] = i + fill;
  return out;
}

/** As bigOn, but the value is put by the task (its worker owns it) and its ref returned, with a small one put too. */
export function putOn(fill: number, tellFile: string): { big: ObjectRef<Float64Array>; small: ObjectRef<string> } {
  const ctx = getJobContext();
  return { big: ctx.put(bigOn(fill, tellFile)), small: ctx.put(`small ${fill}`) };
}

/** As putOn, but the values are results of tasks this one runs: refs this worker owns too, their values held where they ran. */
export function runOn(fill: number, tellFile: string): { big: ObjectRef<Float64Array>; small: ObjectRef<string> } {
  const ctx = getJobContext();
  return { big: ctx.run(bigOn, fill, tellFile), small: ctx.run(smallOf, fill) };
}

export function smallOf(fill: number): string {
  return `small ${fill}`;
}

/** How many elements of `big` are not what bigOn(fill) made (0: read exactly). */
export function wrongElements(big: Float64Array, fill: number): number {
  if (big.length !== LENGTH) return Math.abs(big.length - LENGTH) || 1;
  let wrong = 0;
  for (let i = 0; i < LENGTH; i++) if (big[i] !== i + fill) wrong++;
  return wrong;
}

/** Given the value (its ref resolved before the call): how many elements are wrong, and where it was read. */
export function check(big: Float64Array, fill: number): { host: string; wrong: number } {
  return { host: hostIp(), wrong: wrongElements(big, fill) };
}

/** Given the ref wrapped (so it is not resolved first): reads it with ctx.get inside the task, as check. */
export async function checkByGet(wrapped: { ref: ObjectRef<Float64Array> }, fill: number): Promise<{ host: string; wrong: number }> {
  return check(await getJobContext().get(wrapped.ref), fill);
}

/** Where this task ran, and how many /dev/shm files of held values its process has open. */
export function heldFiles(): { host: string; files: number } {
  return { host: hostIp(), files: heldShmFiles() };
}
