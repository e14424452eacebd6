// Runs a command line on one of the test Node versions (scripts/test-setup/node-versions.ts), installing
// it first if needed; its bin directory goes first on PATH, so `node` in the processes the command
// starts (npm's included) is that version too. npm test runs the suite this way on Node 24:
//   node --import tsx scripts/with-node.ts 26 --import tsx --test test/cli.test.ts
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { delimiter, dirname } from "node:path";
import { NODE_MAJORS, testNode, type NodeMajor } from "./test-setup.ts";

const [major, ...args] = process.argv.slice(2);
if (!NODE_MAJORS.map(String).includes(major)) {
  console.error(`with-node: the first argument is the Node version, one of ${NODE_MAJORS.join(", ")} (got ${major ?? "nothing"})`);
  process.exit(2);
}
const node = await testNode(Number(major) as NodeMajor);
const child = spawn(node, args, { stdio: "inherit", env: { ...process.env, PATH: [dirname(node), process.env.PATH].join(delimiter) } });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(signal ? 128 + constants.signals[signal] : (code ?? 1)));
