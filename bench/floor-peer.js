// The floor's other process: a raw Unix-socket peer with 4-byte length-prefixed
// frames and nothing else — no codec, no actors. It echoes every frame in
// "echo" mode and counts frames in "sink" mode, answering "done" after N.
import { createServer } from "node:net";

const [path, mode, countArg] = process.argv.slice(2);
const expected = Number(countArg ?? 0);

const server = createServer((socket) => {
  socket.setNoDelay(true);
  let buffered = Buffer.alloc(0);
  let seen = 0;
  socket.on("data", (chunk) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    let at = 0;
    const replies = [];
    while (buffered.length - at >= 4) {
      const len = buffered.readUInt32LE(at);
      if (buffered.length - at < 4 + len) break;
      const frame = buffered.subarray(at, at + 4 + len);
      at += 4 + len;
      if (mode === "echo") replies.push(frame);
      else if (++seen === expected) replies.push(Buffer.from([4, 0, 0, 0, 100, 111, 110, 101]));
    }
    buffered = buffered.subarray(at);
    if (replies.length) socket.write(Buffer.concat(replies));
  });
});
server.listen(path, () => process.send?.("ready"));
process.on("disconnect", () => process.exit(0));
