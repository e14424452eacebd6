// Q1/Q2: lease queues — push → pop → done cycles per second, in one process and in 8 at once, against
// the bare operations underneath (an array; write + rename + unlink of a file; three HTTP round trips).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { renameSync, unlinkSync, writeFileSync } from "node:fs";
import { Agent as HttpAgent, createServer as createHttpServer, request as httpRequest } from "node:http";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { FileQueue, HttpQueue, MemoryQueue, serveQueue } from "../../dist/queue.js";
import { report, scale, scratch, want } from "../lib/group.js";
import { perSecondSince } from "../lib/stats.js";

const token = "bench-queue-token";
const n = Math.round(20_000 * scale);
const perSecond = (x) => `${Math.round(x).toLocaleString("en-US")}/s`;
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

async function cycles(queue, count) {
  const t = performance.now();
  for (let i = 0; i < count; i++) {
    await queue.push({ i });
    await queue.done(await queue.pop());
  }
  return perSecondSince(count, t);
}

/** Cycles per second of 8 queue-worker processes at once, each doing n/8 cycles after every one of them is ready. */
async function eightProcesses(args) {
  const each = Math.round(n / 8);
  const file = fileURLToPath(new URL("../fixtures/queue-worker.js", import.meta.url));
  const workers = Array.from({ length: 8 }, () =>
    spawn(process.execPath, [file, ...args, String(each)], { env: { ...process.env, FRAY_TOKEN: token }, stdio: ["pipe", "pipe", "inherit"] }),
  );
  const exited = workers.map((w) => once(w, "exit")); // now: some exit before the last "done" is read
  const lines = workers.map((w) => createInterface({ input: w.stdout })[Symbol.asyncIterator]());
  await Promise.all(lines.map((l) => l.next()));
  const start = performance.now();
  for (const w of workers) w.stdin.write("go\n");
  await Promise.all(lines.map((l) => l.next()));
  const rate = perSecondSince(each * 8, start);
  await Promise.all(exited);
  return rate;
}

if (want("Q1", "Q2")) {
  const memory = await cycles(new MemoryQueue(), n * 5);
  const array = [];
  let t = performance.now();
  for (let i = 0; i < n * 5; i++) {
    array.push({ i });
    array.shift();
  }
  const arrayRate = perSecondSince(n * 5, t);
  report(
    "Q1",
    "MemoryQueue push → pop → done, 1 process",
    perSecond(memory),
    "",
    `array push + shift ${perSecond(arrayRate)}`,
    ratio(memory, arrayRate),
    "(no goal)",
    null,
  );

  const fileDir = join(scratch, "file-queue");
  const file1 = await cycles(new FileQueue(fileDir), n);
  t = performance.now();
  for (let i = 0; i < n; i++) {
    writeFileSync(join(scratch, "raw-tmp"), "x");
    renameSync(join(scratch, "raw-tmp"), join(scratch, "raw-item"));
    unlinkSync(join(scratch, "raw-item"));
  }
  const rawFile = perSecondSince(n, t);
  report(
    "Q1",
    "FileQueue push → pop → done, 1 process",
    perSecond(file1),
    "",
    `write + rename + unlink ${perSecond(rawFile)}`,
    ratio(file1, rawFile),
    "(no goal)",
    null,
  );
  const file8 = await eightProcesses(["file", fileDir]);
  report(
    "Q2",
    "FileQueue push → pop → done, 8 processes on one directory",
    perSecond(file8),
    "",
    `1 process ${perSecond(file1)}`,
    ratio(file8, file1),
    "(no goal)",
    null,
  );

  const server = await serveQueue(new MemoryQueue(), { token });
  const client = new HttpQueue(server.url, { token });
  const http1 = await cycles(client, n);
  client.close();
  await server.close();
  const echo = createHttpServer((req, res) => req.resume().on("end", () => res.writeHead(204).end()));
  await new Promise((resolve) => echo.listen(0, "127.0.0.1", resolve));
  const agent = new HttpAgent({ keepAlive: true });
  const roundTrip = () =>
    new Promise((resolve) =>
      httpRequest({ host: "127.0.0.1", port: echo.address().port, method: "POST", path: "/", agent }, (res) => res.resume().on("end", resolve)).end(),
    );
  t = performance.now();
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) await roundTrip();
  const rawHttp = perSecondSince(n, t);
  agent.destroy();
  echo.close();
  report(
    "Q1",
    "HttpQueue push → pop → done, 1 process",
    perSecond(http1),
    "",
    `3 bare HTTP round trips ${perSecond(rawHttp)}`,
    ratio(http1, rawHttp),
    "(no goal)",
    null,
  );
  const cli = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
  const httpServer = spawn(process.execPath, [cli, "queue", "serve"], { env: { ...process.env, FRAY_TOKEN: token }, stdio: ["ignore", "pipe", "inherit"] });
  const [served] = await once(createInterface({ input: httpServer.stdout }), "line");
  const http8 = await eightProcesses(["http", /at (http:\/\/\S+)/.exec(served)[1]]);
  httpServer.kill("SIGKILL");
  report(
    "Q2",
    "HttpQueue push → pop → done, 8 processes on one `fray queue serve`",
    perSecond(http8),
    "",
    `1 process ${perSecond(http1)}`,
    ratio(http8, http1),
    "(no goal)",
    null,
  );
}
