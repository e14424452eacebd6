// Compile-time checks of streaming tasks and cancel, run by types.test.ts through tsc (strict).
// Every @ts-expect-error line must be an error; everything else must compile.
import { createJobContext, TaskCancelledError, type ObjectRef, type ObjectRefStream } from "../../src/job.ts";
import { failAfter, Producer } from "../fixtures/cancel-tasks.ts";
import { square } from "../fixtures/tasks.ts";

async function* numbers(from: number, count: number): AsyncGenerator<number> {
  for (let i = 0; i < count; i++) yield from + i;
}

async function* labelled(label: string) {
  yield { label, at: 0 };
}

export async function typed(): Promise<void> {
  const ctx = createJobContext("sync");
  // T comes from the generator, declared or inferred.
  const stream: AsyncIterable<ObjectRef<number>> = ctx.runStreaming(numbers, 1, 3);
  for await (const ref of stream) {
    const n: number = await ctx.get(ref);
    void n;
  }
  for await (const ref of ctx.runStreaming(labelled, "x")) {
    const { label, at }: { label: string; at: number } = await ctx.get(ref);
    void [label, at];
  }
  const strings: ObjectRefStream<string> = ctx.runStreaming(failAfter, ["a"]);
  const count: ObjectRef<number> = strings.ref;
  await ctx.cancel(strings);
  await ctx.cancel(count, { recursive: false });
  const signal: AbortSignal = ctx.signal;
  const err = new TaskCancelledError("t");
  const name: string = err.taskName;
  void [signal, name];

  // An actor's async generator method streams; T from its yields.
  const producer = await ctx.createActor(Producer);
  const produced: ObjectRefStream<number> = producer.count.remoteStreaming(3);
  void produced;

  // Stream options: a window of credit, for a task and for an actor's method.
  const windowed: ObjectRefStream<number> = ctx.createStreamingTask(numbers, [1, 3], { window: 4 });
  const unbounded: ObjectRefStream<number> = producer.count.options({ window: Infinity }).remoteStreaming(3);
  void [windowed, unbounded];
  // @ts-expect-error: the arguments go in an array, checked against the generator's
  ctx.createStreamingTask(numbers, [1, "3"], { window: 4 });
  // @ts-expect-error: no such stream option
  ctx.createStreamingTask(numbers, [1, 3], { credit: 4 });

  // @ts-expect-error: arguments are checked against the generator's
  ctx.runStreaming(numbers, "1", 3);
  // @ts-expect-error: a plain function is not a streaming task
  ctx.runStreaming(square, 2);
  // @ts-expect-error: the stream's refs hold numbers
  const wrong: AsyncIterable<ObjectRef<string>> = ctx.runStreaming(numbers, 1, 3);
  // @ts-expect-error: a method that is not a generator has no remoteStreaming
  producer.wasClosed.remoteStreaming();
  await ctx.cancel(count, { force: true });
  // @ts-expect-error: no such option
  await ctx.cancel(count, { forced: true });
  void wrong;
}
