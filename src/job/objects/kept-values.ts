// What a worker sends the head for a value it made (a task's result, one of its returns, an actor call's result): the
// value itself when it is small, or the HeldValue it is kept as in this process when it is larger than
// FRAY_OBJECT_INLINE_BYTES (docs/design/object-store.md) — so the head keeps only where it is. And what the owner of a
// `put` keeps (keptPut): the driver's head, or a worker's owner.
import { config } from "../base/settings.ts";
import type { HeldLayout } from "./held-encoding.ts";
import { HeldValue } from "./held-value.ts";
import { checkReturns, returnIds } from "./task-returns.ts";
import { largerThan } from "./value-size.ts";

/**
 * Ref `refId`'s value, made by `name`, as this process sends it: the value, or, if it is large and this process holds
 * values (`holder`, its worker index, ≥ 0), its HeldValue; throws if this process's store cannot take it (held-bytes.ts).
 */
export function keptValue(holder: number, refId: string, name: string, value: unknown): unknown {
  if (holder < 0 || !largerThan(value, config.objectInlineBytes)) return value;
  let encoded: HeldLayout;
  try {
    encoded = HeldValue.encode(name, value);
  } catch {
    return value; // one the codec cannot encode: sending it fails, and says why, as it does for any value
  }
  return HeldValue.hold(refId, name, holder, encoded);
}

/** The holder index of a value the driver holds (a `put` there): no worker's. */
export const DRIVER_HOLDER = -1;

/**
 * What the owner of `put(value)` keeps — the driver's head on `processes` and `mesh` (`holder` DRIVER_HOLDER), or a
 * worker's owner (`holder`: its index, ../worker/worker-owner.ts): a value larger than FRAY_OBJECT_INLINE_BYTES
 * is held in this process as a worker holds a large result (in /dev/shm, under FRAY_OBJECT_STORE_BYTES), so a
 * task given its ref reads it from there — one copy from /dev/shm on this host — instead of receiving it inside its
 * call, and `put` takes its snapshot now. A smaller value, one holding refs or other handles (kept alive by the owner
 * keeping it), or one the store cannot take (larger than the cap, a spill that fails), is kept as it is, as before.
 */
export function keptPut(refId: string, value: unknown, holder = DRIVER_HOLDER): unknown {
  if (!largerThan(value, config.objectInlineBytes)) return value;
  try {
    const layout = HeldValue.encode("put", value);
    // Refs and handles in it stay alive (counted, their buffers kept) only while the owner keeps the value itself.
    if (layout.handles > 0) return value;
    return HeldValue.hold(refId, "put", holder, layout);
  } catch {
    return value; // not encodable (a task given it says why, as before), or no room: the head keeps the value itself
  }
}

/**
 * The `n` returns of task `taskId` (numReturns), each as keptValue keeps it under its return's ref id; throws (keeping
 * none) unless `value` is an array of `n` that fits.
 */
export function keptReturns(holder: number, taskId: string, name: string, value: unknown, n: number): unknown[] {
  const values = checkReturns(value, n, name);
  const ids = returnIds(taskId, n);
  const kept: unknown[] = [];
  try {
    for (const [i, v] of values.entries()) kept.push(keptValue(holder, ids[i], name, v));
  } catch (err) {
    for (const k of kept) if (k instanceof HeldValue) k.free();
    throw err;
  }
  return kept;
}
