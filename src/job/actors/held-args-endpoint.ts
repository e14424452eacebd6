// Actor calls given refs to values held by workers (../objects/held-value.ts): the head sends those arguments as
// their refs, not their bytes, to this builtin endpoint, which every actor on a worker has. It reads each from its
// holder in the actor's own process — through the job's context there, which asks the head where the value is and
// rebuilds it from its task if its holder is lost — and then calls the method, so a large value goes from the worker
// that holds it to the actor without passing through the driver.
import { registerBuiltinEndpoint } from "../../runtime/face/actors.ts";
import { currentContext } from "../base/ambient.ts";

export const HELD_ARGS_ENDPOINT = "fray:job.heldArgs";

registerBuiltinEndpoint(HELD_ARGS_ENDPOINT, async function (this: object, method, args, held) {
  const fn = (this as Record<string, unknown>)[method as string];
  if (typeof fn !== "function") throw new TypeError(`${this.constructor.name} has no method '${method as string}'`);
  const ctx = currentContext() as { get(ref: unknown): Promise<unknown> } | null;
  if (ctx === null) throw new Error(`${this.constructor.name}.${method as string} was given held values outside a job's worker`);
  const values = [...(args as unknown[])];
  await Promise.all((held as number[]).map(async (i) => (values[i] = await ctx.get(values[i]))));
  return await (fn as (...a: unknown[]) => unknown).apply(this, values);
});
