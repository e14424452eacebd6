// A process on an isolated host (test/isolated-hosts.ts) speaking JSON lines, for the cross-host benchmarks.
import { once } from "node:events";
import { createInterface } from "node:readline";

/** Runs node with `args` on `host`: next() reads one JSON line, ask(command) writes one line and reads the answer, quit() ends it (code 0 or throws). */
export function speaker(host, args, env) {
  const child = host.spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = once(child, "exit");
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`${args.join(" ")} on ${host.name} exited with code ${(await exited)[0]} before answering`);
    return JSON.parse(value);
  };
  return {
    next,
    ask: (command) => (child.stdin.write(command + "\n"), next()),
    quit: async () => {
      child.stdin.end("quit\n");
      const [code] = await exited;
      if (code !== 0) throw new Error(`${args.join(" ")} on ${host.name} exited with code ${code}`);
    },
  };
}
