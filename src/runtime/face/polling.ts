// The runtime's face for waiting on a condition outside fray (a job's state, a file): polled, with a
// deadline. Launchers load it with import() when a job starts, so a worker that imports fray/mesh does not.
export { pollUntil, PollTimeoutError } from "../base/poll.ts";
