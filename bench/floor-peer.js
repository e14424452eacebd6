// The floor's other process: a raw Unix-socket peer with 4-byte length-prefixed
// frames and nothing else — no codec, no actors. It echoes every frame in
// "echo" mode and counts frames in "sink" mode, answering "done" after N.
import { createServer } from "node:net";

const [path, mode, countArg] = process.argv.slice(2);
const expected = Number(countArg ?? 0);

const server = createServer((socket) => {
  socket.setNoDelay?.(true);
  // Frames are reassembled the way any careful framed reader would: small ones
  // from the chunk, a large one copied once into a buffer of its known length.
  let partial = null;
  let big = null;
  let filled = 0;
  let seen = 0;
  const onFrame = (frame, replies) => {
    if (mode === "echo") replies.push(frame);
    else if (++seen === expected) replies.push(Buffer.from([4, 0, 0, 0, 100, 111, 110, 101]));
  };
  socket.on("data", (chunk) => {
    const replies = [];
    if (partial) {
      chunk = Buffer.concat([partial, chunk]);
      partial = null;
    }
    let at = 0;
    while (at < chunk.length) {
      if (big) {
        const n = Math.min(chunk.length - at, big.length - filled);
        chunk.copy(big, filled, at, at + n);
        filled += n;
        at += n;
        if (filled === big.length) {
          onFrame(big, replies);
          big = null;
        }
        continue;
      }
      if (chunk.length - at < 4) {
        partial = chunk.subarray(at);
        break;
      }
      const size = 4 + chunk.readUInt32LE(at);
      if (chunk.length - at >= size) {
        onFrame(chunk.subarray(at, at + size), replies);
        at += size;
      } else {
        big = Buffer.allocUnsafe(size);
        filled = 0;
      }
    }
    if (replies.length) socket.write(Buffer.concat(replies));
  });
});
// A path is a Unix socket; "tcp" listens on a loopback TCP port and reports it.
if (path === "tcp") server.listen(0, "127.0.0.1", () => process.send?.(server.address().port));
else server.listen(path, () => process.send?.("ready"));
process.on("disconnect", () => process.exit(0));
