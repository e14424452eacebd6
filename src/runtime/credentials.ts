// The shared token every connection must prove it knows. It comes from
// FRAY_TOKEN (or a token file read by the CLI), never from a command line; a
// client without one makes a random token for itself and the workers it
// starts, which get it through their environment.
import { randomBytes } from "node:crypto";

let token: string | null = null;

export function sessionToken(): string {
  return (token ??= process.env.FRAY_TOKEN || randomBytes(32).toString("hex"));
}

/** Environment that gives a worker this process's token. */
export function tokenEnv(): Record<string, string> {
  return { FRAY_TOKEN: sessionToken() };
}

/** Uses `given` as this process's token; it must be chosen before the first connection. */
export function useToken(given: string): void {
  if (!given) throw new TypeError("the token is empty; give the shared token of the workers (FRAY_TOKEN or --token-file)");
  if (token !== null && token !== given) {
    throw new Error("this process already uses a different token; pass the workers' token before creating any mesh, or set FRAY_TOKEN");
  }
  token = given;
}
