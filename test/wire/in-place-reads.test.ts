// A socket made with InPlaceReads (net's `onread`): authentication reads it as usual, then the transport decodes
// what is read, and a landing attachment's bytes are read by the kernel straight into their destination. On the
// sending side, `sent` says when a frame's memory may be used again. Real TCP sockets on loopback.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createConnection, createServer, type Socket } from "node:net";
import { afterEach, describe, it } from "node:test";
import { authenticateClient, authenticateServer } from "../../src/wire/auth.ts";
import { InPlaceReads } from "../../src/wire/in-place-reads.ts";
import { SocketTransport } from "../../src/wire/socket-transport.ts";
import type { Frame } from "../../src/wire/frame.ts";

const TOKEN = "in-place-reads-test-token";
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/**
 * A connected, authenticated pair on loopback: the server's transport, and the client's socket made with `reads`.
 * `late`: the client's handshake starts only once the server's first bytes were read (nothing may be lost meanwhile).
 */
async function pair(reads: InPlaceReads, late = false): Promise<{ server: SocketTransport; client: SocketTransport }> {
  const listener = createServer();
  listener.listen(0, "127.0.0.1");
  await once(listener, "listening");
  cleanups.push(() => listener.close());
  const accepted = once(listener, "connection") as Promise<[Socket]>;
  const socket = createConnection({ host: "127.0.0.1", port: (listener.address() as { port: number }).port, onread: reads.onread });
  reads.attach(socket);
  cleanups.push(() => socket.destroy());
  await once(socket, "connect");
  const [serverSocket] = await accepted;
  cleanups.push(() => serverSocket.destroy());
  // The handshake reads the onread socket by its "data" events, as the dialer's does.
  const serverSide = authenticateClient(serverSocket, [TOKEN], 5000);
  if (late) await once(socket, "readable");
  await Promise.all([serverSide, authenticateServer(socket, TOKEN, 5000)]);
  return { server: new SocketTransport(serverSocket), client: new SocketTransport(socket, undefined, reads) };
}

const pattern = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) % 256);

describe("InPlaceReads", () => {
  it("authenticates, then reads landing attachments straight into their destinations and small frames as usual", async () => {
    const reads = new InPlaceReads();
    const { server, client } = await pair(reads);
    const dests: Uint8Array[] = [];
    client.landAttachments((_header, _payload, lengths) => {
      const d = lengths.map((n) => new Uint8Array(n));
      dests.push(...d);
      return d;
    });
    const got: Frame[] = [];
    const all = new Promise<void>((resolve) =>
      client.listen({
        frame: (f) => {
          got.push(f);
          if (got.length === 7) resolve();
        },
        close: () => {},
      }),
    );
    const big = [pattern(3 << 20, 1), pattern(1 << 20, 2), pattern(2 << 20, 3)];
    for (let i = 0; i < big.length; i++) {
      server.send({ header: new Uint8Array([i]), payload: new Uint8Array([9]), attachments: [big[i]] });
      server.send({ header: new Uint8Array([100 + i]), payload: pattern(50, i), attachments: [] });
    }
    server.send({ header: new Uint8Array([200]), payload: new Uint8Array(0), attachments: [] });
    await all;
    assert.deepEqual(
      got.map((f) => f.header[0]),
      [0, 100, 1, 101, 2, 102, 200],
    );
    for (let i = 0; i < big.length; i++) {
      assert.ok(dests.includes(got[2 * i].attachments[0]), "delivered in the destination the landing gave");
      assert.deepEqual(got[2 * i].attachments[0], big[i]);
      assert.deepEqual(Buffer.from(got[2 * i + 1].payload), Buffer.from(pattern(50, i)));
    }
    const total = big.reduce((s, b) => s + b.byteLength, 0);
    assert.ok(reads.landedBytes >= total * 0.9, `${reads.landedBytes} of ${total} attachment bytes read in place`);
    client.close();
    server.close();
  });

  it("keeps what arrives before the handshake reads it", async () => {
    const { server, client } = await pair(new InPlaceReads(), true);
    const got = new Promise<Frame>((resolve) => client.listen({ frame: resolve, close: () => {} }));
    server.send({ header: new Uint8Array([7]), payload: new Uint8Array(0), attachments: [] });
    assert.equal((await got).header[0], 7);
    client.close();
    server.close();
  });

  it("closes the connection with the decoder's error when the peer sends a malformed frame", async () => {
    const reads = new InPlaceReads();
    const { server, client } = await pair(reads);
    const closed = new Promise<Error | undefined>((resolve) => client.listen({ frame: () => {}, close: resolve }));
    (server as unknown as { socket: Socket }).socket.write(Buffer.from([1, 0, 0, 0, 0, 0, 0, 0])); // a length below any frame's
    const error = await closed;
    assert.match(String(error?.message), /malformed frame length/);
    server.close();
  });
});

describe("SocketTransport sent", () => {
  it("is called once a frame sent by reference is written, and at once for one copied into a batch", async () => {
    const { server, client } = await pair(new InPlaceReads());
    const order: string[] = [];
    const arrived = new Promise<void>((resolve) => client.listen({ frame: (f) => f.header[0] === 2 && resolve(), close: () => {} }));
    server.send({ header: new Uint8Array([1]), payload: new Uint8Array([1]), attachments: [] }, () => order.push("small"));
    assert.deepEqual(order, ["small"], "a small frame is copied as it is sent");
    const written = new Promise<void>((resolve) =>
      server.send({ header: new Uint8Array([2]), payload: new Uint8Array(0), attachments: [pattern(4 << 20, 5)] }, () => {
        order.push("big");
        resolve();
      }),
    );
    assert.deepEqual(order, ["small"], "a large frame's memory is still to be written");
    await written;
    await arrived;
    assert.deepEqual(order, ["small", "big"]);
    client.close();
    server.close();
  });
});
