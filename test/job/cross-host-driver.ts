// A driver of the cross-host jobs test, run on an isolated host: `trainer` posts a
// RemoteBuffer it owns and a port it reads to a named actor, then waits for a
// rollout's report on that port; `rollout` (another host, another job) takes both
// from the named actor, reads the weights and reports their sum on the port.
import { createJobContext } from "../../src/job.ts";
import { Channel, RemoteBuffer } from "../../src/mesh.ts";
import { Board } from "./cross-host-board.ts";

const say = (o: object) => console.log(JSON.stringify(o));
const role = process.argv[2];
if (role === "trainer" || role === "rollout") {
  await using ctx = createJobContext("processes", { maxWorkers: 1 });
  const board = await ctx.createActor(Board, [], { name: "board", getIfExists: true });
  if (role === "trainer") {
    const weights = Float32Array.from({ length: 1 << 20 }, (_, i) => i % 7);
    const [port, reports] = Channel.open<number>();
    await ctx.get(board.post.remote(new RemoteBuffer(weights), port));
    say({ posted: weights.reduce((a, b) => a + b, 0) });
    say({ reported: await reports.recv() });
  } else {
    const [buf, port] = (await ctx.get(board.take.remote()))!;
    const local = new Float32Array(buf.size / 4);
    await buf.readInto(local, { timeout: 120 });
    const sum = local.reduce((a, b) => a + b, 0);
    port.send(sum);
    say({ read: sum });
  }
}
