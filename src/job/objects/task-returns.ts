// The refs of a task with several returns (`numReturns`, docs/design/object-store.md): the task runs under an id of
// its own, and return i is the ref `${taskId}.${i}` (as a Ray ObjectID is its task's id and a return index), so the
// head, a worker and the store all name each return without a list going over the wire. Ids made by the runtime are
// letters and digits, so the dot marks a return.

/** The ref ids of the `n` returns of task `taskId`. */
export function returnIds(taskId: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${taskId}.${i}`);
}

/** The task whose return is ref `id`, or null if `id` is no task's return. */
export function taskOfReturn(id: string): string | null {
  const dot = id.lastIndexOf(".");
  return dot > 0 ? id.slice(0, dot) : null;
}

/** `value`, a task's result, as its `n` returns; a TypeError naming task `name`, `n` and what it returned unless it is an array of exactly `n` values. */
export function checkReturns(value: unknown, n: number, name: string): unknown[] {
  if (Array.isArray(value) && value.length === n) return value;
  throw new TypeError(`task ${name} has numReturns: ${n} but returned ${describe(value)}; return an array of exactly ${n} values`);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length} value${value.length === 1 ? "" : "s"}`;
  if (value === null || value === undefined) return String(value);
  if (typeof value !== "object") return `a ${typeof value}`;
  const name = (value as object).constructor?.name;
  return name && name !== "Object" ? `a ${name}` : "an object";
}
