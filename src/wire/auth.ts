// Mutual authentication of a stream connection with a shared token, before a
// single frame is read: whoever connects to a worker can make it run code, so
// a peer that cannot prove it knows the token is disconnected having had
// nothing decoded. Challenge-response (HMAC-SHA256 over both sides' nonces),
// so the token itself never crosses the wire.
//
//   server → client: "FRAY1" nonceS(32)
//   client → server: "FRAY1" nonceC(32) HMAC(token, "client" nonceS nonceC)
//   server → client: HMAC(token, "server" nonceC nonceS)
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Socket } from "node:net";
import { registerErrorClass } from "./error-codec.ts";

const MAGIC = Buffer.from("FRAY1");
const NONCE = 32;
const MAC = 32;

export class AuthenticationError extends Error {
  override name = "AuthenticationError";
}
registerErrorClass(AuthenticationError);

function mac(token: string, role: "client" | "server", first: Buffer, second: Buffer): Buffer {
  return createHmac("sha256", token).update(role).update(first).update(second).digest();
}

/**
 * Reads exactly `n` bytes, or rejects on close, error or `deadline`. Holds at
 * most `n` bytes plus one chunk, whatever the peer sends; bytes past `n` are
 * put back only after this reader has stopped listening (else the socket would
 * hand them straight back to it).
 */
function readExactly(socket: Socket, n: number, deadline: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => finish(new AuthenticationError("peer did not authenticate in time")), Math.max(0, deadline - Date.now()));
    const onData = (chunk: Buffer) => {
      got.push(chunk);
      size += chunk.length;
      if (size < n) return;
      const all = Buffer.concat(got, size);
      finish(null, all.subarray(0, n));
      if (size > n) socket.unshift(all.subarray(n));
    };
    const onEnd = () => finish(new AuthenticationError("connection closed during authentication"));
    const finish = (err: Error | null, value?: Buffer) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("close", onEnd);
      socket.off("error", finish);
      socket.pause();
      got = [];
      if (err) reject(err);
      else resolve(value!);
    };
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("close", onEnd);
    socket.once("error", finish);
    socket.resume();
  });
}

/** The accepting side. Rejects (and the caller destroys the socket) unless the peer knows one of `tokens`. */
export async function authenticateClient(socket: Socket, tokens: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const nonceS = randomBytes(NONCE);
  socket.write(Buffer.concat([MAGIC, nonceS]));
  const reply = await readExactly(socket, MAGIC.length + NONCE + MAC, deadline);
  if (!reply.subarray(0, MAGIC.length).equals(MAGIC)) throw new AuthenticationError("peer does not speak the Fray protocol");
  const nonceC = reply.subarray(MAGIC.length, MAGIC.length + NONCE);
  const proof = reply.subarray(MAGIC.length + NONCE);
  const token = tokens.find((t) => timingSafeEqual(proof, mac(t, "client", nonceS, nonceC)));
  if (token === undefined) throw new AuthenticationError("peer presented a wrong token");
  socket.write(mac(token, "server", nonceC, nonceS));
}

/** The connecting side. Rejects unless the server knows `token` too. */
export async function authenticateServer(socket: Socket, token: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const hello = await readExactly(socket, MAGIC.length + NONCE, deadline);
  if (!hello.subarray(0, MAGIC.length).equals(MAGIC)) throw new AuthenticationError("server does not speak the Fray protocol");
  const nonceS = hello.subarray(MAGIC.length);
  const nonceC = randomBytes(NONCE);
  socket.write(Buffer.concat([MAGIC, nonceC, mac(token, "client", nonceS, nonceC)]));
  const proof = await readExactly(socket, MAC, deadline);
  if (!timingSafeEqual(proof, mac(token, "server", nonceC, nonceS))) throw new AuthenticationError("server presented a wrong token");
}
