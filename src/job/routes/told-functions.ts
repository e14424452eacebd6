// The functions each worker's Executor was told of, so that a batch names a
// function told before by a number, not by its URL and export name again: a
// tiny task then costs the head no string to encode and the worker no URL to
// decode (a string of 50-odd characters was a fifth of what a worker allocated
// per task, and most of its decoding).
//
// Each function (code location) has one number in the head, the same for every
// worker and never reused. A batch that tells (it goes one-way, so it surely
// arrives while its worker lives, in order after the batches sent before it)
// names its new functions in full with their numbers, and its worker keeps them;
// a batch sent for an answer (its arguments might not arrive) names new
// functions in full without telling. A worker that died is forgotten: its
// replacement is told afresh. A number a worker was not told of (which would be
// a fault of fray's) fails its tasks saying so; it can never run another function.
// Lanes (thread-lane/thread-lane.ts) always name functions in full.
import type { CodeLocation } from "../../runtime/face/code.ts";
import type { TaskBatch } from "./task-batch.ts";

/** How a batch names its functions: per function, url and exportName; or the number of one told before, and 0. */
export type NamedFunctions = Array<string | number>;

/** What a batch tells its worker: the number of each function it names in full (-1: not told), or null for none. */
export type Telling = number[] | null;

/** The head's side: the number of each function, and which each worker was told of. */
export class ToldFunctions {
  readonly #numbers = new Map<CodeLocation, number>();
  readonly #told: Array<Set<number> | undefined> = [];

  /**
   * The functions of `batch` as worker `worker` is sent them, and what the batch
   * tells (only if `tells`; `commit` it once the batch is on its way).
   */
  name(worker: number, batch: TaskBatch<unknown>, tells: boolean): { fns: NamedFunctions; telling: Telling } {
    const told = this.#told[worker];
    const n = batch.fns.length / 2;
    let fns: NamedFunctions = batch.fns;
    let telling: Telling = null;
    for (let f = 0; f < n; f++) {
      const location = batch.location(f);
      let number = this.#numbers.get(location);
      if (number === undefined) this.#numbers.set(location, (number = this.#numbers.size));
      if (told?.has(number)) {
        if (fns === batch.fns) fns = batch.fns.slice();
        fns[2 * f] = number;
        fns[2 * f + 1] = 0;
      } else if (tells) (telling ??= new Array<number>(n).fill(-1))[f] = number;
    }
    return { fns, telling };
  }

  /** The batch that tells worker `worker` `telling` is on its way. */
  commit(worker: number, telling: readonly number[]): void {
    const told = (this.#told[worker] ??= new Set());
    for (const number of telling) if (number >= 0) told.add(number);
  }

  /** Worker `worker` died: its replacement was told nothing. */
  lost(worker: number): void {
    this.#told[worker] = undefined;
  }
}

/** The worker's side: the functions it was told of, by number. */
export class KnownFunctions {
  readonly #known = new Map<number, readonly [url: string, exportName: string]>();

  /**
   * Rewrites `fns` (as a batch arrived) in place to url, exportName pairs, and
   * keeps those `telling` numbers. A number it was not told of becomes null,
   * null: its tasks fail saying so (unknownFunction).
   */
  resolve(fns: NamedFunctions, telling: Telling): void {
    for (let i = 0; i < fns.length; i += 2) {
      const named = fns[i];
      if (typeof named === "number") {
        const known = this.#known.get(named);
        fns[i] = known ? known[0] : (null as unknown as string);
        fns[i + 1] = known ? known[1] : (null as unknown as string);
      } else if (telling !== null && telling[i / 2] >= 0) this.#known.set(telling[i / 2], [named, fns[i + 1] as string]);
    }
  }
}

/** Why a task named by a number its worker was not told of cannot run (a fault of fray's, reported, never dropped). */
export function unknownFunction(): Error {
  return new Error("this worker was sent a task whose function it was never told of (a bug in fray: please report it); the task did not run");
}
