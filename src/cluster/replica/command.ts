// The command line of one replica: the binary with its arguments, or node
// running callable-main with the function's module, export name and a file of
// encoded arguments.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { locate } from "../../runtime/face/code.ts";
import { workerExecArgv } from "../../runtime/face/hosts.ts";
import { encodeStandalone } from "../../wire/codec.ts";
import type { CheckedRequest } from "../job-request.ts";

const CALLABLE_MAIN = fileURLToPath(new URL(`./callable-main${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url));

/** argv for a replica of `request`; a callable's arguments are written to `argsFile`. */
export async function replicaCommand(request: CheckedRequest, argsFile: string): Promise<string[]> {
  const { binary, args, callable, callableArgs } = request.entrypoint;
  if (binary !== undefined) return [binary, ...args];
  const fn = callable as Function;
  const location = await locate(fn);
  writeFileSync(argsFile, encodeStandalone(callableArgs, `the arguments of ${fn.name || "the job's function"}`), { mode: 0o600 });
  return [process.execPath, ...workerExecArgv(), CALLABLE_MAIN, location.url, location.exportName, argsFile];
}
