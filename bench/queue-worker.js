// One process of the queue benchmark: waits for "go" on stdin, then does N push → pop → done
// cycles on a shared FileQueue or HttpQueue and prints "done".
//   node queue-worker.js file DIR|http URL N
import { createInterface } from "node:readline";
import { FileQueue, HttpQueue } from "../dist/queue.js";

const [kind, where, n] = process.argv.slice(2);
const queue = kind === "file" ? new FileQueue(where) : new HttpQueue(where);
console.log("ready");
const stdin = createInterface({ input: process.stdin });
await new Promise((resolve) => stdin.once("line", resolve));
stdin.close();
process.stdin.destroy(); // so that the process ends by itself, after stdout is flushed (process.exit could drop "done")
for (let i = 0; i < Number(n); i++) {
  await queue.push({ i, pid: process.pid });
  const lease = await queue.pop();
  await queue.done(lease);
}
console.log("done");
if (kind === "http") queue.close();
