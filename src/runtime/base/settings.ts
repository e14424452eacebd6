// Every setting of fray, declared once: its environment variable, its default,
// its kind (a number of milliseconds or bytes, or a text), and what it bounds
// or names. `config` (config.ts) reads them, messages take their names from
// here, and README's Settings tables are printed from here
// (`npm run settings-table`; test/settings.test.ts checks README against it).
// In the spirit of hyperactor's config.rs `declare_attrs!`.
import { MAX_FRAME_BYTES } from "../../wire/frame.ts";

/** A number of milliseconds, bytes or things with a default; an empty variable counts as unset. */
export interface NumberSetting {
  readonly env: `FRAY_${string}`;
  /** "count": a whole number of things (procs, …). */
  readonly kind: "ms" | "bytes" | "count";
  readonly default: number;
  /** The smallest and largest values allowed, if there are such. */
  readonly min?: number;
  readonly max?: number;
  /** What it bounds, as README's table says it. */
  readonly doc: string;
}

/**
 * A text: a name, a path or a secret. "path" defaults may start with `~/` (the
 * home directory); "given" ones fray sets itself for the processes it starts.
 */
export interface TextSetting {
  readonly env: `FRAY_${string}`;
  readonly kind: "text" | "path" | "given";
  /** The default; none when unset means "not given" (or, for `shown`, something computed). */
  readonly default?: string;
  /** How README shows a default that is not a plain value. */
  readonly shown?: string;
  readonly doc: string;
}

export type Setting = NumberSetting | TextSetting;

export function isNumberSetting(setting: Setting): setting is NumberSetting {
  return setting.kind === "ms" || setting.kind === "bytes" || setting.kind === "count";
}

const ms = (env: `FRAY_${string}`, value: number, doc: string): NumberSetting => ({ env, kind: "ms", default: value, doc });

export const SETTINGS = {
  connectTimeoutMs: ms(
    "FRAY_CONNECT_TIMEOUT_MS",
    30_000,
    "how long a dial retries a peer that is not listening yet (a Unix socket whose process has exited fails at once)",
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
  cancelGraceMs: ms(
    "FRAY_CANCEL_GRACE_MS",
    1_000,
    "how long a cancelled task that is running may take to end (an async one sees `getJobContext().signal` abort) before its worker is " +
      "replaced: the worker process is killed (a worker thread terminated) and a fresh one started; 0: at once",
  ),
  cleanupTimeoutMs: ms("FRAY_CLEANUP_TIMEOUT_MS", 5_000, "how long an actor's `cleanup()` may run when it stops"),
  heartbeatIntervalMs: ms("FRAY_HEARTBEAT_INTERVAL_MS", 1_000, "how often a parent pings each worker process"),
  // Short: a remote host's worker only serves, so silence means the host or the network is down.
  hostTimeoutMs: ms("FRAY_HOST_TIMEOUT_MS", 4_000, "silence of a remote host's worker after which its ranks fail (a cut network closes no connection)"),
  castFanout: {
    env: "FRAY_CAST_FANOUT",
    kind: "count",
    default: 16,
    min: 2,
    doc:
      "how many processes a call to a mesh is sent to directly; a call to more goes to one relay per subtree (a process of it), which " +
      "forwards it on, so each process sends at most this many copies (Monarch's casting tree)",
  },
  terminateGraceMs: ms(
    "FRAY_TERMINATE_GRACE_MS",
    5_000,
    "how long a cluster job's processes get after SIGTERM before SIGKILL (`terminate()`, `fray job stop`), and again after SIGKILL before " +
      "`terminate()` gives up on them",
  ),
  // Not shorter by default: one-core round trips read 34 µs with 0.1 ms, 32 with 1 ms and 22 with 5 ms on a 2-core VM,
  // likely because a timeout sooner than the kernel's next tick (4 ms at HZ=250) has the timer armed anew each wait.
  threadWaitMs: {
    ...ms(
      "FRAY_THREAD_WAIT_MS",
      5,
      "how long a worker thread that has just sent its tasks' values, and has no task left running, waits for the next task in a futex " +
        "before going back to its event loop (a one-at-a-time caller's next task then reaches it sooner); a timer or socket of that " +
        "thread may run up to this late, anything its parent sends wakes it at once; 0: never waits",
    ),
    max: 1_000,
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
  namespaceStartTimeoutMs: ms("FRAY_NAMESPACE_START_TIMEOUT_MS", 60_000, "how long a cluster waits for its namespace service to start"),
  namespaceIdleMs: {
    env: "FRAY_NAMESPACE_IDLE_MS",
    kind: "ms",
    default: 600_000,
    min: 1_000,
    doc:
      "how long a cluster's namespace service runs idle — no pending or running job, no hosted actor (detached or not), no connected " +
      "client or open dashboard page, not asked for by a launch — before it exits by itself (the next launch starts it again); it also " +
      "exits once its state directory is removed, and at `fray cluster stop`",
  },
  npmInstallTimeoutMs: ms(
    "FRAY_NPM_INSTALL_TIMEOUT_MS",
    600_000,
    "how long a cluster's `launch()` lets `npm install` of a job's `environment.npmPackages` run (once per set of packages: later jobs with " +
      "the same set reuse the install)",
  ),
  heartbeatTimeoutMs: ms(
    "FRAY_HEARTBEAT_TIMEOUT_MS",
    30_000,
    "silence after which a worker is declared hung, killed and reported; generous because a worker's event loop is busy while an endpoint " +
      "computes synchronously",
  ),
  hostsStartTimeoutMs: ms(
    "FRAY_HOSTS_START_TIMEOUT_MS",
    600_000,
    "how long `SlurmJob` and `KubernetesJob` wait for their hosts' workers (queues can be slow); their `startTimeoutMs` option overrides it",
  ),
  cloudStartTimeoutMs: ms(
    "FRAY_CLOUD_START_TIMEOUT_MS",
    1_800_000,
    "how long `SkyPilotJob` waits for its nodes (a cloud provisions machines first); its `startTimeoutMs` option overrides it",
  ),
  scancelTimeoutMs: ms(
    "FRAY_SCANCEL_TIMEOUT_MS",
    120_000,
    "how long `SlurmJob.kill()` and a Slurm cluster's `terminate()` wait, after `scancel`, for Slurm to report the jobs gone (Slurm's KillWait comes first)",
  ),
  collectiveTimeoutMs: ms(
    "FRAY_COLLECTIVE_TIMEOUT_MS",
    300_000,
    "how long a rank's collective (`collective.allReduce` & co.) waits for its peers before it rejects",
  ),
  collectiveDirectMaxBytes: {
    env: "FRAY_COLLECTIVE_DIRECT_MAX_BYTES",
    kind: "bytes",
    default: 65_536,
    doc:
      "the largest array `collective.allReduce` sends whole to every peer (one round, latency-optimal); larger ones are reduce-scattered " +
      "then all-gathered (two rounds, each rank sends 2(n−1)/n of the array: bandwidth-optimal)",
  },
  collectiveSameHost: {
    env: "FRAY_COLLECTIVE_SAME_HOST",
    kind: "text",
    default: "shm",
    doc:
      "how collectives move arrays between ranks that see the same /dev/shm: `shm` (an unlinked file in /dev/shm between processes, a " +
      "SharedArrayBuffer between threads; socket frames where neither is possible) or `socket`",
  },
  collectiveSharedMinBytes: {
    env: "FRAY_COLLECTIVE_SHARED_MIN_BYTES",
    kind: "bytes",
    default: 65_536,
    doc:
      "the smallest array a collective moves through shared memory between ranks of one host (smaller ones go in frames: fewer system " +
      "calls); allReduce's one-round arrays (`FRAY_COLLECTIVE_DIRECT_MAX_BYTES`) always go in frames",
  },
  bufferTimeoutMs: ms(
    "FRAY_BUFFER_TIMEOUT_MS",
    60_000,
    "how long a RemoteBuffer `readInto`/`writeFrom` may take; their `timeout` option (seconds) overrides it",
  ),
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
  dashboardRefreshMs: ms(
    "FRAY_DASHBOARD_REFRESH_MS",
    1_000,
    "how often a dashboard asks its sources (jobs, actors, failures, metrics) for news to push to open pages",
  ),
  dashboardSessionMs: ms("FRAY_DASHBOARD_SESSION_MS", 43_200_000, "how long a dashboard sign-in (its session cookie) lasts"),
  reportIntervalMs: ms(
    "FRAY_REPORT_INTERVAL_MS",
    1_000,
    "how often each process of a cluster job writes its report for the dashboard (its actors, tasks, failures, CPU, memory and metrics)",
  ),

  metrics: {
    env: "FRAY_METRICS",
    kind: "text",
    default: "1",
    doc:
      "`1`: this process counts calls, messages received, latencies, frames sent, tasks, failures and transfers for its metrics " +
      "(Prometheus text and JSON); `all`: also each endpoint's messages and bytes sent, the bytes of messages received and frames " +
      "received (counts that repeat others, per message: ~3% more CPU per one-way message, benchmark O1); `0`: it counts nothing; " +
      "workers a process starts inherit it",
  },
  metricsDurationSample: {
    env: "FRAY_METRICS_DURATION_SAMPLE",
    kind: "count",
    default: 256,
    min: 1,
    doc:
      "the endpoint-duration histogram times every call of an endpoint called less than about once a millisecond, and of a busier one " +
      "one call in up to this many (adapting so that timed calls come ~1 ms apart; `1`: every call): a clock read costs ~0.2 µs on a VM, " +
      "so timing every call cost a one-way message ~15% and one in 32 ~4% (benchmark O1); the call and error counters count every call",
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
  clusterSpec: { env: "FRAY_CLUSTER_SPEC", kind: "text", default: "local", doc: "the cluster `currentCluster()` and `fray job` use; replicas get it set" },
  clusterDir: {
    env: "FRAY_CLUSTER_DIR",
    kind: "path",
    default: "~/.fray/cluster",
    doc: "where cluster jobs' state lives when the spec has no `dir=`, and `SlurmJob`s' job directories (in `slurm-jobs/`); on Slurm every node must see it",
  },
  namespace: {
    env: "FRAY_NAMESPACE",
    kind: "text",
    shown: "none (a cluster sets it for its jobs)",
    doc: "the address (`tcp://host:port`) of the namespace service whose named actors this process's jobs share; cluster jobs get their cluster's",
  },
  namespaceListen: {
    env: "FRAY_NAMESPACE_LISTEN",
    kind: "text",
    default: "tcp://127.0.0.1:0",
    doc:
      "where a cluster's namespace service listens when a job first needs it (port 0: a free port, kept for its restarts); for Slurm on " +
      "several nodes give an address every node reaches, e.g. `tcp://login1:7345` or ADVERTISE@BIND",
  },
  dashboardListen: {
    env: "FRAY_DASHBOARD_LISTEN",
    kind: "text",
    default: "127.0.0.1:0",
    doc:
      "where a cluster's namespace service serves its dashboard (`host:port`; port 0: a free one, recorded in its `service.json`); every " +
      "request needs the cluster's token",
  },
  advertiseHost: {
    env: "FRAY_ADVERTISE_HOST",
    kind: "text",
    shown: "none: a client listens on a Unix socket until it talks to a peer on another host, then on TCP at its address on that network",
    doc:
      "the IP or host name peers on other hosts reach this process at; a client (a driver) then listens on TCP there from its start, so the " +
      "ports, buffers and actors it hands out work on every host",
  },
  workerHost: { env: "FRAY_WORKER_HOST", kind: "text", shown: "the node's host name", doc: "the host a `SlurmJob` worker tells the client to reach it at" },
  replicaId: { env: "FRAY_REPLICA_ID", kind: "given", doc: "a cluster job replica's index, 0 to count − 1" },
  replicaCount: { env: "FRAY_REPLICA_COUNT", kind: "given", doc: "how many replicas the cluster job has" },
  processId: { env: "FRAY_PROCESS_ID", kind: "given", doc: "which of its replica's processes this is, 0 to `processesPerTask` − 1" },
  processCount: { env: "FRAY_PROCESS_COUNT", kind: "given", doc: "how many processes each replica of the cluster job runs (`processesPerTask`)" },
  reportDir: {
    env: "FRAY_REPORT_DIR",
    kind: "given",
    doc: "where a cluster job's processes write their reports for the dashboard (one file per process; in the job's state directory)",
  },
  replicaExitFile: { env: "FRAY_REPLICA_EXIT_FILE", kind: "given", doc: "the file where a replica's exit codes and error are recorded" },
  procAddr: { env: "FRAY_PROC_ADDR", kind: "given", doc: "the address a worker process started by `spawnProcs()` serves at" },
  parentAddr: { env: "FRAY_PARENT_ADDR", kind: "given", doc: "the address of the process that started this worker" },
} as const satisfies Record<string, Setting>;

export type SettingKey = keyof typeof SETTINGS;

/** The default as README shows it: "30000", "1073741824 (1 GiB)", "`local`", "(set by fray)". */
export function shownDefault(setting: Setting): string {
  if (isNumberSetting(setting)) {
    const gib = setting.default / 2 ** 30;
    return setting.kind === "bytes" && Number.isInteger(gib) ? `${setting.default} (${gib} GiB)` : String(setting.default);
  }
  if (setting.kind === "given") return "(set by fray)";
  return setting.shown ?? (setting.default === undefined ? "(none)" : `\`${setting.default}\``);
}

/** What README says a setting bounds or names, with its upper limit. */
export function shownDoc(setting: Setting): string {
  if (!isNumberSetting(setting)) return setting.doc;
  const bounds = [setting.min !== undefined && `at least ${setting.min}`, setting.max !== undefined && `at most ${setting.max}`].filter(Boolean);
  return bounds.length ? `${setting.doc} (${bounds.join(", ")})` : setting.doc;
}
