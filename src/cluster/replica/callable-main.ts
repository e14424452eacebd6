// A replica whose entrypoint is a function: import it where it is exported,
// decode its arguments, await it. A throw fails the replica (exit code 1): the
// stack goes to the log, "Name: message" to the exit record, so the job's
// errorMessage says what went wrong.
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
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  const exitFile = config.replicaExitFile;
  if (exitFile) appendFileSync(exitFile, errorLine(err instanceof Error ? `${err.name}: ${err.message}` : `thrown: ${String(err)}`));
  process.exit(1);
}
