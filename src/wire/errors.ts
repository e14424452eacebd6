// Errors raised by the wire layer. Messages say what went wrong and how to fix it.
import { registerErrorClass } from "./error-codec.ts";

/** A value that cannot cross a process boundary. Nothing was sent. */
export class SerializationError extends TypeError {
  override name = "SerializationError";
}

/** A peer broke the framing protocol; the connection is closed. */
export class FrameError extends Error {
  override name = "FrameError";
}

/**
 * A message larger than its connection's frame limit, refused by its sender:
 * nothing of it was sent. `bytes` and `limit` are the message's size and the
 * limit, `to` the peer, `setting` where the limit is set.
 */
export class MessageTooLargeError extends FrameError {
  override name = "MessageTooLargeError";

  constructor(
    message: string,
    readonly bytes: number,
    readonly limit: number,
    readonly to: string,
    readonly setting: string,
  ) {
    super(message);
  }
}

/** A value arrived that this process cannot decode; nothing of it was delivered. */
export class DecodingError extends Error {
  override name = "DecodingError";

  /** `what` could not be decoded (e.g. "the reply of Echo.echo from rank 0"), sent by the proc at `from`. */
  constructor(
    readonly what: string,
    readonly from: string,
    cause: unknown,
  ) {
    super(
      `cannot decode ${what}, sent by ${from}: ${cause instanceof Error ? cause.message : String(cause)}. ` +
        "Both sides must run the same version of fray and load the modules that register the value's types.",
      { cause },
    );
  }
}

registerErrorClass(SerializationError);
registerErrorClass(FrameError);
registerErrorClass(MessageTooLargeError);
registerErrorClass(DecodingError);

/**
 * Finds the first part of `value` the codec cannot send and describes it with
 * its path, e.g. `argument 1 of Counter.incr: a function at .callback cannot be
 * sent …`. Runs only after encoding failed, so it may be slow.
 */
export function describeUnsendable(value: unknown, what: string): string | undefined {
  const done = new Set<unknown>(); // searched, nothing found below
  const onPath = new Map<object, string>(); // the objects being searched, by path: a cycle leads back to one
  const walk = (v: unknown, path: string): string | undefined => {
    if (typeof v === "function") {
      const name = v.name ? ` ${v.name}` : "";
      return (
        `${what}: the function${name}${at(path)} cannot be sent to another process. ` +
        "Pass data instead, or export the function from a module and call it there."
      );
    }
    if (typeof v === "symbol") {
      return `${what}: the symbol ${String(v)}${at(path)} cannot be sent to another process. Use a string instead.`;
    }
    if (v === null || typeof v !== "object" || done.has(v)) return undefined;
    const back = onPath.get(v);
    if (back !== undefined) {
      return (
        `${what}: a circular reference at ${path} back to ${back || "the value itself"} cannot be sent ` +
        "(values are copied, and a copy of a cycle never ends). Remove the cycle before sending, or send an id the receiver looks up instead of the object."
      );
    }
    onPath.set(v, path);
    const found = walkInside(v, path);
    onPath.delete(v);
    done.add(v);
    return found;
  };
  const walkInside = (v: object, path: string): string | undefined => {
    if (v instanceof Map) {
      let i = 0;
      for (const [k, x] of v) {
        const found = walk(k, `${path}.<key ${i}>`) ?? walk(x, `${path}.get(${JSON.stringify(String(k))})`);
        if (found) return found;
        i++;
      }
      return undefined;
    }
    if (v instanceof Set) {
      let i = 0;
      for (const x of v) {
        const found = walk(x, `${path}.<element ${i++}>`);
        if (found) return found;
      }
      return undefined;
    }
    if (ArrayBuffer.isView(v)) return undefined;
    for (const key of Object.keys(v)) {
      const found = walk((v as Record<string, unknown>)[key], Array.isArray(v) ? `${path}[${key}]` : `${path}.${key}`);
      if (found) return found;
    }
    if (v instanceof Error && "cause" in v) return walk(v.cause, `${path}.cause`);
    return undefined;
  };
  return walk(value, "");
}

function at(path: string): string {
  return path ? ` at ${path}` : "";
}
