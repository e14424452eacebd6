// Starts `fray worker` processes on this machine for the multi-host example, when it
// is given no addresses: each on a free loopback port, with a token file.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";

/** The `fray` command of the installed package: what `npx fray` runs. */
function frayBin(): string {
  const pkg = createRequire(import.meta.url).resolve("fray/package.json");
  const { bin } = JSON.parse(readFileSync(pkg, "utf8")) as { bin: { fray: string } };
  return join(dirname(pkg), bin.fray);
}

/** A port nothing listens on right now (a worker that loses the race for it exits, and is started again on another). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

export interface LocalWorker {
  readonly addr: string;
  readonly child: ChildProcess;
}

/**
 * `fray worker --listen tcp://127.0.0.1:PORT --token-file FILE`, run with this process's
 * loader flags (tsx), so the procs it starts load TypeScript as this process does.
 * Resolves once it says it listens.
 */
export async function startWorker(tokenFile: string, attempts = 5): Promise<LocalWorker> {
  const addr = `tcp://127.0.0.1:${await freePort()}`;
  const child = spawn(process.execPath, [...process.execArgv, frayBin(), "worker", "--listen", addr, "--token-file", tokenFile], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit").then(() => false);
  const listening = (async () => {
    for await (const line of createInterface({ input: child.stdout! })) if (line.startsWith("fray worker listening on")) return true;
    return false;
  })();
  if (await Promise.race([listening, exited])) {
    child.stdout!.pipe(process.stderr); // anything it says later
    return { addr, child };
  }
  if (attempts > 1) return startWorker(tokenFile, attempts - 1);
  throw new Error(`fray worker did not start on ${addr} (exit code ${child.exitCode}); see its output above`);
}

/** Stops the workers with SIGTERM and waits for them to exit. */
export async function stopWorkers(workers: readonly LocalWorker[]): Promise<void> {
  await Promise.all(
    workers.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exit = once(child, "exit");
      child.kill("SIGTERM");
      await exit;
    }),
  );
}
