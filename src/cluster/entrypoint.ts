// What a job runs: a program with arguments, or an exported function with arguments.

export interface EntrypointFields {
  /** Program to run (looked up on PATH), e.g. "node", "python", "bash". */
  readonly binary?: string;
  /** Its command-line arguments. */
  readonly args?: readonly string[];
  /** An exported function (any module); it runs in each replica, awaited. */
  readonly callable?: (...args: never[]) => unknown;
  /** Arguments for the function: any values the codec can send. */
  readonly callableArgs?: readonly unknown[];
}

export class Entrypoint {
  readonly binary?: string;
  readonly args: readonly string[];
  readonly callable?: (...args: never[]) => unknown;
  readonly callableArgs: readonly unknown[];

  /** Exactly one of `binary` and `callable`; prefer `fromBinary` / `fromCallable`. */
  constructor(fields: EntrypointFields) {
    const { binary, args, callable, callableArgs } = fields;
    if (binary === undefined && callable === undefined) {
      throw new TypeError("an Entrypoint needs a binary or a callable: use Entrypoint.fromBinary(cmd, args) or Entrypoint.fromCallable(fn, args)");
    }
    if (binary !== undefined && callable !== undefined) {
      throw new TypeError("an Entrypoint takes a binary or a callable, not both: make two jobs, or call the function from a script");
    }
    if (binary !== undefined && (typeof binary !== "string" || binary.trim() === "")) {
      throw new TypeError(`Entrypoint.fromBinary needs a program name, got ${JSON.stringify(binary)}`);
    }
    if (args !== undefined && (!Array.isArray(args) || args.some((a) => typeof a !== "string"))) {
      throw new TypeError("Entrypoint.fromBinary args must be an array of strings (convert numbers with String())");
    }
    if (callable !== undefined && typeof callable !== "function") {
      throw new TypeError(`Entrypoint.fromCallable needs a function exported from a module, got ${typeof callable}`);
    }
    if (args?.length && callable !== undefined) throw new TypeError("args go with a binary; a callable takes callableArgs");
    if (callableArgs !== undefined && (callable === undefined || !Array.isArray(callableArgs))) {
      throw new TypeError("callableArgs must be an array and go with a callable");
    }
    this.binary = binary;
    this.args = [...(args ?? [])];
    this.callable = callable;
    this.callableArgs = [...(callableArgs ?? [])];
  }

  static fromBinary(binary: string, args: readonly string[] = []): Entrypoint {
    return new Entrypoint({ binary, args });
  }

  static fromCallable<A extends unknown[]>(fn: (...args: A) => unknown, args?: A): Entrypoint {
    return new Entrypoint({ callable: fn as (...args: never[]) => unknown, callableArgs: args ?? [] });
  }
}
