// job/streams: streaming tasks and actor calls — what the producer does (stream-pump.ts), what the
// owner keeps (stream-buffer.ts, this file); the reader's side is ObjectRefStream (../object-ref-stream.ts).
//
// The job head's streams: for each streaming task or actor call, the port its
// producer sends to (stream-pump.ts) and the refs of what arrived
// (stream-buffer.ts), until its reader has read the end or left early. Values
// are kept in the job's object store as `${id}:${i}`, so their refs work like
// any other. A stream ends with the error its ref rejects with (the worker
// died, the task was cancelled) unless its producer ended it first.
import type { PortRef } from "../../runtime/face/actors.ts";
import { currentProc } from "../../runtime/face/procs.ts";
import type { ObjectStore } from "../objects/object-store.ts";
import { TaskCancelledError } from "../base/errors.ts";
import { StreamBuffer } from "./stream-buffer.ts";
import { CONTROL_CREDIT, CONTROL_STOP, STREAM_CONTROL, type StreamTarget } from "./stream-pump.ts";

interface Stream {
  readonly buffer: StreamBuffer;
  /** Open from the stream's submit until its end. */
  port: number | null;
  /** The producer's control port: where an actor's stream is stopped (its generator runs in the actor's mailbox, busy with this call), and credit granted. */
  control: PortRef | null;
  /** Items handed to the reader so far. */
  read: number;
  /** How many items the producer may run ahead of the reader (Infinity: no limit), and the count it may have sent, as last granted. */
  window: number;
  granted: number;
  /** The task or actor method (`Class.method`) whose stream it is, as a cancel's error names it. */
  name: string | null;
}

/** How many cancelled streams' names are remembered for a read that comes after the cancel (older ones name the ref). */
const CANCELLED_NAMES = 4096;

export class HeadStreams {
  readonly #streams = new Map<string, Stream>();
  /** The names of streams cancelled lately, by id, oldest first: what a later read's TaskCancelledError names. */
  readonly #cancelledNames = new Map<string, string>();

  constructor(private readonly store: ObjectStore) {}

  /**
   * Opens stream `id` (the ref of its task or call `name`), its producer at most `window` items ahead of its reader;
   * returns the port its producer sends to.
   */
  open(id: string, window: number, name: string): StreamTarget {
    const proc = currentProc();
    const stream = this.#stream(id);
    stream.name = name;
    const { buffer } = stream;
    stream.window = stream.granted = window;
    stream.port = proc.openPort((rank, ok, value) => {
      if (buffer.ended) return; // cancelled: what is still on its way is dropped
      if (rank === STREAM_CONTROL) {
        stream.control = value as PortRef;
        // A task run again after its worker died starts from the window: it is granted what its reader read since.
        if (stream.granted > window) proc.sendToPort(stream.control, CONTROL_CREDIT, stream.granted, false);
      } else if (ok && rank >= 0) {
        if (rank < buffer.size) return; // a task run again after its worker died yields its first values again
        const item = `${id}:${rank}`;
        this.store.entry(item).resolve(value);
        buffer.push(item);
      } else this.#end(stream, ok ? undefined : { error: value }); // the end, or an item that could not be sent
    });
    return window === Infinity ? { addr: proc.addr, id: stream.port } : { addr: proc.addr, id: stream.port, window };
  }

  /** Stream `id`, made by its reader's first question if that comes first (a task's submit waits for its code's location). */
  #stream(id: string): Stream {
    let stream = this.#streams.get(id);
    if (!stream) {
      const made: Stream = { buffer: new StreamBuffer(), port: null, control: null, read: 0, window: Infinity, granted: Infinity, name: null };
      this.#streams.set(id, (stream = made));
      this.store.entry(id).promise.catch((error: unknown) => this.#end(made, { error }));
    }
    return stream;
  }

  #end(stream: Stream, error?: { error: unknown }): void {
    stream.buffer.finish(error);
    if (stream.port !== null) currentProc().closePort(stream.port);
  }

  /**
   * The id of item `index` of stream `id`, or null after its last. A stream forgotten while its task's ref had settled
   * with a value was cancelled after its generator returned (one read to its end or failed is not read again): the read
   * rejects with TaskCancelledError naming `name`, rather than waiting on a new, empty stream forever.
   */
  async next(id: string, index: number, name = `ObjectRef(${id})`): Promise<string | null> {
    if (!this.#streams.has(id) && this.store.resolved(id)) throw new TaskCancelledError(this.#cancelledNames.get(id) ?? name);
    const stream = this.#stream(id);
    try {
      const item = await stream.buffer.next(index);
      if (item === null) this.#streams.delete(id);
      else if (index + 1 > stream.read) this.#handed(stream, index + 1);
      return item;
    } catch (err) {
      this.#streams.delete(id);
      throw err;
    }
  }

  /** The reader was handed `read` items: the producer is granted more once a quarter of its window was read (one message per item would double a stream's). */
  #handed(stream: Stream, read: number): void {
    stream.read = read;
    const { window, control } = stream;
    if (window === Infinity || control === null || stream.buffer.ended) return;
    if (read + window - stream.granted < Math.max(1, Math.floor(window / 4))) return;
    stream.granted = read + window;
    currentProc().sendToPort(control, CONTROL_CREDIT, stream.granted, false);
  }

  /**
   * The reader of stream `id` left (or it was cancelled): an actor's generator is told to stop; values nobody was handed
   * are released. `name`: the task or actor method (`Class.method`) whose stream it is, as the reader's error names it.
   */
  cancel(id: string, name = `ObjectRef(${id})`): void {
    const stream = this.#streams.get(id);
    if (!stream) return;
    this.#streams.delete(id); // a read after this rejects (next), and a reader waiting now is woken by the cancel below
    if (stream.control && !stream.buffer.ended) currentProc().sendToPort(stream.control, CONTROL_STOP, null, false);
    if (stream.name !== null) this.#cancelledNames.set(id, stream.name);
    if (this.#cancelledNames.size > CANCELLED_NAMES) this.#cancelledNames.delete(this.#cancelledNames.keys().next().value!);
    stream.buffer.cancel(new TaskCancelledError(stream.name ?? name));
    this.#end(stream);
    for (const item of stream.buffer.unread(stream.read)) this.store.release(item);
  }
}
