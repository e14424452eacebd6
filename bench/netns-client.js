// Runs inside the client namespace of the netns benchmark: round trip to an
// actor on another "host" vs raw TCP ping-pong over the same link, then the
// time from cutting that host's link to its MeshFailure. Prints JSON lines;
// waits for "cut" on stdin before the last measure.
import { createConnection } from "node:net";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { attachToWorkers, setUnhandledFaultHook } from "../dist/mesh.js";
import { Echo } from "./actors.js";

const [workerAddr, echoHost, echoPort] = process.argv.slice(2);
const n = 2000;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Raw TCP ping-pong against the echo peer in the other namespace.
const socket = createConnection(Number(echoPort), echoHost);
socket.setNoDelay(true);
await once(socket, "connect");
const frame = Buffer.alloc(52);
frame.writeUInt32LE(48, 0);
const raw = [];
for (let i = 0; i < n + 200; i++) {
  const t = process.hrtime.bigint();
  socket.write(frame);
  let got = 0;
  while (got < frame.length) got += (await once(socket, "data"))[0].length;
  if (i >= 200) raw.push(Number(process.hrtime.bigint() - t) / 1000);
}
socket.destroy();

const procs = attachToWorkers([workerAddr]).spawnProcs({ procs: 1 });
const echo = procs.spawn("echo", Echo);
for (let i = 0; i < 200; i++) await echo.ping.callOne();
const times = [];
for (let i = 0; i < n; i++) {
  const t = process.hrtime.bigint();
  await echo.ping.callOne();
  times.push(Number(process.hrtime.bigint() - t) / 1000);
}
console.log(JSON.stringify({ actorUs: median(times), rawUs: median(raw) }));

let failedAt = 0;
const failed = new Promise((resolve) => setUnhandledFaultHook(() => resolve((failedAt = performance.now()))));
for await (const line of createInterface({ input: process.stdin })) if (line === "cut") break;
const cutAt = performance.now();
await failed;
console.log(JSON.stringify({ detectMs: failedAt - cutAt }));
process.exit(0);
