// Where worker output lands in the client: its own stdout or stderr, each line
// tagged with its origin, or (FRAY_LOG_AGGREGATE_MS > 0) folded across ranks.
// Lines from workers of this process come from their pipes (worker-output.ts);
// lines from procs on remote workers come as "log" messages.
import { config, settingName } from "../base/config.ts";
import { LogAggregator } from "./log-aggregator.ts";
import { taggedLine, type OutputLine, type OutputStream } from "./log-origin.ts";

function write(stream: OutputStream, line: string): void {
  (stream === 1 ? process.stdout : process.stderr).write(`${line}\n`);
}

const aggregator = new LogAggregator(write);
process.once("exit", () => aggregator.flush());

/** Prints lines of a worker's stdout (1) or stderr (2) here. */
export function emitLines(stream: OutputStream, lines: readonly OutputLine[]): void {
  const windowMs = config.logAggregateMs;
  for (const [tag, text] of lines) {
    if (windowMs > 0) aggregator.add(stream, tag, text, windowMs);
    else write(stream, taggedLine(tag, text));
  }
}

/** Whether workers' output is streamed here (FRAY_LOG_STREAM, default on) rather than inherited. */
export function logStreaming(): boolean {
  const value = config.logStream;
  if (value === "1") return true;
  if (value === "0") return false;
  throw new RangeError(
    `${settingName("logStream")}=${JSON.stringify(value)} is not 0 or 1; give 1 to stream workers' output to this process tagged with its ` +
      `origin, 0 to let it go to this terminal as it is`,
  );
}
