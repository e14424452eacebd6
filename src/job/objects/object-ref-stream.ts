// ObjectRefStream: what `ctx.runStreaming(gen, …)` and an actor's
// `method.remoteStreaming(…)` return — one ObjectRef per value the generator
// yields, in order, each as soon as it is yielded (Ray's ObjectRefGenerator).
// It is read once, by one `for await` loop; leaving the loop early (break,
// return, throw) cancels the task. It stays in the process that started it.
// A stream dropped before its end was read (the stream, its iterator and its
// ref all garbage) is cancelled too: its generator stops, its items are released.
import { ObjectRef } from "./object-ref.ts";

/** Where a stream's refs come from: the job's head (or a sync job) keeps them as the task yields. */
export interface StreamSource {
  /** The ref of item `index`, or null once the generator returned; rejects with what the generator threw (or why it could not run). */
  next(index: number): Promise<ObjectRef | null>;
  /** The reader left early: the task is cancelled (nothing happens if it had ended). */
  cancel(): Promise<void>;
}

/** The stream's source, under a symbol so it is not part of the API. */
export const kStreamSource = Symbol("fray.streamSource");

// What a stream dropped unread does, by its source: the stream, its iterator and (through the map) its ref hold the
// source, so it is collected once all three are. What it does must not hold any of them (a backend's closure holds ids).
const droppedStreams = new FinalizationRegistry<() => void>((dropped) => dropped());
const sourceOfRef = new WeakMap<ObjectRef, StreamSource>();

export class ObjectRefStream<T> implements AsyncIterable<ObjectRef<T>> {
  /** @internal */
  readonly [kStreamSource]: StreamSource;
  #reading = false;

  /**
   * @internal `ref`: the ref of the task itself (its value is how many items it yielded), which `ctx.cancel` takes too.
   * `dropped`: cancels the stream once it is garbage before its end was read.
   */
  constructor(
    readonly ref: ObjectRef<number>,
    source: StreamSource,
    dropped?: () => void,
  ) {
    this[kStreamSource] = source;
    if (dropped) {
      sourceOfRef.set(ref, source);
      droppedStreams.register(source, dropped, source);
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<ObjectRef<T>, undefined> {
    if (this.#reading) {
      throw new Error(
        `${this.ref} is a stream being read already: its refs are handed out once, to one for await loop; keep the refs the first loop gets ` +
          `(push them to an array) to read them again`,
      );
    }
    this.#reading = true;
    const source = this[kStreamSource];
    let index = 0;
    let done = false;
    const end = { done: true, value: undefined } as const;
    return {
      next: async () => {
        if (done) return end;
        try {
          const ref = await source.next(index);
          if (ref === null) {
            done = true;
            droppedStreams.unregister(source);
            return end;
          }
          index++;
          return { done: false, value: ref as ObjectRef<T> };
        } catch (err) {
          done = true;
          droppedStreams.unregister(source);
          throw err;
        }
      },
      return: async () => {
        if (!done) {
          done = true;
          droppedStreams.unregister(source);
          await source.cancel();
        }
        return end;
      },
    };
  }

  toString(): string {
    return `ObjectRefStream(${this.ref.id})`;
  }
}

/** The task ref `ctx.cancel` was given (a stream's own), or the error that says what it takes. */
export function cancelTarget(target: unknown): ObjectRef {
  if (target instanceof ObjectRefStream) return target.ref;
  if (target instanceof ObjectRef) return target;
  throw new TypeError(`cancel() takes an ObjectRef (of ctx.run, createTask or an actor call) or a stream of runStreaming, got ${String(target)}`);
}
