// The encoded shape of a cast, made once per tree and reused. A cast carries
// its run's processes (`t`: addresses, members, ranks — the same every time
// the same mesh is called) as bytes encoded once, and the call's number at
// each of them (`q`) run-length encoded: usually one pair, since calls to a
// whole mesh keep the numbers of its processes in step. A relay keeps what it
// decoded of a tree and the bytes of its subtrees under the tree's id (`tid`).
import { decodePlain, encodePlain } from "../../wire/codec.ts";
import { subtrees } from "./cast-tree.ts";
import type { CastPart } from "../base/messages.ts";

/** A run of a tree: its head gets the cast, runs its own part and forwards the rest. */
export interface Run {
  readonly head: string;
  readonly parts: readonly CastPart[];
  /** `parts` encoded, as a Cast's `t`. */
  readonly t: Uint8Array;
  /** The run's id in the tree of its origin, if it is kept (casts with an id can be remembered by relays). */
  readonly tid?: string;
}

/** Splits `parts` into the runs of a tree with `fanout`; `tid`: the tree's id, making each run's `${tid}.${i}`. */
export function runsOf(parts: readonly CastPart[], fanout: number, tid?: string): Run[] {
  return subtrees(parts, fanout).map((run, i) => ({ head: run[0][0], parts: run, t: encodePlain(run), ...(tid === undefined ? {} : { tid: `${tid}.${i}` }) }));
}

/** What a relay keeps of a run it heads: its own part, and the runs it forwards. */
export interface Relayed {
  readonly own: CastPart;
  readonly runs: readonly Run[];
}

/** Bounds a relay's memory of trees; past it, it forgets them all and learns them again. */
const MAX_REMEMBERED = 4_096;

export class RelayPlans {
  #known = new Map<string, Relayed>();

  /** The run that came as `t` (remembered under `origin` and `tid`, if given), split for forwarding with `fanout`. */
  plan(origin: string, tid: string | undefined, t: Uint8Array, fanout: number): Relayed {
    const key = tid === undefined ? undefined : `${origin} ${tid} ${fanout}`;
    const known = key === undefined ? undefined : this.#known.get(key);
    if (known) return known;
    const parts = decodePlain(t) as CastPart[];
    const relayed: Relayed = { own: parts[0], runs: parts.length > 1 ? runsOf(parts.slice(1), fanout, tid) : [] };
    if (key !== undefined) {
      if (this.#known.size >= MAX_REMEMBERED) this.#known.clear();
      this.#known.set(key, relayed);
    }
    return relayed;
  }

  /** Forgets the trees of `origin` (it is gone). */
  forget(origin: string): void {
    for (const key of this.#known.keys()) if (key.startsWith(`${origin} `)) this.#known.delete(key);
  }
}

/** Run-length encodes numbers: [value, count, value, count, …]. */
export function runLengths(values: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    if (i > 0 && values[i] === values[i - 1]) out[out.length - 1]++;
    else out.push(values[i], 1);
  }
  return out;
}

/** The numbers of `runLengths`, from index `from`, `count` of them. */
export function expandRunLengths(encoded: readonly number[], from = 0, count = Infinity): number[] {
  const out: number[] = [];
  let at = 0;
  for (let i = 0; i < encoded.length && out.length < count; i += 2) {
    const [value, n] = [encoded[i], encoded[i + 1]];
    for (let j = 0; j < n && out.length < count; j++, at++) if (at >= from) out.push(value);
  }
  return out;
}
