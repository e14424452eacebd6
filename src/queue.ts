// `fray/queue`: lease queues — in memory, in a directory shared by processes, or behind an HTTP server.
export { FileQueue } from "./queue/file-queue.ts";
export { HttpQueue, type HttpQueueOptions } from "./queue/http-queue.ts";
export { MemoryQueue } from "./queue/memory-queue.ts";
export { InvalidLeaseError, type Lease, type PopOptions, type Queue } from "./queue/queue.ts";
export { serveQueue, type QueueServer, type QueueServerOptions } from "./queue/queue-server.ts";
