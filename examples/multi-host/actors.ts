// The actor of the multi-host example: one per proc, on every host. Every host
// loads this module from the same path, so the code must be there (a shared home,
// or the same checkout on every machine).
import { hostname } from "node:os";
import { Actor, collective, context } from "fray/mesh";

export interface Place {
  rank: number;
  coords: Record<string, number>;
  host: string;
  pid: number;
  /** The process that started this one: the host's `fray worker`. */
  worker: number;
}

export class Rank extends Actor {
  readonly me = context().actorInstance.rank;

  where(): Place {
    return { rank: this.me.rank, coords: { ...this.me.coords }, host: hostname(), pid: process.pid, worker: process.ppid };
  }

  /** allReduce (sum) of `length` floats, each rank's all `rank + 1`; answers with the one value every element holds, or NaN. */
  async sumOfRanks(length: number, dims: string[] | undefined = undefined): Promise<number> {
    const values = new Float32Array(length).fill(this.me.rank + 1);
    await collective.allReduce(values, { dims });
    return values.every((v) => v === values[0]) ? values[0] : NaN;
  }

  /** allGather of each rank's own rank number: the group's ranks, in group order. */
  async gatherRanks(): Promise<number[]> {
    return [...(await collective.allGather(new Float64Array([this.me.rank])))];
  }

  /** broadcast of `length` floats from `root`, whose elements hold 42; the others' hold their rank. What this rank holds after. */
  async fromRoot(root: number, length: number): Promise<number> {
    const values = new Float32Array(length).fill(this.me.rank === root ? 42 : this.me.rank);
    await collective.broadcast(values, { root });
    return values.every((v) => v === values[0]) ? values[0] : NaN;
  }
}
