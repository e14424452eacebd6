// Actor calls on a job's workers of `processes` and `mesh` (docs/design/object-store.md): the head sends them through
// this builtin endpoint, which every actor on a worker has. Refs given to values held by workers arrive as refs, and
// are read from their holder in the actor's own process — through the job's context there, which asks the head where
// the value is and rebuilds it from its task if its holder is lost — before the method runs; and a result larger than
// FRAY_OBJECT_INLINE_BYTES stays in the actor's process, as a task's does, the head keeping only where it is. So a
// large value goes from the worker that holds it to the actor, and back to whoever reads the result, without passing
// through the driver.
import { registerBuiltinEndpoint } from "../../runtime/face/actors.ts";
import { currentContext } from "../base/ambient.ts";

export const ACTOR_CALL_ENDPOINT = "fray:job.call";

/** A context's method, under a symbol so it is not part of the JobContext API: `value` as this process sends it. */
export const kKept = Symbol("fray.kept");

/** What this endpoint needs of the job's context in the actor's process (worker/remote-context.ts). */
interface CallContext {
  get(ref: unknown): Promise<unknown>;
  /** `value`, made by `name` for ref `refId`, as this process sends it: itself, or its HeldValue if it stays here. */
  [kKept](refId: string, name: string, value: unknown): unknown;
}

registerBuiltinEndpoint(ACTOR_CALL_ENDPOINT, async function (this: object, method, args, held, refId) {
  const name = `${this.constructor.name}.${method as string}`;
  const fn = (this as Record<string, unknown>)[method as string];
  if (typeof fn !== "function") throw new TypeError(`${this.constructor.name} has no method '${method as string}'`);
  const ctx = currentContext() as CallContext | null;
  if (ctx === null) throw new Error(`${name} was called as a job's actor outside a job's worker`);
  const values = [...(args as unknown[])];
  await Promise.all((held as number[]).map(async (i) => (values[i] = await ctx.get(values[i]))));
  return ctx[kKept](refId as string, name, await (fn as (...a: unknown[]) => unknown).apply(this, values));
});
