// A client of a queue server (serveQueue, `fray queue serve`): the same Queue
// API, each call one HTTP request on a kept-alive connection.
import { Agent, request } from "node:http";
import { decodeStandalone, encodeStandalone } from "../wire/codec.ts";
import { InvalidLeaseError, leaseMs, type Lease, type PopOptions, type Queue } from "./queue.ts";
import { queueToken } from "./queue-token.ts";

export interface HttpQueueOptions {
  /** The server's token (default FRAY_TOKEN). */
  readonly token?: string;
}

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

export class HttpQueue<T> implements Queue<T> {
  readonly url: URL;
  readonly #authorization: string;
  readonly #agent = new Agent({ keepAlive: true });

  constructor(url: string, options: HttpQueueOptions = {}) {
    this.url = new URL(url);
    if (this.url.protocol !== "http:") throw new TypeError(`HttpQueue takes the http:// URL a queue server printed, got ${JSON.stringify(url)}`);
    this.#authorization = `Bearer ${queueToken(options.token, "HttpQueue")}`;
  }

  async push(item: T): Promise<void> {
    await this.#call("POST", "push", encodeStandalone(item, "a queue item"));
  }

  async peek(): Promise<T | null> {
    const reply = await this.#call("GET", "peek");
    return reply.status === 204 ? null : (decodeStandalone(reply.body) as T);
  }

  async pop(options?: PopOptions): Promise<Lease<T> | null> {
    const reply = await this.#call("POST", `pop?leaseTimeout=${leaseMs(options) / 1000}`);
    if (reply.status === 204) return null;
    return {
      item: decodeStandalone(reply.body) as T,
      leaseId: String(reply.headers["fray-lease-id"]),
      timestamp: Number(reply.headers["fray-lease-timestamp"]),
    };
  }

  async done(lease: Lease<T>): Promise<void> {
    await this.#call("POST", `done?leaseId=${encodeURIComponent(lease?.leaseId ?? "")}`);
  }

  async release(lease: Lease<T>): Promise<void> {
    await this.#call("POST", `release?leaseId=${encodeURIComponent(lease?.leaseId ?? "")}`);
  }

  async size(): Promise<number> {
    return Number((await this.#call("GET", "size")).body.toString());
  }

  async pending(): Promise<number> {
    return Number((await this.#call("GET", "pending")).body.toString());
  }

  /** Closes the kept-alive connections (they would not keep the process alive anyway). */
  close(): void {
    this.#agent.destroy();
  }

  async #call(method: string, path: string, body?: Uint8Array): Promise<Reply> {
    const reply = await this.#send(method, path, body).catch((err: Error & { reusedSocket?: boolean }) => {
      // The server closed a kept-alive connection as this request went out on it, unread (the keep-alive race): sent
      // again, once, on a new connection. A reset on a new connection is the server's answer.
      if (err.reusedSocket && (err.cause as NodeJS.ErrnoException | undefined)?.code === "ECONNRESET") return this.#send(method, path, body);
      throw err;
    });
    if (reply.status < 300) return reply;
    const message = (() => {
      try {
        return (JSON.parse(reply.body.toString()) as { error: string }).error;
      } catch {
        return reply.body.toString() || `HTTP ${reply.status}`;
      }
    })();
    if (reply.status === 409) throw new InvalidLeaseError(path.split("leaseId=")[1]);
    if (reply.status === 401) throw new Error(`the queue server at ${this.url.href} refused this client's token (401): ${message}`);
    if (reply.status === 400) throw new TypeError(message);
    throw new Error(`queue server at ${this.url.href} answered ${reply.status} to ${method} /${path.split("?")[0]}: ${message}`);
  }

  /** One request; its error says whether it went out on a kept-alive connection (`reusedSocket`). */
  #send(method: string, path: string, body?: Uint8Array): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const req = request(
        new URL(path, this.url),
        { method, agent: this.#agent, headers: { authorization: this.#authorization, "content-length": body?.length ?? 0 } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on("error", reject);
        },
      );
      req.on("error", (err) =>
        reject(
          Object.assign(new Error(`cannot reach the queue server at ${this.url.href}: ${err.message}`, { cause: err }), { reusedSocket: req.reusedSocket }),
        ),
      );
      req.end(body);
    });
  }
}
