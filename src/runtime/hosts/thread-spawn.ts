// Hooks an upper layer adds to every worker thread this process starts (host-agent.ts calls them as it
// starts each): what they add to the thread's workerData, which its code reads there (proc/parent-link.ts),
// and what to call after each message the parent's transport posts to it. The runtime knows nothing of
// what they do with them (the job layer gives each thread a doorbell, job/routes/thread-lane/doorbell.ts).

/** What a hook gives one thread: entries of its workerData, and a call after each post to it (null: none). */
export interface ThreadSpawn {
  readonly workerData: Readonly<Record<string, unknown>>;
  readonly afterPost: (() => void) | null;
}

const hooks: Array<() => ThreadSpawn> = [];

/** Calls `hook` as each worker thread starts from now on. */
export function onThreadSpawn(hook: () => ThreadSpawn): void {
  hooks.push(hook);
}

/** A thread is starting: what every hook gives it, together (one call after each post when only one hook asks for it). */
export function threadSpawning(): ThreadSpawn {
  const workerData: Record<string, unknown> = {};
  const after: Array<() => void> = [];
  for (const hook of hooks) {
    const spawn = hook();
    Object.assign(workerData, spawn.workerData);
    if (spawn.afterPost) after.push(spawn.afterPost);
  }
  const afterPost = after.length <= 1 ? (after[0] ?? null) : () => after.forEach((f) => f());
  return { workerData, afterPost };
}
