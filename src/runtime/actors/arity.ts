// The arity rule for calls that run elsewhere (tasks, actor methods, endpoints):
// a call gives at least the function's required parameters — those before the
// first one with a default value or a rest parameter, which is what
// Function.length counts. More arguments are fine, as in JavaScript. Checked
// at the call, so a missing argument is an error there, not a NaN later.

/** Throws a TypeError naming `what` when `given` arguments are fewer than `fn` requires (less `skip` it is given itself). */
export function checkArity(fn: Function, given: number, what: string, skip = 0): void {
  const required = fn.length - skip;
  if (given < required) {
    throw new TypeError(`${what} expects at least ${required} argument${required === 1 ? "" : "s"}, got ${given}`);
  }
}

/** How calls name a task function: its name, or what it is when it has none. */
export function functionLabel(fn: Function): string {
  return fn.name || "the task function";
}

/** Checks a call of `Class`'s method `method`, when the class is known and has that method. */
export function checkMethodArity(Class: Function | undefined, method: string, args: readonly unknown[]): void {
  const fn = (Class?.prototype as Record<string, unknown> | undefined)?.[method];
  if (typeof fn === "function") checkArity(fn, args.length, `${Class!.name}.${method}`);
}
