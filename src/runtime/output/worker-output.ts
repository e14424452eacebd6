// runtime/output: what workers print: captured in the worker and tagged by origin
// (output-capture.ts, log-origin.ts), carried to the parent (this file), and written or
// aggregated across ranks there (output-sink.ts, log-aggregator.ts). Uses proc/ only for the
// message context of the actor that prints.
//
// The parent's side of its workers' output. A worker sends the lines its
// actors write as "log" messages (output-capture.ts), on the link that carries
// their replies too, so a line is printed before the reply of the call that
// wrote it; whatever else the worker writes (native code, a crash's trace,
// lines held at exit) comes through its stdout and stderr pipes. Either way
// each line gets its origin tag and goes to the worker's sink: this process's
// own output (output-sink.ts), or, on a `fray worker`, the client that asked
// for the proc.
import type { Readable } from "node:stream";
import { LineSplitter } from "./line-splitter.ts";
import { unmarkLine, type OutputLine, type OutputStream } from "./log-origin.ts";
import type { HeaderSender, LogLines } from "../base/messages.ts";
import { emitLines } from "./output-sink.ts";
import type { Router } from "../proc/routes.ts";

/** Takes complete, tagged lines of one stream. */
export type LineSink = (stream: OutputStream, lines: readonly OutputLine[]) => void;

/** How a worker's output is streamed: the tag of lines written outside its actors, and where lines go (default: printed here). */
export interface WorkerLog {
  readonly tag: string;
  readonly sink?: LineSink;
}

const workers = new Map<string, Required<WorkerLog>>();

/** Streams the output of the worker at `addr`: its "log" messages from now on, and its pipes if it has them. */
export function streamWorkerOutput(addr: string, log: WorkerLog, pipes: { readonly stdout: Readable | null; readonly stderr: Readable | null }): void {
  const worker = { tag: log.tag, sink: log.sink ?? emitLines };
  workers.set(addr, worker);
  if (pipes.stdout) readPipe(pipes.stdout, 1, worker);
  if (pipes.stderr) readPipe(pipes.stderr, 2, worker);
}

/** A "log" message from `peer`: a worker of ours (its untagged lines get its tag), or a `fray worker` forwarding its procs' lines. */
/** Sends lines this worker wrote to `stream` to `parent`, which prints them (a null tag: this worker's own). */
export function sendLogLines(proc: HeaderSender, parent: string, stream: LogLines["stream"], lines: LogLines["lines"]): void {
  proc.send(parent, { kind: "log", stream, lines });
}

/** Takes the "log" messages `proc` receives from its workers. */
export function serveLogs(proc: Router): void {
  proc.route("log", (header, _frame, peer) => receiveLog(header, peer));
}

export function receiveLog(header: LogLines, peer: string): void {
  const worker = workers.get(peer);
  const lines = header.lines.map(([tag, text]): OutputLine => [tag ?? worker?.tag ?? "", text]);
  (worker?.sink ?? emitLines)(header.stream, lines);
}

function readPipe(pipe: Readable, stream: OutputStream, worker: Required<WorkerLog>): void {
  const splitter = new LineSplitter();
  readWithoutHolding(pipe);
  pipe.setEncoding("utf8");
  pipe.on("data", (chunk: string) => {
    const lines = splitter.push(chunk);
    if (lines.length)
      worker.sink(
        stream,
        lines.map((line) => unmarkLine(line, worker.tag)),
      );
  });
  pipe.on("end", () => {
    const rest = splitter.flush();
    if (rest !== null) worker.sink(stream, [unmarkLine(rest, worker.tag)]);
  });
  pipe.on("error", () => {}); // the worker's exit says what happened to it
}

/**
 * Node refs a worker thread's stdio port from the first read of its pipes until the thread exits (worker.unref() leaves
 * it so), so an idle thread whose output is read would hold this process open for good. Node skips that ref for the
 * pipes it reads itself (a thread without stdout: true); so do we. A child process's pipes carry no such flag.
 */
function readWithoutHolding(pipe: Readable): void {
  const holds = Object.getOwnPropertySymbols(pipe).find((s) => s.description === "kIncrementsPortRef");
  if (holds) (pipe as unknown as Record<symbol, boolean>)[holds] = false;
}
