// A client's actor group: the job layer's ActorGroup (waitReady, any, all,
// discoverNew) over members in the cluster's namespace, plus what a client
// asks of the whole group: whether every member has ended, and ending them.
import type { ActorGroup } from "../../job/actors/actor-group.ts";
import type { ActorHandle } from "../../job/actors/actor-handle.ts";
import type { ActorRow } from "../cluster-actors.ts";

export interface GroupLifecycle {
  /**
   * Whether every member has ended: failed to start, failed for good (died or called currentActor().fail() past its
   * maxRestarts), or was killed or shut down. A member still starting, alive or restarting is not done.
   */
  isDone(): Promise<boolean>;
  /** Ends every member (after those still starting have started) and frees their names; isDone() is true after. */
  shutdown(): Promise<void>;
}

/** A client's actor group: see ActorGroup and GroupLifecycle. */
export type ClientActorGroup<T> = ActorGroup<T> & GroupLifecycle;

/** How the group's members stand, as the client saw them start. */
export interface MemberStarts {
  /** Each member's start: its handle, or its failure. */
  readonly starts: (Promise<ActorHandle<object>> | undefined)[];
}

/** Adds isDone() and shutdown() to `group`, whose member i is the namespace actor `${name}-${i}`. */
export function withLifecycle<T>(
  group: ActorGroup<T>,
  name: string,
  members: MemberStarts,
  namespace: { listActors(): Promise<ActorRow[]>; killActor(name: string): Promise<void> },
): ClientActorGroup<T> {
  const settled = new Map<number, boolean>(); // member → started (true) or failed to (false)
  members.starts.forEach((start, i) =>
    start?.then(
      () => settled.set(i, true),
      () => settled.set(i, false),
    ),
  );
  let shutDown = false;
  const lifecycle: GroupLifecycle = {
    async isDone() {
      if (shutDown) return true;
      if (settled.size < group.count) return false; // some member is still starting
      const rows = new Map((await namespace.listActors()).map((r) => [r.name, r]));
      return Array.from({ length: group.count }, (_, i) => i).every((i) => {
        if (!settled.get(i)) return true; // never started
        const row = rows.get(`${name}-${i}`);
        return !row || row.state === "dead";
      });
    },
    async shutdown() {
      shutDown = true;
      await Promise.all(
        members.starts.map(async (start, i) => {
          const started = await start?.then(
            () => true,
            () => false,
          );
          if (!started) return;
          // One already gone (killed elsewhere, failed for good) has nothing left to end.
          await namespace.killActor(`${name}-${i}`).catch((err: unknown) => {
            if (!/there is no actor named/.test((err as Error).message)) throw err;
          });
        }),
      );
    },
  };
  return Object.assign(group, lifecycle);
}
