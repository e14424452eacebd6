// Errors raised by the wire layer. Messages say what went wrong and how to fix it.

/** A value that cannot cross a process boundary. Nothing was sent. */
export class SerializationError extends TypeError {
  override name = "SerializationError";
}

/** A peer broke the framing protocol; the connection is closed. */
export class FrameError extends Error {
  override name = "FrameError";
}

/**
 * Finds the first part of `value` the codec cannot send and describes it with
 * its path, e.g. `argument 1 of Counter.incr: a function at .callback cannot be
 * sent …`. Runs only after encoding failed, so it may be slow.
 */
export function describeUnsendable(value: unknown, what: string): string | undefined {
  const seen = new Set<unknown>();
  const walk = (v: unknown, path: string): string | undefined => {
    if (typeof v === "function") {
      const name = v.name ? ` ${v.name}` : "";
      return `${what}: the function${name}${at(path)} cannot be sent to another process. ` +
        "Pass data instead, or export the function from a module and call it there.";
    }
    if (typeof v === "symbol") {
      return `${what}: the symbol ${String(v)}${at(path)} cannot be sent to another process. Use a string instead.`;
    }
    if (v === null || typeof v !== "object" || seen.has(v)) return undefined;
    seen.add(v);
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
    return undefined;
  };
  return walk(value, "");
}

function at(path: string): string {
  return path ? ` at ${path}` : "";
}
