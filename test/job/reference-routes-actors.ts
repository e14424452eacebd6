// What test/job/reference-routes.test.ts sends around: a Maker that makes a
// reference of each kind (in the driver, or as an actor of the job), and `use`,
// which uses one wherever it arrived — the driver, a task, an actor, another
// job's driver (reference-routes-driver.ts). Exported, so workers load them.
import { getJobContext, type ActorHandle, type JobContext, type ObjectRef } from "../../src/job.ts";
import type { DistributedArray } from "../../src/array.ts";
import { Actor, Channel, context, RemoteBuffer, thisProc, type ActorMesh, type Port, type PortReceiver } from "../../src/mesh.ts";

export const KINDS = ["objectRef", "actorHandle", "actorMesh", "meshSlice", "port", "remoteBuffer", "distributedArray"] as const;
export type Kind = (typeof KINDS)[number];

/** A reference in a wrapper, so it travels as itself (an ObjectRef given as an argument is resolved before the call), and what using it reads. */
export interface Carried {
  readonly kind: Kind;
  readonly ref: unknown;
  readonly expect: unknown;
}

/** The number `use` sends on a port. */
export const SENT = 7;

/** A mesh actor: rank r (of the mesh spawned) answers square(x) with x² + 1000·r, so a call shows which ranks it reached. */
export class Squares extends Actor {
  square(x: number): number {
    return x * x + 1000 * context().actorInstance.rank.rank;
  }
  /** Rank r's shard of a distributed array: [k, r]. */
  shard(k: number): Float64Array {
    return new Float64Array([k, context().actorInstance.rank.rank]);
  }
}

/** A job actor that says who it is. */
export class Named {
  constructor(readonly tag: string) {}
  whoami(): string {
    return this.tag;
  }
}

/** Makes references, and keeps what must outlive the call that made them (receivers, buffers, arrays, meshes). */
export class Maker {
  readonly #kept: unknown[] = [];
  readonly #receivers = new Map<string, PortReceiver<number>>();

  /** `squares`: a 2-rank mesh (extent {workers: 2}) the driver spawned, to slice and to keep arrays on. */
  constructor(readonly squares: ActorMesh<Squares>) {}

  async make(kind: Kind, tag: string): Promise<Carried> {
    switch (kind) {
      case "objectRef":
        return { kind, ref: getJobContext().put(`value of ${tag}`), expect: `value of ${tag}` };
      case "actorHandle":
        return { kind, ref: await getJobContext().createActor(Named, [tag]), expect: tag };
      case "actorMesh": {
        const mesh = this.#keep(thisProc().spawn(`squares-${tag}`, Squares));
        return { kind, ref: mesh, expect: [49] };
      }
      case "meshSlice":
        return { kind, ref: this.squares.slice({ workers: 1 }), expect: [1049] };
      case "port": {
        const [port, receiver] = Channel.open<number>();
        this.#receivers.set(tag, receiver);
        return { kind, ref: port, expect: "sent" };
      }
      case "remoteBuffer":
        return { kind, ref: this.#keep(new RemoteBuffer(Buffer.from(tag))), expect: tag };
      case "distributedArray": {
        const array = this.#keep(this.squares.shard.rref(tag.length));
        return {
          kind,
          ref: array,
          expect: [
            [tag.length, 0],
            [tag.length, 1],
          ],
        };
      }
    }
  }

  /** What arrived at the port made under `tag`. */
  received(tag: string): Promise<number> {
    return this.#receivers.get(tag)!.recv();
  }

  #keep<T>(value: T): T {
    this.#kept.push(value);
    return value;
  }
}

/** Uses a reference where it arrived, with `ctx` (default: the context running this), and answers what it read. */
export async function use(carried: Carried, ctx: JobContext = getJobContext()): Promise<unknown> {
  const { kind, ref } = carried;
  switch (kind) {
    case "objectRef":
      return ctx.get(ref as ObjectRef<string>);
    case "actorHandle":
      return ctx.get((ref as ActorHandle<Named>).whoami.remote());
    case "actorMesh":
    case "meshSlice":
      return (await (ref as ActorMesh<Squares>).square.call(7)).values();
    case "port":
      (ref as Port<number>).send(SENT);
      return "sent";
    case "remoteBuffer": {
      const buffer = ref as RemoteBuffer;
      const bytes = new Uint8Array(buffer.size);
      await buffer.readInto(bytes);
      return Buffer.from(bytes).toString();
    }
    case "distributedArray":
      return (await (ref as DistributedArray<Float64Array>).gather()).map((shard) => [...shard]);
  }
}

/** A task that uses what it was given. */
export function useInTask(carried: Carried): Promise<unknown> {
  return use(carried);
}

/** An actor of the job that uses what it is given. */
export class User {
  use(carried: Carried): Promise<unknown> {
    return use(carried);
  }
}
