// Compile-time checks of the Client's typing (fray/cluster) and currentActor() (fray), run by types.test.ts
// through tsc --strict. Every @ts-expect-error line must be an error; everything else must compile.
import { createClient, currentClient, waitAll, type ClientActorGroup, type HostedActor, type JobHandle, type JobStatus } from "../../src/cluster.ts";
import { currentActor, type ActorContext, type ActorHandle, type ObjectRef } from "../../src/job.ts";
import { Counter } from "../fixtures/tasks.ts";

export async function typed(): Promise<void> {
  const client = createClient("local");
  const job: JobHandle = await currentClient().submit({ name: "x", entrypoint: undefined as never }, { adoptExisting: false });
  const status: JobStatus = await job.wait({ timeout: 5, raiseOnFailure: false, streamLogs: (line: string) => void line });
  const statuses: JobStatus[] = await waitAll([job], { timeout: 5 });
  const lines: string[] = await job.logs({ maxLines: 10 });

  // T is inferred from the class: methods, arguments and results are checked.
  const counter = await client.createActor(Counter, [0], { name: "c", actorConfig: { maxRestarts: 1 } });
  const counted: ObjectRef<number> = counter.increment.remote(1);
  const value: number = await client.get(counted);
  const group: ClientActorGroup<Counter> = client.createActorGroup(Counter, [0], 2, { name: "g" });
  const done: boolean = await group.isDone();
  const members: ActorHandle<Counter>[] = await group.waitReady();
  const hosted: HostedActor<Counter> = await client.hostActor(Counter, [0], { name: "h" });
  const fromInstance = await client.hostActor(new Counter(0), [], { name: "i" });
  const again: ObjectRef<number> = fromInstance.handle.increment.remote();
  void [status, statuses, lines, value, done, members, hosted.handle.increment.remote(), again, hosted.shutdown(), group.shutdown()];

  // @ts-expect-error: no such method
  counter.decrement.remote();
  // @ts-expect-error: wrong argument type
  counter.increment.remote("one");
  // @ts-expect-error: constructor arguments are checked
  await client.createActor(Counter, ["zero"]);
  // @ts-expect-error: hostActor needs a name
  await client.hostActor(Counter, [0], {});
  // @ts-expect-error: an instance's handle has its class's methods only
  fromInstance.handle.decrement.remote();
  // @ts-expect-error: wait gives a status, not a JobInfo
  const info: { jobId: string } = await job.wait();
  void info;
}

export class SelfAware {
  ping(): string {
    return "pong";
  }
  async pingSelf(): Promise<void> {
    const me: ActorContext<SelfAware> = currentActor<SelfAware>();
    const pong: ObjectRef<string> = me.handle.ping.remote();
    const index: number = me.index;
    const group: string = me.groupName;
    const signal: AbortSignal = me.shutdownSignal;
    void [pong, index, group, signal];
    // @ts-expect-error: the handle is typed from the class
    me.handle.pong.remote();
    me.fail(new Error("done"));
  }
}
