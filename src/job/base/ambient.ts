// The ambient job context: tasks and actor methods see the context that ran them, so nested tasks work. The slot
// is shared by every copy of this module in a process (a global symbol) and holds the context as an opaque object:
// ../job-context.ts gives it its type, and files below the JobContext contract (actor handles that arrive in a worker,
// say) ask only whether it offers what they need.
import { AsyncLocalStorage } from "node:async_hooks";

const slot = Symbol.for("fray.job.context");
const g = globalThis as unknown as Record<symbol, { als: AsyncLocalStorage<object>; processDefault: object | null } | undefined>;
/** The context running this code (`als`), else the one of this worker process (`processDefault`: its Executor's). */
export const ambient = (g[slot] ??= { als: new AsyncLocalStorage<object>(), processDefault: null });

/** The context running this code, or this process's default, or null. */
export function currentContext(): object | null {
  return ambient.als.getStore() ?? ambient.processDefault;
}

/** The signal of code that no cancel can reach (a driver, an actor). */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;
