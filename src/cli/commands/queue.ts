// `fray queue serve`: a lease queue over HTTP for HttpQueue clients.
import { Command, InvalidArgumentError } from "commander";
import { FileQueue, MemoryQueue, serveQueue } from "../../queue.ts";
import { settingName } from "../settings.ts";
import { requireToken } from "../token-option.ts";

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`expected a port number 0-65535, got ${JSON.stringify(value)}`);
  return n;
}

export function queueCommand(): Command {
  const queue = new Command("queue").description("lease queues (fray/queue)");
  queue
    .command("serve")
    .description("serve a lease queue over HTTP until killed; clients use new HttpQueue(url, { token })")
    .option("--port <n>", "port to listen on (0: any free port)", port, 0)
    .option("--host <addr>", "address to listen on", "127.0.0.1")
    .option("--dir <dir>", "keep the items in this directory (a FileQueue) instead of in memory")
    .option("--token-file <path>", `file holding the token clients must send (default: the ${settingName("token")} environment variable)`)
    .action(async (options: { port: number; host: string; dir?: string; tokenFile?: string }) => {
      const token = requireToken(queue, options.tokenFile, "fray queue serve");
      const server = await serveQueue(options.dir ? new FileQueue(options.dir) : new MemoryQueue(), { port: options.port, host: options.host, token });
      console.log(`fray queue serving ${options.dir ? `the FileQueue in ${options.dir}` : "a MemoryQueue"} at ${server.url}`);
    });
  return queue;
}
