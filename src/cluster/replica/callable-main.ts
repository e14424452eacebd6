// A replica whose entrypoint is a function: import it where it is exported,
// decode its arguments, await it. A throw fails the replica (exit code 1): the
// stack goes to the log, "Name: message" (and a "[cause]: Name: message" line
// for each cause) to the exit record, so the job's errorMessage and
// JobFailedError.cause say what went wrong.
import { appendFileSync, readFileSync } from "node:fs";
import { load } from "../../runtime/face/code.ts";
import { config } from "../settings.ts";
import { decodeStandalone } from "../../wire/codec.ts";
import { errorLine } from "./script.ts";

const [url, exportName, argsFile] = process.argv.slice(2);
try {
  const fn = (await load({ url, exportName })) as (...args: unknown[]) => unknown;
  await fn(...(decodeStandalone(readFileSync(argsFile)) as unknown[]));
  process.exit(0);
} catch (err) {
  console.error(err); // its stack and its causes'
  const exitFile = config.replicaExitFile;
  if (exitFile) appendFileSync(exitFile, errorLine(describe(err)));
  process.exit(1);
}

function describe(err: unknown): string {
  const lines: string[] = [];
  for (let e = err, depth = 0; e !== undefined && depth < 8; e = e instanceof Error ? e.cause : undefined, depth++)
    lines.push(`${depth ? "[cause]: " : ""}${e instanceof Error ? `${e.name}: ${e.message}` : `thrown: ${String(e)}`}`);
  return lines.join("\n");
}
