#!/usr/bin/env node
// The `fray` command line.
import { Command, InvalidArgumentError } from "commander";
import { runDemo } from "./demo.ts";

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

const program = new Command("fray").description("Fray: tasks, actors and actor meshes across processes and hosts");

program
  .command("demo")
  .description("spawn worker processes and run actor meshes across them")
  .option("--procs <n>", "worker processes to start", positiveInt, 4)
  .option("--samples <n>", "Monte Carlo samples for the π estimate", positiveInt, 20_000_000)
  .action(async (options: { procs: number; samples: number }) => {
    await runDemo(options);
  });

await program.parseAsync();
