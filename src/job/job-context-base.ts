// What every JobContext (contexts/sync-context.ts, contexts/mesh-context.ts, worker/remote-context.ts) shares: the
// checks made before a task, a stream or a group is started, run() as createTask(), wait()'s options, asCompleted(),
// actor groups and disposal. A backend supplies how a task, a stream and a wait are carried out.
import { checkArity, functionLabel } from "../runtime/face/actors.ts";
import { createActorGroup, type ActorGroup } from "./actors/actor-group.ts";
import type { ActorClass, ActorHandle } from "./actors/actor-handle.ts";
import { checkTaskOptions, streamWindow, type ActorOptions, type MultipleReturnsOptions, type StreamingTaskOptions, type TaskOptions } from "./base/options.ts";
import type { CancelOptions, JobContext, JobKind, ReturnRefs, StreamingFunction, TaskFunction, WaitOptions, Yielded } from "./job-context.ts";
import { asCompleted } from "./objects/as-completed.ts";
import { kOwner, ObjectRef, type Refs } from "./objects/object-ref.ts";
import { returnIds } from "./objects/task-returns.ts";
import type { ObjectRefStream } from "./objects/object-ref-stream.ts";

// The backend's part goes under symbols: user code that holds a context (getJobContext() in a task) finds the
// JobContext API on it and nothing else.
export const kSubmit = Symbol("fray.submit");
export const kSubmitStream = Symbol("fray.submitStream");
export const kWaitFor = Symbol("fray.waitFor");
export const kCheckOpen = Symbol("fray.checkOpen");
export const kReturnRef = Symbol("fray.returnRef");

export abstract class JobContextBase implements JobContext {
  abstract readonly kind: JobKind;
  abstract readonly signal: AbortSignal;

  /** Starts task `fn(...args)` (checked already), whose value fills the ref returned. */
  protected abstract [kSubmit](fn: TaskFunction, args: unknown[], options: TaskOptions): ObjectRef;
  /** Starts streaming task `fn(...args)` (checked already), at most `window` items ahead of its reader. */
  protected abstract [kSubmitStream](fn: StreamingFunction, args: unknown[], window: number, options: TaskOptions): ObjectRefStream<unknown>;
  /** `wait` with its options read: at most `timeoutMs` (undefined: no limit). */
  protected abstract [kWaitFor](refs: readonly ObjectRef[], numReturns: number, timeoutMs: number | undefined): Promise<[ObjectRef[], ObjectRef[]]>;

  /** Throws if this context can start nothing more (the driver's, once shut down). */
  protected [kCheckOpen](): void {}

  /** The ref of a return (id `id`) of a task with several returns, whose own ref is `task`: the backend's store may track it. */
  protected [kReturnRef](task: ObjectRef, id: string): ObjectRef {
    return new ObjectRef(id, task[kOwner]);
  }

  run<F extends TaskFunction>(fn: F, ...args: Refs<Parameters<F>>): ObjectRef<Awaited<ReturnType<F>>> {
    return this.createTask(fn, args);
  }

  createTask<F extends TaskFunction>(fn: F, args: Refs<Parameters<F>>, options: MultipleReturnsOptions): ReturnRefs<Awaited<ReturnType<F>>>;
  createTask<F extends TaskFunction>(fn: F, args: Refs<Parameters<F>>, options?: TaskOptions): ObjectRef<Awaited<ReturnType<F>>>;
  createTask(fn: TaskFunction, args: readonly unknown[], options: TaskOptions & { numReturns?: number } = {}): unknown {
    this[kCheckOpen]();
    checkTaskOptions(options, `task ${options.name ?? functionLabel(fn)}`, false);
    checkArity(fn, args.length, functionLabel(fn));
    const task = this[kSubmit](fn, args as unknown[], options);
    if (options.numReturns === undefined) return task;
    // The task's own ref is never handed out: the backend's store forgets it once its returns have their values.
    return returnIds(task.id, options.numReturns).map((id) => this[kReturnRef](task, id));
  }

  runStreaming<F extends StreamingFunction>(fn: F, ...args: Refs<Parameters<F>>): ObjectRefStream<Yielded<F>> {
    return this.createStreamingTask(fn, args);
  }

  createStreamingTask<F extends StreamingFunction>(fn: F, args: Refs<Parameters<F>>, options: StreamingTaskOptions = {}): ObjectRefStream<Yielded<F>> {
    this[kCheckOpen]();
    checkTaskOptions(options, `streaming task ${options.name ?? functionLabel(fn)}`, true);
    const { window: _window, ...task } = options;
    const window = streamWindow(options, functionLabel(fn));
    checkArity(fn, args.length, functionLabel(fn));
    return this[kSubmitStream](fn, args as unknown[], window, task) as ObjectRefStream<Yielded<F>>;
  }

  wait(refs: readonly ObjectRef[], options: WaitOptions = {}): Promise<[ObjectRef[], ObjectRef[]]> {
    return this[kWaitFor](refs, options.numReturns ?? 1, options.timeout === undefined ? undefined : options.timeout * 1000);
  }

  asCompleted<T>(refs: readonly ObjectRef<T>[]): AsyncIterable<ObjectRef<T>> {
    return asCompleted(this, refs);
  }

  createActorGroup<C extends ActorClass>(Class: C, args: ConstructorParameters<C>, count: number, options?: ActorOptions): ActorGroup<InstanceType<C>> {
    this[kCheckOpen](); // at once, not by each member in the background
    return createActorGroup(this, Class, args, count, options);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }

  abstract cancel(ref: ObjectRef | ObjectRefStream<unknown>, options?: CancelOptions): Promise<void>;
  /** A ref's value, an array's values, any other value as it is (JobContext's overloads, in one signature). */
  abstract get(value: unknown): Promise<never>;
  abstract put<T>(value: T): ObjectRef<T>;
  abstract createActor<C extends ActorClass>(Class: C, args?: ConstructorParameters<C>, options?: ActorOptions): Promise<ActorHandle<InstanceType<C>>>;
  abstract killActor(name: string): Promise<void>;
  abstract shutdown(): Promise<void>;
}
