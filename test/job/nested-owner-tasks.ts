// Tasks for nested-owner.test.ts: tasks that run tasks of their own (nested: their refs are owned by the parent's
// worker), read their values there and hand their refs on, and probes of the worker's owner.
import { threadId } from "node:worker_threads";
import { getJobContext, type ObjectRef } from "../../src/job.ts";
import { LOCAL_WORKER_REFS } from "../../src/job/objects/owned-refs.ts";
import { check, filled } from "./put-owner-tasks.ts";

/** `n` doubles of `fill`, and where they were made. */
export function made(n: number, fill: number): { data: Float64Array; pid: number } {
  return { data: filled(n, fill), pid: process.pid };
}

/** Runs filled(n, fill) as a nested task and gets its value here. */
export async function runAndGet(n: number, fill: number): Promise<{ id: string; exact: boolean }> {
  const ctx = getJobContext();
  const ref = ctx.run(filled, n, fill);
  const [ready] = await ctx.wait([ref]);
  const got = await ctx.get(ref);
  return { id: ref.id, exact: ready[0] === ref && got.length === n && got.every((x) => x === fill) };
}

/** Runs filled(n, fill) as a nested task; returns its ref (wrapped, so it arrives as a ref) and this process's id. */
export function runHere(n: number, fill: number): { ref: ObjectRef<Float64Array>; pid: number } {
  return { ref: getJobContext().run(filled, n, fill), pid: process.pid };
}

/**
 * As runHere, for made(n, fill) with `maxRetries`: its submit goes out (its function located) before this task ends,
 * so while this task holds its worker the head places it on another, if one is free.
 */
export async function runMade(n: number, fill: number, maxRetries: number): Promise<{ ref: ObjectRef<{ data: Float64Array; pid: number }>; pid: number }> {
  const ref = getJobContext().createTask(made, [n, fill], { maxRetries });
  await new Promise((resolve) => setImmediate(resolve));
  return { ref, pid: process.pid };
}

/** Runs a nested task with two returns, gets both here, and says how many entries this worker's owners keep meanwhile. */
export async function runReturns(): Promise<{ values: number[]; owned: number }> {
  const ctx = getJobContext();
  const [a, b] = ctx.createTask(pair, [], { numReturns: 2 });
  const values = await ctx.get([a, b]);
  return { values, owned: ownedHere() };
}

export function pair(): [number, number] {
  return [1, 2];
}

/** Submits `n` nested tasks filled(1, i) from this task, gets them, and returns their sum. */
export async function runMany(n: number): Promise<number> {
  const ctx = getJobContext();
  const refs = Array.from({ length: n }, (_, i) => ctx.run(filled, 1, i));
  let sum = 0;
  for (const v of await ctx.get(refs)) sum += v[0];
  return sum;
}

/** How many entries the owners of this worker keep. */
export function ownedHere(): number {
  let n = 0;
  for (const puts of LOCAL_WORKER_REFS.values()) n += puts.size;
  return n;
}

/** Where this task runs: its process and thread. */
export function where(): string {
  return `${process.pid}.${threadId}`;
}

/** Runs filled(n, fill) and, given its ref before it is made, check(ref, n, fill) as nested tasks: the second's result. */
export async function runChained(n: number, fill: number): Promise<{ pid: number; worker: string; exact: boolean }> {
  const ctx = getJobContext();
  const made = ctx.run(filled, n, fill);
  return ctx.get(ctx.run(check, made, n, fill));
}

/** Waits until it is cancelled. */
export function untilCancelled(): Promise<void> {
  const { signal } = getJobContext();
  return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error)));
}

/** Cancels a nested task through its owner: what its get then rejects with, and how many entries the owner kept for it. */
export async function cancelNested(): Promise<{ error: string; owned: number }> {
  const ctx = getJobContext();
  const ref = ctx.run(untilCancelled);
  const owned = ownedHere();
  await ctx.cancel(ref);
  const error = await ctx.get(ref).then(
    () => "resolved",
    (err: Error) => err.name,
  );
  return { error, owned };
}

/** Runs three nested tasks in one turn, the second with an argument that cannot be sent: what each gives. */
export async function runWithOneUnsendable(): Promise<string[]> {
  const ctx = getJobContext();
  const refs = [ctx.run(filled, 1, 3), ctx.run(filled, (() => 1) as never, 0), ctx.run(filled, 1, 4)];
  return Promise.all(
    refs.map((ref) =>
      ctx.get(ref).then(
        (v) => String(v[0]),
        (err: Error) => err.name,
      ),
    ),
  );
}

/** Reads a ref of made()'s value with get: where it was made, and whether it is `n` doubles of `fill`. */
export async function readMade(
  wrapped: { ref: ObjectRef<{ data: Float64Array; pid: number }> },
  n: number,
  fill: number,
): Promise<{ pid: number; exact: boolean }> {
  const { data, pid } = await getJobContext().get(wrapped.ref);
  return { pid, exact: data.length === n && data.every((x) => x === fill) };
}

/** made(n, fill) twice, as two returns. */
export function madePair(n: number, fill: number): [{ data: Float64Array; pid: number }, { data: Float64Array; pid: number }] {
  return [made(n, fill), made(n, fill + 1)];
}

/** As runMade, for madePair as a nested task with two returns. */
export async function runPairMade(
  n: number,
  fill: number,
  maxRetries: number,
): Promise<{ refs: Array<ObjectRef<{ data: Float64Array; pid: number }>>; pid: number }> {
  const refs = getJobContext().createTask(madePair, [n, fill], { numReturns: 2, maxRetries });
  await new Promise((resolve) => setImmediate(resolve));
  return { refs, pid: process.pid };
}

/** The pid of the process it runs in (given a value, which it ignores). */
export function pidWith(_value: unknown): number {
  return process.pid;
}

/**
 * Runs made(n, 1) as a nested task, waits for it, then a nested reader given its ref: where the value was made and
 * where the reader ran, and this process.
 */
export async function runNear(n: number): Promise<{ holder: number; reader: number; parent: number }> {
  const ctx = getJobContext();
  const ref = ctx.run(made, n, 1);
  await new Promise((resolve) => setImmediate(resolve)); // its submit goes out while this task holds its worker
  await ctx.wait([ref]);
  const reader = await ctx.get(ctx.run(pidWith, ref));
  return { holder: (await ctx.get(ref)).pid, reader, parent: process.pid };
}

export function one(): number {
  return 1;
}

/** Gets a nested task that asks for a whole cpu, as this task does: it runs only on the cpu this task lends it. */
export async function parentWholeCpu(): Promise<number> {
  const ctx = getJobContext();
  return ctx.get(ctx.createTask(one, [], { resources: { cpu: 1 } }));
}
