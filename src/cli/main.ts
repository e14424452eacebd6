#!/usr/bin/env node
// The `fray` command line.
import { Command, InvalidArgumentError } from "commander";
import { join } from "node:path";
import { settingName } from "./settings.ts";
import { runWorker } from "../mesh.ts";
import { makeCerts } from "./commands/certs.ts";
import { demoOptionsProblem, runDemo, type DemoOptions } from "./demo/demo.ts";
import { actorCommand } from "./commands/actor.ts";
import { clusterCommand } from "./commands/cluster.ts";
import { dashboardCommand } from "./commands/dashboard.ts";
import { jobCommand } from "./commands/job.ts";
import { queueCommand } from "./commands/queue.ts";
import { requireToken } from "./token-option.ts";

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

const program = new Command("fray").description("Fray: tasks, actors and actor meshes across processes and hosts");

program
  .command("demo")
  .description("train a model data-parallel on worker processes; kill one halfway and resume on its replacement")
  .option("--procs <n>", "worker processes to train on", positiveInt, 4)
  .option("--rows <n>", "rows of the synthetic training set, sharded over the processes", positiveInt, 1_000_000)
  .option("--steps <n>", "training steps (the kill comes at half of them)", positiveInt, 100)
  .option("--batch <n>", "mini-batch rows per process and step", positiveInt, 65_536)
  .action(async (options: DemoOptions) => {
    const problem = demoOptionsProblem(options);
    if (problem) program.error(`fray demo: ${problem}`);
    await runDemo(options);
  });

program
  .command("worker")
  .description("serve this machine to clients that attach with attachToWorkers(); runs until killed")
  .requiredOption("--listen <addr>", "tcp://host:port to listen on, or ADVERTISE@BIND (tcp://10.0.0.5:22222@tcp://0.0.0.0:22222)")
  .option("--token-file <path>", `file holding the shared token (default: the ${settingName("token")} environment variable)`)
  .option("--tls-dir <dir>", "mutual TLS with ca.pem, node.pem and node.key from this directory (see 'fray certs')")
  .action(async (options: { listen: string; tokenFile?: string; tlsDir?: string }) => {
    const token = requireToken(program, options.tokenFile, "fray worker");
    const tls = options.tlsDir
      ? { ca: join(options.tlsDir, "ca.pem"), cert: join(options.tlsDir, "node.pem"), key: join(options.tlsDir, "node.key") }
      : undefined;
    const addr = await runWorker({ listen: options.listen, token, tls }).catch((err: Error) => program.error(`fray worker: ${err.message}`));
    console.log(`fray worker listening on ${addr}`);
  });

program
  .command("certs")
  .description("make a shared token and a self-signed CA with a node certificate, for fray worker --token-file/--tls-dir")
  .requiredOption("--out <dir>", "directory to write token, ca.pem, node.pem and node.key into")
  .option("--days <n>", "validity of the certificates", positiveInt, 365)
  .action((options: { out: string; days: number }) => {
    const made = makeCerts(options.out, options.days);
    console.log(`wrote ${made.token}, ${made.ca}, ${made.cert} and ${made.key}`);
  });

program.addCommand(jobCommand());
program.addCommand(actorCommand());
program.addCommand(clusterCommand());
program.addCommand(queueCommand());
program.addCommand(dashboardCommand());

await program.parseAsync();
