// How a client hosts an actor instance it already made (Client.hostActor(instance)):
// the runtime constructs actors from a class and arguments, so the instance waits
// in this table and HostedInstance's constructor hands it back; the actor cell then
// serves the instance's own class's endpoints (actor-cell.ts).

const slot = Symbol.for("fray.cluster.hostedInstances");
const g = globalThis as unknown as Record<symbol, Map<string, object> | undefined>;
/** On globalThis: the compiled and the source copy of this module share one table. */
const waiting = (g[slot] ??= new Map<string, object>());
let next = 0;

/** Puts `instance` where HostedInstance's constructor finds it; returns its id. */
export function offerInstance(instance: object): string {
  const id = `${process.pid}-${next++}`;
  waiting.set(id, instance);
  return id;
}

/** Forgets an instance that was never taken (its spawn failed). */
export function withdrawInstance(id: string): void {
  waiting.delete(id);
}

/** Spawned in the client's own process only: its constructor returns the offered instance. */
export class HostedInstance {
  constructor(id: string) {
    const instance = waiting.get(id);
    if (!instance) throw new Error(`no instance ${id} is offered to host in process ${process.pid}: HostedInstance is for Client.hostActor only`);
    waiting.delete(id);
    return instance as HostedInstance;
  }
}
