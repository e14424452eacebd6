// How the pieces of mesh collectives travel between two ranks, and how many went
// each way from this process (this thread, for a rank on a worker thread):
// `collective.pathStats()` reports them, so a user (and the tests) can see which
// path a collective took. Plain numbers, counted whether metrics are on or not:
// one addition per piece, and pieces are few (one per peer and round).

/**
 * "local": to a rank of the same proc (handed over in memory); "sharedArrayBuffer": to a rank on another
 * thread of this process; "sharedMemory": to a process that sees the same /dev/shm; "socket": in frames.
 */
export type PiecePath = "local" | "sharedArrayBuffer" | "sharedMemory" | "socket";

/** Pieces of array data sent to peers and their bytes, by path. */
export type PathStats = Record<PiecePath, { pieces: number; bytes: number }>;

export const pathStats: PathStats = {
  local: { pieces: 0, bytes: 0 },
  sharedArrayBuffer: { pieces: 0, bytes: 0 },
  sharedMemory: { pieces: 0, bytes: 0 },
  socket: { pieces: 0, bytes: 0 },
};
