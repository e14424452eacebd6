// The runtime's settings, declared once (setting-registry.ts says what a setting is); each layer above
// declares its own in src/<layer>/settings.ts. config.ts reads them.
import { MAX_FRAME_BYTES } from "../../wire/frame.ts";
import { ms, type Setting } from "./setting-registry.ts";

export const SETTINGS = {
  connectTimeoutMs: ms(
    "FRAY_CONNECT_TIMEOUT_MS",
    30_000,
    "how long a dial retries a peer that is not listening yet (a Unix socket whose process has exited fails at once)",
  ),
  reconnectMs: ms(
    "FRAY_RECONNECT_MS",
    10_000,
    "how long two processes whose TCP connection dropped (a reset, a NAT's timeout) try to make it again — the side that dialed dials " +
      "again, backing off, and what was sent and not received is delivered once, in order — before each takes the other for lost (a " +
      "peer whose process has exited refuses at once)",
  ),
  authTimeoutMs: ms("FRAY_AUTH_TIMEOUT_MS", 10_000, "how long a new connection has to authenticate before it is closed"),
  procStartTimeoutMs: ms("FRAY_PROC_START_TIMEOUT_MS", 60_000, "how long a worker process may take to start and report in"),
  spawnWaitMs: ms(
    "FRAY_SPAWN_WAIT_MS",
    30_000,
    "how long a message for an actor that is not spawned (yet) waits for its spawn, and a read of a distributed array's shard not made (yet) for its making",
  ),
  procStopTimeoutMs: ms(
    "FRAY_PROC_STOP_TIMEOUT_MS",
    5_000,
    "how long a proc told to stop (`ProcMesh.stop()`) may take to stop its actors: then it exits anyway (a parent SIGKILLs it)",
  ),
  cleanupTimeoutMs: ms("FRAY_CLEANUP_TIMEOUT_MS", 5_000, "how long an actor's `cleanup()` may run when it stops"),
  heartbeatIntervalMs: ms("FRAY_HEARTBEAT_INTERVAL_MS", 1_000, "how often a parent pings each worker process"),
  // Short: a remote host's worker only serves, so silence means the host or the network is down.
  hostTimeoutMs: ms(
    "FRAY_HOST_TIMEOUT_MS",
    4_000,
    "silence of a remote host's worker after which its ranks fail (a cut network closes no connection), and a RemoteBuffer read from a " +
      "process on that host fails (a held value is then made anew by its task, or its read rejects with ObjectLostError)",
  ),
  castFanout: {
    env: "FRAY_CAST_FANOUT",
    kind: "count",
    default: 16,
    min: 2,
    doc:
      "how many processes a call to a mesh is sent to directly; a call to more goes to one relay per subtree (a process of it), which " +
      "forwards it on, so each process sends at most this many copies (Monarch's casting tree)",
  },
  logStream: {
    env: "FRAY_LOG_STREAM",
    kind: "text",
    default: "1",
    doc:
      "`1`: every line a worker process or thread (its actors, its tasks) writes to stdout/stderr reaches the client's stdout/stderr " +
      "tagged with its origin, `[trainers host=1 gpus=3] …`, procs on remote workers' too; `0`: workers write to the terminal they inherit, untagged",
  },
  logAggregateMs: ms(
    "FRAY_LOG_AGGREGATE_MS",
    0,
    "a window in which identical lines of workers' output are folded into one with their count and ranks, `[64 ranks: workers=0..63] epoch " +
      "done (×64)`; 0: every line printed as it comes",
  ),
  maxFrameBytes: {
    env: "FRAY_MAX_FRAME_BYTES",
    kind: "bytes",
    default: 2 ** 30,
    max: MAX_FRAME_BYTES,
    doc:
      "the largest message (arguments or a value, typed arrays included) a process sends or accepts over a socket; a bigger one fails its " +
      "call with an error naming the call (task function or Class.endpoint), its largest argument and this setting, and a peer " +
      "announcing one is disconnected before anything is allocated",
  },
  heartbeatTimeoutMs: ms(
    "FRAY_HEARTBEAT_TIMEOUT_MS",
    30_000,
    "silence after which a worker is declared hung, killed and reported; generous because a worker's event loop is busy while an endpoint " +
      "computes synchronously",
  ),
  collectiveSameHost: {
    env: "FRAY_COLLECTIVE_SAME_HOST",
    kind: "text",
    default: "shm",
    doc:
      "how collectives move arrays between ranks that see the same /dev/shm: `shm` (an unlinked file in /dev/shm between processes, a " +
      "SharedArrayBuffer between threads; socket frames where neither is possible) or `socket`",
  },
  bufferChunkBytes: {
    env: "FRAY_BUFFER_CHUNK_BYTES",
    kind: "bytes",
    default: 2 ** 20,
    doc:
      "the chunk a RemoteBuffer transfer moves per request; control messages to the same process pass between chunks, and a chunk must fit " +
      "in `FRAY_MAX_FRAME_BYTES`",
  },
  bufferInflightBytes: {
    env: "FRAY_BUFFER_INFLIGHT_BYTES",
    kind: "bytes",
    default: 4 * 2 ** 20,
    doc: "how many bytes of one RemoteBuffer transfer are requested ahead (at least one chunk); bounds how long a control message waits behind a transfer",
  },
  bufferSameHost: {
    env: "FRAY_BUFFER_SAME_HOST",
    kind: "text",
    default: "shm",
    doc:
      "how RemoteBuffer bytes move between processes of one host: `shm` (through an unlinked file in /dev/shm; the socket where /dev/shm " +
      "is absent) or `socket`",
  },
  bufferShmKeepBytes: {
    env: "FRAY_BUFFER_SHM_KEEP_BYTES",
    kind: "bytes",
    default: 2 ** 30,
    doc:
      "the largest /dev/shm staging file a process keeps for its next same-host RemoteBuffer transfer (reusing one is much faster than " +
      "allocating one); larger ones are freed after the transfer",
  },
  reportIntervalMs: ms(
    "FRAY_REPORT_INTERVAL_MS",
    1_000,
    "how often each process of a cluster job writes its report for the dashboard (its actors, tasks, failures, CPU, memory and metrics)",
  ),
  reportKeepMs: ms(
    "FRAY_REPORT_KEEP_MS",
    3_600_000,
    "how long the report of a cluster job's process that ended (or whose host cannot be asked) is kept for the dashboard after its last " +
      "write; then the dashboard, or the job's next process to start, removes it",
  ),
  metrics: {
    env: "FRAY_METRICS",
    kind: "text",
    default: "1",
    doc:
      "`1`: this process counts calls, messages received, latencies, frames sent, tasks, failures and transfers for its metrics " +
      "(Prometheus text and JSON); `all`: also each endpoint's messages and bytes sent, the bytes of messages received and frames " +
      "received (counts that repeat others, per message, at a cost benchmark O1 measures); `0`: it counts nothing; " +
      "workers a process starts inherit it",
  },
  metricsDurationSample: {
    env: "FRAY_METRICS_DURATION_SAMPLE",
    kind: "count",
    default: 256,
    min: 1,
    doc:
      "the endpoint-duration histogram times every call of an endpoint called less than about once a millisecond, and of a busier one " +
      "one call in up to this many (adapting so that timed calls come ~1 ms apart; `1`: every call), since a clock read per call " +
      "costs a one-way message measurably (benchmark O1); the call and error counters count every call",
  },
  metricsTimeoutMs: ms(
    "FRAY_METRICS_TIMEOUT_MS",
    5_000,
    "how long collecting metrics waits for each process this one started; one that does not answer is left out and named",
  ),
  token: {
    env: "FRAY_TOKEN",
    kind: "text",
    shown: "a random one per process",
    doc: "the shared token every connection must prove (or `--token-file`); workers a process starts get its token",
  },
  tlsCa: {
    env: "FRAY_TLS_CA",
    kind: "path",
    doc: "the CA certificate for mutual TLS between processes (with `FRAY_TLS_CERT` and `FRAY_TLS_KEY`; `fray certs` makes them)",
  },
  tlsCert: { env: "FRAY_TLS_CERT", kind: "path", doc: "this process's certificate for mutual TLS" },
  tlsKey: { env: "FRAY_TLS_KEY", kind: "path", doc: "this process's private key for mutual TLS" },
  namespace: {
    env: "FRAY_NAMESPACE",
    kind: "text",
    shown: "none (a cluster sets it for its jobs)",
    doc: "the address (`tcp://host:port`) of the namespace service whose named actors this process's jobs share; cluster jobs get their cluster's",
  },
  advertiseHost: {
    env: "FRAY_ADVERTISE_HOST",
    kind: "text",
    shown: "none: a client listens on a Unix socket until it talks to a peer on another host, then on TCP at its address on that network",
    doc:
      "the IP or host name peers on other hosts reach this process at; a client (a driver) then listens on TCP there from its start, so the " +
      "ports, buffers and actors it hands out work on every host",
  },
  faultPoints: {
    env: "FRAY_FAULT_POINTS",
    kind: "text",
    shown: "none",
    doc:
      "a testing hook, not for production: named points of fray's code that hold, throw, exit, kill their process, drop its " +
      'connection or hold a timer still, `POINT[/SUBJECT]=ACTION;…` (docs/faults.md, "Fault points"); read by each process as it starts, so workers ' +
      "inherit it; a malformed value fails the process's start naming the problem",
  },
  replicaId: { env: "FRAY_REPLICA_ID", kind: "given", doc: "a cluster job replica's index, 0 to count − 1" },
  processId: { env: "FRAY_PROCESS_ID", kind: "given", doc: "which of its replica's processes this is, 0 to `processesPerTask` − 1" },
  reportDir: {
    env: "FRAY_REPORT_DIR",
    kind: "given",
    doc: "where a cluster job's processes write their reports for the dashboard (one file per process; in the job's state directory)",
  },
  procAddr: { env: "FRAY_PROC_ADDR", kind: "given", doc: "the address a worker process started by `spawnProcs()` serves at" },
  parentAddr: { env: "FRAY_PARENT_ADDR", kind: "given", doc: "the address of the process that started this worker" },
} as const satisfies Record<string, Setting>;

export type SettingKey = keyof typeof SETTINGS;
