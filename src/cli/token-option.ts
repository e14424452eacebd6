// The shared token of a command that listens: from --token-file, else FRAY_TOKEN; never a
// command-line value (ps would show it).
import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { config, settingName } from "./settings.ts";

/** The token, or `command.error(...)` naming both places to put it. */
export function requireToken(command: Command, tokenFile: string | undefined, what: string): string {
  const token = tokenFile ? readFileSync(tokenFile, "utf8").trim() : config.token;
  if (!token) command.error(`${what} needs a token: --token-file PATH or ${settingName("token")} (never on the command line: ps would show it)`);
  return token as string;
}
