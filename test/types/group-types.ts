// Compile-time checks of ActorGroup<T> typing, run by types.test.ts through tsc.
// Every @ts-expect-error line must be an error; everything else must compile.
import { createJobContext, type ActorGroup, type ActorHandle, type ObjectRef } from "../../src/job.ts";
import { Counter } from "../fixtures/tasks.ts";

export async function typed(): Promise<void> {
  const ctx = createJobContext("sync");
  const group: ActorGroup<Counter> = ctx.createActorGroup(Counter, [0], 3, { name: "g" });
  const handles: ActorHandle<Counter>[] = await group.waitReady(2, { timeout: 5 });
  const all: ObjectRef<number>[] = group.all.increment.remote(1);
  const one: ObjectRef<number> = group.any.increment.remote();
  const values: number[] = await ctx.get(all);
  const count: number = group.readyCount + group.count;
  void [handles, one, values, count, group.discoverNew(), group.handles];

  // @ts-expect-error: no such method
  group.all.decrement.remote();
  // @ts-expect-error: wrong argument type
  group.any.increment.remote("two");
  // @ts-expect-error: all gives one ref per member
  const single: ObjectRef<number> = group.all.increment.remote(1);
  // @ts-expect-error: constructor arguments are checked
  ctx.createActorGroup(Counter, ["zero"], 3);
  // @ts-expect-error: the count is required
  ctx.createActorGroup(Counter, [0]);
  void single;
}
