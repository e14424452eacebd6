// The worker's side of streaming its output (FRAY_LOG_STREAM): what its actors
// (and tasks run in them) write to process.stdout and process.stderr is split
// into lines, each tagged with the writing actor's origin (the proc's
// coordinates in its ProcMesh, known from the async context the write runs
// in), and sent to the parent (worker-output.ts). A partial line waits for its
// newline; at exit it is written to the pipe, marked with its tag.
import { LineSplitter } from "./line-splitter.ts";
import { messageContext } from "../proc/context.ts";
import { markLine, type OutputStream } from "./log-origin.ts";

/** Sends complete lines; a null tag: written outside any actor (the parent knows the worker's own tag). */
export type LineSender = (stream: OutputStream, lines: (readonly [tag: string | null, text: string])[]) => void;

export function captureOutput(send: LineSender): void {
  let sending = false; // a message about a failed send must not be sent the same way
  for (const stream of [1, 2] as const) {
    const out = stream === 1 ? process.stdout : process.stderr;
    const raw = out.write.bind(out) as (text: string) => boolean;
    const partial = new Map<string | null, LineSplitter>();
    out.write = function write(
      chunk: string | Uint8Array,
      encoding?: BufferEncoding | ((err?: Error | null) => void),
      callback?: (err?: Error | null) => void,
    ): boolean {
      const done = typeof encoding === "function" ? encoding : callback;
      if (sending) return raw(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString());
      const text =
        typeof chunk === "string"
          ? chunk
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString(typeof encoding === "string" ? encoding : "utf8");
      const tag = messageContext.getStore()?.actor.origin ?? null;
      let splitter = partial.get(tag);
      if (!splitter) partial.set(tag, (splitter = new LineSplitter()));
      const lines = splitter.push(text);
      if (lines.length) {
        sending = true;
        try {
          send(
            stream,
            lines.map((line) => [tag, line] as const),
          );
        } finally {
          sending = false;
        }
      }
      if (done) process.nextTick(done);
      return true;
    } as typeof out.write;
    process.once("exit", () => {
      for (const [tag, splitter] of partial) {
        const rest = splitter.flush();
        if (rest !== null) raw(`${tag === null ? rest : markLine(tag, rest)}\n`);
      }
    });
  }
}
