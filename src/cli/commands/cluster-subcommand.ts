// What every `fray job …` and `fray actor …` subcommand shares: --cluster SPEC
// (default FRAY_CLUSTER_SPEC, else local), --json, a table for people, and a
// failure printed as one line (no stack) with exit code 1.
import { Command, Option } from "commander";
import { createCluster, type Cluster } from "../../cluster.ts";
import { settingName } from "../settings.ts";

export interface Common {
  readonly cluster?: string;
  readonly json?: boolean;
}

export function print(json: boolean | undefined, value: unknown, human: string): void {
  console.log(json ? JSON.stringify(value, null, 2) : human);
}

/** Columns padded to their widest cell; the first row is the header. */
export function renderTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c])))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** `sub(name, description)` makes a subcommand of `fray GROUP`; `action(body)` runs its body with the cluster. */
export function clusterSubcommands(group: string) {
  return {
    sub(name: string, description: string): Command {
      return new Command(name)
        .description(description)
        .addOption(new Option("--cluster <spec>", "cluster spec: local, local?dir=DIR, slurm?partition=P&account=A").env(settingName("clusterSpec")))
        .option("--json", "print JSON instead of a table");
    },
    action<A extends unknown[]>(body: (cluster: Cluster, ...args: A) => Promise<void>) {
      return async (...args: A): Promise<void> => {
        const command = args[args.length - 1] as Command;
        try {
          await body(createCluster((command.opts() as Common).cluster ?? "local"), ...args); // --cluster falls back to the clusterSpec setting
        } catch (err) {
          console.error(`fray ${group} ${command.name()}: ${(err as Error).message}`);
          process.exitCode = 1;
        }
      };
    },
  };
}
