// Whether a value is larger than a limit, estimated without encoding it: typed arrays and ArrayBuffers by their
// bytes, strings by their length, numbers and other leaves as 8 bytes, containers by their elements. The walk
// stops as soon as the limit is passed, so it visits at most limit/8 leaves, however large the value.

/** Whether `value` is estimated to take more than `limit` bytes. */
export function largerThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return typeof value === "string" && value.length > limit;
  return size(value, limit, new Set()) > limit;
}

/** `value`'s estimated bytes, or something above `limit` once it is known to pass it. */
function size(value: unknown, limit: number, seen: Set<object>): number {
  if (typeof value === "string") return value.length;
  if (typeof value !== "object" || value === null) return 8;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value.byteLength;
  if (seen.has(value)) return 0;
  seen.add(value);
  const count = Array.isArray(value) ? value.length : value instanceof Map || value instanceof Set ? value.size : 0;
  if (count * 8 > limit) return limit + 1; // too many elements to be small
  const items: Iterable<unknown> = Array.isArray(value)
    ? value
    : value instanceof Map
      ? [...value.keys(), ...value.values()]
      : value instanceof Set
        ? value
        : Object.values(value);
  let total = 8;
  for (const item of items) {
    total += size(item, limit - total, seen);
    if (total > limit) return total;
  }
  return total;
}
