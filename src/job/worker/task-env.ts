// A task's `env` (TaskOptions.env) is seen by that task alone, for its whole
// run. Tasks overlap in one worker — one waits in get() while another runs —
// so setting the real process.env would let them see each other's variables.
// Instead process.env becomes a view that overlays the variables of the task
// whose code is running (AsyncLocalStorage follows it across awaits); reads,
// `in`, Object.keys, delete and child processes spawned with the default env
// all see the overlay. Outside tasks it is the real environment.
import { AsyncLocalStorage } from "node:async_hooks";

/** The running task's variables; `undefined` marks one the task deleted. */
type Overlay = Map<string, string | undefined>;

interface TaskEnvState {
  readonly als: AsyncLocalStorage<Overlay | null>;
  installed: boolean;
}

// One per process even if this module is loaded twice (source and build).
const slot = Symbol.for("fray.job.taskEnv");
const g = globalThis as unknown as Record<symbol, TaskEnvState | undefined>;
const state = (g[slot] ??= { als: new AsyncLocalStorage<Overlay | null>(), installed: false });

/** Runs `fn` with `env` as the task's own variables; a task without env sees none of another task's. */
export function withTaskEnv<T>(env: Readonly<Record<string, string>> | null | undefined, fn: () => T): T {
  if (env && Object.keys(env).length > 0) {
    install();
    return state.als.run(new Map(Object.entries(env).map(([k, v]) => [k, String(v)])), fn);
  }
  return state.installed ? state.als.run(null, fn) : fn();
}

function overlay(key: string | symbol): Overlay | null {
  if (typeof key !== "string") return null;
  const o = state.als.getStore();
  return o?.has(key) ? o : null;
}

/** Replaces process.env with the overlaying view, once per process. */
function install(): void {
  if (state.installed) return;
  state.installed = true;
  const real = process.env;
  process.env = new Proxy(real, {
    get: (target, key) => (overlay(key) ? overlay(key)!.get(key as string) : Reflect.get(target, key)),
    set(target, key, value) {
      const o = overlay(key);
      if (!o) return Reflect.set(target, key, value);
      o.set(key as string, String(value)); // process.env turns values into strings too
      return true;
    },
    deleteProperty(target, key) {
      const o = overlay(key);
      if (!o) return Reflect.deleteProperty(target, key);
      o.set(key as string, undefined);
      return true;
    },
    has: (target, key) => (overlay(key) ? overlay(key)!.get(key as string) !== undefined : Reflect.has(target, key)),
    ownKeys(target) {
      const o = state.als.getStore();
      if (!o) return Reflect.ownKeys(target);
      const keys = new Set(Reflect.ownKeys(target));
      for (const [k, v] of o) {
        if (v === undefined) keys.delete(k);
        else keys.add(k);
      }
      return [...keys];
    },
    getOwnPropertyDescriptor(target, key) {
      const o = overlay(key);
      if (!o) return Reflect.getOwnPropertyDescriptor(target, key);
      const value = o.get(key as string);
      return value === undefined ? undefined : { value, writable: true, enumerable: true, configurable: true };
    },
  });
}
