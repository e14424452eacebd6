// Resolving refs: arguments given as ObjectRefs become their values before a
// call; `get` maps over arrays and passes plain values through. A job reads
// its own refs from its store, and any other's from the ref's owner: another
// job's head (over the wire), or a sync job's store in this process. A result
// that stayed in its worker is kept as a HeldValue (held-value.ts): `value`
// reads it from its holder, `kept` hands it on unread, for a task to read. A worker's `put`, and a task submitted in a
// worker, are owned by that worker's owner (../worker/worker-owner.ts): read in its process with no message, elsewhere
// asked of it.
import { kMesh } from "../../mesh/actor-mesh.ts";
import { ActorError } from "../../mesh/errors.ts";
import { ObjectLostError } from "../base/errors.ts";
import { LOCAL_WORKER_REFS } from "./owned-refs.ts";
import { HeldValue, readHeld } from "./held-value.ts";
import { waitFor, type ObjectStore } from "./object-store.ts";
import { kOwner, ObjectRef } from "./object-ref.ts";

export class RefReader {
  /** Whether this job's ref `id`, whose holder at `holder` is gone, is made anew (../tasks/lineage.ts); set by the head. */
  onLost: ((id: string, holder: string) => boolean) | null = null;

  /** `self`: the id of this job's HeadActor (null for a sync job), set once it is known. */
  constructor(
    readonly store: ObjectStore,
    public self: string | null = null,
  ) {}

  /** The value of `ref`, from wherever it is kept (a held one read from its holder, or made anew if it was lost and may be). */
  async value(ref: ObjectRef): Promise<unknown> {
    const kept = await this.kept(ref);
    if (!(kept instanceof HeldValue)) return kept;
    return readHeld(
      kept,
      (held) => this.#lost(ref, held),
      () => this.value(ref),
    );
  }

  /** The holder of `ref`'s value `held` is gone: whether its owner makes it anew (or has already). */
  #lost(ref: ObjectRef, held: HeldValue): boolean | Promise<boolean> {
    const owner = ref[kOwner];
    if (owner.head === null) return false;
    if (owner.id === this.self) return this.onLost?.(ref.id, held.buffer.owner) ?? false;
    return owner.head.remoteLost.callOne(ref.id, held.buffer.owner).catch(() => false);
  }

  /** What `ref`'s owner keeps for it: its value, or the HeldValue of a result that stayed in its worker. */
  kept(ref: ObjectRef): Promise<unknown> {
    const owner = ref[kOwner];
    if (owner.head === null) return owner.store.entry(ref.id).promise;
    if (owner.id === this.self) return this.store.entry(ref.id).promise;
    if (owner.putBy !== undefined) {
      const local = LOCAL_WORKER_REFS.get(owner.id);
      if (local) return local.kept(ref.id);
    }
    return owner.head.remoteGet.callOne(ref, null).catch((err: unknown) => {
      if (err instanceof ActorError) throw err.cause; // the owner's answer: the task's own error
      const addr = owner.head[kMesh].addrs[0];
      // The owner's process, where the ref was made, is gone, and so is what it knew of the value.
      const why = (err as Error).message;
      if (owner.putBy !== undefined) throw new ObjectLostError(`${ref}`, "put", owner.putBy, why, { cause: err, holder: addr, ownerGone: true });
      throw new Error(
        `${ref} is kept by another job, whose driver at ${addr} cannot answer (${(err as Error).message}): a ref lives as long ` +
          `as the job that made it; keep that job running while its refs are used`,
        { cause: err },
      );
    });
  }

  /**
   * The promise of `ref`'s entry while this job has not made its value yet (a nested task's too, whose ref its
   * worker's owner keeps, while its task runs here); null once settled, and for another job's ref.
   */
  pending(ref: ObjectRef): Promise<unknown> | null {
    const owner = ref[kOwner];
    if (owner.head === null) return null;
    if (owner.id !== this.self && !this.store.forwarding(ref.id)) return null;
    const entry = this.store.entry(ref.id);
    return entry.settled ? null : entry.promise;
  }

  /** `args` with each ObjectRef among them replaced by its value. */
  all(args: readonly unknown[]): Promise<unknown[]> {
    return Promise.all(args.map((a) => (a instanceof ObjectRef ? this.value(a) : a)));
  }

  /** `args` with each ObjectRef among them replaced by what its owner keeps: a task's arguments, which it reads itself. */
  allKept(args: readonly unknown[]): Promise<unknown[]> {
    return Promise.all(args.map((a) => (a instanceof ObjectRef ? this.kept(a) : a)));
  }

  /**
   * A task's arguments as it gets them: a ref a worker's owner keeps (a put, a nested task's) as it is, for the task's
   * worker to ask that owner (which rebuilds a lost one it can); any other replaced by what its owner keeps.
   */
  forTask(args: readonly unknown[]): Promise<unknown[]> {
    return Promise.all(args.map((a) => (!(a instanceof ObjectRef) ? a : a[kOwner].head !== null && a[kOwner].putBy !== undefined ? a : this.kept(a))));
  }

  /** `wait`: which of `refs` are ready (at most `numReturns`, the first to settle), and which are not, after at most `timeoutMs`. */
  async wait(refs: readonly ObjectRef[], numReturns: number, timeoutMs: number | undefined): Promise<[ObjectRef[], ObjectRef[]]> {
    const byId = new Map(refs.map((r) => [r.id, r]));
    const [ready, pending] = await waitFor([...byId.keys()], (id) => this.kept(byId.get(id)!), numReturns, timeoutMs);
    return [ready.map((id) => byId.get(id)!), pending.map((id) => byId.get(id)!)];
  }

  /** `get`: a ref's value, an array's values, any other value as it is. */
  get(value: unknown): Promise<unknown> {
    if (value instanceof ObjectRef) return this.value(value);
    if (Array.isArray(value)) return Promise.all(value.map((v) => this.get(v)));
    return Promise.resolve(value);
  }
}
