// The runtime's face for bulk data: RemoteBuffers and their transfer, shards of distributed arrays, and
// the paths a collective's pieces take.
export { BUFFERS, dropBuffer, readAll, writeAll, type PagedBytes } from "../bulk/buffer-store.ts";
export { useStaging } from "../bulk/shm-staging.ts";
export { ShmBytes } from "../bulk/shm-bytes.ts";
export { sharesShm, transfer, type BufferAddress } from "../bulk/buffer-transfer.ts";
export { hasShardRef, ShardRef, shardsOf, type ShardStore } from "../bulk/shard-store.ts";
export type { ShareCache } from "../bulk/shared-views.ts";
export { pathStats, type PathStats, type PiecePath } from "../bulk/collective-paths.ts";
