// Compile-time checks of ActorMesh<T> typing, run by types.test.ts through tsc.
// Every @ts-expect-error line must be an error; everything else must compile.
import { createJobContext } from "../../src/job.ts";
import { Accumulator, attachToWorkers, thisHost, type ActorMesh, type ValueMesh } from "../../src/mesh.ts";
import { InternalNames, Slicer } from "../fixtures/actors.ts";
import { Counter } from "../fixtures/counter.ts";

export async function typed(): Promise<void> {
  const procs = thisHost().spawnProcs({ gpus: 2 });
  const counters: ActorMesh<Counter> = procs.spawn("counters", Counter, 0);
  const all: ValueMesh<number> = await counters.get.call();
  const one: number = await counters.slice({ gpus: 0 }).get.callOne();
  const added: number = await counters.add.choose(2); // explicit response port: Port<number>
  counters.incr.broadcast();
  counters.incr.broadcast(3);
  for await (const v of counters.get.stream()) v.toFixed();
  void [all, one, added];

  // @ts-expect-error: no such endpoint
  counters.decr.broadcast();
  // @ts-expect-error: wrong argument type
  counters.incr.broadcast("two");
  // @ts-expect-error: the port is supplied by the runtime, not the caller
  await counters.add.call(undefined, 2);
  // @ts-expect-error: get returns a number
  const s: string = await counters.get.callOne();
  // @ts-expect-error: constructor arguments are checked too
  procs.spawn("bad", Counter, "zero");
  void s;

  // respawn's host is a HostMesh (of one worker), not an address.
  await counters.respawn(1, { host: attachToWorkers(["tcp://127.0.0.1:22222"]) });
  // @ts-expect-error: a worker's address is not a HostMesh: attachToWorkers([address]) makes one
  await counters.respawn(1, { host: "tcp://127.0.0.1:22222" });

  // Endpoints named like mesh internals are endpoints; mesh members stay members.
  const names = procs.spawn("names", InternalNames);
  const ids: ValueMesh<string> = await names.id.call();
  const shape: string = await names.slice({ gpus: 0 }).shape.callOne();
  const size: number = names.size;
  void [ids, shape, size];
  // @ts-expect-error: Slicer's `slice` method is not an endpoint (spawn refuses the class); slice is the mesh's
  await procs.spawn("slicers", Slicer).slice.call(1);

  // An Accumulator's identity may be a factory; combine sees the factory's type.
  const lists: number[] = await new Accumulator(
    counters.get,
    () => [] as number[],
    (acc, v) => (acc.push(v), acc),
  ).accumulate();
  void lists;

  // Actor handles: methods named like handle internals are methods.
  const ctx = createJobContext("sync");
  const handle = await ctx.createActor(InternalNames);
  const meshName: string = await ctx.get(handle.mesh.remote());
  void meshName;
}
