// serveQueue: any Queue over HTTP, for HttpQueue clients in other processes
// and on other hosts. Every request must carry the token
// (Authorization: Bearer …); without it the answer is 401 and the queue is
// not touched. Items travel as the codec's standalone bytes.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeStandalone, encodeStandalone } from "../wire/codec.ts";
import { InvalidLeaseError, leaseMs, type Lease, type Queue } from "./queue.ts";
import { bearerMatches, queueToken } from "./queue-token.ts";

export interface QueueServerOptions {
  /** Port to listen on (default 0: any free port; see `url`). */
  readonly port?: number;
  /** Address to listen on (default 127.0.0.1; "0.0.0.0" for other hosts). */
  readonly host?: string;
  /** The shared secret clients send (default FRAY_TOKEN). */
  readonly token?: string;
  /** Largest item accepted, in bytes (default 256 MiB). */
  readonly maxItemBytes?: number;
}

export interface QueueServer {
  /** http://host:port/ — what HttpQueue takes. */
  readonly url: string;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function serveQueue<T>(queue: Queue<T>, options: QueueServerOptions = {}): Promise<QueueServer> {
  const token = queueToken(options.token, "serveQueue");
  const maxBytes = options.maxItemBytes ?? 256 * 2 ** 20;
  const routes: Record<string, (req: IncomingMessage, url: URL, res: ServerResponse) => Promise<void>> = {
    "POST /push": async (req, _url, res) => {
      const bytes = await body(req, maxBytes);
      let item: T;
      try {
        item = decodeStandalone(bytes) as T;
      } catch (err) {
        throw new HttpError(400, `the body is not an item encoded as HttpQueue sends them: ${(err as Error).message}`);
      }
      await queue.push(item);
      res.writeHead(204).end();
    },
    "GET /peek": async (_req, _url, res) => {
      const item = await queue.peek();
      if (item === null) res.writeHead(204).end();
      else res.writeHead(200, { "content-type": "application/octet-stream" }).end(encodeStandalone(item, "a queue item"));
    },
    "POST /pop": async (_req, url, res) => {
      const leaseTimeout = url.searchParams.has("leaseTimeout") ? Number(url.searchParams.get("leaseTimeout")) : undefined;
      try {
        leaseMs({ leaseTimeout });
      } catch (err) {
        throw new HttpError(400, (err as Error).message);
      }
      const lease = await queue.pop({ leaseTimeout });
      if (lease === null) return void res.writeHead(204).end();
      res.writeHead(200, { "content-type": "application/octet-stream", "fray-lease-id": lease.leaseId, "fray-lease-timestamp": String(lease.timestamp) });
      res.end(encodeStandalone(lease.item, "a queue item"));
    },
    "POST /done": async (_req, url, res) => {
      await queue.done(leaseFrom(url));
      res.writeHead(204).end();
    },
    "POST /release": async (_req, url, res) => {
      await queue.release(leaseFrom(url));
      res.writeHead(204).end();
    },
    "GET /size": async (_req, _url, res) => sendCount(res, await queue.size()),
    "GET /pending": async (_req, _url, res) => sendCount(res, await queue.pending()),
  };

  const server = createServer(async (req, res) => {
    try {
      if (!bearerMatches(req.headers.authorization, token)) {
        req.resume();
        throw new HttpError(401, "missing or wrong token: send 'Authorization: Bearer TOKEN' with the queue server's token");
      }
      const url = new URL(req.url ?? "/", "http://queue");
      const route = routes[`${req.method} ${url.pathname}`];
      if (!route) throw new HttpError(404, `no endpoint ${req.method} ${url.pathname}; the queue server has ${Object.keys(routes).join(", ")}`);
      await route(req, url, res);
    } catch (err) {
      // Only errors meant for the client are shown to it; anything else may name files or code, so it stays in this log.
      const [status, message] =
        err instanceof HttpError
          ? [err.status, err.message]
          : err instanceof InvalidLeaseError
            ? [409, err.message]
            : [500, "the queue server failed to handle this request; its log says why"];
      if (status === 500) console.error(`fray queue server: ${req.method} ${req.url?.split("?")[0]} failed:`, err);
      if (!res.headersSent) res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: message }));
      else res.destroy();
    }
  });
  server.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(":") ? `[${address}]` : address}:${port}/`,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}

/** Lease ids are short tokens (a UUID, FileQueue's EXPIRES~HEX): anything else was never handed out. */
const LEASE_ID = /^[\w.~-]{1,128}$/;

/** Answers with a number (headers only once it is known, so a failure can still be a 500). */
function sendCount(res: ServerResponse, n: number): void {
  res.writeHead(200, { "content-type": "text/plain" }).end(String(n));
}

function leaseFrom(url: URL): Lease<never> {
  const leaseId = url.searchParams.get("leaseId");
  if (!leaseId) throw new HttpError(400, "this endpoint takes ?leaseId=…");
  if (!LEASE_ID.test(leaseId)) throw new InvalidLeaseError(leaseId.slice(0, 40));
  return { leaseId, item: undefined as never, timestamp: 0 };
}

async function body(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new HttpError(413, `the item is over the server's limit of ${maxBytes} bytes (serveQueue's maxItemBytes)`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
