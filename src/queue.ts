/// <reference types="node" preserve="true" />
/**
 * `fray/queue`: lease queues — in memory, in a directory shared by processes,
 * or behind an HTTP server. `pop` leases an item for a time; `done` removes
 * it, `release` puts it back at the front, and an expired lease returns it.
 *
 * @example
 * ```ts
 * import { FileQueue } from "fray/queue";
 * const queue = new FileQueue<{ shard: number }>("/shared/work-queue"); // or MemoryQueue, HttpQueue(url, { token })
 * await queue.push({ shard: 1 });
 * const lease = await queue.pop({ leaseTimeout: 60 }); // seconds; null when nothing is pending
 * if (lease) await queue.done(lease);
 * ```
 * @module fray/queue
 */
export { FileQueue } from "./queue/file-queue.ts";
export { HttpQueue, type HttpQueueOptions } from "./queue/http-queue.ts";
export { MemoryQueue } from "./queue/memory-queue.ts";
export { InvalidLeaseError, type Lease, type PopOptions, type Queue } from "./queue/queue.ts";
export { serveQueue, type QueueServer, type QueueServerOptions } from "./queue/queue-server.ts";
