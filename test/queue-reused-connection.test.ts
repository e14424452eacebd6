// HttpQueue and the keep-alive race: a server may close an idle kept-alive connection just as the client sends its next
// request on it (Node's server closes them after 5 s; on a loaded machine the client's own earlier close can come
// late), and the client reads a reset. No request was read on that connection, so the client sends it again on a
// new one; a reset on a new connection is the server's answer and fails the call, naming the server. The race cannot
// be timed from a test, so a stand-in server (a raw TCP one, not the queue server) resets at the chosen request.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { it } from "node:test";
import { HttpQueue } from "../src/queue.ts";

/**
 * A stand-in for a queue server: answers every request with its number among the server's requests, but resets the
 * connection at its `i`-th request (the server's `n`-th) when `reset(n, i)` says so.
 */
async function standIn(reset: (n: number, i: number) => boolean) {
  let n = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let i = 0;
    let pending = "";
    socket.on("data", (data) => {
      pending += data.toString("latin1");
      for (let end = pending.indexOf("\r\n\r\n"); end >= 0; end = pending.indexOf("\r\n\r\n")) {
        pending = pending.slice(end + 4);
        n++;
        if (reset(n, i++)) return void socket.resetAndDestroy();
        const body = String(n);
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`);
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    [Symbol.asyncDispose]: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

it("HttpQueue, against a stand-in server: a kept-alive connection reset at the next request is retried once on a new connection", async () => {
  // The second request, the first on the kept-alive connection's second use, is reset unread.
  await using server = await standIn((n, i) => n === 2 && i === 1);
  const queue = new HttpQueue<number>(server.url, { token: "t" });
  try {
    assert.equal(await queue.size(), 1);
    assert.equal(await queue.size(), 3, "sent again on a new connection, where it was the server's third request");
    assert.equal(await queue.size(), 4, "and that connection kept alive");
  } finally {
    queue.close();
  }
});

it("HttpQueue, against a stand-in server: a reset on a new connection fails the call, naming the server, with no retry", async () => {
  await using server = await standIn(() => true);
  const queue = new HttpQueue<number>(server.url, { token: "t" });
  try {
    await assert.rejects(queue.size(), (err: Error) => {
      assert.match(err.message, new RegExp(`cannot reach the queue server at ${server.url.replace(/[./]/g, "\\$&")}: .*ECONNRESET`));
      return true;
    });
  } finally {
    queue.close();
  }
});
