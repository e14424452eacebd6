// A replica whose entrypoint is a function: import it where it is exported,
// decode its arguments, await it. A throw fails the replica (exit code 1).
import { readFileSync } from "node:fs";
import { load } from "../runtime/code-locator.ts";
import { decodeStandalone } from "../wire/codec.ts";

const [url, exportName, argsFile] = process.argv.slice(2);
try {
  const fn = (await load({ url, exportName })) as (...args: unknown[]) => unknown;
  await fn(...(decodeStandalone(readFileSync(argsFile)) as unknown[]));
  process.exit(0);
} catch (err) {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
}
